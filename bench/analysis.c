/*
 * bench-analysis: `bprint hist` and `bprint latency` against `bprint
 * report > /dev/null` on the same file, and hist's memory on a large trace
 * with many keys.
 *
 *   bench-analysis [RECORDS] [BIG_BYTES] [RUNS]
 *
 * 1. A child (this program, re-executed with BPRINT_FILE) traces RECORDS
 *    records (default 4000000) from one thread into each of two files: a
 *    server's commands ("cmd %s argc %d dur_us %lld", the Redis
 *    line: three commands), and requests that begin ("begin req %u cmd
 *    %s") and end ("end req %u cmd %s dur_us %lld"), a request id as key.
 * 2. In each of RUNS rounds (default 5), alternating, each timed in CPU
 *    time (user + system: fairer than wall time on a shared machine), to
 *    /dev/null: on the first file `bprint report`, `bprint hist -v dur_us`
 *    and `bprint hist -v dur_us -k cmd`; on the second `bprint report`,
 *    `bprint latency --from 'fmt:begin*' --to 'fmt:end*' -k req` (one
 *    group, an integer key: the target's row) and the same `--by cmd`.
 *    Printed: the medians of records per second and the ratios to report
 *    of the same file (targets: hist -v and hist -v -k cmd >= 2x, latency
 *    -k req >= 1.5x), and each command's median user and system time apart.
 *    Then the same for hist -v on other shapes of file, each against
 *    report of its own: one site of integers only ("tick %ld val %d"),
 *    a live file and the stream bprint record writes of it, the first
 *    file's format as a stream, and three sites of which -s chooses one.
 * 3. A child traces until a BIG_BYTES trace (default 1 GiB; 0 skips this)
 *    is full of records with 10,000 distinct keys, then `bprint hist -v
 *    dur_us -k req` reads it: its peak resident memory (target < 64 MiB).
 *
 * BENCH_ANALYSIS_DIR says where the files go (default /tmp); they are
 * removed at the end.
 *
 *   bench-analysis --file TRACE FIELD [RUNS]
 *
 * measures step 2 on a trace of your own (a real program's): `bprint
 * report TRACE` against `bprint hist -v FIELD TRACE`, alternating, RUNS
 * rounds (default 9): the medians of their CPU time and the ratio.
 */
#include <bprint.h>

#include "bench.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef BPRINT_CMD
#define BPRINT_CMD "bprint"
#endif

#define MAX_RUNS 31

static const char *const cmds[] = { "GET", "SET", "DEL" };

/* Shapes of file for hist -v beside the first (keys 0): keys values the
 * tracing child takes past the real key counts. */
#define SHAPE_TICK 1000001u	/* one site of two integers: "tick %ld val %d" */
#define SHAPE_SITES 1000002u	/* three sites, hist -s one of them */

/* Records k and k + 1 (keys > 0: a request of key k % keys begins and
 * ends; else two commands). */
static void trace_two(unsigned long k, unsigned keys)
{
	const char *cmd = cmds[k % 3];
	long long dur = (long long)((k * 7919) % 100000);

	if (keys == SHAPE_TICK) {
		trace_printk("tick %ld val %d", (long)k, (int)dur);
		trace_printk("tick %ld val %d", (long)k + 1, (int)(dur / 3));
		return;
	}
	if (keys == SHAPE_SITES) {
		if (k % 2)
			trace_printk("cmd %s argc %d dur_us=%d", cmd, (int)(k % 5), (int)dur);
		else
			trace_printk("tick %ld val %d", (long)k, (int)dur);
		trace_printk("req %u dur_us=%lld", (unsigned)k, dur / 3);
		return;
	}
	if (!keys) {
		trace_printk("cmd %s argc %d dur_us %lld", cmd, (int)(k % 5), dur);
		trace_printk("cmd %s argc %d dur_us %lld", cmds[(k + 1) % 3], (int)(k % 4), dur / 3);
		return;
	}
	trace_printk("begin req %u cmd %s", (unsigned)(k % keys), cmd);
	trace_printk("end req %u cmd %s dur_us %lld", (unsigned)(k % keys), cmd, dur);
}

/* Child: n records (0: until the buffer is full), then exit. */
static int child(unsigned long n, unsigned keys)
{
	struct bprint_thread_stats st = BPRINT_THREAD_STATS_INIT;

	for (unsigned long k = 0; !n || 2 * k < n; k++) {
		trace_two(k, keys);
		if (!n && (k & 0x7ff) == 0 && bprint_stats(&st, 1) == 1 && st.discarded)
			break;	/* full */
	}
	return 0;
}

/* The child traces into file: a live file, or with stream set the file
 * bprint record copies (in block mode: every record kept). */
static int spawn_tracer(const char *self, const char *file, unsigned long n, unsigned keys,
			const char *bufsize, bool stream)
{
	char arg[32], karg[32];
	pid_t pid;
	int st;

	unlink(file);
	snprintf(arg, sizeof(arg), "%lu", n);
	snprintf(karg, sizeof(karg), "%u", keys);
	pid = fork();
	if (pid == 0) {
		setenv("BPRINT_BUFFER_SIZE", stream ? "4M" : bufsize, 1);
		setenv("BPRINT_CLOCK", "mono", 1);
		if (stream) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 2);	/* record's summary */
			execl(BPRINT_CMD, BPRINT_CMD, "record", "-q", "-o", file, "--", self,
			      "--trace", arg, karg, (char *)NULL);
			_exit(127);
		}
		setenv("BPRINT_FILE", file, 1);
		setenv("BPRINT_MODE", "discard", 1);
		execl(self, self, "--trace", arg, karg, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "bench-analysis: the tracing child failed\n");
		return -1;
	}
	return 0;
}

static double cpu_seconds(const struct rusage *ru)
{
	return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6 +
	       (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6;
}

/* Run bprint with args, stdout to /dev/null: its rusage, or -1. */
static int run_bprint(char *const *args, struct rusage *ru)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		execv(BPRINT_CMD, args);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, ru) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "bench-analysis: %s %s failed\n", BPRINT_CMD, args[1]);
		return -1;
	}
	return 0;
}

/* --file: report against hist -v field on a trace of the caller's. */
static int on_file(char *trace, char *field, int runs)
{
	char *report_cmd[] = { BPRINT_CMD, "report", trace, NULL };
	char *hist[] = { BPRINT_CMD, "hist", "-v", field, trace, NULL };
	double cpu[2][MAX_RUNS], med[2];
	struct rusage ru;

	for (int r = 0; r < runs; r++) {
		if (run_bprint(report_cmd, &ru))
			return 1;
		cpu[0][r] = cpu_seconds(&ru);
		if (run_bprint(hist, &ru))
			return 1;
		cpu[1][r] = cpu_seconds(&ru);
	}
	med[0] = bench_median(cpu[0], runs);
	med[1] = bench_median(cpu[1], runs);
	printf("%s: bprint report %.3f s CPU, hist -v %s %.3f s: hist at %.2fx report's rate "
	       "(target >= 2x) [medians of %d runs]\n", trace, med[0], field, med[1],
	       med[0] / med[1], runs);
	return 0;
}

/* Medians of a command's CPU time over the runs: user, system, both. */
struct cpu_median {
	double user, sys, total;
};

static double seconds(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* The commands cmd[0..ncmd), alternating, runs rounds: their medians. */
static int measure(char *const *const *cmd, int ncmd, int runs, struct cpu_median *med)
{
	double user[8][MAX_RUNS], sys[8][MAX_RUNS], total[8][MAX_RUNS];
	struct rusage ru;

	for (int r = 0; r < runs; r++)
		for (int c = 0; c < ncmd; c++) {
			if (run_bprint(cmd[c], &ru))
				return -1;
			user[c][r] = seconds(&ru.ru_utime);
			sys[c][r] = seconds(&ru.ru_stime);
			total[c][r] = user[c][r] + sys[c][r];
		}
	for (int c = 0; c < ncmd; c++)
		med[c] = (struct cpu_median){ bench_median(user[c], runs), bench_median(sys[c], runs),
					      bench_median(total[c], runs) };
	return 0;
}

static void print_times(const char *const *names, const struct cpu_median *med, int ncmd)
{
	printf("  CPU time (medians):");
	for (int c = 0; c < ncmd; c++)
		printf("%s %s user %.3f s sys %.3f s", c ? "," : "", names[c], med[c].user,
		       med[c].sys);
	printf("\n");
}

/* The file shapes beside the first, for hist -v against report. */
static const struct shape {
	const char *what;
	unsigned kind;
	bool stream;
	const char *field, *site;
} shapes[] = {
	{ "\"tick %ld val %d\", live file", SHAPE_TICK, false, "val", NULL },
	{ "\"tick %ld val %d\", stream", SHAPE_TICK, true, "val", NULL },
	{ "\"cmd %s argc %d dur_us %lld\", stream", 0, true, "dur_us", NULL },
	{ "3 sites, -s 'fmt:cmd*' (dur_us=%d), live file", SHAPE_SITES, false, "dur_us",
	  "fmt:cmd*" },
	{ "3 sites, -s 'fmt:cmd*' (dur_us=%d), stream", SHAPE_SITES, true, "dur_us",
	  "fmt:cmd*" },
};

/* hist -v on each shape against report of the same file. */
static int shape_rows(const char *self, const char *dir, unsigned long n, const char *bufsize,
		      int runs)
{
	char file[4096];

	snprintf(file, sizeof(file), "%s/bench-analysis-shape.%d.dat", dir, (int)getpid());
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct shape *sh = &shapes[i];
		char *report_cmd[] = { BPRINT_CMD, "report", file, NULL };
		char *hist[] = { BPRINT_CMD, "hist", "-v", (char *)sh->field, file, NULL, NULL, NULL };
		char *const *cmd[2] = { report_cmd, hist };
		static const char *const names[2] = { "report", "hist" };
		struct cpu_median med[2];

		if (sh->site) {
			hist[4] = "-s";
			hist[5] = (char *)sh->site;
			hist[6] = file;
		}
		if (spawn_tracer(self, file, n, sh->kind, bufsize, sh->stream) ||
		    measure(cmd, 2, runs, med)) {
			unlink(file);
			return -1;
		}
		printf("%s: report %.2f M records/s; hist -v %s%s%s %.2f M/s, %.2fx (target >= 2x)\n",
		       sh->what, (double)n / med[0].total / 1e6, sh->field, sh->site ? " -s " : "",
		       sh->site ? sh->site : "", (double)n / med[1].total / 1e6,
		       med[0].total / med[1].total);
		print_times(names, med, 2);
	}
	unlink(file);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("BENCH_ANALYSIS_DIR") ? getenv("BENCH_ANALYSIS_DIR") : "/tmp";
	unsigned long n = 4000000;
	unsigned long long big = 1ull << 30;
	char cmdfile[4096], reqfile[4096], bigfile[4096], bufsize[32];
	struct cpu_median med[6];
	int runs = 5;

	if (argc == 4 && !strcmp(argv[1], "--trace"))
		return child(strtoul(argv[2], NULL, 10), (unsigned)strtoul(argv[3], NULL, 10));
	if (argc >= 4 && !strcmp(argv[1], "--file")) {
		runs = argc > 4 ? atoi(argv[4]) : 9;
		return on_file(argv[2], argv[3], runs < 1 || runs > MAX_RUNS ? 9 : runs);
	}
	if (argc > 1)
		n = strtoul(argv[1], NULL, 10);
	if (argc > 2)
		big = strtoull(argv[2], NULL, 10);
	if (argc > 3)
		runs = atoi(argv[3]);
	if (runs < 1 || runs > MAX_RUNS)
		runs = 5;
	unsetenv("BPRINT_FILE");
	snprintf(cmdfile, sizeof(cmdfile), "%s/bench-analysis-cmd.%d.dat", dir, (int)getpid());
	snprintf(reqfile, sizeof(reqfile), "%s/bench-analysis-req.%d.dat", dir, (int)getpid());
	snprintf(bigfile, sizeof(bigfile), "%s/bench-analysis-big.%d.dat", dir, (int)getpid());
	snprintf(bufsize, sizeof(bufsize), "%luM", n * 40 / (1u << 20) + 16);
	if (spawn_tracer(argv[0], cmdfile, n, 0, bufsize, false) ||
	    spawn_tracer(argv[0], reqfile, n, 1000, bufsize, false))
		return 1;
	{
		char *report_cmd[] = { BPRINT_CMD, "report", cmdfile, NULL };
		char *hist[] = { BPRINT_CMD, "hist", "-v", "dur_us", cmdfile, NULL };
		char *hist_k[] = { BPRINT_CMD, "hist", "-v", "dur_us", "-k", "cmd", cmdfile, NULL };
		char *report_req[] = { BPRINT_CMD, "report", reqfile, NULL };
		char *lat[] = { BPRINT_CMD, "latency", "--from", "fmt:begin*", "--to", "fmt:end*",
				"-k", "req", "--by", "cmd", reqfile, NULL };
		char *lat1[] = { BPRINT_CMD, "latency", "--from", "fmt:begin*", "--to", "fmt:end*",
				 "-k", "req", reqfile, NULL };
		char *const *cmd[6] = { report_cmd, hist, hist_k, report_req, lat1, lat };
		static const char *const names[6] = { "report", "hist -v", "hist -v -k", "report",
						      "latency -k req", "latency --by cmd" };
		int rc = measure(cmd, 6, runs, med);

		unlink(cmdfile);
		unlink(reqfile);
		if (rc)
			return 1;
		printf("\"cmd %%s argc %%d dur_us %%lld\": bprint report %.2f M records/s; hist -v "
		       "dur_us %.2f M/s, %.2fx report (target >= 2x); hist -v dur_us -k cmd "
		       "%.2f M/s, %.2fx (target >= 2x)\n", (double)n / med[0].total / 1e6,
		       (double)n / med[1].total / 1e6, med[0].total / med[1].total,
		       (double)n / med[2].total / 1e6, med[0].total / med[2].total);
		print_times(names, med, 3);
		printf("begin/end requests: bprint report %.2f M records/s; latency -k req (one "
		       "group) %.2f M/s, %.2fx report (target >= 1.5x); latency -k req --by cmd "
		       "%.2f M/s, %.2fx\n", (double)n / med[3].total / 1e6,
		       (double)n / med[4].total / 1e6, med[3].total / med[4].total,
		       (double)n / med[5].total / 1e6, med[3].total / med[5].total);
		print_times(names + 3, med + 3, 3);
	}
	if (shape_rows(argv[0], dir, n, bufsize, runs))
		return 1;
	printf("[%lu records a file, medians of %d runs, CPU time]\n", n, runs);
	if (big) {
		char *hist[] = { BPRINT_CMD, "hist", "-v", "dur_us", "-k", "req", bigfile, NULL };
		struct rusage ru;
		struct stat st;

		snprintf(bufsize, sizeof(bufsize), "%lluM", big >> 20);
		if (spawn_tracer(argv[0], bigfile, 0, 10000, bufsize, false))
			return 1;
		stat(bigfile, &st);
		if (run_bprint(hist, &ru)) {
			unlink(bigfile);
			return 1;
		}
		printf("bprint hist -k req (10,000 keys) on a %.2f GiB trace: peak RSS %.1f MiB "
		       "(target < 64 MiB), %.1f s CPU\n",
		       (double)st.st_size / (1u << 30), (double)ru.ru_maxrss / 1024, cpu_seconds(&ru));
		unlink(bigfile);
	}
	return 0;
}
