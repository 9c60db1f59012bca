/*
 * rt_prefault: a new thread's ring is faulted in by the bprint-prefault
 * thread, not by its writer (src/file/writer_prefault.c).  Each way runs
 * as a child (this program, re-executed) with BPRINT_PREFAULT=1 and =0:
 *
 *   - first, CHURN threads that trace once and exit at once, so that the
 *     prefault thread meets rings given back under it (it must skip them,
 *     and a ring reused at the same place is populated again);
 *   - then THREADS threads, one after another, each: its first call, a
 *     pause for the prefault thread (WAIT_MS), then CALLS seed calls,
 *     counting its own minor faults over them (getrusage RUSAGE_THREAD).
 *
 * CALLS seed records are 16 bytes each: 40,000 fill 160 of the default
 * 1 MiB ring's 4 KiB pages, each a fault at the call without prefault.
 * The median over the threads must be at most PREFAULT_MAX with it and
 * at least UNFAULTED_MIN without (so that the test can tell); measured
 * here: 0-2 and 157-160.  The prefault thread must exist in one child and
 * not in the other.  Under ThreadSanitizer (make tsan) the bounds are not
 * checked (its shadow memory faults too): the run is the race test.
 */
#include <bprint.h>

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#define THREADS		5
#define CHURN		64
#define CALLS		40000
#define WAIT_MS		300
#define PREFAULT_MAX	16
#define UNFAULTED_MIN	100

static long faults[THREADS];

static long minflt(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_minflt : -1;
}

static void *once(void *arg)
{
	trace_printk("This is the timer interrupt: %llu", (unsigned long long)(size_t)arg);
	return NULL;
}

static void *measured(void *arg)
{
	long *out = arg, f0;
	struct timespec pause = { 0, WAIT_MS * 1000000L };

	trace_printk("This is the timer interrupt: %llu", 0ULL);
	nanosleep(&pause, NULL);
	f0 = minflt();
	for (unsigned long long k = 1; k <= CALLS; k++)
		trace_printk("This is the timer interrupt: %llu", k);
	*out = minflt() - f0;
	return NULL;
}

/* Is there a thread named bprint-prefault in this process? */
static int has_prefault_thread(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int found = 0;

	while (d && (e = readdir(d)) != NULL) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (f && fgets(comm, sizeof(comm), f) && !strncmp(comm, "bprint-prefault", 15))
			found = 1;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* The child: prints "median-faults has-thread". */
static int child(void)
{
	pthread_t th;

	for (size_t i = 0; i < CHURN; i++)
		if (pthread_create(&th, NULL, once, (void *)i) || pthread_join(th, NULL))
			return 1;
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&th, NULL, measured, &faults[i]) || pthread_join(th, NULL))
			return 1;
	qsort(faults, THREADS, sizeof(faults[0]), cmp_long);
	for (int i = 0; i < THREADS; i++)
		fprintf(stderr, "%s%ld", i ? " " : "rt_prefault: faults ", faults[i]);
	fprintf(stderr, " (BPRINT_PREFAULT=%s)\n", getenv("BPRINT_PREFAULT"));
	printf("%ld %d\n", faults[THREADS / 2], has_prefault_thread());
	return 0;
}

static int run(const char *self, const char *env, long *median, int *thread)
{
	int fds[2], st;
	char out[64] = "";
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		putenv((char *)env);
		execl(self, self, "--child", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	n = read(fds[0], out, sizeof(out) - 1);
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) || n <= 0 ||
	    sscanf(out, "%ld %d", median, thread) != 2)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	char self[4096];
	long on, off;
	int on_thread, off_thread, bad = 0;

	if (argc == 2 && !strcmp(argv[1], "--child"))
		return child();
	if (!realpath(argv[0], self) || run(self, "BPRINT_PREFAULT=1", &on, &on_thread) != 0 ||
	    run(self, "BPRINT_PREFAULT=0", &off, &off_thread) != 0) {
		fprintf(stderr, "rt_prefault: a child failed\n");
		return 1;
	}
	if (!on_thread || off_thread) {
		fprintf(stderr, "rt_prefault: bprint-prefault thread: %d with, %d without\n",
			on_thread, off_thread);
		bad = 1;
	}
	if (!SANITIZED && (on > PREFAULT_MAX || off < UNFAULTED_MIN)) {
		fprintf(stderr, "rt_prefault: median faults over %d calls: %ld with prefault "
			"(want <= %d), %ld without (want >= %d)\n", CALLS, on, PREFAULT_MAX, off,
			UNFAULTED_MIN);
		bad = 1;
	}
	return bad;
}
