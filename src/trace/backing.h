/*
 * Where ring memory comes from, and who hears about new call sites and
 * threads.  By default rings are anonymous memory and nobody listens; with
 * BPRINT_FILE the trace-file writer (src/writer/) installs itself here before
 * the first trace, so rings live in the file and survive the process.
 *
 * Every hook may be called from a signal handler (a thread's first trace,
 * a first nested trace), except site_added, which runs under the registry
 * lock in ordinary context.
 */
#ifndef BP_TRACE_BACKING_H
#define BP_TRACE_BACKING_H

#include <bprint.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_thread;

/* Why a ring is given back (bp_backing.ring_unmap). */
enum bp_ring_release {
	BP_RELEASE_READ,	/* nothing in it is lost: a consumer read it all, or it
				 * never held a record */
	BP_RELEASE_LOST,	/* BPRINT_RETAIN: its records not read elsewhere are lost */
	BP_RELEASE_CHILD,	/* a fork child forgets its parent's ring */
};

struct bp_backing {
	/* Memory for ring level of t (bytes long, 64-byte aligned), or NULL.
	 * The ring's page headers (at the page size in force) read as zero:
	 * new memory, or memory whose old ring's headers were cleared; the
	 * tracer formats it without writing them (bp_ring_init_clean). */
	void *(*ring_map)(struct bp_thread *t, unsigned level, size_t bytes);
	/* Give it back: an exited thread's ring, or a fork child's inherited one.
	 * Ordinary context only. */
	void (*ring_unmap)(struct bp_thread *t, unsigned level, void *mem, size_t bytes,
			   enum bp_ring_release why);
	/* Is mem, from ring_map, where a consumer (bprint record) will find it?
	 * Not when ring_map fell back to anonymous memory (the file full). */
	bool (*ring_in_file)(const void *mem);
	/* Has that consumer copied the whole ring of an exited thread (so that
	 * giving it back loses nothing)?  May be NULL. */
	bool (*ring_copied)(const void *mem);
	/* After a thread's exit gave rings back, outside every lock of the
	 * tracer: may wait, bounded, for the consumer to catch up with them
	 * (bprint record in block mode).  May be NULL. */
	void (*settle)(void);
	/* A call site entered the registry: its copy, id set. */
	void (*site_added)(const struct bprint_site *site);
	/* t exited; t->comm holds its last name. */
	void (*thread_exit)(struct bp_thread *t);
	/* A record was lost: its thread has no ring (none could be mapped,
	 * trace/thread.c).  Counted where a reader of the backing finds it.
	 * May be NULL. */
	void (*record_lost)(void);
	/* A fork is about to be made, before the tracer takes its locks for
	 * it: the backing's own threads settled.  May be NULL. */
	void (*fork_prepare)(void);
	/* A fork child starts: forget the parent's file (the child gets no file). */
	void (*fork_child)(void);
	/* Is mem, from ring_map, in shared memory that costs only the pages
	 * written, as anonymous memory does (docs/attach.md)?  An exited
	 * thread's ring there is trimmed and counted as an anonymous one.
	 * May be NULL. */
	bool (*ring_in_memory)(const void *mem);
};

/* NULL: anonymous memory.  Set once, before any thread traces. */
extern const struct bp_backing *bp_backing;

/*
 * What a backing may know of a thread: the hooks pass struct bp_thread as
 * an opaque handle, and this view is all a backing reads of it, so that
 * the descriptor's layout stays the tracer's own (trace/thread.h).
 * bp_thread_view() is async-signal-safe (loads only).
 */
#define BP_BACKING_RINGS 4		/* signal-nesting levels, BP_NEST_MAX */
struct bp_thread_view {
	int32_t tid;
	const char *comm;		/* 16 bytes, NUL-padded, maybe unterminated */
	uint64_t dropped;		/* records dropped before any ring (nested
					 * too deep, no memory for a ring) */
	void *ring_mem[BP_BACKING_RINGS];	/* per level, NULL while unmapped */
	size_t ring_bytes[BP_BACKING_RINGS];	/* their sizes */
};
void bp_thread_view(const struct bp_thread *t, struct bp_thread_view *out);

/* fn for every thread still alive (at exit: their last counters). */
void bp_threads_each_alive(void (*fn)(const struct bp_thread_view *v, void *ctx), void *ctx);

/* fn for every site of the registry so far, in id order, not under its
 * lock (a backing installed late replays the sites registered before it). */
void bp_sites_each(void (*fn)(const struct bprint_site *s, void *ctx), void *ctx);

#endif /* BP_TRACE_BACKING_H */
