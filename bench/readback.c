/*
 * bench-readback: the cost of reading a trace back, per thread, as the
 * number of threads that traced grows (issue 31: 130 us a thread at 1,000
 * threads, 513 us at 20,000, a linear search per lookup).
 *
 *   bench-readback [RUNS]
 *
 * For 1,000, 5,000 and 20,000 threads, one after the other, each tracing
 * 10 records and exiting, `bprint record -b 64K` writes a stream (this
 * program re-executed as the traced command).  Then `bprint report`,
 * `bprint stats` and `bprint formats` read each stream to /dev/null, RUNS
 * times (default 3); the figures are the median CPU time (user + system)
 * per thread, its ratio to the 1,000-thread figure of the same command in
 * the same run (target: <= 1.5x at 20,000), and the peak resident memory
 * of the largest run.
 *
 * Set BENCH_READBACK_DIR for where the streams go (default /tmp); they
 * are removed at the end.
 */
#define _GNU_SOURCE
#include <bprint.h>

#include "bench.h"

#include <time.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#ifndef BPRINT_CMD
#define BPRINT_CMD "bprint"
#endif

#define MAX_RUNS 15

static const unsigned sizes[] = { 1000, 5000, 20000 };
static const char *const commands[] = { "report", "stats", "formats" };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void *worker(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;

	for (unsigned i = 0; i < 10; i++)
		trace_printk("thread %u record %u", id, i);
	return NULL;
}

/* The traced command: n threads, one after the other. */
static int trace_threads(unsigned n)
{
	for (unsigned id = 0; id < n; id++) {
		pthread_t th;

		if (pthread_create(&th, NULL, worker, (void *)(uintptr_t)id) != 0 ||
		    pthread_join(th, NULL) != 0)
			return 1;
	}
	return 0;
}

/* Run argv with stdout and stderr to /dev/null: its CPU seconds and peak
 * RSS (KiB), or -1 if it failed. */
static double run(char *const argv[], long *maxrss_kib)
{
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return -1;
	*maxrss_kib = ru.ru_maxrss;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int make_stream(const char *self, const char *file, unsigned n)
{
	char count[16];
	long rss;
	char *argv[] = { BPRINT_CMD, "record", "-q", "-b", "64K", "-o", (char *)file, "--",
			 (char *)self, "--threads", count, NULL };

	snprintf(count, sizeof(count), "%u", n);
	if (run(argv, &rss) < 0) {
		fprintf(stderr, "bench-readback: %s record of %u threads failed\n", BPRINT_CMD, n);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("BENCH_READBACK_DIR") ? getenv("BENCH_READBACK_DIR") : "/tmp";
	char files[NSIZES][4096];
	double us[NCOMMANDS][NSIZES];
	long peak[NCOMMANDS] = { 0 };
	int runs = 3;

	if (argc == 3 && !strcmp(argv[1], "--threads"))
		return trace_threads((unsigned)strtoul(argv[2], NULL, 10));
	if (argc > 1)
		runs = atoi(argv[1]);
	if (runs < 1 || runs > MAX_RUNS) {
		fprintf(stderr, "usage: bench-readback [RUNS (1-%d)]\n", MAX_RUNS);
		return 2;
	}
	for (size_t s = 0; s < NSIZES; s++) {
		snprintf(files[s], sizeof(files[s]), "%s/bench-readback-%ld-%u.dat", dir,
			 (long)getpid(), sizes[s]);
		if (make_stream(argv[0], files[s], sizes[s]) != 0)
			return 1;
	}
	for (size_t c = 0; c < NCOMMANDS; c++)
		for (size_t s = 0; s < NSIZES; s++) {
			double cpu[MAX_RUNS];
			char *cargv[] = { BPRINT_CMD, (char *)commands[c], files[s], NULL };

			for (int r = 0; r < runs; r++) {
				long rss = 0;

				if ((cpu[r] = run(cargv, &rss)) < 0) {
					fprintf(stderr, "bench-readback: %s %s failed\n", BPRINT_CMD,
						commands[c]);
					return 1;
				}
				if (rss > peak[c])
					peak[c] = rss;
			}
			us[c][s] = bench_median(cpu, runs) * 1e6 / sizes[s];
		}
	printf("bench-readback: CPU per thread (median of %d), threads of 10 records each\n", runs);
	printf("%-8s %12s %12s %12s %14s %12s\n", "command", "1k us/thr", "5k us/thr", "20k us/thr",
	       "20k/1k ratio", "peak RSS");
	for (size_t c = 0; c < NCOMMANDS; c++)
		printf("%-8s %12.1f %12.1f %12.1f %13.2fx %9ld MiB\n", commands[c], us[c][0], us[c][1],
		       us[c][2], us[c][2] / us[c][0], peak[c] / 1024);
	for (size_t s = 0; s < NSIZES; s++)
		unlink(files[s]);
	return 0;
}
