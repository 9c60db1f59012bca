/*
 * rt_prefault THREADS CALLS [hold]: the ring a new thread takes was
 * faulted in ahead (BPRINT_PREFAULT, src/writer/writer_pool.c).
 *
 * It waits 100 ms (the pool fills at start), then runs THREADS threads one
 * after the other, 50 ms apart (the pool refills; RT_PREFAULT_GAP_MS
 * sets another gap: past 20 ms the pool's thread has stopped polling and
 * sleeps until a taker wakes it), each tracing CALLS
 * records "pf t=T i=I" and counting the page faults it took in them after
 * its first.  Then it prints, for runtime_prefault.sh:
 *
 *	faults T N		thread T's faults in its calls 2..CALLS
 *
 * (after 250 ms more: the pool holds a ring again when it exits)
 *	prefault_thread 0|1	whether a thread named bprint-prefault runs
 *	pid P
 *
 * hold: then it prints "ready" and sleeps until it is killed.
 *
 * RT_PREFAULT_NO_ROOM=1 (with BPRINT_FILE): a pool whose fill failed is
 * rung by the next thread that finds it empty.  The main thread's first
 * record (the site registered, the pool refilled after its take), then
 * the file may not grow (RLIMIT_FSIZE at its size) while thread 0 takes
 * the pooled ring and the pool's refill finds no room and no spare chunk
 * (thread 0 lives on 200 ms); 100 ms after thread 0's start the limit is
 * lifted.  Thread 1 then finds the pool empty, and thread 2 a ring if
 * thread 1's take rang the pool.
 */
#define _GNU_SOURCE
#include <bprint.h>

#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int calls;
static long first_faults[1024];
static int no_room;	/* RT_PREFAULT_NO_ROOM */

static void nap_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

static long faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_minflt + ru.ru_majflt : -1;
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	long f0 = faults();

	trace_printk("pf t=%d i=%d", id, 0);
	first_faults[id] = faults() - f0;
	f0 = faults();
	for (int i = 1; i < calls; i++)
		trace_printk("pf t=%d i=%d", id, i);
	f0 = faults() - f0;
	if (no_room && id == 0)
		nap_ms(200);	/* no spare chunk for the pool while the file is full */
	return (void *)(intptr_t)f0;
}

/* Is one of our threads named name? */
static int has_thread(const char *name)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int found = 0;

	while (d && !found && (e = readdir(d))) {
		char path[300], comm[64] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		if ((f = fopen(path, "r"))) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		found = strcmp(comm, name) == 0;
	}
	if (d)
		closedir(d);
	return found;
}

int main(int argc, char **argv)
{
	const char *gap_env = getenv("RT_PREFAULT_GAP_MS");
	long gap = gap_env ? atol(gap_env) : 50;
	int threads;

	if (argc < 3) {
		fprintf(stderr, "usage: rt_prefault THREADS CALLS [hold]\n");
		return 2;
	}
	threads = atoi(argv[1]);
	calls = atoi(argv[2]);
	no_room = getenv("RT_PREFAULT_NO_ROOM") && getenv("BPRINT_FILE");
	if (no_room) {
		signal(SIGXFSZ, SIG_IGN);	/* a write past the limit fails, no more */
		trace_printk("pf t=%d i=%d", -1, 0);
	}
	nap_ms(100);
	for (int t = 0; t < threads; t++) {
		pthread_t th;
		void *f;
		struct stat st;

		if (no_room && t == 0) {	/* the file as it is, and no larger */
			if (stat(getenv("BPRINT_FILE"), &st) != 0 ||
			    setrlimit(RLIMIT_FSIZE, &(struct rlimit){ (rlim_t)st.st_size, RLIM_INFINITY }) != 0)
				return 1;
		}
		if (pthread_create(&th, NULL, worker, (void *)(intptr_t)t) != 0)
			return 1;
		if (no_room && t == 0) {
			nap_ms(100);	/* thread 0 took the ring, the refill failed */
			if (setrlimit(RLIMIT_FSIZE, &(struct rlimit){ RLIM_INFINITY, RLIM_INFINITY }) != 0)
				return 1;
		}
		if (pthread_join(th, &f) != 0)
			return 1;
		printf("faults %d %ld\nfirst %d %ld\n", t, (long)(intptr_t)f, t, first_faults[t]);
		nap_ms(gap);
	}
	nap_ms(250);	/* the pool refilled, on a busy machine too: a ring in it at the end */
	printf("prefault_thread %d\npid %d\n", has_thread("bprint-prefault"), (int)getpid());
	if (argc > 3 && !strcmp(argv[3], "hold")) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	return 0;
}
