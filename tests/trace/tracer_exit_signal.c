/*
 * tracer_exit_signal: a signal whose handler traces, aimed at a thread
 * that is ending, after the library's exit destructor has let its
 * descriptor go.
 *
 * A worker's own thread-specific key (made after the library's, so its
 * destructor runs after the library's) sends SIGUSR1 to its own thread.
 * Before, the handler ran there and its trace made a second descriptor
 * and ring for the ending thread (and, under TSan, a destructor then ran
 * after TSan's own had ended the thread: a crash).  The ending thread now
 * blocks signals from its exit destructor on, as the C library does after
 * the last destructor: a signal for the process runs its handler on
 * another thread; one for this thread is not delivered.  So: one
 * descriptor for the worker's tid, and no record of the handler.
 *
 *   tracer_exit_signal fault   the destructor faults (a store to address
 *                              1): its SIGSEGV handler runs (and exits
 *                              0), where a fault while SIGSEGV is blocked
 *                              kills the process unhandled
 */
#include "tracer_check.h"

#include <sys/syscall.h>

static pthread_key_t key;
static _Atomic int handled_by;	/* the tid the handler ran on, 0 if it did not */

static int my_tid(void)
{
	return (int)syscall(SYS_gettid);
}

static void handler(int sig)
{
	(void)sig;
	trace_printk("handler tid=%d", my_tid());
	atomic_store(&handled_by, my_tid());
}

static void at_key_exit(void *arg)
{
	(void)arg;
	pthread_kill(pthread_self(), SIGUSR1);
}

/* sig's handler on_sig, main's first record (the library's key first),
 * then our key with destructor at_exit, and one worker fn(arg), joined. */
static void run_worker(int sig, void (*on_sig)(int), void (*at_exit)(void *),
		       void *(*fn)(void *), void *arg)
{
	struct sigaction sa;
	pthread_t th;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(sig, &sa, NULL) == 0);
	trace_printk("main tid=%d", my_tid());
	CHECK(pthread_key_create(&key, at_exit) == 0);
	CHECK(pthread_create(&th, NULL, fn, arg) == 0);
	CHECK(pthread_join(th, NULL) == 0);
}

static void on_fault(int sig)
{
	(void)sig;
	_exit(0);
}

static void fault_at_key_exit(void *arg)
{
	(void)arg;
	*(volatile int *)(uintptr_t)arg = 1;	/* arg: 1, an address that faults */
}

static void *fault_worker(void *arg)
{
	pthread_setspecific(key, (void *)1);	/* non-NULL: the destructor runs */
	trace_printk("worker tid=%d", my_tid());
	return arg;
}

/* The fault mode (above): exits 0 from the handler; 1 if nothing faulted. */
static int fault(void)
{
	run_worker(SIGSEGV, on_fault, fault_at_key_exit, fault_worker, NULL);
	return 1;
}

static void *worker(void *arg)
{
	*(int *)arg = my_tid();
	pthread_setspecific(key, arg);
	trace_printk("worker tid=%d", my_tid());
	return NULL;
}

int main(int argc, char **argv)
{
	struct bprint_thread_stats st[16];
	int worker_tid = 0, entries = 0, handled;
	uint64_t written = 0;
	long n;

	if (argc == 2 && strcmp(argv[1], "fault") == 0)
		return fault();
	run_worker(SIGUSR1, handler, at_key_exit, worker, &worker_tid);
	tc_sleep_us(20000);	/* a signal held anywhere would have run by now */
	handled = atomic_load(&handled_by);

	for (unsigned i = 0; i < 16; i++)
		st[i] = (struct bprint_thread_stats)BPRINT_THREAD_STATS_INIT;
	n = bprint_stats(st, 16);
	CHECK(n > 0 && n <= 16);
	for (long i = 0; i < n; i++) {
		written += st[i].written;
		entries += st[i].tid == worker_tid;
	}
	CHECK_EQ(entries, 1);		/* one descriptor for the worker */
	CHECK_U64(written, ==, 2);		/* main's and the worker's */
	CHECK_EQ(handled, 0);			/* not on the ending thread */
	printf("tracer_exit_signal: no handler ran on the ending thread %d; one descriptor\n",
	       worker_tid);
	return 0;
}
