/*
 * analysis/sched.h - where a thread's time went, from the scheduler's
 * events of a record --kernel trace (docs/kernel-stream.md): running (on
 * a CPU), runnable (woken or preempted, waiting for a CPU) or blocked
 * (asleep: S, D, ...).
 *
 * Fed every event in time order, it keeps each thread's state changes:
 * sched_switch (prev to runnable if it was preempted, R or R+, else to
 * blocked; next to running), sched_waking, sched_wakeup and
 * sched_wakeup_new (to runnable: who woke it, and who was running on the
 * CPU it waits for).  A split of [from, to] for a thread walks its changes
 * in that window; time before the thread's first change, or before the
 * oldest one kept, is unknown.  Each thread keeps its last
 * BP_SCHED_KEEP changes: memory stays bounded, and a span longer than
 * that says how much of it is unknown rather than guessing.
 */
#ifndef BP_ANALYSIS_SCHED_H
#define BP_ANALYSIS_SCHED_H

#include <bprint/spans.h>

#include <stdbool.h>
#include <stdint.h>

#define BP_SCHED_KEEP 8192u	/* state changes kept a thread */

/* The calls are bprint/spans.h's. */

#endif /* BP_ANALYSIS_SCHED_H */
