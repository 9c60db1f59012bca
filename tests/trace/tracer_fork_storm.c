/*
 * tracer_fork_storm: fork() while every lock of the library is busy.
 *
 * Parent threads trace, toggle sites (the registry mutex), read (the
 * consumer and readers' locks) and dlopen/dlclose a traced library (the
 * loader's lock and the registry again), without pause.  Meanwhile the
 * main thread forks children one after the other.  Each child, with an
 * alarm against a hang, registers a call site of its own, enables and
 * disables sites, dlopens the library and traces from it, reads its
 * records back (each must decode to the message the C library makes from
 * the same format) and dumps them.  A child that hangs dies of SIGALRM and
 * fails the test.
 *
 * One thing is not ours to fix: glibc (2.36 here) does not reset its
 * loader's write lock in a fork child, and dlopen() and dlclose() hold it
 * for a moment (as dl_iterate_phdr() does); a child forked then hangs in
 * its first dlopen(), traced library or not.  So the parent's dlopen()
 * and dlclose() calls, constructors (our site registration) included, are
 * serialised with fork() by the test's own loader_lock; the registry lock
 * is still busy at fork time, through the toggling thread.
 *
 * Under TSan the storm runs too: the children create no thread, which is
 * what TSan supports after a multi-threaded fork; only the count shrinks.
 */
#include "tracer_check.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>

#define TRACE_FMT "storm tracer=%d i=%ld"
#define CHILD_FMT "storm child pid=%d i=%d s=%s"
#define DSO_PREFIX "dso value="
#define NCHILD_RECS 50

typedef void (*dso_trace_fn)(int value, const char *name);

static _Atomic int stop;
static pthread_mutex_t loader_lock = PTHREAD_MUTEX_INITIALIZER;

static void *tracer(void *arg)
{
	int id = (int)(intptr_t)arg;

	for (long i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++)
		trace_printk(TRACE_FMT, id, i);
	return NULL;
}

static void toggle_me(int i)
{
	trace_printk("toggled %d", i);
}

static void *toggler(void *arg)
{
	(void)arg;
	for (int i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++) {
		bprint_disable("func:toggle_*");
		toggle_me(i);
		bprint_enable("func:toggle_*");
		if (i % 16 == 0)
			tc_sleep_us(100);	/* each toggle walks every site id */
	}
	return NULL;
}

static void *reader(void *arg)
{
	struct bprint_event ev = BPRINT_EVENT_INIT;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct bprint_reader *r = bprint_read_begin();

		for (int n = 0; r && n < 1000 && bprint_read_next(r, &ev) == 1; n++)
			;
		bprint_read_end(r);
		r = bprint_snapshot_begin();
		for (int n = 0; r && n < 100 && bprint_read_next(r, &ev) == 1; n++)
			;
		bprint_read_end(r);
	}
	return NULL;
}

static void *loader(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		void *h;
		dso_trace_fn f;

		pthread_mutex_lock(&loader_lock);
		h = dlopen(TRACER_DSO_PATH, RTLD_NOW | RTLD_LOCAL);
		pthread_mutex_unlock(&loader_lock);
		CHECK(h != NULL);
		f = (dso_trace_fn)(uintptr_t)dlsym(h, "dso_trace");
		CHECK(f != NULL);
		f(1, "parent");
		pthread_mutex_lock(&loader_lock);
		dlclose(h);
		pthread_mutex_unlock(&loader_lock);
		tc_sleep_us(1000);	/* each load takes fresh site ids: spare them */
	}
	return NULL;
}

/* A call site that runs only in children: it registers there, first. */
static void child_site(int i, const char *s)
{
	trace_printk(CHILD_FMT, (int)getpid(), i, s);
}

static void check_record(const struct bprint_event *ev, int *mine, int *dso)
{
	char expect[256];

	if (!strncmp(ev->message, "storm child", 11)) {
		tc_expect(expect, sizeof(expect), CHILD_FMT, (int)getpid(), *mine, "x");
		CHECK_STREQ(ev->message, expect);
		(*mine)++;
	} else if (!strncmp(ev->message, DSO_PREFIX, strlen(DSO_PREFIX))) {
		tc_expect(expect, sizeof(expect), "dso value=%d name=%s big=%llu", 7, "child",
			  7ull * 1000003ull);
		CHECK_STREQ(ev->message, expect);
		(*dso)++;
	} else if (!strncmp(ev->message, "toggled", 7)) {
		FAIL("toggle_me() was disabled in the child: \"%s\"", ev->message);
	}
	/* The library's literal and scalar records: counted by the dump below. */
}

static int child(void)
{
	int mine = 0, dso = 0, fd;
	struct bprint_event ev = BPRINT_EVENT_INIT;
	struct bprint_reader *r;
	void *h;
	dso_trace_fn f;
	FILE *null;

	alarm(10);
	CHECK_OP(bprint_disable("func:toggle_*"), >=, 0);
	for (int i = 0; i < NCHILD_RECS; i++)
		child_site(i, "x");
	toggle_me(-1);			/* disabled: no record */
	CHECK_OP(bprint_enable("func:toggle_*"), >=, 0);
	bprint_disable("func:toggle_*");
	h = dlopen(TRACER_DSO_PATH, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL);
	f = (dso_trace_fn)(uintptr_t)dlsym(h, "dso_trace");
	CHECK(f != NULL);
	f(7, "child");
	dlclose(h);
	r = bprint_snapshot_begin();
	CHECK(r != NULL);
	while (bprint_read_next(r, &ev) == 1)
		check_record(&ev, &mine, &dso);
	bprint_read_end(r);
	CHECK_EQ(mine, NCHILD_RECS);
	CHECK_EQ(dso, 1);
	fd = open("/dev/null", O_WRONLY);
	null = fd >= 0 ? fdopen(fd, "w") : NULL;
	CHECK(null != NULL);
	CHECK_EQ(bprint_dump(null), NCHILD_RECS + 3);	/* + the library's three */
	fclose(null);
	CHECK_EQ(tc_drain(NULL, NULL), NCHILD_RECS + 3);
	return 0;
}

int main(void)
{
	enum { NTRACERS = 2 };
	pthread_t th[NTRACERS + 3];
	int nchild = (int)tc_scale(200), hung = 0, failed = 0;

	if (nchild < 20)
		nchild = 20;
	for (int i = 0; i < NTRACERS; i++)
		CHECK_EQ(pthread_create(&th[i], NULL, tracer, (void *)(intptr_t)i), 0);
	CHECK_EQ(pthread_create(&th[NTRACERS], NULL, toggler, NULL), 0);
	CHECK_EQ(pthread_create(&th[NTRACERS + 1], NULL, reader, NULL), 0);
	CHECK_EQ(pthread_create(&th[NTRACERS + 2], NULL, loader, NULL), 0);
	tc_sleep_us(20000);
	for (int i = 0; i < nchild; i++) {
		int status;
		pid_t pid;

		pthread_mutex_lock(&loader_lock);
		pid = fork();
		if (pid == 0)
			pthread_mutex_init(&loader_lock, NULL);
		else
			pthread_mutex_unlock(&loader_lock);

		CHECK(pid >= 0);
		if (pid == 0)
			_exit(child());
		CHECK_EQ(waitpid(pid, &status, 0), pid);
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
			hung++;
		else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "child %d: %s %d\n", i, WIFEXITED(status) ? "exit" : "signal",
				WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
			failed++;
		}
		tc_sleep_us(i % 7 * 100);	/* vary the moment of the next fork */
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < NTRACERS + 3; i++)
		CHECK_EQ(pthread_join(th[i], NULL), 0);
	if (hung || failed)
		FAIL("%d of %d children hung, %d failed", hung, nchild, failed);
	printf("fork storm: %d children, none hung\n", nchild);
	return 0;
}
