/*
 * The call-site registry: every struct bprint_site of every loaded object,
 * by id.  Ids go into each record's 18-bit site field; readers look them up
 * here.  The registry keeps its own copy of each site (strings and plan
 * included), so records stay decodable after their object is dlclose()d,
 * and readers never touch an object's memory.
 */
#ifndef BP_TRACE_SITE_H
#define BP_TRACE_SITE_H

#include <bprint.h>

#include "trace/record.h"

#include <stdbool.h>
#include <stdint.h>

/* Site ids fill the record's site field (trace/record.h). */
#define BP_SITE_MAX		BP_REC_SITE_MASK

/*
 * The longest format, file or function name a site may have, in bytes
 * without the NUL: a trace file's site record holds strings of 64 KiB at
 * most, NUL included, and its readers refuse a longer one
 * (docs/file-format.md, type 1), so the registry refuses such a site (a
 * runtime format that long is formatted at trace time instead).
 */
#define BP_SITE_TEXT_MAX	65535u

/* The largest scalar-only block that may take the words path (BPRINT__SITE_WORDS). */
#define BP_SITE_WORDS_MAX	64

/*
 * May plan's arguments come as the words site's call site compiled
 * (bprint__printk_words())?  Every kind but long double travels as a
 * word; as many as the plan takes, each string as a pointer.
 */
bool bp_site_takes_words(const struct bp_arg_plan *plan, const struct bprint_site *site);

/* Register one site now (the lazy path); returns its id, 0 if impossible. */
uint32_t bp_site_register(struct bprint_site *site);

/* The registry's copy of site id, or NULL. */
const struct bprint_site *bp_site_lookup(uint32_t id);

/* One past the highest id handed out. */
uint32_t bp_site_count(void);

/*
 * Derived sites (trace/fmtcache.c).  The registry's lock, taken only with
 * trylock (a signal handler must not wait for its own thread); with it
 * held, register a derived site of registered site parent_id: its file,
 * line and function with format (copied) as its format, its own id and
 * plan.  Returns the registry's copy, or NULL (no id or memory left).
 */
struct bp_fmt_cache;
bool bp_site_trylock(void);
void bp_site_unlock(void);
const struct bprint_site *bp_site_derive_locked(uint32_t parent_id, const char *format);

/*
 * The head (length, id) of the records of id that call site site may
 * write itself by plan (BPRINT__SITE_FAST): the plan has only 4- and
 * 8-byte scalars, sized as the compiler saw the site's arguments.  0 if
 * the call site cannot, or has no inline path on this machine.
 */
uint32_t bp_site_fast_head(const struct bp_arg_plan *plan, const struct bprint_site *site,
			   uint32_t id);

/* Where registered site id keeps its runtime-format cache, or NULL. */
struct bp_fmt_cache *_Atomic *bp_site_fmt_cache(uint32_t id);

/* One line (fmt ends with its newline) on stderr; async-signal-safe. */
void bp_site_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The global switch's bit (bprint__gate) changed: every live site's
 * enabled byte follows it, so that a call with tracing off costs what a
 * disabled site's does (one load and branch, no call).  The filters'
 * per-site state is kept and comes back with the switch.  A signal
 * handler that interrupts its own thread in the registry leaves the
 * sites as they are: the gate alone then stops the records.
 */
void bp_site_follow_switch(void);

/* Is pattern one that trace/pattern.h knows?  NULL, or what is wrong with it. */
const char *bp_site_pattern_problem(const char *pattern);

/*
 * The state of sites first, first + 1, ... (a bit each, 1 = enabled by
 * the filters; a runtime-format site's derived sites: their call site's),
 * at most nbits of them, into bits; *count the sites answered.  Returns
 * one past the highest site id.  Takes the registry lock.
 */
uint32_t bp_site_states(uint32_t first, uint8_t *bits, uint32_t nbits, uint32_t *count);

/* Apply BPRINT_FILTER (once, at start-up). */
void bp_site_filter_load(const char *spec);

/* fork(): take the registry lock in prepare, release it in parent and child. */
void bp_site_fork_prepare(void);
void bp_site_fork_release(void);

/* Drop every site and filter (tests). */
void bp_site_reset_for_test(void);

#endif /* BP_TRACE_SITE_H */
