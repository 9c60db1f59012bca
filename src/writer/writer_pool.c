/*
 * Rings faulted in ahead (writer_pool.h): a few ring chunks of the live
 * file, mapped and made resident by a helper thread before any thread
 * asks for them, so that a new thread's first pass over its ring takes no
 * page fault at the call (docs/performance.md, "A fresh ring's page
 * faults").
 *
 *	bprint-prefault thread                  a thread's first record
 *	  slot EMPTY -> FILLING                   (bp_live_ring_map, level 0)
 *	  a spare chunk, else a new one           slot READY -> TAKEN (CAS)
 *	  a write to each page of its first MiB   copy the mapping out
 *	  slot READY (release)                    slot EMPTY, count the doorbell
 *	  look at the doorbell every 1 ms for     a futex wake only if the
 *	  20 ms, then sleep on it                   thread sleeps on it
 *
 * The taker never waits and makes no allocation (it may be a signal
 * handler's first trace): a CAS, an increment, a clock read, and a futex
 * wake only when the pool's thread has gone to sleep ("Polled", below).
 * A pool that is empty (threads starting faster than it refills, or the
 * file full) leaves the taker to the ordinary path (writer_rings.c),
 * which faults its pages in at the call as before; the taker rings the
 * doorbell all the same, since a thread whose fill failed sleeps until
 * rung, and would otherwise stay asleep with the pool empty for good.
 *
 * A pooled chunk is, in the file, what a spare chunk is: a ring chunk of
 * state 0 ("being written") whose ring is zeros, which every reader and
 * bprint record's copier skip (docs/file-format.md, "Ring chunks
 * reused"); populating it writes nothing into it.  It becomes a ring only
 * when taken: bp_live_ring_map() fills its fields, gives it a new index
 * and publishes it, exactly as for a spare chunk.  A process that ends,
 * or is killed, with a ring in the pool leaves that chunk of state 0.
 *
 * The thread also makes the next thread's descriptor ahead
 * (bp_thread_spare(): its mmap and first fault are 6-7 us of a first
 * call), after each refill.
 *
 * Cost: BPRINT_PREFAULT rings (default 1), each at most 1 MiB resident
 * (the default ring size: a larger ring has only its first MiB faulted
 * in, the rest as the writer reaches it) while it waits in the pool; in
 * shared memory (docs/attach.md) the pages a thread did not write are
 * given back at its exit as before.  BPRINT_PREFAULT=0: no thread, no
 * pool.  Only a thread's ring 0 (a signal-nesting level's ring is a
 * sixteenth and rarely used), and only in the process that made the file
 * (a fork child makes its own file later, with no pool).
 *
 * Polled, not woken, while threads start: for 20 ms after the pool's
 * start and after each take the thread looks at the doorbell every 1 ms (a
 * futex wait with a timeout), and only then sleeps until a taker wakes
 * it.  The wake was the largest part of a thread's first call in a new
 * process (20-26 us of 48-53 on this VM, cold: a system call and a
 * wake-up of another CPU), and the refill it started 300 us later fell
 * into the new thread's first burst when that was longer (the other
 * CPU's page faults and zeroing of 1 MiB slowed 20,000 calls taking
 * 0.45 ms by about a tenth; docs/performance.md, "A fresh thread's
 * first calls, third pass").  A taker that finds the thread polling
 * increments the doorbell, notes the time of its take, and makes no
 * system call; the refill starts 300 us after the take as before, or
 * when the poll finds it (at most 1 ms after the take), so threads
 * started less than about 2 ms apart find the pool empty a little more
 * often (BPRINT_PREFAULT=N is for such bursts).  A thread that starts
 * later than that after the last take (or the program's start) wakes
 * the pool's thread as before.  The cost: up to 20 wake-ups of the
 * pool's thread after a program's start and after each new thread's
 * first record, about 17 us of CPU each on this VM (0.34 ms).  The
 * window is short because a program that starts a thread every window
 * pays it all the time: 100 ms would be 1.7 % of a CPU for one that
 * starts ten threads a second, 1 s 17 %.  A program's threads start
 * within milliseconds of each other; none is paid once they have.
 *
 * After a ring is taken the thread waits 300 us before it refills the
 * pool: the thread that took it is starting (its first call, its stack
 * and descriptor faulting in), and a refill then, on its CPU, made its
 * first call wait for the refill (a median of 0.1-0.5 ms instead of
 * 10-20 us).  And it refills on another CPU than the taker's: woken by
 * the taker, the kernel often puts it on the taker's CPU, where its timer
 * then wakes it, and a refill there took 0.2-0.7 ms from the new thread's
 * first burst (in bench/peers/short.sh, a third to two thirds of the runs
 * of the 40-character %s message took 2-4x the others' time for their
 * 20,000 calls).  So, its 300 us over, a thread that finds itself on the
 * taker's CPU (bp_current_cpu() at the take) leaves that CPU out of its
 * affinity for the refill (a migration, some microseconds of the
 * taker's CPU), and takes back the CPUs it was allowed at its start
 * before it waits again; not when it was allowed one CPU only.  Not at
 * the wake: moved then, it waited for the next ring's take on the other
 * CPU, and a wake across CPUs (an IPI, on a VM an exit) doubled the next
 * thread's first call in bench-first-call (10 -> 18-22 us of CPU).  The
 * refill costs 0.2-0.7 ms of CPU for 1 MiB on a busy 2-vCPU machine,
 * taken from whatever runs then, on another CPU than the new thread's.
 * Threads started closer together than the delay and the refill find
 * the pool empty and fault their pages in at the call as before;
 * BPRINT_PREFAULT=N keeps N rings for such bursts.  A normal thread: as
 * SCHED_BATCH or at nice 19 it waited behind the busy CPUs' other work,
 * and half of the threads started one after the other found the pool
 * empty (26-31 of 32 as a normal one); SCHED_BATCH only while it waits
 * for the doorbell (its wake then does not preempt the taker) left it
 * empty as often (5-19 of 32 found a ring, against 19-21 that run).
 */
#include "writer/writer_pool.h"

#include "writer/writer_live.h"
#include "writer/writer_thread.h"
#include "file/layout.h"
#include "ring/ring.h"
#include "trace/clock.h"
#include "trace/config.h"
#include "trace/cpu.h"
#include "trace/thread.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define POOL_MAX	8
#define POPULATE_MAX	((size_t)1 << 20)	/* the default ring size */
#define STACK_BYTES	(64u * 1024u)
#define STOP_WAIT_NS	20000000L	/* at exit: an allocation in flight, at most */
#define REFILL_DELAY_NS	300000L	/* after a ring is taken, before the refill */
#define POLL_NS		1000000L	/* the doorbell looked at this often ... */
#define POLLS		20u	/* ... this many times after a start or a take */

enum { SLOT_EMPTY, SLOT_FILLING, SLOT_READY, SLOT_TAKEN };

struct slot {
	_Atomic uint32_t state;
	struct bp_mapped m;		/* written before READY, read after TAKEN */
};

static struct slot slots[POOL_MAX];
static unsigned pool_rings;		/* 0: off; set before the thread starts */
static uint64_t pool_chunk_size;	/* a ring 0 chunk's size, as ring_map asks */
static _Atomic uint32_t doorbell;	/* a private futex word: a ring was taken */
static _Atomic bool pool_asleep;	/* the thread waits on the doorbell with no timeout */
static _Atomic bool stopping;		/* the file is being closed: allocate no more */
static _Atomic bool allocating;		/* the thread is between two chunk states */
static _Atomic int taker_cpu = -1;	/* where the last ring was taken, if known */
static _Atomic uint64_t taken_ns;	/* when (CLOCK_MONOTONIC), 0 if unknown */

/*
 * Until REFILL_DELAY_NS after the take: a take the thread's poll found
 * may be up to POLL_NS old already, and then the refill starts at once.
 */
static void refill_wait(void)
{
	uint64_t at = atomic_load_explicit(&taken_ns, memory_order_relaxed);
	int64_t left = REFILL_DELAY_NS;
	struct timespec nap = { 0, 0 };

	if (at > 0) {
		left = (int64_t)(at + REFILL_DELAY_NS - bp_clock_read_ns(CLOCK_MONOTONIC));
		if (left > REFILL_DELAY_NS)
			left = REFILL_DELAY_NS;
	}
	if (left <= 0)
		return;
	nap.tv_nsec = left;
	nanosleep(&nap, NULL);
}

/*
 * The size of ring 0 as the tracer asks for it (trace/thread.c,
 * ring_bytes(): the configured size in pages, at least 4) as a chunk.  A
 * request of any other size is not served from the pool.
 */
static uint64_t ring0_chunk_size(void)
{
	size_t pages = bp_config.buffer_bytes / bp_config.page_size;

	if (pages < 4)
		pages = 4;
	if (pages > UINT32_MAX)
		pages = UINT32_MAX;
	return bp_file_align_up(BP_FILE_RING_OFFSET +
				(uint64_t)bp_ring_bytes(bp_config.page_size, (uint32_t)pages));
}

/* BPRINT_PREFAULT: how many rings to keep faulted in (0-8), default 1. */
static unsigned configured_rings(void)
{
	const char *v = secure_getenv("BPRINT_PREFAULT");
	char *end;
	long n;

	if (!v || !*v)
		return 1;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || n < 0 || n > POOL_MAX) {
		static const char msg[] = "bprint: BPRINT_PREFAULT: a number of rings from 0 "
					  "to 8 (default 1 kept)\n";

		(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
		return 1;
	}
	return (unsigned)n;
}

/*
 * Fault in the chunk's first len bytes by writing to each of its pages (a
 * write that changes nothing: an atomic add of 0 to a byte of the chunk,
 * ours alone until it is taken), not with MADV_POPULATE_WRITE: that call
 * holds the process's mmap lock while it faults, and a thread that maps
 * or unmaps meanwhile (a new thread's stack, its descriptor, its ring
 * when the pool is empty) waits for it (a first call took 30-90 us
 * instead of 15 that way); a fault of its own takes only the lock of the
 * mapping it is in, where the kernel has per-mapping locks (Linux 6.4).
 */
static void populate(const struct bp_mapped *m, size_t len)
{
	unsigned char *chunk = (unsigned char *)m->chunk;
	uintptr_t page = bp_live.sys_page;

	for (uintptr_t a = (uintptr_t)chunk; a < (uintptr_t)chunk + len;
	     a = (a & ~(page - 1)) + page)
		__atomic_fetch_add((unsigned char *)a, 0, __ATOMIC_RELAXED);
}

/* One ring into an empty slot; false if no chunk could be had. */
static bool fill(struct slot *s)
{
	struct bp_mapped m;
	size_t len;
	int rc;

	bp_thread_retain_owed_room();
	atomic_store(&allocating, true);	/* seq_cst: with stopping, a Dekker pair */
	if (atomic_load(&stopping)) {
		atomic_store(&allocating, false);
		return false;
	}
	rc = bp_live_ring_chunk_get(pool_chunk_size, &m);
	atomic_store(&allocating, false);
	if (rc != 0)
		return false;
	len = (size_t)m.chunk->size;
	if (len > POPULATE_MAX + BP_FILE_RING_OFFSET)
		len = POPULATE_MAX + BP_FILE_RING_OFFSET;
	populate(&m, len);
	s->m = m;
	/* P1: the mapping (and the chunk header take_spare or the allocation
	 * wrote) before READY; pairs with the taker's acquire CAS. */
	atomic_store_explicit(&s->state, SLOT_READY, memory_order_release);
	return true;
}

/*
 * Move off cpu (the CPU of the thread that took the last ring) to
 * another of those the thread was allowed at its start, for the refill:
 * false when there is none (nothing changed).
 */
static bool refill_away_from(const cpu_set_t *allowed, int cpu)
{
	cpu_set_t set = *allowed;

	if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET((size_t)cpu, allowed))
		return false;
	CPU_CLR((size_t)cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0;
}

static void *pool_main(void *arg)
{
	cpu_set_t allowed;
	bool steer = sched_getaffinity(0, sizeof(allowed), &allowed) == 0 &&
		     CPU_COUNT(&allowed) > 1;
	bool steered = false;
	const struct timespec poll_wait = { 0, POLL_NS };
	unsigned polls = POLLS;	/* left before the untimed sleep */
	uint32_t bell = atomic_load_explicit(&doorbell, memory_order_acquire);
	bool look = true;	/* the slots may need a ring */

	(void)arg;
	for (;;) {
		if (look) {
			for (unsigned i = 0; i < pool_rings; i++) {
				struct slot *s = &slots[i];

				/* P2: acquire, the taker's read of the mapping
				 * before we refill it: the doorbell we acquired
				 * may be an earlier one (a taker that found the
				 * pool empty), not this take's */
				if (atomic_load_explicit(&s->state, memory_order_acquire) !=
				    SLOT_EMPTY)
					continue;
				atomic_store_explicit(&s->state, SLOT_FILLING,
						      memory_order_relaxed);
				if (!fill(s)) {	/* the file full, or closing: until rung again */
					atomic_store_explicit(&s->state, SLOT_EMPTY,
							      memory_order_relaxed);
					polls = 0;
					break;
				}
			}
			bp_thread_spare();	/* and the next thread's descriptor */
			look = false;
		}
		if (steered) {	/* wait where it may run, as before */
			(void)sched_setaffinity(0, sizeof(allowed), &allowed);
			steered = false;
		}
		if (polls > 0) {
			polls--;
			(void)syscall(SYS_futex, (uint32_t *)&doorbell, FUTEX_WAIT_PRIVATE, bell,
				      &poll_wait, NULL, 0);
		} else {
			/* P3: seq_cst, a Dekker pair with the taker's increment
			 * and its load of pool_asleep: either it sees us asleep
			 * and wakes us, or the futex sees its increment (the
			 * kernel orders its read of the word after our store
			 * with a full barrier before it compares). */
			atomic_store(&pool_asleep, true);
			(void)syscall(SYS_futex, (uint32_t *)&doorbell, FUTEX_WAIT_PRIVATE, bell,
				      NULL, NULL, 0);
			atomic_store_explicit(&pool_asleep, false, memory_order_relaxed);
		}
		/* a take, or a taker that found the pool empty: look again */
		if (atomic_load_explicit(&doorbell, memory_order_acquire) != bell) {
			int taker;

			/* taken: the thread that took a ring is starting;
			 * refill after its first burst, not in it, and not on
			 * its CPU; and look often again for a while */
			bell = atomic_load_explicit(&doorbell, memory_order_acquire);
			look = true;
			polls = POLLS;
			refill_wait();
			taker = atomic_load_explicit(&taker_cpu, memory_order_relaxed);
			if (steer && taker >= 0 && sched_getcpu() == taker)
				steered = refill_away_from(&allowed, taker);
		}
	}
	return NULL;
}

static struct bp_helper pool_thread;

void bp_live_pool_start(void)
{
	pool_rings = configured_rings();
	if (!pool_rings)
		return;
	pool_chunk_size = ring0_chunk_size();
	if (bp_helper_start(&pool_thread, pool_main, NULL, STACK_BYTES, "bprint-prefault") != 0)
		pool_rings = 0;
}

/* Tell the pool's thread that a thread has started: it refills (after
 * REFILL_DELAY_NS, away from this CPU) what is empty. */
static void ring_doorbell(void)
{
	atomic_store_explicit(&taker_cpu, bp_current_cpu(), memory_order_relaxed);
	atomic_store_explicit(&taken_ns, bp_clock_read_ns(CLOCK_MONOTONIC), memory_order_relaxed);
	atomic_fetch_add(&doorbell, 1);	/* seq_cst: P3 */
	if (atomic_load(&pool_asleep))	/* else it looks within POLL_NS */
		(void)syscall(SYS_futex, (uint32_t *)&doorbell, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/*
 * A ring from the pool, or -1.  Found empty, the pool is rung all the
 * same: its thread sleeps with no timeout after a fill that failed (no
 * room, no spare chunk), and only a taker wakes it, so a pool that is
 * never rung when empty would stay empty for good, even once room or a
 * spare chunk is back.
 */
int bp_live_pool_take(uint64_t size, struct bp_mapped *m)
{
	if (!pool_rings || size != pool_chunk_size)
		return -1;
	for (unsigned i = 0; i < pool_rings; i++) {
		struct slot *s = &slots[i];
		uint32_t ready = SLOT_READY;

		/* P1: acquire, the mapping the thread stored before READY */
		if (!atomic_compare_exchange_strong_explicit(&s->state, &ready, SLOT_TAKEN,
							     memory_order_acquire,
							     memory_order_relaxed))
			continue;
		*m = s->m;
		/* P2: release: our read of the mapping before the thread
		 * refills the slot (it acquires the state) */
		atomic_store_explicit(&s->state, SLOT_EMPTY, memory_order_release);
		ring_doorbell();
		return 0;
	}
	ring_doorbell();
	return -1;
}

void bp_live_pool_stop(void)
{
	long waited = 0;

	atomic_store(&stopping, true);	/* seq_cst: see fill() */
	while (atomic_load(&allocating) && waited < STOP_WAIT_NS) {
		struct timespec nap = { 0, 50000 };

		nanosleep(&nap, NULL);
		waited += nap.tv_nsec;
	}
}

void bp_live_pool_fork_child(void)
{
	/* Only this thread runs (the pool's thread is not in the child): the
	 * rings ready are the parent's chunks; a slot being filled had no
	 * mapping stored yet. */
	for (unsigned i = 0; i < POOL_MAX; i++) {
		if (atomic_load_explicit(&slots[i].state, memory_order_relaxed) == SLOT_READY)
			munmap(slots[i].m.base, slots[i].m.len);
		atomic_store_explicit(&slots[i].state, SLOT_EMPTY, memory_order_relaxed);
	}
	pool_rings = 0;
}
