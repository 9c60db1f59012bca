/*
 * The traced program of the trigger test (trigger.sh): started with no
 * bprint variable, watched from outside by bprint record --trigger.
 *
 *   trigger_traced THREADS EVENTS READY GO EXPECT
 *       creates READY, waits for GO to exist, then THREADS threads trace
 *       EVENTS records in all, "request thread %d seq %llu dur_us %d",
 *       seq counting from 0 with no gap in each thread, paced over about
 *       1.2 s; dur_us is below 100 but for 3 records of thread 0, at a
 *       quarter, half and three quarters of its run (dur_us > 1000).
 *       Each record's call is bracketed by two CLOCK_MONOTONIC reads, so
 *       its trace time lies between them even when the thread is
 *       preempted at the call; at the end EXPECT gets, for each slow
 *       record K (1, 2, 3) and each thread T, the seq range the thread
 *       traced certainly within 5 ms of it, wherever in its bracket each
 *       was stamped (less a 0.5 ms margin for the two clocks):
 *       "window K thread T from A to B".
 *
 *   trigger_traced gap READY GO DONE GO2
 *       thread 0 traces a record and thread 1 400 (a page the watcher
 *       copies before the burst), then it creates READY and waits for GO; thread 1 then traces a burst of "burst seq %d
 *       dur_us %d" records for 40 ms, and thread 0 one slow record
 *       ("request thread 0 seq 0 dur_us 2000") 20 ms into it, and 400
 *       more (a page the watcher copies: it reads completed pages); once both
 *       are done it creates DONE, waits for GO2, and thread 0 traces one
 *       more record.  The test holds the watcher stopped over
 *       the burst, so that a small ring loses every record of thread 1 in
 *       the slow record's window before the watcher copies them.
 *
 *   trigger_traced quiet READY GO WINDOW
 *       traces a record, creates READY, waits for GO, traces one slow
 *       record and no more: a page it never completes.  Then, unless
 *       WINDOW is "-", it waits up to 5 s for the file WINDOW to appear
 *       (the watcher's window, written while it runs), exit 3 if not.
 *
 *   trigger_traced order READY GO
 *       thread 0 traces a record (its ring is the file's first), thread 1
 *       one slow record ("request thread 1 seq 0 dur_us 2000"), and 20 ms
 *       later thread 0 one ("request thread 0 seq 1 dur_us 2001"); then it
 *       creates READY and waits for GO.  A watcher that attaches then
 *       finds the later match in the first ring.
 */
#define _GNU_SOURCE
#include <bprint.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 16
#define RUN_NS 1200000000ull
#define HALF_WINDOW_NS (5000000ull - 500000ull)

static unsigned nthreads;
static unsigned long long per_thread;
static uint64_t *called[MAX_THREADS];	/* monotonic time before each call */
static uint64_t *returned[MAX_THREADS];	/* and after it */
static uint64_t start_ns;
static unsigned long long slow_seq[3];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;

	for (unsigned long long seq = 0; seq < per_thread; seq++) {
		int dur = (int)(seq % 100);

		if (id == 0 && (seq == slow_seq[0] || seq == slow_seq[1] || seq == slow_seq[2]))
			dur = 2000 + (int)(seq % 7);
		called[id][seq] = now_ns();
		trace_printk("request thread %d seq %llu dur_us %d", id, seq, dur);
		returned[id][seq] = now_ns();
		if ((seq & 127) == 127) {
			/* paced: record seq at start + seq/per_thread of the run */
			uint64_t due = start_ns + (uint64_t)((double)RUN_NS * (double)seq / (double)per_thread);
			uint64_t now = now_ns();

			if (due > now) {
				struct timespec d = { 0, (long)(due - now) };

				nanosleep(&d, NULL);
			}
		}
	}
	return NULL;
}

static int touch(const char *path)
{
	FILE *f = fopen(path, "w");

	return f && fclose(f) == 0 ? 0 : -1;
}

static void wait_for(const char *path)
{
	while (access(path, F_OK) != 0)
		usleep(1000);
}

static void *burst(void *arg)
{
	uint64_t end;
	int seq;

	for (seq = -400; seq < 0; seq++)	/* a page the watcher copies first */
		trace_printk("burst seq %d dur_us %d", seq, 0);
	wait_for((const char *)arg);
	end = now_ns() + 40000000ull;
	while (now_ns() < end) {
		trace_printk("burst seq %d dur_us %d", seq, seq % 100);
		seq++;
	}
	return NULL;
}

/* The gap mode (above). */
static int gap(char **argv)
{
	pthread_t th;
	struct timespec d = { 0, 20000000L };

	trace_printk("request thread 0 seq %d dur_us %d", -1, 1);	/* thread 0's ring, before */
	if (pthread_create(&th, NULL, burst, argv[3]) != 0)
		return 1;
	usleep(10000);
	if (touch(argv[2]) != 0)
		return 1;
	wait_for(argv[3]);
	nanosleep(&d, NULL);
	trace_printk("request thread 0 seq %d dur_us %d", 0, 2000);
	/* a page the watcher copies: it reads completed pages only */
	for (int seq = 1; seq <= 400; seq++)
		trace_printk("request thread 0 seq %d dur_us %d", seq, 1);
	pthread_join(th, NULL);
	if (touch(argv[4]) != 0)
		return 1;
	wait_for(argv[5]);
	trace_printk("request thread 0 seq %d dur_us %d", 401, 1);
	usleep(300000);	/* the window is written while we run */
	return 0;
}

/* The quiet mode (above). */
static int quiet(char **argv)
{
	trace_printk("request thread 0 seq %d dur_us %d", 0, 1);
	if (touch(argv[2]) != 0)
		return 1;
	wait_for(argv[3]);
	trace_printk("request thread 0 seq %d dur_us %d", 1, 2000);
	if (strcmp(argv[4], "-") == 0)
		return 0;
	for (int ms = 0; ms < 5000; ms++) {
		if (access(argv[4], F_OK) == 0)
			return 0;
		usleep(1000);
	}
	return 3;
}

static atomic_int slow_done;

static void *slow_once(void *arg)
{
	trace_printk("request thread %d seq %d dur_us %d", 1, 0, 2000);
	atomic_store(&slow_done, 1);
	wait_for((const char *)arg);	/* its ring stays the thread's */
	return NULL;
}

/* The order mode (above). */
static int order(char **argv)
{
	pthread_t th;
	struct timespec d = { 0, 20000000L };

	trace_printk("request thread %d seq %d dur_us %d", 0, 0, 1);
	if (pthread_create(&th, NULL, slow_once, argv[3]) != 0)
		return 1;
	while (!atomic_load(&slow_done))
		usleep(1000);
	nanosleep(&d, NULL);
	trace_printk("request thread %d seq %d dur_us %d", 0, 1, 2001);
	if (touch(argv[2]) != 0)
		return 1;
	pthread_join(th, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	FILE *f;

	if (argc == 6 && strcmp(argv[1], "gap") == 0)
		return gap(argv);
	if (argc == 5 && strcmp(argv[1], "quiet") == 0)
		return quiet(argv);
	if (argc == 4 && strcmp(argv[1], "order") == 0)
		return order(argv);

	if (argc != 6 || (nthreads = (unsigned)atoi(argv[1])) == 0 || nthreads > MAX_THREADS) {
		fprintf(stderr, "usage: trigger_traced THREADS EVENTS READY GO EXPECT\n");
		return 2;
	}
	per_thread = strtoull(argv[2], NULL, 10) / nthreads;
	for (int k = 0; k < 3; k++)
		slow_seq[k] = per_thread * (unsigned long long)(k + 1) / 4;
	for (unsigned t = 0; t < nthreads; t++)
		if (!(called[t] = calloc(per_thread ? per_thread : 1, sizeof(uint64_t))) ||
		    !(returned[t] = calloc(per_thread ? per_thread : 1, sizeof(uint64_t))))
			return 1;
	if (!(f = fopen(argv[3], "w")))
		return 1;
	fclose(f);
	while (access(argv[4], F_OK) != 0)
		usleep(1000);
	start_ns = now_ns();
	for (unsigned t = 0; t < nthreads; t++)
		pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
	for (unsigned t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	if (!(f = fopen(argv[5], "w")))
		return 1;
	for (int k = 0; k < 3; k++) {
		/* the match was stamped somewhere in [early, late] */
		uint64_t early = called[0][slow_seq[k]], late = returned[0][slow_seq[k]];

		for (unsigned t = 0; t < nthreads; t++) {
			long long from = -1, to = -1;

			for (unsigned long long s = 0; s < per_thread; s++) {
				if (called[t][s] + HALF_WINDOW_NS < late ||
				    returned[t][s] > early + HALF_WINDOW_NS)
					continue;
				if (from < 0)
					from = (long long)s;
				to = (long long)s;
			}
			if (from >= 0)
				fprintf(f, "window %d thread %u from %lld to %lld\n", k + 1, t, from, to);
		}
	}
	fclose(f);
	usleep(300000);	/* the last window is written while we run */
	return 0;
}
