/*
 * tests/check.h - the one assertion harness of the tests and the fuzzers.
 *
 * A failed check prints file:line, the expression and the values compared
 * (one line that says what went wrong), then does what the including file
 * asked for, by defining one of these before the #include:
 *   (nothing)             exit(1): the first failure ends the test;
 *   CHECK_KEEP_GOING N    count it in check_failures and go on, up to N
 *                         failures (then exit(1)); the test ends with
 *                         check_summary(), whose status it returns;
 *   CHECK_ABORTS          abort(): a fuzz target, whose input libFuzzer
 *                         keeps when the process aborts.
 */
#ifndef BP_TEST_CHECK_H
#define BP_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;

/* After a failure was printed. */
static inline void check_failed(void)
{
#if defined(CHECK_ABORTS)
	abort();
#elif defined(CHECK_KEEP_GOING)
	if (++check_failures > (CHECK_KEEP_GOING))
		exit(1);
#else
	check_failures++;
	exit(1);
#endif
}

__attribute__((format(printf, 3, 4)))
static inline void check_print(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The status a test that keeps going ends with: 0, or 1 after a failure. */
static inline int check_summary(const char *test)
{
	if (check_failures)
		fprintf(stderr, "%s: %d failure(s)\n", test, check_failures);
	return check_failures != 0;
}

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			check_print(__FILE__, __LINE__, "CHECK(%s) failed", #cond); \
			check_failed();                                        \
		}                                                              \
	} while (0)

/* CHECK_MSG(cond, fmt, ...): the message says what was checked. */
#define CHECK_MSG(cond, ...)                                                   \
	do {                                                                   \
		if (!(cond)) {                                                 \
			check_print(__FILE__, __LINE__, __VA_ARGS__);          \
			check_failed();                                        \
		}                                                              \
	} while (0)

/* CHECK_OP(a, ==, b): both sides are evaluated once and printed (signed). */
#define CHECK_OP(a, op, b)                                                     \
	do {                                                                   \
		long long check_a_ = (long long)(a);                           \
		long long check_b_ = (long long)(b);                           \
		if (!(check_a_ op check_b_)) {                                 \
			check_print(__FILE__, __LINE__,                        \
				    "CHECK(%s %s %s) failed: %lld vs %lld", #a, #op, \
				    #b, check_a_, check_b_);                   \
			check_failed();                                        \
		}                                                              \
	} while (0)

#define CHECK_EQ(a, b) CHECK_OP(a, ==, b)

/* CHECK_U64(a, <=, b): the same for unsigned 64-bit values. */
#define CHECK_U64(a, op, b)                                                    \
	do {                                                                   \
		unsigned long long check_a_ = (unsigned long long)(a);         \
		unsigned long long check_b_ = (unsigned long long)(b);         \
		if (!(check_a_ op check_b_)) {                                 \
			check_print(__FILE__, __LINE__,                        \
				    "CHECK(%s %s %s) failed: %llu vs %llu", #a, #op, \
				    #b, check_a_, check_b_);                   \
			check_failed();                                        \
		}                                                              \
	} while (0)

/* Strings: both printed on failure. */
#define CHECK_STREQ(a, b)                                                      \
	do {                                                                   \
		const char *check_sa_ = (a);                                   \
		const char *check_sb_ = (b);                                   \
		if (!check_sa_ || !check_sb_ || strcmp(check_sa_, check_sb_)) { \
			check_print(__FILE__, __LINE__,                        \
				    "CHECK(%s == %s) failed:\n  \"%s\"\n  \"%s\"", #a, #b, \
				    check_sa_ ? check_sa_ : "(null)",          \
				    check_sb_ ? check_sb_ : "(null)");         \
			check_failed();                                        \
		}                                                              \
	} while (0)

/* An unconditional failure with context: FAIL("seq %llu", seq). */
#define FAIL(...)                                                              \
	do {                                                                   \
		check_print(__FILE__, __LINE__, __VA_ARGS__);                  \
		check_failed();                                                \
	} while (0)

/* Iteration counts: 10x fewer under sanitizers (BPRINT_TEST_QUICK=1),
 * 10x more in the long run (BPRINT_TEST_LONG=1, which wins). */
static inline long long test_scale(long long normal)
{
	const char *q = getenv("BPRINT_TEST_QUICK");
	const char *l = getenv("BPRINT_TEST_LONG");

	if (l && *l && *l != '0')
		return normal * 10;
	return q && *q && *q != '0' ? normal / 10 : normal;
}

/* Under the sanitizers' quick runs (BPRINT_TEST_QUICK=1)? */
static inline int test_quick(void)
{
	return test_scale(10) < 10;
}

#endif /* BP_TEST_CHECK_H */
