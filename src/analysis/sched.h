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

#include <bprint/reader.h>

#include <stdbool.h>
#include <stdint.h>

#define BP_SCHED_KEEP 8192u	/* state changes kept a thread */
#define BP_SCHED_WHO 3u		/* threads named a split: ran instead, woke it */

struct bp_sched;

struct bp_sched_split {
	uint64_t running, runnable, blocked, unknown;	/* ns */
	int32_t instead[BP_SCHED_WHO];		/* who ran while it was runnable, */
	uint64_t instead_ns[BP_SCHED_WHO];	/* most first, and how long */
	int32_t waker[BP_SCHED_WHO];		/* who woke it (0: none; BP_SCHED_IDLE:
						 * an interrupt on an idle CPU) */
};

/* A waker that is the idle task (tid 0 in the kernel's events): a timer or
 * device interrupt woke the thread while its CPU had nothing to run.  Not
 * 0, which ends a list. */
#define BP_SCHED_IDLE (-1)

struct bp_sched *bp_sched_new(void);
void bp_sched_free(struct bp_sched *s);

/* Event e of t (any record: those not of the scheduler are passed over).
 * false if memory ran out. */
bool bp_sched_event(struct bp_sched *s, struct bp_trace *t, const struct bp_trace_event *e);

/* Did any scheduler event come (else the trace has none: no --kernel)? */
bool bp_sched_seen(const struct bp_sched *s);

/* Thread tid's time in [from, to] (ns). */
void bp_sched_split(const struct bp_sched *s, int32_t tid, uint64_t from, uint64_t to,
		    struct bp_sched_split *out);

/* A thread's last name seen in the events ("<...>" if none). */
const char *bp_sched_comm(const struct bp_sched *s, int32_t tid);
/* The tid to show for who: 0 for BP_SCHED_IDLE, as the kernel names it. */
static inline int32_t bp_sched_tid(int32_t who)
{
	return who == BP_SCHED_IDLE ? 0 : who;
}

#endif /* BP_ANALYSIS_SCHED_H */
