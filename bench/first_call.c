/*
 * bench-first-call: what a thread's first trace_printk() costs, the call
 * that maps and formats the thread's ring, against creating and joining
 * an empty thread in the same run (what a thread pool pays per thread
 * anyway).
 *
 *   bench-first-call [THREADS] [RECORDS]
 *
 * THREADS threads (default 64), one after the other, each times its
 * first trace_printk() and then traces RECORDS more (default 100000: its
 * ring is written well past its first page, as a real thread's is, so
 * that a ring reused after it has pages to clear).  Three ways, each a
 * child process (this program, re-executed): in memory, with BPRINT_FILE,
 * and under bprint record (its default 4 MiB buffers, block mode).
 * Printed: the median and the maximum of the first calls, and the median
 * as a multiple of the empty thread's create and join; then, per way, the
 * thread's first 20,000 calls after its first (or RECORDS if fewer):
 * their ns/call, the page faults the thread took in them (a fresh ring's
 * pages: 0 when the ring was faulted in ahead, BPRINT_PREFAULT), and the
 * same count of the floor's calls (an rdtsc and a 16-byte store into
 * memory of the thread's own, resident) timed by the same thread just
 * before its first call, with the ratio; medians over the threads.
 *
 * A ring is formatted without writing its pages (bp_ring_init_clean), a
 * file chunk's faults read nothing ahead (MADV_RANDOM), and a reused
 * chunk is cleared at the exit of the thread that gave it back: before,
 * the first call wrote every page header of its ring (0.37 ms in memory,
 * 0.9 ms with a file, 1.7 ms under record on this machine's VM).
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

#ifndef BPRINT_CMD
#define BPRINT_CMD "bprint"
#endif

#define MAX_THREADS 4096

#define BURST 20000ul
#define FLOOR_BYTES (BURST * 16)

static double first_ns[MAX_THREADS], burst_ns[MAX_THREADS], burst_faults[MAX_THREADS],
	floor_ns[MAX_THREADS];
static unsigned long records = 100000;

static long minor_faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_minflt + ru.ru_majflt : 0;
}

/* The floor: an rdtsc and a store of it and the argument, n times. */
__attribute__((noinline)) static void floor_calls(unsigned char *ring, unsigned long n)
{
	for (unsigned long k = 0; k < n; k++) {
		uint64_t tsc = __builtin_ia32_rdtsc(), arg = k;

		memcpy(ring + k * 16, &tsc, 8);
		memcpy(ring + k * 16 + 8, &arg, 8);
		__asm__ volatile("" ::: "memory");
	}
}

static void *traced(void *arg)
{
	intptr_t i = (intptr_t)arg;
	unsigned long burst = records < BURST ? records : BURST, k;
	unsigned char *ring = malloc(FLOOR_BYTES);
	double t0;
	long f0;

	if (!ring)
		abort();
	memset(ring, 1, FLOOR_BYTES);	/* resident, as the floor's ring is in bench/peers */
	/* the floor first: after the burst, a pool's refill (300 us after
	 * the first call, src/writer/writer_pool.c) may share its CPU */
	t0 = bench_now_ns();
	floor_calls(ring, burst);
	floor_ns[i] = (bench_now_ns() - t0) / (double)(burst ? burst : 1);
	t0 = bench_now_ns();
	trace_printk("first call of thread %ld", (long)i);
	first_ns[i] = bench_now_ns() - t0;
	f0 = minor_faults();
	t0 = bench_now_ns();
	for (k = 0; k < burst; k++)
		trace_printk("record %lu", k);
	burst_ns[i] = (bench_now_ns() - t0) / (double)(burst ? burst : 1);
	burst_faults[i] = (double)(minor_faults() - f0);
	for (; k < records; k++)
		trace_printk("record %lu", k);
	free(ring);
	return NULL;
}

static void *empty(void *arg)
{
	return arg;
}

/* The child: THREADS threads in turn; prints "median max create" in ns,
 * then the burst's ns/call, faults and the floor's ns/call (medians). */
static int child(int threads)
{
	double create[MAX_THREADS], median, max = 0;
	pthread_t th;

	for (int i = 0; i < threads; i++) {
		double t0 = bench_now_ns();

		if (pthread_create(&th, NULL, empty, NULL) || pthread_join(th, NULL))
			return 1;
		create[i] = bench_now_ns() - t0;
		if (pthread_create(&th, NULL, traced, (void *)(intptr_t)i) ||
		    pthread_join(th, NULL))
			return 1;
	}
	for (int i = 0; i < threads; i++)
		max = first_ns[i] > max ? first_ns[i] : max;
	median = bench_median(first_ns, threads);
	printf("%.0f %.0f %.0f %.3f %.0f %.3f\n", median, max, bench_median(create, threads),
	       bench_median(burst_ns, threads), bench_median(burst_faults, threads),
	       bench_median(floor_ns, threads));
	return 0;
}

/* Run argv with env set (NULL: none), its output's six figures into f. */
static int run(char *const argv[], const char *env, double f[6])
{
	int fds[2], st;
	char out[256] = "";
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		if (env)
			putenv((char *)env);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	n = read(fds[0], out, sizeof(out) - 1);
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) || n <= 0 ||
	    sscanf(out, "%lf %lf %lf %lf %lf %lf", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5]) != 6)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const ways[] = { "in memory", "BPRINT_FILE", "bprint record" };
	char self[4096], nthreads[16], nrecords[32], file_env[4200], file[4096], rec_out[4096];
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int threads = 64;
	double burst[3][3];

	if (argc == 4 && !strcmp(argv[1], "--child")) {
		records = strtoul(argv[3], NULL, 10);
		return child(atoi(argv[2]));
	}
	if (argc > 1)
		threads = atoi(argv[1]);
	if (argc > 2)
		records = strtoul(argv[2], NULL, 10);
	if (threads < 1 || threads > MAX_THREADS) {
		fprintf(stderr, "usage: bench-first-call [THREADS (1-%d)] [RECORDS]\n", MAX_THREADS);
		return 2;
	}
	if (!realpath(argv[0], self)) {
		perror("bench-first-call");
		return 1;
	}
	snprintf(nthreads, sizeof(nthreads), "%d", threads);
	snprintf(nrecords, sizeof(nrecords), "%lu", records);
	snprintf(file, sizeof(file), "%s/bench-first-call.%d.dat", dir, (int)getpid());
	snprintf(file_env, sizeof(file_env), "BPRINT_FILE=%s", file);
	snprintf(rec_out, sizeof(rec_out), "%s/bench-first-call.%d.rec", dir, (int)getpid());
	unsetenv("BPRINT_FILE");

	printf("a thread's first trace_printk, %d threads in turn, %lu records each after it:\n",
	       threads, records);
	for (int w = 0; w < 3; w++) {
		char *direct[] = { self, "--child", nthreads, nrecords, NULL };
		char *recorded[] = { BPRINT_CMD, "record", "-q", "-o", rec_out, "--",
				     self, "--child", nthreads, nrecords, NULL };
		double f[6];
		int rc = run(w == 2 ? recorded : direct, w == 1 ? file_env : NULL, f);

		unlink(file);
		unlink(rec_out);
		if (rc) {
			fprintf(stderr, "bench-first-call: the %s run failed\n", ways[w]);
			return 1;
		}
		printf("  %-14s median %8.1f us, max %8.1f us; %.2fx an empty thread's create "
		       "and join (%.1f us)\n",
		       ways[w], f[0] / 1e3, f[1] / 1e3, f[0] / f[2], f[2] / 1e3);
		burst[w][0] = f[3];
		burst[w][1] = f[4];
		burst[w][2] = f[5];
	}
	printf("the first %lu calls after it (medians over the threads):\n",
	       records < BURST ? records : BURST);
	for (int w = 0; w < 3; w++)
		printf("  %-14s %6.2f ns/call, %4.0f page faults; floor %5.2f ns/call; %.2fx the "
		       "floor\n", ways[w], burst[w][0], burst[w][1], burst[w][2],
		       burst[w][2] > 0 ? burst[w][0] / burst[w][2] : 0.0);
	return 0;
}
