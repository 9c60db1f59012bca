/* bench/cxx_c.c - bench-cxx's rows compiled as C (cxx_rows.h). */
#include <bprint.h>

#include "cxx_rows.h"

#define C_LOOP(name, ...)							\
	__attribute__((noinline)) static void c_##name(size_t n)		\
	{									\
		for (size_t i = 0; i < n; i++)					\
			trace_printk(__VA_ARGS__);				\
	}
BENCH_ROWS(C_LOOP)

#define C_ROW(name, ...) { #name, c_##name },
const struct bench_row bench_c_rows[] = { BENCH_ROWS(C_ROW) { NULL, NULL } };
