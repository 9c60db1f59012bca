/*
 * tracer_stress: N writer threads x M records each, every record's payload
 * checkable, while a consumer reads concurrently; then exact accounting.
 *
 *   tracer_stress MODE THREADS VARIANT [scalar|mixed]
 *     MODE     overwrite | discard   (must match BPRINT_MODE; checked)
 *     VARIANT  live      consumer reads as fast as it can
 *              slow      consumer reads a little, then sleeps (records lost)
 *              lossless  writers wait for the consumer: nothing may be lost
 *     scalar   the payload is a number instead of a string, so that every
 *              record takes the inline fast path of include/bprint/internal.h (x86-64)
 *     mixed    records rotate over four call sites: the scalar one, the
 *              string one, one of two %c, and a C++ one with a string, a
 *              char and a number (tracer_stress_cxx.cpp)
 *
 * For every writer thread, after the final drain:
 *   written == M, read + overwritten + discarded == written, read equals
 *   the records this test got for that thread, every record decodes to
 *   exactly snprintf() of the same format and arguments, seq strictly
 *   increases, and the variant's losses happened (overwritten > 0 with a
 *   small overwrite buffer, discarded > 0 with a slow consumer) or did not
 *   (lossless).  Writers stay alive until the counters are taken, so no
 *   descriptor is reclaimed under the test's feet.
 */
#include "tracer_check.h"

#include "ring/ring.h"
#include "trace/config.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

#define MAX_THREADS 64
#define FMT "t=%d seq=%llu s=%s"
#define FMT_SCALAR "t=%d seq=%llu s=%llx"
#define FMT_CHAR "t=%d seq=%llu c=%c%c"

#include "tracer_stress.h"

#ifndef TRACER_STRESS_CXX
/* No C++ compiler: the same site, compiled as C. */
void tracer_stress_cxx(int t, unsigned long long seq, const char *s, char c, unsigned long long v)
{
	trace_printk(FMT_CXX, t, seq, s, c, v);
}
#endif

/* Which call site record seq of a thread comes from. */
enum kind { K_STRING, K_SCALAR, K_CHAR, K_CXX };

enum variant { LIVE, SLOW, LOSSLESS };

static int nthreads;
static unsigned long long per_thread;
static enum variant variant;
static unsigned mode;
static unsigned long long lossless_lag;	/* records a writer may run ahead */
static int scalar;				/* FMT_SCALAR */
static int mixed;				/* every kind in turn */

static enum kind kind_of(unsigned long long seq)
{
	if (mixed)
		return (enum kind)(seq % 4u);
	return scalar ? K_SCALAR : K_STRING;
}

static char char_of(int t, unsigned long long seq, unsigned k)
{
	return (char)('A' + (seq * 3u + (unsigned)t + k * 11u) % 26u);
}

static _Atomic int tids[MAX_THREADS];
static _Atomic unsigned long long consumed[MAX_THREADS];
static _Atomic int writers_done;
static _Atomic bool stop_consumer;
static _Atomic bool release_writers;

/* Written by whichever party reads (the consumer thread, then main after joining it). */
static unsigned long long got[MAX_THREADS];
static long long last_seq[MAX_THREADS];

static size_t make_str(char *s, int t, unsigned long long seq)
{
	size_t len = (size_t)((seq * 7u + (unsigned)t * 3u) % 24u);

	for (size_t i = 0; i < len; i++)
		s[i] = (char)('a' + (seq + i * 5u + (unsigned)t) % 26u);
	s[len] = '\0';
	return len;
}

/* The scalar payload of record seq of thread t. */
static unsigned long long make_num(int t, unsigned long long seq)
{
	unsigned long long v = seq * 0x9e3779b97f4a7c15ull + (unsigned)t;

	return v ^ v >> 29;
}

static void *writer(void *arg)
{
	int t = (int)(intptr_t)arg;
	char s[32];

	atomic_store(&tids[t], (int)gettid());
	for (unsigned long long seq = 0; seq < per_thread; seq++) {
		make_str(s, t, seq);
		if (variant == LOSSLESS)
			while (seq - atomic_load_explicit(&consumed[t], memory_order_acquire) >
			       lossless_lag)
				tc_sleep_us(50);
		switch (kind_of(seq)) {
		case K_SCALAR:
			trace_printk(FMT_SCALAR, t, seq, make_num(t, seq));
			break;
		case K_STRING:
			trace_printk(FMT, t, seq, s);
			break;
		case K_CHAR:
			trace_printk(FMT_CHAR, t, seq, char_of(t, seq, 0), char_of(t, seq, 1));
			break;
		case K_CXX:
			tracer_stress_cxx(t, seq, s, char_of(t, seq, 0), make_num(t, seq));
			break;
		}
	}
	atomic_fetch_add(&writers_done, 1);
	while (!atomic_load(&release_writers))
		tc_sleep_us(1000);
	return NULL;
}

static int thread_of(int tid)
{
	for (int t = 0; t < nthreads; t++)
		if (atomic_load(&tids[t]) == tid)
			return t;
	return -1;
}

static void check_event(const struct bprint_event *ev, void *ctx)
{
	char expect[128], s[32];
	int t, n = 0;
	unsigned long long seq;
	int th;

	(void)ctx;

	if (sscanf(ev->message, "t=%d seq=%llu %n", &t, &seq, &n) != 2 || n == 0)
		FAIL("undecodable record: \"%s\"", ev->message);
	if (t < 0 || t >= nthreads || seq >= per_thread)
		FAIL("record out of range: \"%s\"", ev->message);
	make_str(s, t, seq);
	switch (kind_of(seq)) {
	case K_SCALAR:
		tc_expect(expect, sizeof(expect), FMT_SCALAR, t, seq, make_num(t, seq));
		break;
	case K_STRING:
		tc_expect(expect, sizeof(expect), FMT, t, seq, s);
		break;
	case K_CHAR:
		tc_expect(expect, sizeof(expect), FMT_CHAR, t, seq, char_of(t, seq, 0),
			  char_of(t, seq, 1));
		break;
	case K_CXX:
		tc_expect(expect, sizeof(expect), FMT_CXX, t, seq, s, char_of(t, seq, 0),
			  make_num(t, seq));
		break;
	}
	if (strcmp(ev->message, expect) != 0)
		FAIL("record corrupt:\n  got    \"%s\"\n  expect \"%s\"", ev->message, expect);
	CHECK_EQ(ev->message_len, strlen(expect));
	th = thread_of(ev->tid);
	if (th != t)
		FAIL("record of thread %d came with tid %d (thread %d)", t, ev->tid, th);
	CHECK(ev->site != NULL);
	{
		static const char *const formats[] = { FMT, FMT_SCALAR, FMT_CHAR, FMT_CXX };
		enum kind k = kind_of(seq);

		CHECK_STREQ(ev->site->format, formats[k]);
		CHECK_STREQ(ev->site->func, k == K_CXX ? "tracer_stress_cxx" : "writer");
	}
	if ((long long)seq <= last_seq[t])
		FAIL("thread %d: seq %llu after %lld", t, seq, last_seq[t]);
	last_seq[t] = (long long)seq;
	got[t]++;
	atomic_store_explicit(&consumed[t], seq, memory_order_release);
}

/* One consumer session; returns the records it read. */
static long session(long max)
{
	struct bprint_reader *r = bprint_read_begin();
	struct bprint_event ev = BPRINT_EVENT_INIT;
	long n = 0;
	int rc = 0;

	CHECK(r != NULL);
	while (n < max && (rc = bprint_read_next(r, &ev)) == 1) {
		check_event(&ev, NULL);
		n++;
	}
	CHECK(rc >= 0);
	bprint_read_end(r);
	return n;
}

static void *consumer(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_consumer)) {
		long n;

		if (variant == SLOW) {
			session(64);
			tc_sleep_us(2000);
			continue;
		}
		n = session(100000);
		if (n == 0)
			sched_yield();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct bprint_thread_stats st[MAX_THREADS + 8] = { BPRINT_THREAD_STATS_INIT };
	pthread_t w[MAX_THREADS];
	unsigned long long total_over = 0, total_disc = 0, total_read = 0;
	int n;

	if (argc != 4 && !(argc == 5 && (!strcmp(argv[4], "scalar") || !strcmp(argv[4], "mixed")))) {
		fprintf(stderr, "usage: %s overwrite|discard THREADS live|slow|lossless [scalar|mixed]\n",
			argv[0]);
		return 2;
	}
	scalar = argc == 5 && !strcmp(argv[4], "scalar");
	mixed = argc == 5 && !strcmp(argv[4], "mixed");
	mode = !strcmp(argv[1], "discard") ? BP_RING_DISCARD : BP_RING_OVERWRITE;
	nthreads = atoi(argv[2]);
	variant = !strcmp(argv[3], "slow") ? SLOW : !strcmp(argv[3], "lossless") ? LOSSLESS : LIVE;
	CHECK(nthreads > 0 && nthreads <= MAX_THREADS);
	/* The environment must have configured what the arguments claim. */
	CHECK_EQ(bp_config.mode, mode);
	per_thread = (unsigned long long)tc_scale(1000000);
	/* A record is at most 48 bytes: stay within a quarter of the ring. */
	lossless_lag = bp_config.buffer_bytes / 48 / 4;
	for (int t = 0; t < nthreads; t++)
		last_seq[t] = -1;

	tc_run_writers(w, nthreads, writer, consumer, &writers_done, &stop_consumer);
	/* Final drain, and the counters taken inside the same session. */
	n = tc_drain_with_stats(check_event, NULL, st, MAX_THREADS + 8);
	CHECK_EQ(n, nthreads);

	for (int t = 0; t < nthreads; t++) {
		const struct bprint_thread_stats *s = tc_stats_of(st, n, atomic_load(&tids[t]));

		if (!s)
			FAIL("no stats for thread %d (tid %d)", t, atomic_load(&tids[t]));
		printf("thread %2d tid %d: written %llu read %llu overwritten %llu discarded %llu\n",
		       t, s->tid, (unsigned long long)s->written, (unsigned long long)s->read,
		       (unsigned long long)s->overwritten, (unsigned long long)s->discarded);
		CHECK(s->alive);
		CHECK_EQ(s->written, per_thread);
		CHECK_EQ(s->read + s->overwritten + s->discarded, s->written);
		CHECK_EQ(s->read, got[t]);
		if (mode == BP_RING_OVERWRITE)
			CHECK_EQ(s->discarded, 0);
		else
			CHECK_EQ(s->overwritten, 0);
		if (variant == LOSSLESS) {
			CHECK_EQ(got[t], per_thread);
			CHECK_EQ(last_seq[t], (long long)per_thread - 1);
		}
		/* A flight recorder always keeps the newest record. */
		if (mode == BP_RING_OVERWRITE)
			CHECK_EQ(last_seq[t], (long long)per_thread - 1);
		total_over += s->overwritten;
		total_disc += s->discarded;
		total_read += s->read;
	}
	printf("total: read %llu overwritten %llu discarded %llu\n", total_read, total_over,
	       total_disc);
	/* The configuration proves what it claims. */
	if (variant == LIVE && mode == BP_RING_OVERWRITE && bp_config.buffer_bytes <= (256u << 10))
		CHECK(total_over > 0);
	if (variant == SLOW && mode == BP_RING_DISCARD)
		CHECK(total_disc > 0);
	if (variant == SLOW && mode == BP_RING_OVERWRITE)
		CHECK(total_over > 0);

	atomic_store(&release_writers, true);
	for (int t = 0; t < nthreads; t++)
		CHECK_EQ(pthread_join(w[t], NULL), 0);
	return 0;
}
