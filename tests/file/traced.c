/*
 * traced: a program that traces, for the trace-file reader's tests.  Run
 * with BPRINT_FILE set; what it writes to its own outputs is what the
 * tests compare the bprint command's output with.
 *
 *   traced [options]
 *     --threads N     worker threads besides main (default 2)
 *     --records N     records per thread (default 200)
 *     --timer US      a timer signal every US microseconds that traces
 *                     (nested rings when it interrupts a trace)
 *     --sleep-us US   pause between records (for tail)
 *     --dump F        bprint_dump() to F at the end (ftrace form)
 *     --dump-raw F    bprint_dump_fmt(raw) to F
 *     --dump-msg F    bprint_dump_fmt(msg) to F
 *     --stats F       consume everything, then bprint_stats() to F as
 *                     "TID WRITTEN OVERWRITTEN DISCARDED READ" lines
 *     --spin          trace until killed
 *     --together      every thread traces its first record, then waits
 *                     for the others before the rest: all rings exist
 *                     before the flood (a disk that fills meanwhile)
 *
 * Workers trace, then wait on a barrier while main consumes and takes the
 * statistics, so that no thread exits (and is reclaimed) before that.
 */
#define _GNU_SOURCE
#include <bprint.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int nrecords = 200, nthreads = 2, spin, together;
static long sleep_us;
static pthread_barrier_t traced_all, stats_taken, started;
static _Atomic int ticks;	/* every thread's handler counts */

/* A format that is not a literal is formatted at trace time (text records). */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"

static void on_timer(int sig)
{
	int tick = atomic_fetch_add_explicit(&ticks, 1, memory_order_relaxed) + 1;

	(void)sig;
	trace_printk("timer tick %d", tick);
}

static void pause_a_bit(void)
{
	if (sleep_us)
		nanosleep(&(struct timespec){ sleep_us / 1000000, (sleep_us % 1000000) * 1000 }, NULL);
}

static void trace_one(int who, int i)
{
	static const char *words[] = { "alpha", "beta", "", "a rather longer string with spaces" };
	char dyn[64];
	const char *fmt = i % 2 ? "dynamic format %d/%d" : "dynamic format %d-%d";

	switch (i % 8) {
	case 0: trace_printk("thread %d record %d: %s %c", who, i, words[i % 4], 'a' + i % 26); break;
	case 1: trace_printk("ints %hhd %hd %ld %lld %zu %#x %o %+d", (signed char)i, (short)-i, -1L * i, 1LL << 40, (size_t)i, i, i, i); break;
	case 2: trace_printk("floats %f %.3e %g %La", i / 3.0, i * 1e10, -i / 7.0, (long double)i / 5); break;
	case 3: trace_puts("a literal puts"); break;
	case 4: snprintf(dyn, sizeof(dyn), "runtime text %d", i); trace_puts(dyn); break;
	case 5: trace_printk(fmt, who, i); break;
	case 6: trace_printk("width %-12d|%*d|%.*s|%5.2s|%%|%p", i, 6, i, 3, "abcdef", "xyz", (void *)0x1234); break;
	case 7: trace_printk("seq %d of thread %d", i, who); break;
	}
}

static void run(int who)
{
	for (int i = 0; spin || i < nrecords; i++) {
		trace_one(who, i);
		if (together && i == 0)
			pthread_barrier_wait(&started);
		pause_a_bit();
	}
}

static void *worker(void *arg)
{
	int who = (int)(long)arg;
	char name[16];

	sigset_t alrm;

	snprintf(name, sizeof(name), "work-%d", who);
	pthread_setname_np(pthread_self(), name);
	/* Named before its first trace (the timer's included): the process's
	 * dump shows the name a thread had then, the file the name at exit. */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
	run(who);
	pthread_barrier_wait(&traced_all);
	pthread_barrier_wait(&stats_taken);
	return NULL;
}

static FILE *out_file(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(2);
	}
	return f;
}

int main(int argc, char **argv)
{
	const char *dump = NULL, *dump_raw = NULL, *dump_msg = NULL, *stats = NULL;
	long timer_us = 0;
	pthread_t th[64];

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--spin")) { spin = 1; continue; }
		if (!strcmp(a, "--together")) { together = 1; continue; }
		if (!v) { fprintf(stderr, "traced: %s needs a value\n", a); return 1; }
		i++;
		if (!strcmp(a, "--threads")) nthreads = atoi(v);
		else if (!strcmp(a, "--records")) nrecords = atoi(v);
		else if (!strcmp(a, "--timer")) timer_us = atol(v);
		else if (!strcmp(a, "--sleep-us")) sleep_us = atol(v);
		else if (!strcmp(a, "--dump")) dump = v;
		else if (!strcmp(a, "--dump-raw")) dump_raw = v;
		else if (!strcmp(a, "--dump-msg")) dump_msg = v;
		else if (!strcmp(a, "--stats")) stats = v;
		else { fprintf(stderr, "traced: unknown option %s\n", a); return 1; }
	}
	if (nthreads < 0 || nthreads > 64)
		return 1;
	pthread_barrier_init(&traced_all, NULL, (unsigned)nthreads + 1);
	pthread_barrier_init(&stats_taken, NULL, (unsigned)nthreads + 1);
	pthread_barrier_init(&started, NULL, (unsigned)nthreads + 1);
	if (timer_us) {
		struct itimerval it = { { 0, timer_us }, { 0, timer_us } };

		signal(SIGALRM, on_timer);
		setitimer(ITIMER_REAL, &it, NULL);
	}
	{
		sigset_t alrm, old;

		sigemptyset(&alrm);
		sigaddset(&alrm, SIGALRM);
		pthread_sigmask(SIG_BLOCK, &alrm, &old);
		for (int i = 0; i < nthreads; i++)
			pthread_create(&th[i], NULL, worker, (void *)(long)(i + 1));
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	run(0);
	pthread_barrier_wait(&traced_all);
	if (timer_us) {
		struct itimerval off = { { 0, 0 }, { 0, 0 } };

		setitimer(ITIMER_REAL, &off, NULL);
	}
	bprint_off();
	if (stats) {
		struct bprint_reader *r = bprint_read_begin();
		struct bprint_event ev = BPRINT_EVENT_INIT;
		struct bprint_thread_stats st[80] = { BPRINT_THREAD_STATS_INIT };
		FILE *f = out_file(stats);
		int n;

		while (bprint_read_next(r, &ev) == 1)
			;
		bprint_read_end(r);
		n = bprint_stats(st, 80);
		for (int i = 0; i < n && i < 80; i++)
			fprintf(f, "%d %llu %llu %llu %llu\n", st[i].tid,
				(unsigned long long)st[i].written, (unsigned long long)st[i].overwritten,
				(unsigned long long)st[i].discarded, (unsigned long long)st[i].read);
		fclose(f);
	}
	if (dump) {
		FILE *f = out_file(dump);

		bprint_dump(f);
		fclose(f);
	}
	if (dump_raw) {
		FILE *f = out_file(dump_raw);

		bprint_dump_fmt(f, BPRINT_OUTPUT_RAW);
		fclose(f);
	}
	if (dump_msg) {
		FILE *f = out_file(dump_msg);

		bprint_dump_fmt(f, BPRINT_OUTPUT_MSG);
		fclose(f);
	}
	pthread_barrier_wait(&stats_taken);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	return 0;
}
