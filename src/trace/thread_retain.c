/*
 * Exited threads' rings (thread.h): an exited thread is trimmed and
 * queued, oldest first, its rings kept for the readers within
 * BPRINT_RETAIN; a thread whose rings the consumer has drained, or the
 * copier of bprint record has copied, is given back; beyond the budget the
 * oldest are retired (their unread records counted in bp_retired).  Apart
 * from thread.c, which makes descriptors and maps rings for live threads:
 * this is the queue of dead ones and what frees them.  The queue and the
 * free stack share bp_list_lock (thread_lists.h).
 */
#include "trace/thread.h"

#include "trace/thread_lists.h"
#include "trace/backing.h"
#include "trace/config.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* Under bp_list_lock: the DEAD descriptors in exit order, and what they
 * cost the budget: in memory, and kept whole in the backing's file. */
static struct bp_thread *dead_head, *dead_tail;
static size_t retained_total, retained_file;

void bp_thread_dead_forget(void)
{
	dead_head = dead_tail = NULL;
	retained_total = retained_file = 0;
}

/* With bp_list_lock: take t off the dead queue, if it is on it. */
static void dequeue_dead(struct bp_thread *t)
{
	if (!t->queued)
		return;
	if (t->dead_prev)
		t->dead_prev->dead_next = t->dead_next;
	else
		dead_head = t->dead_next;
	if (t->dead_next)
		t->dead_next->dead_prev = t->dead_prev;
	else
		dead_tail = t->dead_prev;
	t->dead_prev = t->dead_next = NULL;
	t->queued = 0;
	if (t->in_file)
		retained_file -= t->retained;
	else
		retained_total -= t->retained;
	t->retained = 0;
	t->in_file = 0;
}

/*
 * Give back the pages of an exited thread's anonymous ring that never held
 * a record: the slots past head_seq, as zero as the ring was made.
 * A reader may be reading the ring meanwhile: it finds the same zeros.
 * A ring in the backing's file gives back all its pages: the file keeps
 * them, and a reader that reads them again faults them back in from it.
 * A ring in shared memory (docs/attach.md) is trimmed as an anonymous one.
 * Returns what the ring costs the budget: the bytes still resident, or,
 * in a file, the whole ring (BPRINT_RETAIN bounds the file too).
 */
static size_t trim_ring(struct bp_thread_ring *r, bool *in_file)
{
	void *mem = atomic_load_explicit(&r->mem, memory_order_acquire);	/* T2 */
	const struct bp_backing *b = bp_backing;
	/* shared memory (docs/attach.md): pages not written are holes, and a
	 * written one is given back by punching it out, not by unmapping */
	bool shared = mem && b && b->ring_in_memory && b->ring_in_memory(mem);
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct bp_ring_stats st;
	uintptr_t start, end;
	uint64_t used;

	if (mem && !shared && bp_thread_ring_in_file(mem)) {
		start = ((uintptr_t)mem + page - 1) & ~(page - 1);
		end = ((uintptr_t)mem + r->bytes) & ~(page - 1);
		if (start < end)
			(void)madvise((void *)start, end - start, MADV_DONTNEED);
		return r->bytes;
	}
	if (mem)
		*in_file = false;
	if (!mem || bp_ring_stats(mem, r->bytes, &st) != BP_RING_OK)
		return mem ? r->bytes : 0;
	used = st.head_seq < st.npages ? st.head_seq : st.npages;
	start = (uintptr_t)mem + BP_RING_CTL_BYTES + (uintptr_t)used * st.page_size;
	start = (start + page - 1) & ~(page - 1);
	end = ((uintptr_t)mem + r->bytes) & ~(page - 1);
	if (start < end && madvise((void *)start, end - start, shared ? MADV_REMOVE : MADV_DONTNEED) == 0)
		return r->bytes - (end - start);
	return r->bytes;
}

static void reclaim_copied(void);

/* The exited thread t (still ALIVE: nobody unmaps it) is trimmed, queued, then DEAD. */
void bp_thread_retain_dead(struct bp_thread *t)
{
	size_t kept = 0;
	bool over, in_file = true;

	for (unsigned i = 0; i < BP_NEST_MAX; i++)
		kept += trim_ring(&t->ring[i], &in_file);
	pthread_mutex_lock(&bp_list_lock);
	t->retained = kept;
	t->in_file = in_file && kept;
	t->queued = 1;
	t->dead_next = NULL;
	t->dead_prev = dead_tail;
	if (dead_tail)
		dead_tail->dead_next = t;
	else
		dead_head = t;
	dead_tail = t;
	if (t->in_file)
		retained_file += kept;
	else
		retained_total += kept;
	over = retained_total > bp_config.retain_bytes ||
	       (bp_config.record_pid && retained_file > bp_config.retain_bytes);
	/* DEAD once queued: reclaim and the budget find it on the queue.
	 * T4: its last name and counters before DEAD (T5). */
	atomic_store_explicit(&t->state, BP_THREAD_DEAD, memory_order_release);
	pthread_mutex_unlock(&bp_list_lock);
	reclaim_copied();
	if (over)
		bp_thread_retain_enforce();
}

/* Has the consumer read everything this ring will ever hold? */
static bool ring_drained(struct bp_thread_ring *r)
{
	/* T2: the pointer before the ring and r->bytes; pairs with T1. */
	void *mem = atomic_load_explicit(&r->mem, memory_order_acquire);
	struct bp_ring_stats st;

	if (!mem)
		return true;
	if (!r->consumer.ready || r->consumer.has_peek ||
	    bp_ring_stats(mem, r->bytes, &st) != BP_RING_OK)
		return false;
	return r->consumer.cursor.read + r->consumer.cursor.overwritten + st.discarded == st.written;
}

void bp_thread_reclaim(void)
{
	if (pthread_rwlock_trywrlock(&bp_readers_lock) != 0)
		return;
	/* T7: the list head before the descriptors on it; pairs with T6. */
	for (struct bp_thread *t = atomic_load_explicit(&bp_threads, memory_order_acquire); t;
	     t = t->next) {
		bool drained = true;

		/* T5: state before what it says is valid; pairs with T4. */
		if (atomic_load_explicit(&t->state, memory_order_acquire) != BP_THREAD_DEAD)
			continue;
		for (unsigned i = 0; i < BP_NEST_MAX; i++)
			drained = drained && ring_drained(&t->ring[i]);
		if (!drained)
			continue;
		bp_thread_unmap_rings(t, BP_RELEASE_READ);
		pthread_mutex_lock(&bp_list_lock);
		dequeue_dead(t);
		bp_thread_make_free(t);
		pthread_mutex_unlock(&bp_list_lock);
	}
	pthread_rwlock_unlock(&bp_readers_lock);
	bp_thread_retain_enforce();
}

/* Has the backing's consumer copied every ring of the exited thread t? */
static bool rings_copied(struct bp_thread *t)
{
	for (unsigned i = 0; i < BP_NEST_MAX; i++) {
		void *mem = atomic_load_explicit(&t->ring[i].mem, memory_order_acquire);	/* T2 */

		if (mem && !(bp_thread_ring_in_file(mem) && bp_backing->ring_copied(mem)))
			return false;
	}
	return true;
}

/*
 * Under bprint record: the exited threads whose rings the copier has
 * copied give them back at once (nothing is lost, and the file reuses
 * them), not when BPRINT_RETAIN is reached.  Called at each thread exit;
 * the queue holds few threads here (file rings count whole in the
 * budget), and without a copier there is nothing to look for.
 */
static void reclaim_copied(void)
{
	struct bp_thread *t, *next;

	if (!bp_config.record_pid || !bp_backing || !bp_backing->ring_copied ||
	    pthread_rwlock_trywrlock(&bp_readers_lock) != 0)
		return;
	pthread_mutex_lock(&bp_list_lock);
	for (t = dead_head; t; t = next) {
		next = t->dead_next;
		if (!rings_copied(t))
			continue;
		dequeue_dead(t);
		bp_thread_unmap_rings(t, BP_RELEASE_READ);
		bp_thread_make_free(t);
	}
	pthread_mutex_unlock(&bp_list_lock);
	pthread_rwlock_unlock(&bp_readers_lock);
}

/* relaxed: a count with one writer at a time (under the readers' lock
 * exclusive), read for stats; it orders nothing. */
static void add_relaxed(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/* With the readers' lock exclusive: t's records are dropped, counted in bp_retired. */
static void retire(struct bp_thread *t)
{
	uint64_t lost = bp_thread_dropped(t);

	add_relaxed(&bp_retired.written, lost);
	add_relaxed(&bp_retired.discarded, lost);
	for (unsigned i = 0; i < BP_NEST_MAX; i++) {
		struct bp_thread_ring *r = &t->ring[i];
		void *mem = atomic_load_explicit(&r->mem, memory_order_acquire);	/* T2 */
		/* relaxed: the consumer's count (its lock is not ours), a value only */
		uint64_t read = atomic_load_explicit(&r->consumer_read, memory_order_relaxed);
		struct bp_ring_stats st;

		if (!mem || bp_ring_stats(mem, r->bytes, &st) != BP_RING_OK)
			continue;
		add_relaxed(&bp_retired.written, st.written);
		add_relaxed(&bp_retired.discarded, st.discarded);
		add_relaxed(&bp_retired.read, read);
		/* all it stored and the consumer did not return, overwritten or not */
		add_relaxed(&bp_retired.overwritten, st.written - st.discarded - read);
	}
	bp_thread_unmap_rings(t, BP_RELEASE_LOST);
}

/* With both locks: retire the oldest dead threads of one kind (kept in
 * the file, or in memory) while their total is over the budget. */
static void retire_over(const size_t *total, int in_file)
{
	struct bp_thread *t = dead_head, *next;

	for (; t && *total > bp_config.retain_bytes; t = next) {
		next = t->dead_next;
		if (t->in_file != in_file)
			continue;
		dequeue_dead(t);
		retire(t);
		bp_thread_make_free(t);
	}
}

/*
 * Called at a thread's exit and at the end of a reader session.  With a
 * reader session open the budget waits for its end: the session may be
 * reading the oldest rings.  Without a copier, threads kept whole in the
 * file are left to bp_thread_retain_make_room(): a program whose threads
 * have all exited keeps their records in its file, which holds them
 * anyway (a 64 MiB ring and the 64 MiB budget retired every thread at
 * its exit: a file with no record of them).
 */
void bp_thread_retain_enforce(void)
{
	if (pthread_rwlock_trywrlock(&bp_readers_lock) != 0)
		return;
	pthread_mutex_lock(&bp_list_lock);
	retire_over(&retained_total, 0);
	/* Under bprint record a ring let go waits for the copier, whose
	 * records are not lost: at exit, so that settle() paces the threads
	 * that exit faster than the copier copies. */
	if (bp_config.record_pid)
		retire_over(&retained_file, 1);
	pthread_mutex_unlock(&bp_list_lock);
	pthread_rwlock_unlock(&bp_readers_lock);
	if (bp_backing && bp_backing->settle)
		bp_backing->settle();	/* with no lock held: it may wait for the consumer */
}

/* A make-room that found a lock taken: the pool's next fill makes it. */
static atomic_bool room_owed;

void bp_thread_retain_make_room(void)
{
	bool done = false;

	/* under bprint record, thread exits retire (and settle() paces them) */
	if (bp_config.record_pid)
		return;
	if (pthread_rwlock_trywrlock(&bp_readers_lock) == 0) {
		if (pthread_mutex_trylock(&bp_list_lock) == 0) {
			retire_over(&retained_file, 1);
			pthread_mutex_unlock(&bp_list_lock);
			done = true;
		}
		pthread_rwlock_unlock(&bp_readers_lock);
	}
	if (!done)
		atomic_store(&room_owed, true);
}

void bp_thread_retain_owed_room(void)
{
	if (atomic_exchange(&room_owed, false))
		bp_thread_retain_make_room();
}
