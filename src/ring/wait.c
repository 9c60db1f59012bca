/*
 * ring/wait.c - block mode: a writer whose ring is full waits for the
 * consumer (docs/ring-buffer.md, "Page switch, block mode").
 *
 * Why it is built this way:
 *   - It runs only when the ring is full, the one place where a block-mode
 *     writer may spend time: the fast path and an ordinary page switch
 *     never come here.  It is kept apart from ring.c because it is the one
 *     writer code that makes system calls (clock_gettime, nanosleep).
 *   - The consumer is usually another process (bprint record's drainer,
 *     the ring in a MAP_SHARED file), so the writer polls the consumer's
 *     progress counter: a short spin first (a consumer on another core
 *     frees a slot within microseconds), then sleeps of SLEEP_NS.  Polling
 *     costs the consumer nothing: it publishes consumed_seq as it always
 *     does, with no wake-up call per page.
 *   - The wait is bounded by the writer's block_max_ns.  A consumer that
 *     stopped (SIGSTOP, killed while attached) costs one timeout: the
 *     writer remembers the progress counter it timed out at (stalled_at)
 *     and drops at once until the consumer moves again.
 *   - errno is kept: the writer may interrupt code that reads it.
 */
#include "ring/ring.h"

#include <errno.h>
#include <time.h>

#define SPIN_LOOPS 2000u		/* ~ a few microseconds of pause */
#define SLEEP_NS 20000L			/* then poll every 20 us (plus the timer slack) */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* The consumer's progress; W5: its reads of the slot before our reuse. */
static uint64_t consumed(const struct bp_ring_writer *w)
{
	return atomic_load_explicit(&w->ctl->consumed_seq, memory_order_acquire);
}

/* Poll until page `need` is consumed or `limit` (monotonic ns) passes. */
static int poll_until(const struct bp_ring_writer *w, uint64_t need, uint64_t t0,
		      uint64_t limit)
{
	struct timespec nap = { 0, SLEEP_NS };

	for (unsigned i = 0; i < SPIN_LOOPS; i++) {
		if (consumed(w) >= need)
			return 1;
		cpu_relax();
	}
	for (uint64_t now = t0; now - t0 < limit; now = mono_ns()) {
		if (consumed(w) >= need)
			return 1;
		nanosleep(&nap, NULL);
	}
	return consumed(w) >= need;
}

int bp_ring_wait_room(struct bp_ring_writer *w)
{
	uint64_t need = w->seq + 1 - w->npages;	/* the page in the next slot */
	uint64_t c, t0;
	int saved = errno, ok;

	if (w->mode != BP_RING_BLOCK || w->seq + 1 <= w->npages ||
	    !atomic_load_explicit(&w->ctl->consumer, memory_order_relaxed))
		return 0;
	c = consumed(w);
	if (c >= need)
		return 1;
	if (w->stalled_at == c + 1)
		return 0;	/* timed out at this very progress before */
	t0 = mono_ns();
	ok = poll_until(w, need, t0, w->block_max_ns);
	w->stalled_at = ok ? 0 : consumed(w) + 1;
	w->block_waits++;
	w->block_ns += mono_ns() - t0;
	atomic_store_explicit(&w->ctl->block_waits, w->block_waits, memory_order_relaxed);
	atomic_store_explicit(&w->ctl->block_ns, w->block_ns, memory_order_relaxed);
	errno = saved;
	return ok;
}
