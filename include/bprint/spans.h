/*
 * bprint/spans.h - spans made of two records, and where a span's time
 * went: what `bprint latency` (and --sched) pairs and splits.
 *
 *	bp_spans_new()      a pairing: a from-record opens a span under a key,
 *	                    a to-record of the same key closes one still open,
 *	                    chosen by the rule (enum bp_pair)
 *	bp_spans_open()     open a span at a from-record
 *	bp_spans_close()    close one at a to-record: the span, both ends
 *	bp_spans_is_open()  has the key a span open?
 *	bp_sched_new()      a thread's states from the scheduler's events
 *	bp_sched_event()    every event, in time order
 *	bp_sched_split()    a thread's time in [from, to]: running, runnable,
 *	                    blocked, and who ran instead and who woke it
 *
 * The key is the caller's (bprint/aggregate.h's struct bp_key: the -k
 * fields' values, or the thread).  A pairing keeps the open spans and the
 * distinct keys with open spans, and a bounded number of keys whose spans
 * all closed (a key that comes back soon finds its place still there);
 * opens never closed and closes without an open are counted, never
 * dropped silently.
 *
 * The scheduler's states come from a record --kernel trace
 * (docs/kernel-stream.md): sched_switch (prev to runnable if preempted,
 * R or R+, else to blocked; next to running), sched_waking, sched_wakeup
 * and sched_wakeup_new (to runnable: who woke it).  Each thread keeps its
 * last changes (memory stays bounded): time before the first one kept is
 * unknown, said as such rather than guessed.
 *
 * struct bp_span_end and struct bp_span are values whose layout is fixed
 * (a new need gets a new call, not a new member); struct bp_sched_split
 * begins with its size, set by the caller, and grows at the end.  Neither
 * handle is thread-safe.
 */
#ifndef BPRINT_SPANS_H
#define BPRINT_SPANS_H

#include <bprint/reader.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One end of a span: the record's time, thread and site. */
struct bp_span_end {
	uint64_t ns;
	int32_t tid;
	uint32_t site;
	uint32_t flags;		/* the caller's (say, "chosen by --where") */
};

/* A span closed by bp_spans_close(). */
struct bp_span {
	struct bp_span_end from, to;
	const unsigned char *key;	/* valid until the next call */
	size_t keylen;
	const unsigned char *by;	/* the value the span was opened with */
	size_t bylen;
};

/* Which open span of its key a "to" record closes. */
enum bp_pair {
	BP_PAIR_LATEST,		/* the most recent (a stack: the default) */
	BP_PAIR_FIFO,		/* the oldest (a queue) */
	BP_PAIR_ALL_BEFORE,	/* every one, oldest first: see bp_spans_close() */
};

struct bp_spans;

/* An empty pairing by rule pair; NULL if memory ran out. */
BP_API struct bp_spans *bp_spans_new(enum bp_pair pair);
BP_API void bp_spans_free(struct bp_spans *s);

/* Open a span under key; by (may be empty) is handed back when it closes.
 * 1, or 0 if memory ran out. */
BP_API bool bp_spans_open(struct bp_spans *s, const unsigned char *key, size_t keylen,
			   const struct bp_span_end *from, const unsigned char *by, size_t bylen);

/* Close an open span of key at `to`, the most recent (BP_PAIR_LATEST) or
 * the oldest (the others): 1 and *out filled, or 0 (no span of key is
 * open: counted, bp_spans_unmatched_closes()), -1 if memory ran out.
 * Under BP_PAIR_ALL_BEFORE the caller closes again while
 * bp_spans_is_open(). */
BP_API int bp_spans_close(struct bp_spans *s, const unsigned char *key, size_t keylen,
			  const struct bp_span_end *to, struct bp_span *out);

/* Does key have a span open? */
BP_API bool bp_spans_is_open(struct bp_spans *s, const unsigned char *key, size_t keylen);

/* Spans open now whose from.flags has every bit of flags. */
BP_API uint64_t bp_spans_count_open(const struct bp_spans *s, uint32_t flags);
/* Closes that found no span open. */
BP_API uint64_t bp_spans_unmatched_closes(const struct bp_spans *s);

/* ---- the scheduler split ------------------------------------------------ */

#define BP_SCHED_WHO 3u		/* threads named a split: ran instead, woke it */

/* A waker that is the idle task (tid 0 in the kernel's events): a timer or
 * device interrupt woke the thread while its CPU had nothing to run.  Not
 * 0, which ends a list. */
#define BP_SCHED_IDLE (-1)

struct bp_sched_split {
	uint32_t size;				/* the caller's sizeof: BP_SCHED_SPLIT_INIT */
	uint32_t reserved;
	uint64_t running, runnable, blocked, unknown;	/* ns */
	int32_t instead[BP_SCHED_WHO];		/* who ran while it was runnable, */
	uint64_t instead_ns[BP_SCHED_WHO];	/* most first, and how long */
	int32_t waker[BP_SCHED_WHO];		/* who woke it (0: none; BP_SCHED_IDLE:
						 * an interrupt on an idle CPU) */
};
#define BP_SCHED_SPLIT_INIT { .size = sizeof(struct bp_sched_split) }

struct bp_sched;

/* NULL if memory ran out. */
BP_API struct bp_sched *bp_sched_new(void);
BP_API void bp_sched_free(struct bp_sched *s);

/* Event e of t (any record: those not of the scheduler are passed over;
 * read with its time, thread and fields: not BP_TRACE_NEXT_ARGS_ONLY).
 * 1, or 0 if memory ran out. */
BP_API bool bp_sched_event(struct bp_sched *s, struct bp_trace *t,
			    const struct bp_trace_event *e);

/* Did any scheduler event come (else the trace has none: no --kernel)? */
BP_API bool bp_sched_seen(const struct bp_sched *s);

/* Thread tid's time in [from, to] (ns) into *out, as far as out->size
 * reaches. */
BP_API void bp_sched_split(const struct bp_sched *s, int32_t tid, uint64_t from, uint64_t to,
			   struct bp_sched_split *out);

/* A thread's last name seen in the events ("<...>" if none). */
BP_API const char *bp_sched_comm(const struct bp_sched *s, int32_t tid);

/* The tid to show for who: 0 for BP_SCHED_IDLE, as the kernel names it. */
static inline int32_t bp_sched_tid(int32_t who)
{
	return who == BP_SCHED_IDLE ? 0 : who;
}

#if !defined(__cplusplus) && UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(struct bp_span) == 80, "bp_span's layout is fixed");
#endif

#ifdef __cplusplus
}
#endif

#endif /* BPRINT_SPANS_H */
