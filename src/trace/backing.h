/*
 * Where ring memory comes from, and who hears about new call sites and
 * threads.  By default rings are anonymous memory and nobody listens; with
 * BPRINT_FILE the trace-file writer (src/file/) installs itself here before
 * the first trace, so rings live in the file and survive the process.
 *
 * Every hook may be called from a signal handler (a thread's first trace,
 * a first nested trace), except site_added, which runs under the registry
 * lock in ordinary context.
 */
#ifndef BP_TRACE_BACKING_H
#define BP_TRACE_BACKING_H

#include <bprint.h>

#include <stddef.h>

struct bp_thread;

struct bp_backing {
	/* Memory for ring level of t (bytes long, zeroed, 64-byte aligned), or NULL. */
	void *(*ring_map)(struct bp_thread *t, unsigned level, size_t bytes);
	/* Give it back (after a consumer drained an exited thread, or in a fork child). */
	void (*ring_unmap)(struct bp_thread *t, unsigned level, void *mem, size_t bytes);
	/* A call site entered the registry: its copy, id set. */
	void (*site_added)(const struct bprint_site *site);
	/* t exited; t->comm holds its last name. */
	void (*thread_exit)(struct bp_thread *t);
	/* A fork child starts: forget the parent's file (the child gets no file). */
	void (*fork_child)(void);
};

/* NULL: anonymous memory.  Set once, before any thread traces. */
extern const struct bp_backing *bp_backing;

#endif /* BP_TRACE_BACKING_H */
