/*
 * The prefault thread (writer_prefault.h): a thread's new ring is mapped
 * without touching its pages (a thread's first call stays short), so its
 * writer's first pass would take a page fault every 4 KiB at the call
 * that crosses into the page, 0.25-0.29 us each (docs/performance.md).
 * Here one thread, started with the live file, faults them in instead,
 * ahead of the writer, with madvise(MADV_POPULATE_WRITE): the kernel
 * makes every page present and writable without writing a byte of it.
 *
 * Why not the control thread (writer_control.c): it sleeps on the control
 * word of the file's header, whose value only an asker (another process)
 * and that thread may change; a ring mapper could wake it but not change
 * the word, so a request queued between its look at the queue and its
 * futex wait would sleep until the next wake-up (FUTEX_WAIT compares one
 * word; waiting on two, futex_waitv, is Linux 5.16).  This thread sleeps
 * on a doorbell of its own that every request rings, so none is missed;
 * like the control thread it never runs unasked.
 *
 * The queue: a bounded lock-free FIFO of QUEUE_SLOTS (256) requests (Vyukov's),
 * many producers (a thread's first call, a signal handler's first nested
 * call: no lock, no allocation), one consumer (this thread).  A producer
 * claims a position with a CAS on tail, writes the request, then releases
 * the slot's sequence number (P1, paired with the consumer's acquire); a
 * handler that interrupts a producer of its own thread just claims the
 * next position, and the consumer waits for the first until the
 * interrupted producer finishes (which then rings the bell again).  Full:
 * the request is dropped, its writer faults its pages in as before.
 *
 * The ring may go while it is populated (its thread exits): before each
 * chunk the thread checks that the ring is still its thread's ring at
 * that level and its thread not DEAD (bp_thread_ring_is: loads from a
 * descriptor, which is never unmapped; an exited thread's ring is kept,
 * trimmed to its records, and must not be filled again), and stops when
 * not.  A chunk populated while the ring is trimmed stays resident.  Between that check and the madvise the
 * ring may still go; that is harmless: MADV_POPULATE_WRITE writes nothing,
 * so a chunk given back (a spare file chunk, whose old pages were just
 * dropped, reads as zero either way) costs at most one chunk of memory, an
 * unmapped range fails with ENOMEM, and a range mapped anew by someone
 * else only has its pages made present, its contents untouched.
 */
#include "file/writer_prefault.h"

#include "trace/backing.h"
#include "trace/config.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

#define QUEUE_SLOTS	256u
#define CHUNK_BYTES	(64u * 1024u)	/* between two looks at the ring */
#define STACK_BYTES	(64u * 1024u)

struct request {
	struct bp_thread *t;
	void *mem;
	size_t bytes;
	unsigned level;
};

/* seq is stored less the slot's index, so that all zeros is the empty
 * queue (slot i expects position i first) without an initialiser. */
struct slot {
	_Atomic size_t seq;
	struct request req;
};

static struct slot queue[QUEUE_SLOTS];
static _Atomic size_t tail;		/* the next position a producer claims */
static size_t head;			/* the thread's: the next position to take */
static _Atomic uint32_t doorbell;	/* rung after every request */
static atomic_bool running;		/* the thread exists: requests are taken */
static atomic_bool unsupported;		/* the kernel has no MADV_POPULATE_WRITE */
static uintptr_t sys_page;

static size_t slot_seq(size_t pos, memory_order mo)
{
	return atomic_load_explicit(&queue[pos % QUEUE_SLOTS].seq, mo) + pos % QUEUE_SLOTS;
}

static void set_slot_seq(size_t pos, size_t seq)
{
	/* P1: the request (or its being taken) before the new sequence */
	atomic_store_explicit(&queue[pos % QUEUE_SLOTS].seq, seq - pos % QUEUE_SLOTS,
			      memory_order_release);
}

static bool put(const struct request *q)
{
	/* relaxed: a first guess, the CAS checks it */
	size_t pos = atomic_load_explicit(&tail, memory_order_relaxed);

	for (;;) {
		/* P1: acquire, pairs with the consumer's release of the slot */
		size_t seq = slot_seq(pos, memory_order_acquire);

		if (seq == pos) {
			/* relaxed: the slot's sequence orders the request */
			if (atomic_compare_exchange_weak_explicit(&tail, &pos, pos + 1,
								  memory_order_relaxed,
								  memory_order_relaxed))
				break;
		} else if ((ptrdiff_t)(seq - pos) < 0) {
			return false;	/* full: the slot still holds an old request */
		} else {
			pos = atomic_load_explicit(&tail, memory_order_relaxed);
		}
	}
	queue[pos % QUEUE_SLOTS].req = *q;
	set_slot_seq(pos, pos + 1);
	return true;
}

static bool take(struct request *q)
{
	/* P1: acquire, pairs with the producer's release of the slot */
	if (slot_seq(head, memory_order_acquire) != head + 1)
		return false;
	*q = queue[head % QUEUE_SLOTS].req;
	set_slot_seq(head, head + QUEUE_SLOTS);
	head++;
	return true;
}

static void populate(const struct request *q)
{
	uintptr_t start = (uintptr_t)q->mem & ~(sys_page - 1);
	uintptr_t end = ((uintptr_t)q->mem + q->bytes + sys_page - 1) & ~(sys_page - 1);

	for (uintptr_t a = start; a < end; a += CHUNK_BYTES) {
		size_t len = end - a < CHUNK_BYTES ? end - a : CHUNK_BYTES;

		if (!bp_thread_ring_is(q->t, q->level, q->mem))
			return;	/* its thread gave it back */
		if (madvise((void *)a, len, MADV_POPULATE_WRITE) != 0) {
			if (errno == EINVAL)	/* before Linux 5.14: nothing to do */
				atomic_store_explicit(&unsupported, true, memory_order_relaxed);
			return;
		}
	}
}

static void *prefault_main(void *arg)
{
	struct sched_param batch = { 0 };

	(void)arg;
	/* SCHED_BATCH: a wake-up never preempts the thread that rang (as a
	 * normal thread woken on the caller's CPU does: a first call's median
	 * went from 22 to 62 us), and it still gets its share of a CPU
	 * (SCHED_IDLE did not, on a busy machine: no page was populated in
	 * time); not SCHED_IDLE either because it holds the process's mmap
	 * lock for reading while it populates, which an idle-class thread
	 * could keep for long when preempted, stalling every mmap. */
	(void)sched_setscheduler(0, SCHED_BATCH, &batch);
	for (;;) {
		/* acquire: pairs with the producers' release increment (P2) */
		uint32_t bell = atomic_load_explicit(&doorbell, memory_order_acquire);
		struct request q;

		while (take(&q))
			if (!atomic_load_explicit(&unsupported, memory_order_relaxed))
				populate(&q);
		/* a request queued since the load above changed the bell: no sleep */
		(void)syscall(SYS_futex, (uint32_t *)&doorbell, FUTEX_WAIT_PRIVATE, bell, NULL,
			      NULL, 0);
	}
	return NULL;
}

void bp_prefault_start(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t thread;
	int rc;

	if (!bp_config.prefault || pthread_attr_init(&attr) != 0)
		return;
	sys_page = (uintptr_t)sysconf(_SC_PAGESIZE);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, STACK_BYTES);
	/* every signal blocked: the program's signals go to its own threads */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&thread, &attr, prefault_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (rc != 0)
		return;
	pthread_setname_np(thread, "bprint-prefault");
	atomic_store_explicit(&running, true, memory_order_relaxed);
}

void bp_prefault_fork_child(void)
{
	/* Only this thread runs: the parent's requests are its threads'. */
	atomic_store_explicit(&running, false, memory_order_relaxed);
	for (size_t i = 0; i < QUEUE_SLOTS; i++)
		atomic_store_explicit(&queue[i].seq, 0, memory_order_relaxed);
	atomic_store_explicit(&tail, 0, memory_order_relaxed);
	head = 0;
}

void bp_prefault_ring_ready(struct bp_thread *t, unsigned level, void *mem, size_t bytes)
{
	struct request q = { t, mem, bytes, level };

	/* relaxed: hints; a request the thread cannot serve is not queued */
	if (!atomic_load_explicit(&running, memory_order_relaxed) ||
	    atomic_load_explicit(&unsupported, memory_order_relaxed) || !put(&q))
		return;
	/* P2: release, the request before the bell; pairs with the acquire above */
	atomic_fetch_add_explicit(&doorbell, 1, memory_order_release);
	(void)syscall(SYS_futex, (uint32_t *)&doorbell, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
