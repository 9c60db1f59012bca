/*
 * output/wallclock.h - wall-clock dates of a trace's timestamps, the one
 * rule that the CTF clock, `bprint report --date` and any other exporter
 * share: a record's date is its timestamp plus the offset
 * start_realtime_ns - start_mono_ns of the file header (both taken at the
 * file's creation).  That holds for the clocks whose nanoseconds are
 * CLOCK_MONOTONIC's: mono, tsc (calibrated against CLOCK_MONOTONIC) and,
 * within its NTP slew, mono_raw.  boot (which also counts suspend) and
 * counter (not a time) have no dates.
 */
#ifndef BP_OUTPUT_WALLCLOCK_H
#define BP_OUTPUT_WALLCLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_trace_info;

/* 0 and *offset_ns (realtime - trace clock), or -1 if the trace's clock
 * or its header gives no date. */
int bp_out_wallclock_offset(const struct bp_trace_info *info, int64_t *offset_ns);

/*
 * A date as ISO-8601 with nanoseconds and the zone's offset from UTC:
 * "2026-12-03T19:07:26.573637466+01:00" in local time (TZ), or with utc
 * "2026-12-03T18:07:26.573637466Z".  unix_ns counts from the epoch.  The
 * cache keeps the last second's text (zero it first; one per mode).
 * snprintf semantics on buf and size.
 */
struct bp_out_date_cache {
	bool have;
	int64_t sec;
	size_t len;
	char head[32];		/* "2026-12-03T19:07:26" */
	char zone[8];		/* "+01:00" or "Z" */
};

size_t bp_out_date(struct bp_out_date_cache *c, char *buf, size_t size, int64_t unix_ns,
		   bool utc);

#endif
