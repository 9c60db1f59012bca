/*
 * bench/cxx_rows.h - the calls bench-cxx times, one list compiled as C
 * (cxx_c.c) and as C++ (cxx.cpp), so that each row compares the two
 * languages' call sites and both with the floor.  BENCH_ROWS(X) expands
 * X(name, format, arguments...), the arguments made from the loop index i.
 */
#ifndef BP_BENCH_CXX_ROWS_H
#define BP_BENCH_CXX_ROWS_H

#include <stddef.h>

#define BENCH_ROWS(X)								\
	X(seed, "This is the timer interrupt: %llu", (unsigned long long)i)	\
	X(static_string, "Starting backup replica garbage collector thread")	\
	X(one_int, "Backup server %d is ready", (int)i)				\
	X(two_ints, "buffer %d of %d", (int)i, (int)(i >> 3))			\
	X(one_double, "Using tombstone ratio balancer with ratio = %f", (double)i * 0.5) \
	X(mixed_scalars, "%d %ld %p %f %u", (int)i, (long)i, (const void *)&i,	\
	  (double)i, (unsigned)i)						\
	X(one_char, "char %c", (char)('a' + (i & 15)))				\
	X(string_39, "%s", "Starting backup replica garbage collec")	\
	X(string_port, "%s port %d", "eth0", (int)i)				\
	X(disabled, "disabled site %d", (int)i)

/* A row's timed loop and its table entry, for the language including this. */
#define BENCH_LOOP(name, ...)							\
	__attribute__((noinline)) static void loop_##name(size_t n)		\
	{									\
		for (size_t i = 0; i < n; i++)					\
			trace_printk(__VA_ARGS__);				\
	}
#define BENCH_ROW(name, ...) { #name, loop_##name },

struct bench_row {
	const char *name;
	void (*loop)(size_t n);
};

#endif
