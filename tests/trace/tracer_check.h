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

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* CHECK, CHECK_OP, CHECK_EQ: the ring tests' macros. */
#include "../ring/check.h"

/* Strings: both printed on failure. */
#define CHECK_STREQ(a, b)                                                      \
	do {                                                                   \
		const char *check_sa_ = (a);                                   \
		const char *check_sb_ = (b);                                   \
		if (!check_sa_ || !check_sb_ || strcmp(check_sa_, check_sb_)) { \
			fprintf(stderr, "%s:%d: CHECK(%s == %s) failed:\n  \"%s\"\n  \"%s\"\n", \
				__FILE__, __LINE__, #a, #b,                    \
				check_sa_ ? check_sa_ : "(null)",              \
				check_sb_ ? check_sb_ : "(null)");             \
			exit(1);                                               \
		}                                                              \
	} while (0)

/* Formatted failure with context: FAIL("seq %llu", seq). */
#define FAIL(...)                                                              \
	do {                                                                   \
		fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                \
		fprintf(stderr, __VA_ARGS__);                                  \
		fputc('\n', stderr);                                           \
		exit(1);                                                       \
	} while (0)

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

#endif
