/*
 * tests/ring/check.h - the ring tests' assertion macros.
 *
 * A failed CHECK prints where and the values compared, then exits non-zero,
 * so a test failure is one line that says what went wrong.  Values are
 * printed as 64-bit integers, which covers everything the ring stores.
 */
#ifndef BP_TEST_RING_CHECK_H
#define BP_TEST_RING_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                           \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, \
				__LINE__, #cond);                             \
			exit(1);                                              \
		}                                                             \
	} while (0)

/* CHECK_OP(a, ==, b): both sides are evaluated once and printed. */
#define CHECK_OP(a, op, b)                                                    \
	do {                                                                  \
		long long check_a_ = (long long)(a);                          \
		long long check_b_ = (long long)(b);                          \
		if (!(check_a_ op check_b_)) {                                \
			fprintf(stderr, "%s:%d: CHECK(%s %s %s) failed: %lld vs %lld\n", \
				__FILE__, __LINE__, #a, #op, #b, check_a_,    \
				check_b_);                                    \
			exit(1);                                              \
		}                                                             \
	} while (0)

#define CHECK_EQ(a, b) CHECK_OP(a, ==, b)

/* Iteration counts shrink ~10x under sanitizers (BPRINT_TEST_QUICK=1). */
static inline long long test_scale(long long normal)
{
	const char *q = getenv("BPRINT_TEST_QUICK");
	const char *l = getenv("BPRINT_TEST_LONG");

	if (l && *l && *l != '0')	/* the long (sanitizer) run: wins over QUICK */
		return normal * 10;
	return q && *q && *q != '0' ? normal / 10 : normal;
}

#endif
