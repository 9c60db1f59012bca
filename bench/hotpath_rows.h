/*
 * bench/hotpath_rows.h - the calls bench-hotpath times per argument kind,
 * one list compiled twice: as C (hotpath_rows.c) and as C++
 * (hotpath_rows.cpp), so that every row compares the two languages' call
 * sites, and both with the floor, in the same run.
 *
 * BENCH_ROWS(X) expands X(name, kind, label, trace_printk arguments...),
 * the arguments made from the loop index i.  The seed's message and
 * NanoLog's set come from bench/peers/msgs.h, so that bench-hotpath and
 * bench-peers time the same calls.
 *
 * Nothing here may be known to the compiler that a real call site would
 * not know either:
 *   - the strings are arrays filled at start-up (bench_rows_fill()), so
 *     their lengths and bytes cannot be folded into the call site;
 *   - the non-constant format is a non-const char array with the same
 *     contents at every call (as a format kept in a buffer is), so the
 *     site cannot see it as a literal.
 */
#ifndef BP_BENCH_HOTPATH_ROWS_H
#define BP_BENCH_HOTPATH_ROWS_H

#include <stddef.h>

#include "peers/msgs.h"

/* The argument kinds: each has its table and its target. */
enum bench_kind {
	BENCH_SCALAR,		/* none or only 4- and 8-byte scalars */
	BENCH_CHAR,		/* %c */
	BENCH_STRING,		/* %s or %.*s of up to 39 chars, with or without %d */
	BENCH_LONG_STRING,	/* %s of 200 chars */
	BENCH_NONCONST,		/* a format that is not a literal, repeated */
	BENCH_DISABLED,		/* a disabled site */
	BENCH_NKINDS
};

#define BENCH_ROWS(X)								\
	X(seed, BENCH_SCALAR, "seed \"...interrupt: %llu\"", ARGS_seed(i))	\
	X(static_str, BENCH_SCALAR, "static string", ARGS_static_str(i))	\
	X(one_int, BENCH_SCALAR, "one %d", ARGS_one_int(i))			\
	X(two_ints, BENCH_SCALAR, "two %d", ARGS_two_ints(i))			\
	X(one_double, BENCH_SCALAR, "one %0.6lf", ARGS_one_double(i))		\
	X(complex_fmt, BENCH_SCALAR, "complex: 4 %d, %.1lf", ARGS_complex_fmt(i)) \
	X(mixed_scalars, BENCH_SCALAR, "%d %ld %p %f %u", "%d %ld %p %f %u",	\
	  (int)i, (long)i, (const void *)&bench_string_8, (double)i, (unsigned)i) \
	X(one_char, BENCH_CHAR, "%c", "char %c", (char)('a' + (i & 15)))	\
	X(one_string, BENCH_STRING, "%s of 39 chars (NanoLog's)", MSG_STRING,	\
	  bench_string_39)							\
	X(string_8, BENCH_STRING, "%s of 8 chars", "%s", bench_string_8)	\
	X(string_port, BENCH_STRING, "\"%s port %d\", 8 chars", "%s port %d",	\
	  bench_string_8, (int)(i & 0xffff))					\
	X(precision, BENCH_STRING, "%.*s, 8 of 39 chars", "%.*s", 8,		\
	  bench_string_39)							\
	X(string_200, BENCH_LONG_STRING, "%s of 200 chars", "%s",		\
	  bench_string_200)							\
	X(nonconst, BENCH_NONCONST, "char[] format, one %d",			\
	  bench_format_nonconst, A_INT(i))					\
	X(disabled, BENCH_DISABLED, "disabled site", "disabled site %d", (int)i)

/* The disabled row's sites, for bprint_disable(). */
#define BENCH_DISABLED_PATTERN "fmt:disabled site*"

/* A row's timed loop and its table entry, for the language including this. */
#define BENCH_LOOP(name, kind, label, ...)					\
	__attribute__((noinline)) static void loop_##name(size_t n)		\
	{									\
		for (size_t i = 0; i < n; i++)					\
			trace_printk(__VA_ARGS__);				\
	}
#define BENCH_ROW(name, kind, label, ...) { #name, label, kind, loop_##name },
#define BENCH_INDEX(name, ...) BENCH_ROW_##name,

/*
 * The rows' definitions, in either language.  The pragma: the one
 * non-literal format is the point of its row (every literal one is still
 * checked against its arguments).
 */
#define BENCH_DEFINE_ROWS(table)						\
	_Pragma("GCC diagnostic push")						\
	_Pragma("GCC diagnostic ignored \"-Wformat-nonliteral\"")		\
	BENCH_ROWS(BENCH_LOOP)							\
	_Pragma("GCC diagnostic pop")						\
	const struct bench_row table[] = { BENCH_ROWS(BENCH_ROW) };

enum { BENCH_ROWS(BENCH_INDEX) BENCH_NROWS };

/*
 * The many-sites row: BENCH_MANY different call sites in straight-line
 * code, one loop (a record of 16 bytes each, as the seed's), against the
 * floor in the same shape (hotpath.c).  n calls: n / BENCH_MANY turns.
 */
#define BENCH_MANY 64
#define BENCH_MANY_SITE(a, b) trace_printk("many sites " #a #b ": %llu", (unsigned long long)i);
#define BENCH_MANY_8(m, a) m(a, 0) m(a, 1) m(a, 2) m(a, 3) m(a, 4) m(a, 5) m(a, 6) m(a, 7)
#define BENCH_MANY_64(m) BENCH_MANY_8(m, 0) BENCH_MANY_8(m, 1) BENCH_MANY_8(m, 2)	\
	BENCH_MANY_8(m, 3) BENCH_MANY_8(m, 4) BENCH_MANY_8(m, 5) BENCH_MANY_8(m, 6)	\
	BENCH_MANY_8(m, 7)
#define BENCH_DEFINE_MANY(name)							\
	__attribute__((noinline)) void name(size_t n)				\
	{									\
		for (size_t i = 0; i < n; i += BENCH_MANY) {			\
			BENCH_MANY_64(BENCH_MANY_SITE)				\
		}								\
	}

#ifdef __cplusplus
extern "C" {
#endif

struct bench_row {
	const char *name;		/* as in bench/peers where the row is one of its */
	const char *label;		/* what the call is, for the table */
	enum bench_kind kind;
	void (*loop)(size_t n);		/* n calls, i = 0 .. n - 1 */
};

extern const struct bench_row bench_rows_c[BENCH_NROWS];
extern const struct bench_row bench_rows_cxx[BENCH_NROWS];	/* if built with C++ */

/* Filled by bench_rows_fill(): 8, 39 (NanoLog's STRING_ARG) and 200 chars. */
extern char bench_string_8[];
extern char bench_string_39[];
extern char bench_string_200[];
/* MSG_INT, as a non-const array. */
extern char bench_format_nonconst[];

void bench_rows_fill(void);

/*
 * --check (hotpath_check.c): each row of each language (rows_cxx NULL:
 * not built) read back against glibc; the number of rows that fail.
 */
int bench_check_rows(const struct bench_row *rows_cxx);

/* The many-sites row, compiled as C and as C++ (if built with C++). */
void bench_many_c(size_t n);
void bench_many_cxx(size_t n);

#ifdef __cplusplus
}
#endif

#endif
