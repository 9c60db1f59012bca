/*
 * The traced program of control.sh: started with no bprint variable, its
 * call sites switched from outside (bprint enable, disable, sites) while
 * its threads call them in a loop.
 *
 *   control_traced THREADS PAUSE_US READY
 *       THREADS threads each call, PAUSE_US microseconds apart, three
 *       sites with the same arguments, thread T and seq S counting from 0:
 *         spin<int>     "spin thread %d seq %llu"   (a C++ template's site)
 *         dyn           a runtime format, "dyn thread %d seq %llu"
 *         beat          "beat thread %d seq %llu"   (left on: the clock)
 *       until SIGTERM; READY is created once every thread has called them.
 *       Each thread's last seq goes to stdout ("thread T last S").
 */
#include <bprint.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <unistd.h>

#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"

static std::atomic<int> stop_now{0};
static std::atomic<int> started{0};
static const char *volatile dyn_format = "dyn thread %d seq %llu";
static long long last[64];
static unsigned pause_us;

template <typename T> static void spin(T t, unsigned long long seq)
{
	trace_printk("spin thread %d seq %llu", (int)t, seq);
}

static void dyn(int t, unsigned long long seq)
{
	trace_printk(dyn_format, t, seq);
}

static void beat(int t, unsigned long long seq)
{
	trace_printk("beat thread %d seq %llu", t, seq);
}

static void *run(void *arg)
{
	int t = (int)(long)arg;
	unsigned long long seq = 0;

	for (; !stop_now.load(std::memory_order_relaxed); seq++) {
		spin<int>(t, seq);
		dyn(t, seq);
		beat(t, seq);
		if (seq == 0)
			started.fetch_add(1);
		if (pause_us)
			usleep(pause_us);
	}
	last[t] = (long long)seq - 1;
	return nullptr;
}

static void on_term(int)
{
	stop_now.store(1);
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	int n;

	if (argc != 4 || (n = atoi(argv[1])) < 1 || n > 64)
		return 2;
	pause_us = (unsigned)atoi(argv[2]);
	signal(SIGTERM, on_term);
	for (long i = 0; i < n; i++)
		pthread_create(&th[i], nullptr, run, (void *)i);
	while (started.load() < n)
		usleep(1000);
	if (FILE *f = fopen(argv[3], "w"))
		fclose(f);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], nullptr);
	for (int i = 0; i < n; i++)
		printf("thread %d last %lld\n", i, last[i]);
	return 0;
}
