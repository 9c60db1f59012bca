/*
 * The traced program of the attach tests (attach.sh): a program started
 * with no bprint variable, read from outside while it runs.
 *
 *   attach_traced run THREADS PAUSE_US READY
 *       THREADS threads each trace "tick thread %d seq %llu", seq counting
 *       from 0 with no gap, PAUSE_US microseconds apart (0: flat out),
 *       until SIGTERM or SIGINT; then each thread's last seq goes to stdout
 *       ("thread T last S", S = -1 when it traced nothing) and main
 *       returns.  READY is created once every thread has traced.
 *   attach_traced closefds FILE
 *       traces, closes every descriptor past stderr (a daemon's start-up),
 *       opens FILE (which takes the trace's old number) and writes a line
 *       to it, then a new thread traces "after close %d" 10 times: FILE
 *       must hold its line alone, and bprint_dump() every record (stdout).
 *   attach_traced fork READY [HOLD]
 *       a thread traces "parent seq %llu" every millisecond; a fork child
 *       traces "child seq %llu" the same way; READY gets "PARENT CHILD"
 *       (their pids) once both have traced; both run until SIGTERM.  With
 *       HOLD, READY is made at once, and the child traces nothing until
 *       HOLD exists.
 */
#define _GNU_SOURCE
#include <bprint.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_THREADS 64

static atomic_int stop;
static atomic_int started;
static long long last[MAX_THREADS];
static unsigned pause_us;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&stop, 1);
}

static void *ticker(void *arg)
{
	int id = (int)(intptr_t)arg;
	unsigned long long seq = 0;

	last[id] = -1;
	while (!atomic_load(&stop)) {
		trace_printk("tick thread %d seq %llu", id, seq);
		last[id] = (long long)seq++;
		if (seq == 1)
			atomic_fetch_add(&started, 1);
		if (pause_us)
			usleep(pause_us);
	}
	return NULL;
}

static void ready(const char *path, const char *text)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
		perror(path);
		exit(2);
	}
}

static void catch(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

static int run(int nthreads, const char *readyfile)
{
	pthread_t t[MAX_THREADS];

	catch();
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, ticker, (void *)(intptr_t)i);
	while (atomic_load(&started) < nthreads && !atomic_load(&stop))
		usleep(1000);
	ready(readyfile, "ready\n");
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < nthreads; i++)
		printf("thread %d last %lld\n", i, last[i]);
	return 0;
}

static void *after_close(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++)
		trace_printk("after close %d", i);
	return NULL;
}

static void tick_forever(const char *who)
{
	unsigned long long seq = 0;

	while (!atomic_load(&stop)) {
		if (who[0] == 'p')
			trace_printk("parent seq %llu", seq++);
		else
			trace_printk("child seq %llu", seq++);
		usleep(1000);
	}
}

static int forking(const char *readyfile, const char *hold)
{
	char text[64];
	pid_t child;

	catch();
	trace_printk("parent seq %llu", 0ull);	/* the parent's file has a ring */
	child = fork();
	if (child == 0) {
		while (hold && access(hold, F_OK) != 0 && !atomic_load(&stop))
			usleep(1000);
		tick_forever("child");
		_exit(0);
	}
	if (!hold)
		usleep(20000);	/* both have traced */
	snprintf(text, sizeof(text), "%ld %ld\n", (long)getpid(), (long)child);
	ready(readyfile, text);
	tick_forever("parent");
	kill(child, SIGTERM);
	waitpid(child, NULL, 0);
	return 0;
}

static int close_fds(const char *path)
{
	static const char line[] = "the program's own file\n";
	char back[64];
	pthread_t t;
	ssize_t n;
	int fd;

	trace_printk("before close %d", 0);
	for (int i = 3; i < 1024; i++)
		close(i);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, line, sizeof(line) - 1) != (ssize_t)sizeof(line) - 1)
		return 2;
	pthread_create(&t, NULL, after_close, NULL);
	pthread_join(t, NULL);
	n = pread(fd, back, sizeof(back), 0);
	if (n != (ssize_t)sizeof(line) - 1 || memcmp(back, line, sizeof(line) - 1) != 0) {
		fprintf(stderr, "%s: %zd bytes, its line overwritten\n", path, n);
		return 1;
	}
	return bprint_dump(stdout) > 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "run")) {
		int n = atoi(argv[2]);

		pause_us = (unsigned)atoi(argv[3]);
		if (n < 1 || n > MAX_THREADS)
			return 2;
		return run(n, argv[4]);
	}
	if (argc == 3 && !strcmp(argv[1], "closefds"))
		return close_fds(argv[2]);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "fork"))
		return forking(argv[2], argc == 4 ? argv[3] : NULL);
	fprintf(stderr, "usage: attach_traced run THREADS PAUSE_US READY | fork READY [HOLD]\n");
	return 2;
}
