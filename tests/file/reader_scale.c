/*
 * reader_scale: reading back many threads' records costs work linear in
 * the records, in both readers: the trace-file reader (bp_trace_next) and
 * the in-process one (bprint_dump, the crash dump, the consumer).  5,000
 * threads that each traced K records must cost at most 6 times the work of
 * 1,000 (5 times the records): a merge that looked at every ring for every
 * record would cost 25 times.  Work is counted (sources filled, moved in
 * and out of the merge: bp_trace_work, bp_reader_work), not timed.
 *
 *   reader_scale              the test: its children trace, it reads
 *   reader_scale --threads N  a child: N threads, one after another in
 *                             batches, each traces K records and exits
 */
#include "check.h"

#include "reader/reader.h"
#include "trace/reader.h"

#include <bprint.h>
#include <bprint/reader.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define K 5		/* records per thread */
#define BATCH 50	/* threads alive at once */

static void *tracer(void *arg)
{
	unsigned long n = (unsigned long)(uintptr_t)arg;

	for (int i = 0; i < K; i++)
		trace_printk("thread %lu record %d", n, i);
	return NULL;
}

static void make_threads(unsigned long n)
{
	pthread_t th[BATCH];

	for (unsigned long done = 0; done < n;) {
		unsigned long b = n - done < BATCH ? n - done : BATCH;

		for (unsigned long i = 0; i < b; i++)
			CHECK(pthread_create(&th[i], NULL, tracer, (void *)(uintptr_t)(done + i)) == 0);
		for (unsigned long i = 0; i < b; i++)
			pthread_join(th[i], NULL);
		done += b;
	}
}

struct cost {
	unsigned long records;
	uint64_t work;
};

/* The trace file of a child that made n threads. */
static struct cost file_cost(const char *self, const char *dir, unsigned long n)
{
	char path[512], env[600], count[32], err[256];
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	struct cost c = { 0, 0 };
	struct bp_trace *t;
	pid_t pid;
	int st, rc;

	snprintf(path, sizeof(path), "%s/%lu.dat", dir, n);
	snprintf(env, sizeof(env), "BPRINT_FILE=%s", path);
	snprintf(count, sizeof(count), "%lu", n);
	pid = fork();
	if (pid == 0) {
		putenv(env);
		execl(self, self, "--threads", count, (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	t = bp_trace_open(path, BP_TRACE_OPEN_NO_SYMBOLS, err, sizeof(err), &rc);
	if (!t)
		FAIL("%s: %s", path, err);
	while ((rc = bp_trace_next(t, &e, 0)) == 1)
		c.records++;
	CHECK_EQ(rc, 0);
	CHECK_EQ(bp_trace_problems(t, NULL), 0);
	c.work = bp_trace_work(t);
	bp_trace_close(t);
	unlink(path);
	return c;
}

/* This process's own rings: n threads, read back by a snapshot, then consumed. */
static struct cost own_cost(unsigned long n)
{
	struct bprint_event ev = BPRINT_EVENT_INIT;
	struct bprint_reader *r;
	struct cost c = { 0, 0 };

	make_threads(n);
	r = bprint_snapshot_begin();
	CHECK(r != NULL);
	while (bprint_read_next(r, &ev) == 1)
		c.records++;
	c.work = bp_reader_work(r);
	bprint_read_end(r);
	/* consume them all, so that the next round reads its own threads */
	r = bprint_read_begin();
	while (bprint_read_next(r, &ev) == 1)
		;
	bprint_read_end(r);
	return c;
}

static void compare(const char *what, struct cost small, struct cost big)
{
	printf("%s: 1,000 threads %lu records, work %llu; 5,000 threads %lu records, work %llu "
	       "(%.2fx)\n", what, small.records, (unsigned long long)small.work, big.records,
	       (unsigned long long)big.work, (double)big.work / (double)(small.work | 1));
	CHECK_EQ(small.records, 1000 * K);
	CHECK_EQ(big.records, 5000 * K);
	CHECK_MSG(big.work <= 6 * small.work, "%s: 5,000 threads cost %llu, 6 x 1,000's is %llu",
		  what, (unsigned long long)big.work, (unsigned long long)(6 * small.work));
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/bp-reader-scale-XXXXXX";
	struct cost small, big;

	if (argc == 3 && !strcmp(argv[1], "--threads")) {
		make_threads(strtoul(argv[2], NULL, 10));
		return 0;
	}
	CHECK(mkdtemp(dir) != NULL);
	small = file_cost("/proc/self/exe", dir, 1000);
	big = file_cost("/proc/self/exe", dir, 5000);
	rmdir(dir);
	compare("trace file", small, big);
	small = own_cost(1000);
	big = own_cost(5000);
	compare("in process", small, big);
	return check_summary("reader_scale");
}
