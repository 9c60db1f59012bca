/*
 * The demo: three threads and a timer signal trace into bprint; the main
 * thread then prints the trace, merged across threads, as ftrace would.
 *
 *   make demo
 */
#define _GNU_SOURCE
#include <bprint.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t ticks;

static void on_timer(int sig)
{
	(void)sig;
	/* Safe in a signal handler, even one that interrupts a trace_printk(). */
	trace_printk("This is the timer interrupt: %llu", (unsigned long long)++ticks);
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	char name[16];

	snprintf(name, sizeof(name), "worker-%d", id);
	pthread_setname_np(pthread_self(), name);
	for (int i = 0; i < 3; i++) {
		trace_printk("request %d.%d: %s took %.3f ms, status %#x", id, i,
			     i % 2 ? "GET /index.html" : "PUT /upload", 0.125 * (i + 1) * id, 0x200 + i);
		nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
	}
	trace_puts("worker done");
	return NULL;
}

int main(void)
{
	pthread_t th[3];
	struct itimerval every_3ms = { { 0, 3000 }, { 0, 3000 } };

	signal(SIGALRM, on_timer);
	setitimer(ITIMER_REAL, &every_3ms, NULL);

	trace_printk("demo starting: %d workers, pid %d", 3, (int)getpid());
	for (long i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);

	setitimer(ITIMER_REAL, &(struct itimerval){ 0 }, NULL);
	trace_printk("demo done after %d timer ticks", (int)ticks);

	bprint_dump(stdout);
	return 0;
}
