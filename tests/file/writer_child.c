/*
 * The tracing child of the file tests:
 *   writer_child THREADS COUNT [PACE [spawn]]
 * THREADS threads (named w0, w1, ...) each trace "t=%d seq=%llu" COUNT
 * times (0: until killed), sleeping 50 us every PACE records (0: never).
 * With "spawn" it first starts a copy of itself (same environment, so the
 * copy writes its own BPRINT_FILE.<pid>) and waits for it at the end.
 * Prints "wrote THREADS COUNT" when done.
 */
#include <bprint.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned long long count;
static unsigned pace;

static void *run(void *arg)
{
	int t = (int)(long)arg;
	char name[16];

	snprintf(name, sizeof(name), "w%d", t);
	pthread_setname_np(pthread_self(), name);
	for (unsigned long long seq = 0; count == 0 || seq < count; seq++) {
		trace_printk("t=%d seq=%llu", t, seq);
		if (pace && seq % pace == pace - 1)
			usleep(50);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 3;
	pthread_t tid[64];
	pid_t spawned = 0;

	count = argc > 2 ? strtoull(argv[2], NULL, 10) : 0;
	pace = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
	if (threads < 1 || threads > 64)
		return 2;
	if (argc > 4 && !strcmp(argv[4], "spawn")) {
		spawned = fork();
		if (spawned == 0) {
			execl("/proc/self/exe", argv[0], argv[1], argv[2], argv[3], (char *)NULL);
			_exit(127);
		}
	}
	for (int i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, run, (void *)(long)i);
	for (int i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	if (spawned > 0) {
		int st;

		waitpid(spawned, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			return 3;
	}
	printf("wrote %d %llu\n", threads, count);
	return 0;
}
