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

#include <stdint.h>

struct bp_trace_info;

/* 0 and *offset_ns (realtime - trace clock), or -1 if the trace's clock
 * or its header gives no date. */
int bp_out_wallclock_offset(const struct bp_trace_info *info, int64_t *offset_ns);

#endif
