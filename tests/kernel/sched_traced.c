/*
 * The traced program of the kernel-stream tests (kernel.sh): what it does
 * is known, so that the scheduler's events about it can be checked.
 *
 *   sched_traced sleep MS    sleep MS ms (the recorder tests: a program
 *                            that is still running when it is killed)
 *   sched_traced pipe N      N times: a record "before read N" and then a
 *                            blocking read of a pipe another thread writes
 *                            to once the reader sleeps in that read
 *                            (its /proc state S after its record), so
 *                            that every read blocks however loaded the
 *                            machine is: the record comes before the
 *                            reader's switch away (prev_state=S)
 *   sched_traced span        one thread: "span begin id=1", sleep 10 ms,
 *                            spin 5 ms of its own CPU time, "span end
 *                            id=1", and on stdout "slept_ns N", the
 *                            sleep's wall time by its own clock (a timer
 *                            fires late on a loaded VM); then two threads pinned to CPU 0 at
 *                            SCHED_FIFO priority 1 spin 20 ms of CPU time
 *                            each inside spans id=2 and id=3: the second
 *                            begins its span while the first spins, and
 *                            waits for it (runnable: at one FIFO priority
 *                            neither preempts the other, and both preempt
 *                            every ordinary thread, so that the first is
 *                            the one that runs instead however loaded the
 *                            machine is)
 */
#define _GNU_SOURCE
#include <bprint.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static int rounds;
static atomic_int reader_tid, reads_begun;
static atomic_int first_spinning;

static long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void spin_cpu_ms(int ms)
{
	long long end = thread_cpu_ns() + ms * 1000000ll;

	while (thread_cpu_ns() < end)
		;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000l };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Is thread tid asleep (state S in /proc)? */
static int asleep(int tid)
{
	char path[64], buf[512], *close;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	if (!(f = fopen(path, "r")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	close = strrchr(buf, ')');	/* the state follows the name */
	return close && close[1] == ' ' && close[2] == 'S';
}

static void *writer(void *arg)
{
	(void)arg;
	for (int i = 0; i < rounds; i++) {
		sleep_ms(2);
		while (atomic_load(&reads_begun) <= i || !asleep(atomic_load(&reader_tid)))
			sleep_ms(1);
		if (write(fds[1], "x", 1) != 1)
			exit(1);
	}
	return NULL;
}

static int pipe_test(int n)
{
	pthread_t w;
	char c;

	rounds = n;
	atomic_store(&reader_tid, (int)gettid());
	if (pipe(fds) != 0 || pthread_create(&w, NULL, writer, NULL) != 0)
		return 1;
	for (int i = 0; i < n; i++) {
		trace_printk("before read %d", i);
		atomic_fetch_add(&reads_begun, 1);
		if (read(fds[0], &c, 1) != 1)
			return 1;
	}
	pthread_join(w, NULL);
	return 0;
}

static long long slept_ns;	/* the sleeper's sleep, wall time */

static long long monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void *sleeper(void *arg)
{
	long long t0;

	(void)arg;
	trace_printk("span begin id=%d", 1);
	t0 = monotonic_ns();
	sleep_ms(10);
	slept_ns = monotonic_ns() - t0;
	spin_cpu_ms(5);
	trace_printk("span end id=%d", 1);
	return NULL;
}

static void fifo(void)
{
	struct sched_param sp = { .sched_priority = 1 };

	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0)
		exit(3);
}

static void to_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		exit(3);
}

/* Both at SCHED_FIFO 1 before anything else: no ordinary thread delays them. */
static void *pinned(void *arg)
{
	int id = (int)(long)arg;

	fifo();
	if (id == 2) {
		trace_printk("span begin id=%d", id);
		atomic_store(&first_spinning, 1);
	} else {
		while (!atomic_load(&first_spinning))
			;
		trace_printk("span begin id=%d", id);
		to_cpu0();	/* now it waits for the first */
	}
	spin_cpu_ms(20);
	trace_printk("span end id=%d", id);
	return NULL;
}

static int span_test(void)
{
	pthread_t t[3];

	if (pthread_create(&t[0], NULL, sleeper, NULL) != 0)
		return 1;
	pthread_join(t[0], NULL);
	printf("slept_ns %lld\n", slept_ns);
	fflush(stdout);
	/* the second starts on CPU 1, so that it begins its span while the first
	 * spins; this thread, which makes it, goes there too */
	{
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(1, &one);
		if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one) != 0)
			return 1;
	}
	for (long i = 0; i < 2; i++) {
		pthread_attr_t attr;
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET((int)i, &set);
		if (pthread_attr_init(&attr) != 0 ||
		    pthread_attr_setaffinity_np(&attr, sizeof(set), &set) != 0 ||
		    pthread_create(&t[1 + i], &attr, pinned, (void *)(i + 2)) != 0)
			return 1;
		pthread_attr_destroy(&attr);
	}
	pthread_join(t[1], NULL);
	pthread_join(t[2], NULL);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "sleep")) {
		trace_printk("sleeping %d ms", atoi(argv[2]));
		sleep_ms(atoi(argv[2]));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "pipe"))
		return pipe_test(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "span"))
		return span_test();
	fprintf(stderr, "usage: sched_traced sleep MS | pipe N | span\n");
	return 2;
}
