/*
 * tracer_fork_start: a program that forks as soon as main() runs, as a
 * daemon does, has a child that works.
 *
 * libbprint starts its threads (the control thread, the prefault pool's)
 * in its constructor.  A thread still starting when the program forks may
 * hold a lock of the runtime that the child then needs, and never gets:
 * AddressSanitizer (clang 14) frees and allocates as a thread starts and
 * does not hold its allocator's locks across fork(), so such a child hung
 * in its first allocation of the same size, or in its first thread's start
 * (its control thread's, made by our fork handler).  bp_helper_start()
 * returns only once the thread runs its own code.
 *
 * Each round is a process of its own (this program run with "once"): it
 * forks first thing; the child starts a thread (not under TSan),
 * allocates, traces and exits 0; the parent waits for it 5 s at most.  Any other end fails, and
 * the first child that hangs ends the test.
 *
 *   tracer_fork_start [ROUNDS]
 */
#include "tracer_check.h"

#include <sys/wait.h>

#define WAIT_MS 5000

static void *child_thread(void *arg)
{
	void *p = malloc(64);

	free(p);
	return arg;
}

/* The child of one round: 0 if it could do all of it. */
static int child(void)
{
	pthread_t t;
	void *blocks[16];

	/* ThreadSanitizer kills a child of a threaded process that starts one */
	if (!TC_TSAN &&
	    (pthread_create(&t, NULL, child_thread, NULL) != 0 || pthread_join(t, NULL) != 0))
		return 3;
	for (int i = 0; i < 16; i++)
		blocks[i] = malloc((size_t)16 << i);
	for (int i = 0; i < 16; i++)
		free(blocks[i]);
	trace_printk("child %d", (int)getpid());
	return 0;
}

/* One round: fork now, and wait for the child. */
static int once(void)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return 4;
	if (pid == 0)
		_exit(child());
	for (int ms = 0; ms < WAIT_MS; ms++) {
		pid_t got = waitpid(pid, &status, WNOHANG);

		if (got == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 5;
		usleep(1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return 6;
}

int main(int argc, char **argv)
{
	char self[64];
	long rounds;

	if (argc == 2 && !strcmp(argv[1], "once"))
		return once();
	rounds = argc == 2 ? atol(argv[1]) : tc_scale(200);
	snprintf(self, sizeof(self), "/proc/%d/exe", (int)getpid());
	for (long r = 1; r <= rounds; r++) {
		int status;
		pid_t pid = fork();

		if (pid < 0)
			FAIL("fork: %s", strerror(errno));
		if (pid == 0) {
			execl(self, "tracer_fork_start", "once", (char *)NULL);
			_exit(127);
		}
		CHECK(waitpid(pid, &status, 0) == pid);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 6)
			FAIL("round %ld of %ld: the child hung", r, rounds);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			FAIL("round %ld of %ld: status 0x%x", r, rounds, (unsigned)status);
	}
	printf("%ld rounds: every child did its work\n", rounds);
	return 0;
}
