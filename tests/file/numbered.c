/*
 * numbered: a traced program whose records are numbered, per thread, so
 * that a reader can tell exactly which ones are missing.  Every record a
 * thread traces (its own, and a timer handler's that runs on it) takes
 * the thread's next number, 1, 2, 3 ...; the message is "n N PAD" (the
 * thread) or "s N" (the handler), PAD a run of 0 to 119 letters that
 * varies with N, so that records of many sizes meet a full page.
 *
 *   numbered THREADS RECORDS [--timer US] [--counts FILE] [--hold] [--fork]
 *            [--pace US]
 *
 *   --counts FILE  at the end, one line per thread that traced:
 *                  "TID LAST", LAST the last number it took
 *   --hold         once every thread is done, print "ready" and wait
 *                  for stdin to close (a reader attaches meanwhile)
 *   --pace US      sleep US microseconds after every 1000 records (a
 *                  run that lasts, for a recorder killed in the middle)
 *   --fork         first fork a child that traces RECORDS records in its
 *                  one thread (its own trace file), waited for at the end
 */
#define _GNU_SOURCE
#include <bprint.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_THREADS 64

static unsigned nrecords;
static long pace_us;
static _Thread_local unsigned numbered;
static unsigned last_of[MAX_THREADS + 1];
static pid_t tid_of[MAX_THREADS + 1];
static const char pad[] =
	"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
	"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz";

/* The thread's next number: a handler that interrupts this takes its own. */
static unsigned next_number(void)
{
	return __atomic_add_fetch(&numbered, 1u, __ATOMIC_RELAXED);
}

static void on_timer(int sig)
{
	(void)sig;
	trace_printk("s %u", next_number());
}

static void trace_all(unsigned slot)
{
	for (unsigned i = 0; i < nrecords; i++) {
		unsigned n = next_number();
		int len = (int)((n * 2654435761u >> 20) % 120u);

		trace_printk("n %u %.*s", n, len, pad);
		if (pace_us && i % 1000 == 999)
			usleep((useconds_t)pace_us);
	}
	/* no handler takes a number on this thread after it is counted */
	sigset_t alrm;

	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alrm, NULL);
	last_of[slot] = __atomic_load_n(&numbered, __ATOMIC_RELAXED);
	tid_of[slot] = gettid();
}

static void *worker(void *arg)
{
	trace_all((unsigned)(size_t)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *counts = NULL;
	long timer_us = 0;
	int hold = 0, forks = 0;
	pid_t child = -1;
	unsigned nthreads;
	pthread_t th[MAX_THREADS];

	if (argc < 3) {
		fprintf(stderr, "usage: numbered THREADS RECORDS [--timer US] [--counts F] [--hold]\n");
		return 2;
	}
	nthreads = (unsigned)atoi(argv[1]);
	nrecords = (unsigned)atoi(argv[2]);
	if (nthreads < 1 || nthreads > MAX_THREADS)
		return 2;
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--timer") && i + 1 < argc)
			timer_us = atol(argv[++i]);
		else if (!strcmp(argv[i], "--counts") && i + 1 < argc)
			counts = argv[++i];
		else if (!strcmp(argv[i], "--hold"))
			hold = 1;
		else if (!strcmp(argv[i], "--fork"))
			forks = 1;
		else if (!strcmp(argv[i], "--pace") && i + 1 < argc)
			pace_us = atol(argv[++i]);
		else
			return 2;
	}
	if (timer_us > 0) {
		struct sigaction sa;
		struct itimerval it = { { 0, timer_us }, { 0, timer_us } };

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_timer;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
	}
	if (forks && (child = fork()) == 0) {
		trace_all(0);
		_exit(0);
	}
	for (unsigned i = 0; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(size_t)(i + 1)))
			return 1;
	for (unsigned i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	if (timer_us > 0) {
		struct itimerval off = { { 0, 0 }, { 0, 0 } };

		setitimer(ITIMER_REAL, &off, NULL);
		signal(SIGALRM, SIG_IGN);
	}
	if (child > 0 && waitpid(child, NULL, 0) != child)
		return 1;
	last_of[0] = __atomic_load_n(&numbered, __ATOMIC_RELAXED);
	tid_of[0] = gettid();
	if (counts) {
		FILE *f = fopen(counts, "w");

		if (!f)
			return 1;
		for (unsigned i = 0; i <= nthreads; i++)
			if (last_of[i])
				fprintf(f, "%d %u\n", (int)tid_of[i], last_of[i]);
		if (fclose(f))
			return 1;
	}
	if (hold) {
		char c;

		printf("ready\n");
		fflush(stdout);
		while (read(0, &c, 1) > 0)
			;
	}
	return 0;
}
