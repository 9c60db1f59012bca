/*
 * burst: threads that trace the seed message flat out, for the tests of
 * `bprint record`'s modes (tool_block.sh).  Run under bprint record.
 *
 *   burst [--threads N] [--records R] [--timer US] [--fork]
 *     --threads N   tracing threads (default 1); main only starts them
 *     --records R   records per thread (default 1000000)
 *     --timer US    a timer signal every US microseconds whose handler
 *                   traces (to a nested ring when it interrupts a trace);
 *                   main blocks it, so it interrupts the tracing threads
 *     --fork        each thread forks once half-way; the child traces
 *                   R / 10 records and exits, the thread waits for it
 *
 * Exits 0 when every thread traced all its records.
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

static long nrecords = 1000000;
static int do_fork;

static void on_timer(int sig)
{
	(void)sig;
	trace_printk("timer signal");
}

static void trace_some(long n)
{
	for (long i = 0; i < n; i++)
		trace_printk("This is the timer interrupt: %llu", (unsigned long long)i);
}

static void *worker(void *arg)
{
	(void)arg;
	if (!do_fork) {
		trace_some(nrecords);
		return NULL;
	}
	trace_some(nrecords / 2);
	pid_t pid = fork();

	if (pid == 0) {
		trace_some(nrecords / 10);
		_exit(0);
	}
	trace_some(nrecords - nrecords / 2);
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0)
			;
	return NULL;
}

int main(int argc, char **argv)
{
	int nthreads = 1;
	long timer_us = 0;
	pthread_t th[64];

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--fork")) { do_fork = 1; continue; }
		if (!v) { fprintf(stderr, "burst: %s needs a value\n", a); return 1; }
		i++;
		if (!strcmp(a, "--threads")) nthreads = atoi(v);
		else if (!strcmp(a, "--records")) nrecords = atol(v);
		else if (!strcmp(a, "--timer")) timer_us = atol(v);
		else { fprintf(stderr, "burst: unknown option %s\n", a); return 1; }
	}
	if (nthreads < 1 || nthreads > 64 || nrecords < 1)
		return 1;
	if (timer_us)
		signal(SIGALRM, on_timer);
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, worker, NULL) != 0)
			return 1;
	/* The timer's signals go to the tracing threads (created before),
	 * never to main: it starts once main blocks them. */
	{
		sigset_t alrm;

		sigemptyset(&alrm);
		sigaddset(&alrm, SIGALRM);
		pthread_sigmask(SIG_BLOCK, &alrm, NULL);
	}
	if (timer_us) {
		struct itimerval it = { { 0, timer_us }, { 0, timer_us } };

		setitimer(ITIMER_REAL, &it, NULL);
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	return 0;
}
