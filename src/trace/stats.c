/*
 * bprint_stats(): per-thread counters.  written and discarded come from the
 * writer's rings; overwritten and read from what the consumer published,
 * since it is the only party that can know what it missed.  Records dropped before
 * reaching a ring (nested too deep, no memory) count as written and
 * discarded, so read + overwritten + discarded == written holds once a
 * consumer has drained a stopped thread.
 */
#include "trace/tracer.h"

#include "trace/sized.h"

#include <errno.h>
#include <string.h>

/*
 * The threads BPRINT_RETAIN dropped, and the records of threads that got
 * no ring (no memory), summed in one entry with tid -1 and comm
 * "(dropped)"; the former's unread records count as overwritten, the
 * latter's as discarded.  Written at
 * out (an entry of stride bytes) if not NULL.  Returns the entries: 0
 * while nothing was dropped.
 */
static int retired_entry(void *out, uint32_t stride)
{
	/* relaxed: counters read as values, each alone; a report taken while
	 * threads retire may be a moment old, never torn */
	uint64_t no_ring = atomic_load_explicit(&bp_no_ring_records, memory_order_relaxed);
	uint64_t written = atomic_load_explicit(&bp_retired.written, memory_order_relaxed) + no_ring;
	struct bprint_thread_stats s;

	if (!written)
		return 0;
	if (out) {
		memset(&s, 0, sizeof(s));
		s.tid = -1;
		memcpy(s.comm, "(dropped)", sizeof("(dropped)"));
		s.written = written;
		s.discarded = atomic_load_explicit(&bp_retired.discarded, memory_order_relaxed) +
			      no_ring;
		s.read = atomic_load_explicit(&bp_retired.read, memory_order_relaxed);
		s.overwritten = atomic_load_explicit(&bp_retired.overwritten, memory_order_relaxed);
		bp_sized_put(out, stride, &s, sizeof(s));
	}
	return 1;
}

/*
 * Without taking the readers' lock: the caller holds it (or is crashing).
 * out[0].size is every entry's size (bprint.h).
 */
int bp_stats_collect(struct bprint_thread_stats *out, int max)
{
	uint32_t stride = out && max > 0 ? out[0].size : 0;
	int n = 0;

	if (out && max > 0 && stride < BPRINT_THREAD_STATS_SIZE_1) {
		errno = EINVAL;
		return -1;
	}

	for (struct bp_thread *t = atomic_load_explicit(&bp_threads, memory_order_acquire); t;	/* T7 */
	     t = t->next) {
		int state = atomic_load_explicit(&t->state, memory_order_acquire);	/* T5 */
		struct bprint_thread_stats s = BPRINT_THREAD_STATS_INIT;

		if (state != BP_THREAD_ALIVE && state != BP_THREAD_DEAD)
			continue;
		if (n >= max || !out) {
			n++;
			continue;
		}
		memset(&s, 0, sizeof(s));
		s.tid = t->tid;
		memcpy(s.comm, t->comm, sizeof(s.comm));
		s.comm[sizeof(s.comm) - 1] = '\0';
		s.alive = state == BP_THREAD_ALIVE;
		s.discarded = bp_thread_dropped(t);
		s.written = s.discarded;
		for (unsigned i = 0; i < BP_NEST_MAX; i++) {
			struct bp_thread_ring *r = &t->ring[i];
			void *mem = atomic_load_explicit(&r->mem, memory_order_acquire);	/* T2 */
			struct bp_ring_stats rs;

			if (!mem || bp_ring_stats(mem, r->bytes, &rs) != BP_RING_OK)
				continue;
			s.written += rs.written;
			s.discarded += rs.discarded;
			/* relaxed: the consumer's own counts, read as values */
			s.read += atomic_load_explicit(&r->consumer_read, memory_order_relaxed);
			s.overwritten += atomic_load_explicit(&r->consumer_overwritten,
							      memory_order_relaxed);
		}
		bp_sized_put((char *)out + (size_t)n * stride, stride, &s, sizeof(s));
		n++;
	}
	return n + retired_entry(n < max ? (char *)out + (size_t)n * stride : NULL, stride);
}

/* The readers' lock keeps a drained thread's rings from being unmapped under us. */
int bprint_stats(struct bprint_thread_stats *out, int max)
{
	int n;

	pthread_rwlock_rdlock(&bp_readers_lock);
	n = bp_stats_collect(out, max);
	pthread_rwlock_unlock(&bp_readers_lock);
	return n;
}
