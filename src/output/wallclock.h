/*
 * output/wallclock.h - wall-clock dates for the exporters that carry them
 * (Perfetto's clock snapshot; meant for CTF's clock offset and `report
 * --date` too, so that all give the same dates).  A trace file records
 * CLOCK_REALTIME and CLOCK_MONOTONIC at one instant, its creation; the
 * trace's nanoseconds are CLOCK_MONOTONIC ones for the mono and tsc clocks
 * (tsc is calibrated to it), so for those realtime = ns + offset.  The
 * other clocks (mono_raw, boot, counter) have no known relation to it.
 */
#ifndef BP_OUTPUT_WALLCLOCK_H
#define BP_OUTPUT_WALLCLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct bp_trace_info;

/* Whether the trace's clock is CLOCK_MONOTONIC-based; if so, *offset is
 * CLOCK_REALTIME minus CLOCK_MONOTONIC when the file was created. */
bool bp_out_realtime_offset(const struct bp_trace_info *info, int64_t *offset);

#endif
