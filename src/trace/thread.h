/*
 * Per-thread trace buffers.
 *
 * Each thread that traces owns a descriptor with up to BP_NEST_MAX rings:
 * ring 0 for ordinary calls, ring n for a call made by a signal handler that
 * interrupted a call at level n - 1 (the kernel's trace_printk keeps one
 * buffer per context for the same reason).  Every ring therefore has
 * exactly one writer at a time and needs no atomic read-modify-write.
 * Nesting deeper than BP_NEST_MAX drops the record and counts it.
 *
 * Descriptors are never freed, only recycled: they sit on one lock-free
 * list (pushed with a CAS, on the slow path only), so a reader, even one in
 * a crash handler, can always walk it.  Ring memory is mmap'd when a ring
 * is first used (so even the first trace of a thread may come from a
 * signal handler) and unmapped when the thread has exited and a consumer
 * has drained it; the descriptor then waits for the next new thread.
 *
 *	state:  FREE --claim--> CLAIMED --rings ready--> ALIVE --exit--> DEAD
 *	          ^                                                        |
 *	          +--- drained by a consumer, or beyond the budget: unmapped +
 *
 * Thread creation and exit cost O(1) whatever the number of threads seen:
 * FREE descriptors wait on a stack, so a claim never walks the list.  At
 * exit a thread gives back the pages of its anonymous rings that never
 * held a record (they read as zero again, as the ring was made),
 * and all the pages of its rings in the backing's file (the file keeps
 * them), and joins the queue of exited threads, oldest first.  What the
 * queue keeps is bounded by BPRINT_RETAIN, counting anonymous rings by
 * their resident pages and file rings whole (the file's size is bounded
 * too): beyond it the oldest exited threads are unmapped and their unread
 * records counted as overwritten (bprint_stats() shows them in one entry
 * with tid -1), and the backing may reuse their file space.  Under bprint
 * record, exited threads whose rings the copier has copied are given back
 * at once, nothing lost.
 *
 * Which calls need which lock:
 *   writer (the owning thread):     none
 *   claim / push a descriptor:      none (CAS)
 *   snapshot readers:               readers_lock shared
 *   the consumer:                   consumer_lock, readers_lock shared
 *   unmapping a drained DEAD ring:  readers_lock exclusive (trylock)
 *   free stack, dead queue:         bp_list_lock (trylock in a claim)
 * docs/locks.md gives every lock's rule at fork().
 */
#ifndef BP_TRACE_THREAD_H
#define BP_TRACE_THREAD_H

#include "ring/ring.h"

#include <bprint.h>	/* struct bprint__tls, the window */

#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define BP_NEST_MAX 4
#define BP_NO_CPU UINT32_MAX

enum bp_thread_state {
	BP_THREAD_FREE = 0,
	BP_THREAD_CLAIMED,
	BP_THREAD_ALIVE,
	BP_THREAD_DEAD,
};

/*
 * A reader's position in one ring: its cursor, the CPU in force there, and
 * the record it has taken out of the ring but not yet handed on (readers
 * merge rings by timestamp, so each keeps one record in hand).  The
 * consumer's state lives with the ring, so trace_pipe semantics hold
 * across reader sessions; a snapshot reader has its own.
 */
struct bp_read_state {
	struct bp_ring_cursor cursor;
	int ready;			/* cursor initialised */
	int has_peek;			/* ev and buf hold a record not yet returned */
	int32_t cpu;			/* from the last CPU prefix, -1 = unknown */
	struct bp_ring_event ev;
	void *buf;			/* page_size bytes, mmap'd */
	size_t cap;
};

/* Free a read state's buffer and forget its position. */
void bp_read_state_release(struct bp_read_state *st);

struct bp_thread_ring {
	/* writer side */
	struct bp_ring_writer w;
	uint32_t last_cpu;		/* CPU of the last CPU-prefixed record */
	/* shared: set once by the writer, read by readers */
	_Atomic(void *) mem;
	size_t bytes;
	bool map_failed;		/* the writer's: mapping it failed, not tried again */
	/* the consumer's side, under consumer_lock */
	struct bp_read_state consumer;
	/* what the consumer has handed out, for bprint_stats() (relaxed atomics) */
	_Atomic uint64_t consumer_read;
	_Atomic uint64_t consumer_overwritten;
};

struct bp_thread {
	_Atomic int state;		/* enum bp_thread_state */
	int32_t tid;
	char comm[16];
	const volatile uint32_t *cpu_id; /* the kernel's rseq cpu_id, or a never-matching constant */
	_Atomic uint64_t too_deep;	/* records dropped: nested beyond BP_NEST_MAX */
	_Atomic uint64_t no_memory;	/* records dropped: a ring could not be mapped */
	_Atomic uint64_t unregistered;	/* records dropped: their site could not be
					 * registered (emit.c, register_now()) */
	uint64_t generation;		/* bumped at each claim */
	struct bp_thread_ring ring[BP_NEST_MAX];
	struct bp_thread *next;		/* list, immutable once pushed */
	/* under bp_list_lock */
	struct bp_thread *free_next;	/* FREE: the stack of descriptors to claim */
	struct bp_thread *dead_prev;	/* DEAD with anonymous rings: the queue, oldest first */
	struct bp_thread *dead_next;
	size_t retained;		/* DEAD: ring bytes still resident, counted in the budget */
	int queued;			/* on the dead queue */
	int in_file;			/* DEAD: its rings are all in the backing's file
					 * (retained counts them whole): retired only
					 * when a new ring needs the room */
};

extern _Atomic(struct bp_thread *) bp_threads;
extern pthread_rwlock_t bp_readers_lock;
extern pthread_mutex_t bp_consumer_lock;
/* initial-exec: one %fs-relative load on the hot path, no __tls_get_addr call. */
extern __thread struct bp_thread *bp_self
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

/* The calling thread's descriptor, made on first use; NULL if out of memory. */
struct bp_thread *bp_thread_self_slow(void);
/* A free descriptor made ahead, if none waits (the ring pool's thread). */
void bp_thread_spare(void);

/* The records t dropped before any ring (written and discarded at once).
 * Relaxed: counts with one writer each, read as values. */
static inline uint64_t bp_thread_dropped(const struct bp_thread *t)
{
	return atomic_load_explicit(&t->too_deep, memory_order_relaxed) +
	       atomic_load_explicit(&t->no_memory, memory_order_relaxed) +
	       atomic_load_explicit(&t->unregistered, memory_order_relaxed);
}

/*
 * Point the calling thread's inline fast path (bprint__tls) at the page
 * ring 0 of t is filling, t being the caller's descriptor; after every use
 * of ring 0 out of line.  bp_thread_window_close() takes the window away
 * (ring 0 catching up first).  Inline: every out-of-line call ends with
 * it.
 */
static inline void bp_thread_window_push(struct bp_thread *t)
{
	struct bp_thread_ring *r = &t->ring[0];
	struct bp_ring_writer *w = &r->w;
	struct bprint__tls *f = &bprint__tls;

	f->off = w->off;
	f->end = w->end;
	f->rec = w->rec;
	f->base = w->base_ts;
	f->written = (uint64_t *)(void *)&w->ctl->written;
	f->last_cpu = r->last_cpu;
	f->cpu = t->cpu_id;
}

void bp_thread_window_close(struct bp_thread *t);

/* Map ring level of t on first use.  Returns NULL if it cannot. */
struct bp_thread_ring *bp_thread_ring_slow(struct bp_thread *t, unsigned level);

/* Writer-side ring of the calling thread at level, mapped on first use. */
static inline struct bp_thread_ring *bp_thread_ring(struct bp_thread *t, unsigned level)
{
	struct bp_thread_ring *r = &t->ring[level];

	/* relaxed: this thread mapped its rings itself (T1 is for others) */
	if (__builtin_expect(atomic_load_explicit(&r->mem, memory_order_relaxed) != NULL, 1))
		return r;
	return bp_thread_ring_slow(t, level);
}

/* Unmap the rings of DEAD threads whose consumer cursors are drained, then apply the budget. */
void bp_thread_reclaim(void);

/* Unmap the oldest DEAD threads beyond BPRINT_RETAIN, if no reader is in
 * the way: those whose rings hold memory.  Those whose rings are all in
 * the backing's file cost no memory, and retiring one frees nothing but
 * its chunk for a new ring: they wait for bp_thread_retain_make_room(). */
void bp_thread_retain_enforce(void);

/* A new thread is about to take a ring: retire the oldest DEAD threads
 * kept in the file beyond BPRINT_RETAIN, so that their chunks are reused
 * instead of the file growing.  Nothing if a lock or a reader is in the
 * way (it may run in a signal handler's first trace). */
void bp_thread_retain_make_room(void);

/* The make-room a new thread could not do (a lock taken: the pool's own
 * work on the list, say), done now if one is owed: for the ring pool's
 * fill (writer_pool.c), which would otherwise take a new chunk where the
 * new thread's retiring would have freed one.  Nothing else: the pool
 * fills for a thread that may never come, and an exited thread's records
 * are let go only for one that did. */
void bp_thread_retain_owed_room(void);

/* Records of threads that got no ring 0 (no memory for it, or for their
 * descriptor): written and lost at once, summed here since those threads
 * have no descriptor to count them in.  Relaxed: a count, read as a value. */
extern _Atomic uint64_t bp_no_ring_records;

/* What the threads dropped by the budget had, summed (bp_stats_collect()). */
struct bp_retired {
	_Atomic uint64_t written, discarded, read, overwritten;
};
extern struct bp_retired bp_retired;

/* Fork child and start-up hooks. */
void bp_thread_init(void);

#endif /* BP_TRACE_THREAD_H */
