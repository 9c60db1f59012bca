/*
 * The library's own threads (writer_thread.h), started alike: detached,
 * every signal blocked (the program's signals go to its own threads).
 *
 * A fork() waits until each has started: bp_helpers_wait_started(), from
 * the tracer's fork handler, before it takes any lock for the fork.  A
 * thread's start-up is the C library's and a sanitizer's code: glibc
 * makes its part safe across fork(), but AddressSanitizer (clang 14)
 * frees and allocates there and does not hold its allocator's locks
 * across fork().  libbprint starts its threads in its constructor, so a
 * program that forks first thing (a daemon) had, now and then, a child
 * that hung in its first allocation or in its first thread's start
 * (tracer_fork_start: 37 children of 200 under ASan).  Waiting at the
 * start instead cost every process a thread start or two (about 0.2 ms
 * at a program's start here); waiting in the fork handler costs a load
 * where the threads have long started, and the rest of a start only to a
 * program that forks within it.  A thread not started within a second (a
 * fork child's, stuck as above) is not waited for again.
 */
#include "writer/writer_thread.h"

#include "trace/clock.h"

#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define START_WAIT_NS	1000000000ull
#define NAP_NS		10000000L

/* Pushed in the constructor or a fork child's handler; read in the fork
 * handler of a later fork(). */
static struct bp_helper *helpers;

static void *helper_main(void *arg)
{
	struct bp_helper *h = arg;

	/* relaxed: nothing is handed over; the word only says we run */
	atomic_store_explicit(&h->running, 1, memory_order_relaxed);
	(void)syscall(SYS_futex, (uint32_t *)&h->running, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL,
		      NULL, 0);
	return h->main(h->arg);
}

void bp_helpers_wait_started(void)
{
	const struct timespec nap = { 0, NAP_NS };

	for (struct bp_helper *h = helpers; h; h = h->next) {
		uint64_t deadline = 0;

		while (!atomic_load_explicit(&h->running, memory_order_relaxed)) {
			uint64_t now = bp_clock_read_ns(CLOCK_MONOTONIC);

			if (!deadline)
				deadline = now + START_WAIT_NS;
			if (now >= deadline) {	/* stuck: not waited for again */
				atomic_store_explicit(&h->running, 1, memory_order_relaxed);
				break;
			}
			(void)syscall(SYS_futex, (uint32_t *)&h->running, FUTEX_WAIT_PRIVATE, 0,
				      &nap, NULL, 0);
		}
	}
}

int bp_helper_start(struct bp_helper *h, void *(*main)(void *arg), void *arg,
		    size_t stack_bytes, const char *name)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t thread;
	int rc;

	if ((rc = pthread_attr_init(&attr)) != 0)
		return rc;
	h->main = main;
	h->arg = arg;
	atomic_store_explicit(&h->running, 0, memory_order_relaxed);	/* before the thread */
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, stack_bytes);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&thread, &attr, helper_main, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		atomic_store_explicit(&h->running, 1, memory_order_relaxed);	/* none to wait for */
		return rc;
	}
	pthread_setname_np(thread, name);
	if (!h->listed) {	/* one thread runs here: the constructor, a fork child */
		h->next = helpers;
		helpers = h;
		h->listed = true;
	}
	return 0;
}
