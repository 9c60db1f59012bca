/*
 * The runtime-format cache: a call site whose format is not a compile-time
 * constant (site->format NULL) still gets binary records for the formats
 * it repeats.  Each format seen gets a derived site in the registry
 * (site.h): the call site's file, line and function, that format, its own
 * id and plan.  Its records are the ordinary argument blocks of that id,
 * so readers, trace files and exporters see one more constant-format site
 * (docs/trace-format.md, "Runtime formats").
 */
#ifndef BP_TRACE_FMTCACHE_H
#define BP_TRACE_FMTCACHE_H

#include <bprint.h>

#include <stdint.h>

/* Formats one call site remembers for its hot lookup. */
#define BP_FMTCACHE_WAYS	4
/* Formats one call site learns, derived or not (beyond: text records). */
#define BP_FMTCACHE_SITE_MAX	64
/* Formats all call sites learn together: a bound on the registry ids and
 * memory that derived sites take (the registry holds BP_SITE_MAX ids). */
#define BP_FMTCACHE_ALL_MAX	16384

/*
 * The plan for fmt at registered call site *id (a site with a runtime
 * format): its derived site's plan, with *id set to the derived site's id;
 * or NULL, *id untouched, when the record is to be text: a format without
 * a plan, a bound reached, the registry's lock busy (a signal handler
 * never waits), no memory.  Lock-free when fmt was seen recently.
 * Learning a new format allocates and registers a site, which is not
 * async-signal-safe: may_learn false (a call nested in another of its
 * thread, so a signal handler's) only looks up, and is.
 */
const struct bp_arg_plan *bp_fmtcache_plan(const char *fmt, uint32_t *id, int may_learn);

/* bprint__format_head() (include/bprint/internal.h) is the cache's too:
 * the hot lookup, for a call site that writes its records itself. */

/* What the cache did so far (tests): lookups that missed and took the
 * lock, derived sites made, formats learnt without a plan, and formats
 * refused because a bound was reached. */
struct bp_fmtcache_counts {
	uint64_t misses;
	uint64_t derived;
	uint64_t planless;
	uint64_t refused;
};
void bp_fmtcache_counts(struct bp_fmtcache_counts *out);

#endif /* BP_TRACE_FMTCACHE_H */
