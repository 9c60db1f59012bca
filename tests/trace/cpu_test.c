/*
 * bp_current_cpu(): in range, and the CPU the thread is pinned to, for
 * each CPU in turn, on the main thread, on a new thread and in a signal
 * handler.  Run once as is (rseq, where glibc registers it) and once with
 * BP_EXPECT_NORSEQ=1 and rseq switched off, for the sched_getcpu() path.
 */
#include "trace/cpu.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CHECK_KEEP_GOING 1000
#include "check.h"

static long nprocs;
static volatile sig_atomic_t handler_cpu = -100;

static void on_signal(int sig)
{
	(void)sig;
	handler_cpu = bp_current_cpu();
}

static void check_in_range(const char *what)
{
	int cpu = bp_current_cpu();

	if (cpu < 0 || cpu >= nprocs) {
		fprintf(stderr, "%s: cpu %d outside [0, %ld)\n", what, cpu, nprocs);
		check_failures++;
	}
}

/* Pin the calling thread to each allowed CPU in turn; returns how many
 * CPUs it could be pinned to. */
static int pin_each(const char *what)
{
	cpu_set_t orig, one;
	int cpu, pinned = 0, k;

	CHECK(sched_getaffinity(0, sizeof(orig), &orig) == 0);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &orig))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one) != 0)
			continue;	/* say a cpuset took it away */
		pinned++;
		for (k = 0; k < 100; k++) {
			int got = bp_current_cpu();
			int want = sched_getcpu();

			if (got != cpu || want != cpu) {
				fprintf(stderr,
					"%s: pinned to %d: bp_current_cpu() %d, "
					"sched_getcpu() %d\n", what, cpu, got, want);
				check_failures++;
				break;
			}
		}
		handler_cpu = -100;
		raise(SIGUSR1);
		if (handler_cpu != cpu) {
			fprintf(stderr, "%s: pinned to %d: %d in a signal handler\n",
				what, cpu, (int)handler_cpu);
			check_failures++;
		}
	}
	CHECK(sched_setaffinity(0, sizeof(orig), &orig) == 0);
	return pinned;
}

static void *thread_main(void *p)
{
	check_in_range("thread");
	*(int *)p = pin_each("thread");
	check_in_range("thread, unpinned");
	return NULL;
}

static void check_path(void)
{
	int expect_norseq = getenv("BP_EXPECT_NORSEQ") != NULL;

#if BP_CPU_RSEQ
	printf("rseq: __rseq_size %u, cpu_id %d\n", __rseq_size, (int)bp_rseq_cpu());
	if (expect_norseq) {
		/* The tunable must have switched rseq off, or this run tests
		 * nothing new. */
		CHECK(__rseq_size == 0);
		CHECK(bp_rseq_cpu() < 0);
	} else if (__rseq_size != 0) {
		/* Registered: the fast path answers on its own. */
		int32_t c = bp_rseq_cpu();

		CHECK(c >= 0 && c < nprocs);
	}
#else
	(void)expect_norseq;
	printf("rseq: not built in, sched_getcpu() only\n");
#endif
}

int main(void)
{
	pthread_t t;
	int pinned_main, pinned_thread = 0;

	nprocs = sysconf(_SC_NPROCESSORS_CONF);
	CHECK(nprocs > 0);
	signal(SIGUSR1, on_signal);

	check_path();
	check_in_range("main");
	pinned_main = pin_each("main");
	check_in_range("main, unpinned");
	CHECK(pinned_main > 0);

	CHECK(pthread_create(&t, NULL, thread_main, &pinned_thread) == 0);
	pthread_join(t, NULL);
	CHECK(pinned_thread == pinned_main);

	if (check_summary("cpu_test"))
		return 1;
	printf("cpu_test: ok (%d cpus pinned, %ld configured)\n", pinned_main, nprocs);
	return 0;
}
