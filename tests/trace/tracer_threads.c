/*
 * tracer_threads: 200 short-lived threads, at most 16 at once, each names
 * itself, traces N records and exits, while a consumer drains
 * concurrently; between waves the main thread drains too.  Every record
 * must arrive once, with its thread's tid and name, in order; after a
 * drain the dead threads' descriptors are reclaimed, so the number of
 * threads bprint_stats() reports, and the number of descriptors ever
 * allocated, stay bounded by the wave size.
 *
 *   tracer_threads          the test
 *   tracer_threads stats    also call bprint_stats() from a third thread
 *                           all along (stats must be safe against reclaim)
 */
#include "tracer_check.h"

#include "trace/thread.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#define NTHREADS 200
#define WAVE 16
#define FMT "w=%d i=%d"

static int per_thread;
static _Atomic int tids[NTHREADS];
static int got[NTHREADS];
static int last_i[NTHREADS];
static pthread_mutex_t got_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool stop;

static void name_of(char *buf, size_t size, int w)
{
	tc_expect(buf, size, "tw-%03d", w);
}

static void *worker(void *arg)
{
	int w = (int)(intptr_t)arg;
	char name[16];

	name_of(name, sizeof(name), w);
	CHECK_EQ(pthread_setname_np(pthread_self(), name), 0);
	atomic_store(&tids[w], (int)gettid());
	for (int i = 0; i < per_thread; i++)
		trace_printk(FMT, w, i);
	return NULL;
}

static void check_event(const struct bprint_event *ev, void *ctx)
{
	char expect[64], name[16];
	int w, i, len = 0;

	(void)ctx;
	if (sscanf(ev->message, "w=%d i=%d%n", &w, &i, &len) != 2 ||
	    (size_t)len != ev->message_len || w < 0 || w >= NTHREADS)
		FAIL("bad record \"%s\"", ev->message);
	tc_expect(expect, sizeof(expect), FMT, w, i);
	CHECK_STREQ(ev->message, expect);
	CHECK_EQ(ev->tid, atomic_load(&tids[w]));
	name_of(name, sizeof(name), w);
	CHECK_STREQ(ev->comm, name);
	pthread_mutex_lock(&got_lock);
	if (i != last_i[w] + 1)
		FAIL("thread %d: record %d after %d", w, i, last_i[w]);
	last_i[w] = i;
	got[w]++;
	pthread_mutex_unlock(&got_lock);
}

static void *consumer(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		if (tc_drain(check_event, NULL) == 0)
			tc_sleep_us(200);
	return NULL;
}

static void *stats_poller(void *arg)
{
	struct bprint_thread_stats st[64] = { BPRINT_THREAD_STATS_INIT };

	(void)arg;
	while (!atomic_load(&stop)) {
		int n = bprint_stats(st, 64);

		/* A live thread's counters move while they are read; a dead one's are final. */
		for (int i = 0; i < n && i < 64; i++)
			if (!st[i].alive)
				CHECK(st[i].read + st[i].overwritten + st[i].discarded <=
				      st[i].written);
	}
	return NULL;
}

static int count_descriptors(void)
{
	int n = 0;

	for (struct bp_thread *t = atomic_load(&bp_threads); t; t = t->next)
		n++;
	return n;
}

int main(int argc, char **argv)
{
	bool poll_stats = argc > 1 && !strcmp(argv[1], "stats");
	struct bprint_thread_stats st[64] = { BPRINT_THREAD_STATS_INIT };
	pthread_t c, p, w[WAVE];
	int max_stats = 0;

	per_thread = (int)tc_scale(2000);
	for (int i = 0; i < NTHREADS; i++)
		last_i[i] = -1;
	CHECK_EQ(pthread_create(&c, NULL, consumer, NULL), 0);
	if (poll_stats)
		CHECK_EQ(pthread_create(&p, NULL, stats_poller, NULL), 0);

	for (int base = 0; base < NTHREADS; base += WAVE) {
		int nw = NTHREADS - base < WAVE ? NTHREADS - base : WAVE;
		int n;

		for (int k = 0; k < nw; k++)
			CHECK_EQ(pthread_create(&w[k], NULL, worker, (void *)(intptr_t)(base + k)), 0);
		for (int k = 0; k < nw; k++)
			CHECK_EQ(pthread_join(w[k], NULL), 0);
		tc_drain(check_event, NULL);
		/* Every thread of this wave has been read completely. */
		for (int k = 0; k < nw; k++)
			CHECK_EQ(got[base + k], per_thread);
		/*
		 * Reclaim takes the readers' lock with a trylock, so it may
		 * miss while the other consumer is in a session: drain again
		 * until no dead thread is left (bounded: ~2 s).
		 */
		for (int tries = 0;; tries++) {
			int dead = 0;

			n = bprint_stats(st, 64);
			for (int i = 0; i < n && i < 64; i++)
				dead += !st[i].alive;
			if (!dead)
				break;
			if (tries == 2000)
				FAIL("%d drained dead threads never reclaimed", dead);
			tc_sleep_us(1000);
			tc_drain(check_event, NULL);
		}
		if (n > max_stats)
			max_stats = n;
		CHECK_OP(n, <=, WAVE + 2);
		/* Descriptors are reused: without reuse there would be one per
		 * thread so far (up to NTHREADS).  A thread whose first trace
		 * finds the free list's lock busy makes a new one rather than
		 * wait (trace/thread.c), so allow a wave's worth of those. */
		CHECK_OP(count_descriptors(), <=, 2 * WAVE + 2);
	}
	atomic_store(&stop, true);
	CHECK_EQ(pthread_join(c, NULL), 0);
	if (poll_stats)
		CHECK_EQ(pthread_join(p, NULL), 0);

	/* Drained and dead: everything reclaimed (nothing else holds the readers' lock now). */
	tc_drain(check_event, NULL);
	CHECK_EQ(bprint_stats(st, 64), 0);
	for (int i = 0; i < NTHREADS; i++)
		CHECK_EQ(got[i], per_thread);
	printf("%d threads x %d records; most threads in stats %d; descriptors %d\n", NTHREADS,
	       per_thread, max_stats, count_descriptors());
	return 0;
}
