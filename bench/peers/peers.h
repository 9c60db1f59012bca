/*
 * bench/peers/peers.h - the messages and the loop every peer program shares.
 *
 * Each program in bench/peers/ is one tracer running the same messages in
 * the same loop; this header is that loop and main().  A program defines,
 * before including it:
 *
 *   PEER_NAME               its name in the output
 *   PEER_PRINTF(...)        a printf-style tracer: called as
 *                           PEER_PRINTF(fmt, args...) for every message; or
 *   PEER_EMIT_<msg>(i)      one call per message, for the others
 *   PEER_SIZE_<msg>         optionally: bytes one event takes in memory
 *                           (define PEER_HAVE_SIZES)
 *   peer_init(), peer_thread_init()
 *                           optionally (define PEER_HAVE_INIT /
 *                           PEER_HAVE_THREAD_INIT): once in main, once in
 *                           each tracing thread before its first call
 *
 * The messages: the seed's "This is the timer interrupt: %llu" and
 * NanoLog's benchmark set (a static string, one int, two ints, one double,
 * a complex format, one %s of ~40 characters).
 *
 * What it measures, per message, with T tracing threads (persistent, so
 * that a tracer sets up its per-thread state once):
 *   - runs × calls back-to-back calls per thread, timed with
 *     CLOCK_MONOTONIC around each thread's loop; per run, ns/call is the
 *     mean over the threads, and the figure is the median over the runs
 *     (runs of different messages are interleaved);
 *   - then latency-calls calls, each between two rdtsc reads (included, as
 *     in NanoLog's paper), converted with a TSC calibration of our own;
 *     p50, p99, p99.9 over every thread's calls.
 *
 * Output, machine readable, one line per message:
 *   result NAME MSG THREADS NS_MEDIAN AGG_NS P50 P99 P999 CALLS BYTES
 * (AGG_NS: first thread's start to last thread's end / calls of all
 * threads; CALLS: every call of that
 * message, warm-up included, all threads; BYTES: in-memory bytes per
 * event, or "-"), then "total NAME CALLS".
 *
 *   PROGRAM [-t threads] [-n calls-per-run] [-r runs] [-l latency-calls]
 *           [-w warm-up-calls] [-m message]
 */
#ifndef BPRINT_BENCH_PEERS_H
#define BPRINT_BENCH_PEERS_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../bench.h"
#include "msgs.h"

#ifdef PEER_PRINTF
#define PEER__CALL(m, i) PEER_PRINTF(ARGS_##m(i))
#else
#define PEER__CALL(m, i) PEER_EMIT_##m(i)
#endif

/* ---- time ---- */

static inline uint64_t peer_rdtsc(void)
{
	return __builtin_ia32_rdtsc();
}

static double peer_tsc_per_ns = 1.0;

static void peer_calibrate(void)
{
	struct timespec d = { 0, 50 * 1000 * 1000 };
	double t0 = bench_now_ns();
	uint64_t c0 = peer_rdtsc();
	double t1;
	uint64_t c1;

	nanosleep(&d, NULL);
	t1 = bench_now_ns();
	c1 = peer_rdtsc();
	peer_tsc_per_ns = (double)(c1 - c0) / (t1 - t0);
}

/* ---- the loops: one timed, one with rdtsc around each call ---- */

#define PEER__LOOPS(m)								\
	__attribute__((noinline)) static void loop_##m(size_t n, size_t base)	\
	{									\
		for (size_t i = base; i < base + n; i++)			\
			PEER__CALL(m, i);					\
	}									\
	__attribute__((noinline)) static void lat_##m(size_t n, size_t base,	\
						      uint32_t *ticks)		\
	{									\
		for (size_t k = 0; k < n; k++) {				\
			size_t i = base + k;					\
			uint64_t t0 = peer_rdtsc(), dt;				\
										\
			(void)i;						\
			PEER__CALL(m, i);					\
			dt = peer_rdtsc() - t0;					\
			ticks[k] = dt > UINT32_MAX ? UINT32_MAX : (uint32_t)dt;	\
		}								\
	}
PEER_MSGS(PEER__LOOPS)

struct peer_msg {
	const char *name;
	void (*loop)(size_t n, size_t base);
	void (*lat)(size_t n, size_t base, uint32_t *ticks);
	long bytes;
};

#ifdef PEER_HAVE_SIZES
#define PEER__SIZE(m) (long)(PEER_SIZE_##m)
#else
#define PEER__SIZE(m) -1L
#endif
#define PEER__ENTRY(m) { #m, loop_##m, lat_##m, 0 },
static struct peer_msg peer_msgs[] = { PEER_MSGS(PEER__ENTRY) };
#define PEER_NMSGS (sizeof(peer_msgs) / sizeof(peer_msgs[0]))

static void peer_fill_sizes(void)
{
	size_t k = 0;

#define PEER__SZ(m) peer_msgs[k++].bytes = PEER__SIZE(m);
	PEER_MSGS(PEER__SZ)
#undef PEER__SZ
}

/* ---- the tracing threads ---- */

#define PEER_MAX_THREADS 16
#define PEER_MAX_RUNS 64

enum { JOB_TIMED, JOB_LATENCY, JOB_QUIT };

static struct {
	int kind;
	size_t msg, n;
} peer_job;
static pthread_barrier_t peer_go, peer_done;
static double peer_thread_t0[PEER_MAX_THREADS], peer_thread_t1[PEER_MAX_THREADS];
static uint32_t *peer_ticks[PEER_MAX_THREADS];
static size_t peer_next_i[PEER_MAX_THREADS][PEER_NMSGS];	/* loop index per message */
static size_t peer_latency_calls;

static void *peer_worker(void *arg)
{
	int w = (int)(intptr_t)arg;

#ifdef PEER_HAVE_THREAD_INIT
	peer_thread_init();
#endif
	for (;;) {
		double t0;
		size_t m, base;

		pthread_barrier_wait(&peer_go);
		if (peer_job.kind == JOB_QUIT)
			break;
		m = peer_job.msg;
		base = peer_next_i[w][m] + (size_t)w * 1000000000u;
		t0 = bench_now_ns();
		if (peer_job.kind == JOB_TIMED)
			peer_msgs[m].loop(peer_job.n, base);
		else
			peer_msgs[m].lat(peer_job.n, base, peer_ticks[w]);
		peer_thread_t1[w] = bench_now_ns();
		peer_thread_t0[w] = t0;
		peer_next_i[w][m] += peer_job.n;
		pthread_barrier_wait(&peer_done);
	}
	return NULL;
}

static int peer_threads = 1;

/*
 * Run one job on every thread; returns the span in ns from the first
 * thread's start to the last thread's end (each thread reads the clock
 * around its own loop, so barrier wake-ups do not count).
 */
static double peer_run(int kind, size_t msg, size_t n)
{
	double lo, hi;

	peer_job.kind = kind;
	peer_job.msg = msg;
	peer_job.n = n;
	pthread_barrier_wait(&peer_go);
	if (kind == JOB_QUIT)
		return 0;
	pthread_barrier_wait(&peer_done);
	lo = peer_thread_t0[0];
	hi = peer_thread_t1[0];
	for (int w = 1; w < peer_threads; w++) {
		lo = peer_thread_t0[w] < lo ? peer_thread_t0[w] : lo;
		hi = peer_thread_t1[w] > hi ? peer_thread_t1[w] : hi;
	}
	return hi - lo;
}

static int peer_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void peer_usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-t threads] [-n calls-per-run] [-r runs] [-l latency-calls]"
		" [-w warm-up-calls] [-m message]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	size_t calls = 200000, warm = 10000, latency = 100000;
	int runs = 5, c;
	const char *only = NULL;
	pthread_t th[PEER_MAX_THREADS];
	static double ns[PEER_NMSGS][PEER_MAX_RUNS], agg[PEER_NMSGS][PEER_MAX_RUNS];
	unsigned long long total = 0;

	while ((c = getopt(argc, argv, "t:n:r:l:w:m:")) != -1) {
		switch (c) {
		case 't': peer_threads = atoi(optarg); break;
		case 'n': calls = strtoull(optarg, NULL, 10); break;
		case 'r': runs = atoi(optarg); break;
		case 'l': latency = strtoull(optarg, NULL, 10); break;
		case 'w': warm = strtoull(optarg, NULL, 10); break;
		case 'm': only = optarg; break;
		default: peer_usage(argv[0]);
		}
	}
	if (peer_threads < 1 || peer_threads > PEER_MAX_THREADS || runs < 0 ||
	    runs > PEER_MAX_RUNS)
		peer_usage(argv[0]);
	if (only) {
		size_t k;

		for (k = 0; k < PEER_NMSGS && strcmp(peer_msgs[k].name, only); k++)
			;
		if (k == PEER_NMSGS) {
			fprintf(stderr, "%s: no message '%s'\n", argv[0], only);
			return 2;
		}
	}
	peer_latency_calls = latency;
	peer_calibrate();
	peer_fill_sizes();
#ifdef PEER_HAVE_INIT
	peer_init();
#endif
	for (int w = 0; w < peer_threads; w++) {
		peer_ticks[w] = malloc((latency ? latency : 1) * sizeof(uint32_t));
		if (!peer_ticks[w])
			return 1;
	}
	pthread_barrier_init(&peer_go, NULL, (unsigned)peer_threads + 1);
	pthread_barrier_init(&peer_done, NULL, (unsigned)peer_threads + 1);
	for (int w = 0; w < peer_threads; w++)
		pthread_create(&th[w], NULL, peer_worker, (void *)(intptr_t)w);

	printf("# peer %s threads %d calls-per-run %zu runs %d latency-calls %zu warm-up %zu"
	       " tsc-ghz %.3f\n", PEER_NAME, peer_threads, calls, runs, latency, warm,
	       peer_tsc_per_ns);

	/* warm up: first-use paths (thread state, site registration, page faults) */
	for (size_t m = 0; m < PEER_NMSGS; m++)
		if (warm && (!only || !strcmp(only, peer_msgs[m].name)))
			peer_run(JOB_TIMED, m, warm);

	for (int r = 0; r < runs; r++)
		for (size_t m = 0; m < PEER_NMSGS; m++) {
			double wall, sum = 0;

			if (only && strcmp(only, peer_msgs[m].name))
				continue;
			wall = peer_run(JOB_TIMED, m, calls);
			for (int w = 0; w < peer_threads; w++)
				sum += peer_thread_t1[w] - peer_thread_t0[w];
			ns[m][r] = sum / peer_threads / (double)calls;
			agg[m][r] = wall / (double)calls / peer_threads;
		}

	for (size_t m = 0; m < PEER_NMSGS; m++) {
		size_t nt = latency * (size_t)peer_threads;
		uint32_t *all;
		double p[3] = { 0, 0, 0 };
		unsigned long long mcalls;
		char bytes[32];

		if (only && strcmp(only, peer_msgs[m].name))
			continue;
		if (latency) {
			peer_run(JOB_LATENCY, m, latency);
			all = malloc(nt * sizeof(*all));
			if (!all)
				return 1;
			for (int w = 0; w < peer_threads; w++)
				memcpy(all + (size_t)w * latency, peer_ticks[w], latency * sizeof(*all));
			qsort(all, nt, sizeof(*all), peer_cmp_u32);
			p[0] = all[(size_t)(0.50 * (double)(nt - 1))] / peer_tsc_per_ns;
			p[1] = all[(size_t)(0.99 * (double)(nt - 1))] / peer_tsc_per_ns;
			p[2] = all[(size_t)(0.999 * (double)(nt - 1))] / peer_tsc_per_ns;
			free(all);
		}
		mcalls = 0;
		for (int w = 0; w < peer_threads; w++)
			mcalls += peer_next_i[w][m];
		total += mcalls;
		if (peer_msgs[m].bytes >= 0)
			snprintf(bytes, sizeof(bytes), "%ld", peer_msgs[m].bytes);
		else
			snprintf(bytes, sizeof(bytes), "-");
		printf("result %s %s %d %.2f %.2f %.1f %.1f %.1f %llu %s\n", PEER_NAME,
		       peer_msgs[m].name, peer_threads, runs ? bench_median(ns[m], runs) : 0.0,
		       runs ? bench_median(agg[m], runs) : 0.0, p[0], p[1], p[2], mcalls, bytes);
	}
	peer_run(JOB_QUIT, 0, 0);
	for (int w = 0; w < peer_threads; w++) {
		pthread_join(th[w], NULL);
		free(peer_ticks[w]);
	}
	printf("total %s %llu\n", PEER_NAME, total);
	fflush(stdout);
	return 0;
}

#endif /* BPRINT_BENCH_PEERS_H */
