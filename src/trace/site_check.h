/*
 * trace/site_check.h - what the call-site registry (site.c) checks of a
 * call site, apart from its table and lock:
 *   site_refuse.c  sites it refuses (another bprint.h layout, a string too
 *                  long for a trace file), off and marked once;
 *   site_path.c    which path a registered site's calls take (the words
 *                  path, the inline fast path, the inline chars path).
 * Internal to the registry; bp_site_takes_words() and bp_site_fast_head()
 * (site_path.c too) are site.h's, for emit.c and fmtcache.c.
 */
#ifndef BP_TRACE_SITE_CHECK_H
#define BP_TRACE_SITE_CHECK_H

#include "trace/site.h"

#include <stdbool.h>
#include <stdint.h>

/* The inline fast path of include/bprint/internal.h exists on x86-64 only. */
#if defined(__x86_64__)
#define BP_SITE_INLINE 1
#else
#define BP_SITE_INLINE 0
#endif

/* ---- site_refuse.c ------------------------------------------------------ */

/*
 * With the registry's lock held: refuse a site compiled against another
 * bprint.h layout (off, and marked so that it is refused once); true if
 * it is newly refused.
 */
bool bp_site_refuse_foreign(struct bprint_site *site);

/* One line on stderr for n sites refused at once; async-signal-safe. */
void bp_site_say_refused(const struct bprint_site *first, unsigned n);

/* With the lock held: refuse a site with a string longer than a trace file
 * holds (BP_SITE_TEXT_MAX); true if it is refused. */
bool bp_site_refuse_long(struct bprint_site *site);

/* ---- site_path.c -------------------------------------------------------- */

/* The head word of a record of id whose block is plan's fixed words: its length and id. */
uint32_t bp_site_fixed_head(const struct bp_arg_plan *plan, uint32_t id);

/* site->argstar for a bp_site_plan_is_chars() plan: its %.*s, as the call site counts them. */
uint8_t bp_site_star_bits(const struct bp_arg_plan *plan);

/* May the call site write the block itself, chars and strings included
 * (BPRINT__SITE_CHARS)? */
bool bp_site_plan_is_chars(const struct bp_arg_plan *plan, const struct bprint_site *site);

#endif /* BP_TRACE_SITE_CHECK_H */
