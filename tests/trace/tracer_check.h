/*
 * tests/trace/tracer_check.h - assertion macros and small helpers shared
 * by the tracer tests (tracer_*.c).
 *
 * A failed CHECK prints file:line, the expression and the values, then
 * exits 1.  Expected messages are always computed with the C library's
 * snprintf from the same format and arguments, never written out by hand.
 */
#ifndef BP_TEST_TRACER_CHECK_H
#define BP_TEST_TRACER_CHECK_H

#include <bprint.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* CHECK, CHECK_OP, CHECK_EQ, CHECK_STREQ, FAIL, test_scale(): the harness. */
#include "check.h"

/* test_scale(), at least 1: 10x fewer with BPRINT_TEST_QUICK=1, 10x more with BPRINT_TEST_LONG=1. */
static inline long long tc_scale(long long normal)
{
	long long n = test_scale(normal);

	return n > 0 ? n : 1;
}

/* The expected text, made by the C library. */
__attribute__((format(printf, 3, 4)))
static inline void tc_expect(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

/*
 * A message cut at trace time (docs/trace-format.md, "Record"): the first
 * K bytes of full, then "[...cut: K of N bytes]" with N = strlen(full).
 * Returns K, or -1 if msg (of len bytes) is not that.
 */
static inline long tc_cut_prefix(const char *msg, size_t len, const char *full)
{
	const char *mark = NULL;
	unsigned k, n;
	int end = 0;

	for (const char *p = strstr(msg, "[...cut: "); p; p = strstr(p + 1, "[...cut: "))
		mark = p;
	if (!mark || sscanf(mark, "[...cut: %u of %u bytes]%n", &k, &n, &end) != 2 ||
	    mark + end != msg + len || (size_t)(mark - msg) != k || n != strlen(full) || k >= n ||
	    strncmp(msg, full, k))
		return -1;
	return (long)k;
}

static inline uint64_t tc_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleep for us microseconds (restarts on EINTR). */
static inline void tc_sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Drain the consumer: count records, call fn on each (may be NULL). */
typedef void (*tc_event_fn)(const struct bprint_event *ev, void *ctx);

static inline long tc_drain(tc_event_fn fn, void *ctx)
{
	struct bprint_reader *r = bprint_read_begin();
	struct bprint_event ev = BPRINT_EVENT_INIT;
	long n = 0;
	int rc;

	CHECK(r != NULL);
	while ((rc = bprint_read_next(r, &ev)) == 1) {
		if (fn)
			fn(&ev, ctx);
		n++;
	}
	CHECK_EQ(rc, 0);
	bprint_read_end(r);
	return n;
}

/*
 * The stress tests' run: a consumer thread and n writers (w[], arg their
 * index), each writer adding 1 to *done as it finishes; returns once all
 * have, with the consumer told to stop (*stop) and joined.  The writers
 * are the caller's to join.
 */
static inline void tc_run_writers(pthread_t *w, int n, void *(*writer)(void *),
				  void *(*consumer)(void *), _Atomic int *done, _Atomic bool *stop)
{
	pthread_t c;

	CHECK_EQ(pthread_create(&c, NULL, consumer, NULL), 0);
	for (int t = 0; t < n; t++)
		CHECK_EQ(pthread_create(&w[t], NULL, writer, (void *)(intptr_t)t), 0);
	while (atomic_load(done) < n)
		tc_sleep_us(1000);
	atomic_store(stop, true);
	CHECK_EQ(pthread_join(c, NULL), 0);
}

/*
 * The final drain (each record to fn) and the threads' counters, taken in
 * one reader session so that they agree; returns bprint_stats()'s count.
 */
static inline int tc_drain_with_stats(tc_event_fn fn, void *ctx, struct bprint_thread_stats *st,
				      int max)
{
	struct bprint_reader *r = bprint_read_begin();
	struct bprint_event ev = BPRINT_EVENT_INIT;
	int n, rc;

	CHECK(r != NULL);
	while ((rc = bprint_read_next(r, &ev)) == 1)
		fn(&ev, ctx);
	CHECK_EQ(rc, 0);
	n = bprint_stats(st, max);
	bprint_read_end(r);
	return n;
}

/* Thread tid's entry among the n of st, or NULL. */
static inline const struct bprint_thread_stats *tc_stats_of(const struct bprint_thread_stats *st,
							    int n, int tid)
{
	for (int i = 0; i < n; i++)
		if (st[i].tid == tid)
			return &st[i];
	return NULL;
}

/*
 * Expected messages in call order (each made with tc_expect() into
 * tc_want_add()), and the tc_event_fn that checks the records read
 * against them, one by one (ctx: the struct tc_want).
 */
struct tc_want {
	char *text;		/* cap messages of width bytes each */
	size_t width;
	long cap, n, next;
};

static inline char *tc_want_add(struct tc_want *w)
{
	if (w->n >= w->cap)
		FAIL("more than %ld expected messages", w->cap);
	return w->text + (size_t)w->n++ * w->width;
}

static inline void tc_want_check(const struct bprint_event *ev, void *ctx)
{
	struct tc_want *w = ctx;
	const char *want;

	if (w->next >= w->n)
		FAIL("record %ld, only %ld written: \"%s\"", w->next, w->n, ev->message);
	want = w->text + (size_t)w->next * w->width;
	if (strcmp(ev->message, want))
		FAIL("record %ld:\n  got    \"%s\"\n  expect \"%s\"", w->next, ev->message, want);
	w->next++;
}

/*
 * A SIGPROF timer aimed at the calling thread, every interval_ns, running
 * handler (SA_RESTART); tc_thread_timer_stop() ends it and ignores the
 * signal from then on.
 */
static inline timer_t tc_thread_timer_start(void (*handler)(int), long interval_ns)
{
	struct sigaction sa;
	struct sigevent sev;
	struct itimerspec its;
	timer_t timer;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	CHECK_EQ(sigaction(SIGPROF, &sa, NULL), 0);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGPROF;
#ifdef sigev_notify_thread_id
	sev.sigev_notify_thread_id = (pid_t)gettid();
#else
	sev._sigev_un._tid = (pid_t)gettid();
#endif
	CHECK_EQ(timer_create(CLOCK_MONOTONIC, &sev, &timer), 0);
	its.it_interval.tv_sec = interval_ns / 1000000000;
	its.it_interval.tv_nsec = interval_ns % 1000000000;
	its.it_value = its.it_interval;
	CHECK_EQ(timer_settime(timer, 0, &its, NULL), 0);
	return timer;
}

static inline void tc_thread_timer_stop(timer_t timer)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	CHECK_EQ(timer_settime(timer, 0, &its, NULL), 0);
	CHECK_EQ(timer_delete(timer), 0);
	signal(SIGPROF, SIG_IGN);
}

#if defined(__SANITIZE_THREAD__)
#define TC_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TC_TSAN 1
#endif
#endif
#ifndef TC_TSAN
#define TC_TSAN 0
#endif

/*
 * BPRINT_FILE for a test that traces into a live file of its own and
 * reads it back: a new directory's trace.dat (named after prefix), set
 * before the tracer starts by executing the test again.  Returns the path
 * in the second run; tc_own_file_remove() takes the file and directory.
 */
static inline const char *tc_own_file(char **argv, const char *prefix)
{
	static char path[96];
	char dir[64];

	if (getenv("BPRINT_FILE"))
		return getenv("BPRINT_FILE");
	snprintf(dir, sizeof(dir), "/tmp/%s-XXXXXX", prefix);
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/trace.dat", dir);
	setenv("BPRINT_FILE", path, 1);
	execv("/proc/self/exe", argv);
	FAIL("exec: %s", strerror(errno));
	return NULL;
}

static inline void tc_own_file_remove(const char *path)
{
	char dir[96];

	snprintf(dir, sizeof(dir), "%s", path);
	unlink(path);
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
	rmdir(dir);
}

#endif
