/*
 * rt_churn THREADS PER: THREADS threads, one after the other, each traces
 * PER records ("churn t=T i=I") and exits.  Then it prints, for the test
 * script (runtime_churn.sh) to check:
 *
 *	rss_growth_kib N	VmRSS after the threads less VmRSS after the first
 *	file_bytes N		the size of the trace file at the end ($RT_FILE,
 *				else $BPRINT_FILE), -1 if there is none
 *
 * A file only grows, so its size at the end is the largest it has been.
 *
 * rt_churn THREADS PER slow: the same, a thread every 2 ms, each printing
 * "thread T TID" first (for a reader following the file meanwhile).
 *
 * rt_churn THREADS PER par=K: K threads at a time (started together,
 * joined together), so that threads exit while others start.
 */
#define _GNU_SOURCE
#include <bprint.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int per, slow, par = 1;

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;

	if (slow)
		printf("thread %d %d\n", id, (int)gettid());
	for (int i = 0; i < per; i++)
		trace_printk("churn t=%d i=%d", id, i);
	return NULL;
}

/* Threads id .. id + k - 1, together (slow: then 2 ms of nothing). */
static void run_some(int id, int k)
{
	struct timespec two_ms = { 0, 2000000 };
	pthread_t th[64];

	for (int i = 0; i < k; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(intptr_t)(id + i)) != 0) {
			fprintf(stderr, "rt_churn: thread %d failed\n", id + i);
			exit(2);
		}
	for (int i = 0; i < k; i++)
		if (pthread_join(th[i], NULL) != 0) {
			fprintf(stderr, "rt_churn: thread %d failed\n", id + i);
			exit(2);
		}
	if (slow) {
		fflush(stdout);
		nanosleep(&two_ms, NULL);
	}
}

static void run_one(int id)
{
	run_some(id, 1);
}

static long rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

int main(int argc, char **argv)
{
	const char *path = getenv("RT_FILE") ? getenv("RT_FILE") : getenv("BPRINT_FILE");
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	struct stat st;
	long before;

	per = argc > 2 ? atoi(argv[2]) : 10;
	slow = argc > 3 && !strcmp(argv[3], "slow");
	if (argc > 3 && !strncmp(argv[3], "par=", 4))
		par = atoi(argv[3] + 4);
	if (par < 1 || par > 64) {
		fprintf(stderr, "rt_churn: par=K: K from 1 to 64\n");
		return 2;
	}
	run_one(0);	/* the first thread's costs (stack cache, first chunks) are not churn */
	before = rss_kib();
	for (int t = 1; t < n; t += par)
		run_some(t, t + par <= n ? par : n - t);
	printf("rss_growth_kib %ld\n", rss_kib() - before);
	printf("file_bytes %lld\n", path && stat(path, &st) == 0 ? (long long)st.st_size : -1LL);
	return 0;
}
