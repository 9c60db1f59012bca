/*
 * bench-report: how fast the report path turns a trace file into text, and
 * how much memory `bprint report` needs on a large trace.
 *
 *   bench-report [RECORDS] [BIG_BYTES] [RUNS]
 *
 * 1. A child (this program, re-executed with BPRINT_FILE) traces RECORDS
 *    records (default 2000000) of a realistic mix of formats into a trace
 *    file.
 * 2. `bprint report FILE > /dev/null` formats every record (read, merge,
 *    bp_bstr_printf() the message, the ftrace line, write); then, in this
 *    process, glibc's fprintf() prints the same lines (same format, same
 *    values, collected beforehand) to /dev/null.  The lines are first
 *    checked to be identical (the reader's output, bprint_format_event(),
 *    against glibc's).  Both are timed in CPU time (user + system), which
 *    a busy machine disturbs less than wall time, RUNS times each (default
 *    3, alternating); the figures are the medians of records per second
 *    and their ratio (target: >= 2x glibc).  `bprint report --json` and
 *    `--csv` are timed the same way, in the same runs, and printed as
 *    ratios to the text report (target: >= 0.5x each).
 * 3. A child traces until a BIG_BYTES trace file (default 1 GiB; 0 skips
 *    this) is full, then `bprint report FILE > /dev/null` runs and its peak
 *    resident memory (ru_maxrss) is reported (target: < 64 MiB).
 *
 * Set BENCH_REPORT_DIR for where the files go (default /tmp); they are
 * removed at the end.
 */
#include "reader/reader.h"

#include "trace/record.h"
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef BPRINT_CMD
#define BPRINT_CMD "bprint"
#endif

static const char *const words[] = { "GET /index.html", "PUT /upload", "POST /api/v1/items",
				     "DELETE /tmp" };

/* The traced mix: kind = i % 4. */
static void trace_record(unsigned long i)
{
	switch (i % 4) {
	case 0:
		trace_printk("request %lu: %s took %llu ns, status %#x", i, words[i % 3],
			     (unsigned long long)(i * 37 % 100000), 0x200 + (unsigned)(i % 5));
		break;
	case 1:
		trace_printk("tick %llu", (unsigned long long)i * 1000003u);
		break;
	case 2:
		trace_printk("queue %d depth %u on cpu %d", (int)(i % 16), (unsigned)(i % 1000),
			     (int)(i % 4));
		break;
	default:
		trace_printk("alloc %zu bytes at %p for %s", (size_t)(i % 4096) * 16,
			     (void *)(uintptr_t)(0x7f0000000000u + i * 64), words[i % 4]);
		break;
	}
}

/* What glibc prints for record i, given the ftrace prefix values. */
static int glibc_line(FILE *out, const char *comm, int tid, int cpu, uint64_t ns,
		      const char *func, unsigned long i)
{
	unsigned long long sec = ns / 1000000000u, usec = ns % 1000000000u / 1000u;

	switch (i % 4) {
	case 0:
		return fprintf(out, "%16.16s-%-7d [%03d] %5llu.%06llu: %s: request %lu: %s took %llu ns, status %#x\n",
			       comm, tid, cpu, sec, usec, func, i, words[i % 3],
			       (unsigned long long)(i * 37 % 100000), 0x200 + (unsigned)(i % 5));
	case 1:
		return fprintf(out, "%16.16s-%-7d [%03d] %5llu.%06llu: %s: tick %llu\n", comm, tid,
			       cpu, sec, usec, func, (unsigned long long)i * 1000003u);
	case 2:
		return fprintf(out, "%16.16s-%-7d [%03d] %5llu.%06llu: %s: queue %d depth %u on cpu %d\n",
			       comm, tid, cpu, sec, usec, func, (int)(i % 16), (unsigned)(i % 1000),
			       (int)(i % 4));
	default:
		return fprintf(out, "%16.16s-%-7d [%03d] %5llu.%06llu: %s: alloc %zu bytes at %p for %s\n",
			       comm, tid, cpu, sec, usec, func, (size_t)(i % 4096) * 16,
			       (void *)(uintptr_t)(0x7f0000000000u + i * 64), words[i % 4]);
	}
}

#define MAX_RUNS 15

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);	/* CPU time: fair on a busy machine */
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Child: trace n records (0: until the buffer is full), then exit. */
static int child(unsigned long n)
{
	struct bprint_thread_stats st = BPRINT_THREAD_STATS_INIT;

	if (n) {
		for (unsigned long i = 0; i < n; i++)
			trace_record(i);
		return 0;
	}
	for (unsigned long i = 0;; i++) {
		trace_record(i);
		if ((i & 0xfff) == 0 && bprint_stats(&st, 1) == 1 && st.discarded)
			return 0;	/* full */
	}
}

static int spawn_tracer(const char *self, const char *file, unsigned long n, const char *bufsize)
{
	char arg[32];
	pid_t pid;
	int st;

	unlink(file);
	snprintf(arg, sizeof(arg), "%lu", n);
	pid = fork();
	if (pid == 0) {
		setenv("BPRINT_FILE", file, 1);
		setenv("BPRINT_BUFFER_SIZE", bufsize, 1);
		setenv("BPRINT_MODE", "discard", 1);
		setenv("BPRINT_CLOCK", "mono", 1);
		execl(self, self, "--trace", arg, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "bench-report: the tracing child failed\n");
		return -1;
	}
	return 0;
}

/* `bprint report [OPT] FILE > /dev/null`: n records over its CPU time
 * (user + system), in records per second; -1 if it failed. */
static double report_rate(const char *file, unsigned long n, const char *opt)
{
	struct rusage ru;
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		if (opt)
			execl(BPRINT_CMD, BPRINT_CMD, "report", opt, file, (char *)NULL);
		else
			execl(BPRINT_CMD, BPRINT_CMD, "report", file, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "bench-report: %s report %s failed\n", BPRINT_CMD, opt ? opt : "");
		return -1;
	}
	return (double)n / ((double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
			    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
}

struct rec {
	uint64_t ns;
	int32_t tid, cpu;
	unsigned long i;
};

int main(int argc, char **argv)
{
	const char *dir = getenv("BENCH_REPORT_DIR") ? getenv("BENCH_REPORT_DIR") : "/tmp";
	unsigned long n = 2000000, k;
	unsigned long long big = 1ull << 30;
	char file[4096], bigfile[4096], err[256], bufsize[32];
	struct bp_trace *t;
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	struct rec *recs;
	const char *comm = NULL, *func[4] = { 0 };
	FILE *devnull, *a, *b;
	double t0, t1, w0, w1, bp_rate, glibc_rate, json_rate, csv_rate;
	double bp_rates[MAX_RUNS], glibc_rates[MAX_RUNS], json_rates[MAX_RUNS], csv_rates[MAX_RUNS];
	int runs = 3;
	static char line[BP_MSG_MAX + 128];
	static char obuf[1 << 16];

	if (argc == 3 && !strcmp(argv[1], "--trace"))
		return child(strtoul(argv[2], NULL, 10));
	if (argc > 1)
		n = strtoul(argv[1], NULL, 10);
	if (argc > 2)
		big = strtoull(argv[2], NULL, 10);
	if (argc > 3)
		runs = atoi(argv[3]);
	if (runs < 1 || runs > MAX_RUNS)
		runs = 3;
	unsetenv("BPRINT_FILE");
	snprintf(file, sizeof(file), "%s/bench-report.%d.dat", dir, (int)getpid());
	snprintf(bigfile, sizeof(bigfile), "%s/bench-report-big.%d.dat", dir, (int)getpid());
	snprintf(bufsize, sizeof(bufsize), "%luM", n * 48 / (1u << 20) + 16);

	if (spawn_tracer(argv[0], file, n, bufsize))
		return 1;
	recs = calloc(n, sizeof(*recs));
	if (!recs)
		return 1;

	/* untimed pass: collect what glibc needs, and check the two outputs */
	if (!(t = bp_trace_open(file, 0, err, sizeof(err), NULL))) {
		fprintf(stderr, "bench-report: %s: %s\n", file, err);
		return 1;
	}
	/* one thread, in order: the k-th record is record i = k */
	for (k = 0; k < n && bp_trace_next(t, &e, 0) == 1; k++) {
		recs[k] = (struct rec){ e.ns, e.tid, e.cpu, k };
		if (!comm)
			comm = strdup(e.comm);
		if (!func[k % 4])
			func[k % 4] = strdup(e.site->func);
	}
	bp_trace_close(t);
	if (k != n) {
		fprintf(stderr, "bench-report: %lu records in the file, %lu traced\n", k, n);
		return 1;
	}
	{
		char *p1 = NULL, *p2 = NULL;
		size_t s1 = 0, s2 = 0;
		unsigned long check = n < 100000 ? n : 100000;

		a = open_memstream(&p1, &s1);
		b = open_memstream(&p2, &s2);
		t = bp_trace_open(file, 0, err, sizeof(err), NULL);
		for (k = 0; k < check && bp_trace_next(t, &e, 0) == 1; k++) {
			int m = bp_trace_format_event(line, sizeof(line), &e, BPRINT_OUTPUT_FTRACE);

			fwrite(line, 1, (size_t)m, a);
			fputc('\n', a);
			glibc_line(b, comm, recs[k].tid, recs[k].cpu, recs[k].ns, func[k % 4], recs[k].i);
		}
		bp_trace_close(t);
		fclose(a);
		fclose(b);
		if (s1 != s2 || memcmp(p1, p2, s1) != 0) {
			fprintf(stderr, "bench-report: the report path and glibc print different lines\n");
			return 1;
		}
		free(p1);
		free(p2);
	}

	devnull = fopen("/dev/null", "w");
	setvbuf(devnull, obuf, _IOFBF, sizeof(obuf));
	/* alternating, so that a slow spell of the machine hits every side */
	for (int r = 0; r < runs; r++) {
		if ((bp_rates[r] = report_rate(file, n, NULL)) < 0 ||
		    (json_rates[r] = report_rate(file, n, "--json")) < 0 ||
		    (csv_rates[r] = report_rate(file, n, "--csv")) < 0)
			return 1;

		/* timed: glibc printf of the same lines from the collected values */
		t0 = now();
		for (k = 0; k < n; k++)
			glibc_line(devnull, comm, recs[k].tid, recs[k].cpu, recs[k].ns, func[k % 4],
				   recs[k].i);
		fflush(devnull);
		t1 = now();
		glibc_rates[r] = (double)n / (t1 - t0);
	}
	fclose(devnull);
	unlink(file);
	bp_rate = bench_median(bp_rates, runs);
	glibc_rate = bench_median(glibc_rates, runs);
	json_rate = bench_median(json_rates, runs);
	csv_rate = bench_median(csv_rates, runs);

	printf("bprint report: %.2f M records/s; glibc fprintf of the same lines: %.2f M lines/s; "
	       "ratio %.2fx (target >= 2x) [%lu records, medians of %d runs]\n",
	       bp_rate / 1e6, glibc_rate / 1e6, bp_rate / glibc_rate, n, runs);
	printf("bprint report --json: %.2f M records/s, %.2fx report; --csv: %.2f M records/s, "
	       "%.2fx report (target >= 0.5x each)\n",
	       json_rate / 1e6, json_rate / bp_rate, csv_rate / 1e6, csv_rate / bp_rate);

	/* The big report's child is forked from this process, and its peak
	 * resident memory counts what it shared with us before exec(): let
	 * the collected values go first, or they are counted as bprint's. */
	free(recs);
	recs = NULL;
	if (big) {
		struct rusage ru;
		struct stat st;
		pid_t pid;
		int status = 0;

		snprintf(bufsize, sizeof(bufsize), "%lluM", big >> 20);
		if (spawn_tracer(argv[0], bigfile, 0, bufsize))
			return 1;
		stat(bigfile, &st);
		pid = fork();
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);

			dup2(fd, 1);
			execl(BPRINT_CMD, BPRINT_CMD, "report", bigfile, (char *)NULL);
			_exit(127);
		}
		w0 = wall();
		if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "bench-report: bprint report failed (%d)\n", status);
			unlink(bigfile);
			return 1;
		}
		w1 = wall();
		printf("bprint report on a %.2f GiB trace: peak RSS %.1f MiB (target < 64 MiB), "
		       "%.1f s wall, %.1f s CPU\n",
		       (double)st.st_size / (1u << 30), (double)ru.ru_maxrss / 1024, w1 - w0,
		       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
		unlink(bigfile);
	}
	return 0;
}
