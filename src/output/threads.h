/*
 * The exporters' table of threads seen in a trace, keyed by tid: open
 * addressing, at most half full, grown by doubling.  Each exporter keeps a
 * thread's name (to notice renames and to write saved cmdlines) and, for
 * trace.dat, the lane its records go to when their CPU is unknown.
 */
#ifndef BP_OUTPUT_THREADS_H
#define BP_OUTPUT_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_out_thread {
	int32_t tid;
	bool used;
	char comm[17];
	uint64_t records;	/* exported so far (the frame counts) */
	uint64_t lost;		/* records of its rings lost before them */
	void *lane;		/* the exporter's own, NULL until it sets one */
};

struct bp_out_threads {
	struct bp_out_thread *slot;
	size_t n, cap;		/* threads held, slots */
};

/*
 * The entry for tid, added (zeroed, *fresh set) if new.  NULL when out of
 * memory.  Pointers stay valid until the next call.
 */
struct bp_out_thread *bp_out_thread_get(struct bp_out_threads *t, int32_t tid, bool *fresh);

/* The entry for tid if it was seen, else NULL. */
struct bp_out_thread *bp_out_thread_find(const struct bp_out_threads *t, int32_t tid);

void bp_out_threads_free(struct bp_out_threads *t);

#endif
