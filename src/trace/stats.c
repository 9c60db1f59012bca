/*
 * bprint_stats(): per-thread counters.  written and discarded come from the
 * writer's rings; overwritten and read from what the consumer published,
 * since it is the only party that can know what it missed.  Records dropped before
 * reaching a ring (nested too deep, no memory) count as written and
 * discarded, so read + overwritten + discarded == written holds once a
 * consumer has drained a stopped thread.
 */
#include "trace/tracer.h"

#include <string.h>

/*
 * The threads BPRINT_RETAIN dropped, summed in one entry with tid -1 and
 * comm "(dropped)"; their unread records count as overwritten.  Returns
 * the entries: 0 while nothing was dropped.
 */
static int retired_entry(struct bprint_thread_stats *out)
{
	uint64_t written = atomic_load_explicit(&bp_retired.written, memory_order_relaxed);

	if (!written)
		return 0;
	if (out) {
		memset(out, 0, sizeof(*out));
		out->tid = -1;
		memcpy(out->comm, "(dropped)", sizeof("(dropped)"));
		out->written = written;
		out->discarded = atomic_load_explicit(&bp_retired.discarded, memory_order_relaxed);
		out->read = atomic_load_explicit(&bp_retired.read, memory_order_relaxed);
		out->overwritten = atomic_load_explicit(&bp_retired.overwritten,
							memory_order_relaxed);
	}
	return 1;
}

/* Without taking the readers' lock: the caller holds it (or is crashing). */
int bp_stats_collect(struct bprint_thread_stats *out, int max)
{
	int n = 0;

	for (struct bp_thread *t = atomic_load_explicit(&bp_threads, memory_order_acquire); t;
	     t = t->next) {
		int state = atomic_load_explicit(&t->state, memory_order_acquire);
		struct bprint_thread_stats s;

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
		s.discarded = atomic_load_explicit(&t->too_deep, memory_order_relaxed) +
			      atomic_load_explicit(&t->no_memory, memory_order_relaxed);
		s.written = s.discarded;
		for (unsigned i = 0; i < BP_NEST_MAX; i++) {
			struct bp_thread_ring *r = &t->ring[i];
			void *mem = atomic_load_explicit(&r->mem, memory_order_acquire);
			struct bp_ring_stats rs;

			if (!mem || bp_ring_stats(mem, r->bytes, &rs) != BP_RING_OK)
				continue;
			s.written += rs.written;
			s.discarded += rs.discarded;
			s.read += atomic_load_explicit(&r->consumer_read, memory_order_relaxed);
			s.overwritten += atomic_load_explicit(&r->consumer_overwritten,
							      memory_order_relaxed);
		}
		out[n++] = s;
	}
	return n + retired_entry(n < max ? out + n : NULL);
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
