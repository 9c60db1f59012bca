/*
 * bench-fresh-ring: a new thread's first calls, on a ring nobody has
 * written yet, against the floor (bench-hotpath's: rdtsc and a 16-byte
 * store into a warm array) timed by the same thread just before.
 *
 *   bench-fresh-ring [THREADS] [CALLS] [ROUNDS]
 *
 * THREADS threads (default 64), one after the other, each: CALLS floor
 * operations (default 20000), then its first trace_printk() of the seed
 * ("This is the timer interrupt: %llu"), timed alone (it maps the ring),
 * then CALLS more, timed as one block: the first pass over a fresh ring,
 * a page fault every 4 KiB unless the pages were faulted in ahead of the
 * writer (src/file/writer_prefault.c).  Each way is a child process (this
 * program, re-executed), the ways taking turns for ROUNDS rounds
 * (default 3): the default shared-memory rings with the prefault thread
 * (BPRINT_PREFAULT=1, the default), without it (BPRINT_PREFAULT=0), and
 * anonymous memory (BPRINT_ATTACH=0, no helper thread).  A thread's ring
 * is reused by the next (its pages dropped at exit), so every thread
 * starts on pages not faulted in.
 *
 * Printed per way: the median over every thread of every round of the
 * block's ns a call, its ratio to the floor (each thread's own), the
 * first call's median and maximum, and the thread's minor faults over
 * the block (getrusage RUSAGE_THREAD).
 */
#include <bprint.h>

#include "bench.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_THREADS 1024
#define MAX_ROUNDS  32

struct floor_rec {
	uint64_t ts;
	uint64_t value;
};
static struct floor_rec floor_ring[65536];

__attribute__((noinline)) static void floor_loop(size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct floor_rec *r = &floor_ring[i & 65535];

		r->ts = __builtin_ia32_rdtsc();
		r->value = i;
		__asm__ volatile("" : : "r"(r) : "memory");	/* as bench-hotpath's */
	}
}

static unsigned long calls = 20000;

struct per_thread {
	double floor_ns, first_ns, block_ns, faults;
};
static struct per_thread result[MAX_THREADS];

static long minflt(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_minflt : 0;
}

static void *traced(void *arg)
{
	struct per_thread *r = arg;
	double t0, t1, t2, t3;
	long f0;

	t0 = bench_now_ns();
	floor_loop(calls);
	t1 = bench_now_ns();
	trace_printk("This is the timer interrupt: %llu", 0ULL);
	t2 = bench_now_ns();
	f0 = minflt();
	for (unsigned long long k = 1; k <= calls; k++)
		trace_printk("This is the timer interrupt: %llu", k);
	t3 = bench_now_ns();
	r->faults = (double)(minflt() - f0);
	r->floor_ns = t1 - t0;
	r->first_ns = t2 - t1;
	r->block_ns = t3 - t2;
	return NULL;
}

/* The child: THREADS threads in turn; one line a thread. */
static int child(int threads)
{
	pthread_t th;

	floor_loop(65536);	/* the floor's array warm, as in bench-hotpath */
	for (int i = 0; i < threads; i++)
		if (pthread_create(&th, NULL, traced, &result[i]) || pthread_join(th, NULL))
			return 1;
	for (int i = 0; i < threads; i++)
		printf("%.0f %.0f %.0f %.0f\n", result[i].floor_ns, result[i].first_ns,
		       result[i].block_ns, result[i].faults);
	return 0;
}

struct way {
	const char *name, *env1, *env2;
	double ratio[MAX_THREADS * MAX_ROUNDS], per_call[MAX_THREADS * MAX_ROUNDS];
	double first[MAX_THREADS * MAX_ROUNDS], faults[MAX_THREADS * MAX_ROUNDS];
	int n;
};

/* Run this program as a child with w's environment; its lines into w. */
static int run(const char *self, const char *nthreads, const char *ncalls, struct way *w)
{
	int fds[2], st;
	FILE *in;
	pid_t pid;
	double f[4];

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		putenv((char *)w->env1);
		putenv((char *)w->env2);
		execl(self, self, "--child", nthreads, ncalls, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	in = fdopen(fds[0], "r");
	while (in && fscanf(in, "%lf %lf %lf %lf", &f[0], &f[1], &f[2], &f[3]) == 4 &&
	       w->n < MAX_THREADS * MAX_ROUNDS) {
		w->per_call[w->n] = f[2] / (double)calls;
		w->ratio[w->n] = f[2] / f[0];
		w->first[w->n] = f[1];
		w->faults[w->n] = f[3];
		w->n++;
	}
	if (in)
		fclose(in);
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	static struct way ways[] = {
		{ .name = "shared memory, prefault (default)", .env1 = "BPRINT_PREFAULT=1",
		  .env2 = "BPRINT_ATTACH=1" },
		{ .name = "shared memory, BPRINT_PREFAULT=0", .env1 = "BPRINT_PREFAULT=0",
		  .env2 = "BPRINT_ATTACH=1" },
		{ .name = "anonymous, BPRINT_ATTACH=0", .env1 = "BPRINT_PREFAULT=1",
		  .env2 = "BPRINT_ATTACH=0" },
	};
	const int nways = (int)(sizeof(ways) / sizeof(ways[0]));
	char self[4096], nthreads[16], ncalls[32];
	int threads = 64, rounds = 3;

	if (argc == 4 && !strcmp(argv[1], "--child")) {
		calls = strtoul(argv[3], NULL, 10);
		return child(atoi(argv[2]));
	}
	if (argc > 1)
		threads = atoi(argv[1]);
	if (argc > 2)
		calls = strtoul(argv[2], NULL, 10);
	if (argc > 3)
		rounds = atoi(argv[3]);
	if (threads < 1 || threads > MAX_THREADS || !calls || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: bench-fresh-ring [THREADS (1-%d)] [CALLS] [ROUNDS (1-%d)]\n",
			MAX_THREADS, MAX_ROUNDS);
		return 2;
	}
	if (!realpath(argv[0], self)) {
		perror("bench-fresh-ring");
		return 1;
	}
	snprintf(nthreads, sizeof(nthreads), "%d", threads);
	snprintf(ncalls, sizeof(ncalls), "%lu", calls);
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < nways; i++)
			if (run(self, nthreads, ncalls, &ways[i]) != 0) {
				fprintf(stderr, "bench-fresh-ring: the child (%s) failed\n",
					ways[i].name);
				return 1;
			}
	printf("a new thread's first call, then its next %lu seed calls on a fresh ring,\n"
	       "against the floor timed by the same thread; medians of %d threads x %d rounds\n\n",
	       calls, threads, rounds);
	printf("%-34s %9s %9s %11s %11s %11s\n", "", "ns/call", "x floor", "faults",
	       "first (us)", "max (us)");
	for (int i = 0; i < nways; i++) {
		struct way *w = &ways[i];
		double max = 0;

		for (int k = 0; k < w->n; k++)
			max = w->first[k] > max ? w->first[k] : max;
		printf("%-34s %9.2f %9.3f %11.0f %11.2f %11.1f\n", w->name,
		       bench_median(w->per_call, w->n), bench_median(w->ratio, w->n),
		       bench_median(w->faults, w->n), bench_median(w->first, w->n) / 1e3,
		       max / 1e3);
	}
	return 0;
}
