/*
 * bench/bench.h - what the benchmark programs share: a monotonic clock in
 * nanoseconds and the median of a series of runs (the figure every
 * program prints).  Header-only, so that each benchmark stays one program
 * and the peers' programs (bench/peers/) need no library for it.
 */
#ifndef BP_BENCH_H
#define BP_BENCH_H

#include <stdlib.h>
#include <time.h>

/*
 * BENCH_CPUTIME=1 in the environment: the calling thread's CPU time
 * instead, for a machine shared with other work (time spent preempted is
 * not the code's; a figure of several threads, timed from another, means
 * nothing then).
 */
static inline double bench_now_ns(void)
{
	static int clock_id = -1;
	struct timespec ts;

	if (clock_id < 0) {
		const char *e = getenv("BENCH_CPUTIME");

		clock_id = e && *e == '1' ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
	}
	clock_gettime(clock_id, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* For qsort() of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of v[0..n) (n > 0); sorts v. */
static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
