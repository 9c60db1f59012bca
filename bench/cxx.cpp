// bench/cxx: trace_printk() compiled as C++ against the same calls compiled
// as C (cxx_c.c), each row against the floor (rdtsc plus a 16-byte store)
// measured in the same run, interleaved; medians of the runs.
//
//   build/bench/bench-cxx [calls-per-run] [runs]
#include <bprint.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "cxx_rows.h"

extern "C" const struct bench_row bench_c_rows[];

BENCH_ROWS(BENCH_LOOP)
static const bench_row cxx_rows[] = { BENCH_ROWS(BENCH_ROW) { nullptr, nullptr } };

struct floor_rec {
	uint64_t ts, value;
};
static floor_rec floor_ring[65536];

__attribute__((noinline)) static void floor_loop(size_t n)
{
	for (size_t i = 0; i < n; i++) {
		floor_rec *r = &floor_ring[i & 65535];

		r->ts = __builtin_ia32_rdtsc();
		r->value = i;
		__asm__ volatile("" : : "r"(r) : "memory");
	}
}

static double ns_per_call(void (*loop)(size_t), size_t n)
{
	timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	loop(n);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)n;
}

static double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

int main(int argc, char **argv)
{
	size_t calls = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
	int runs = argc > 2 ? std::atoi(argv[2]) : 11;
	size_t nrows = sizeof(cxx_rows) / sizeof(cxx_rows[0]) - 1;
	std::vector<std::vector<double>> c(nrows), cxx(nrows), fl(nrows);

	bprint_disable("fmt:disabled site*");
	for (size_t r = 0; r < nrows; r++) {	// warm up: registration, first pages
		bench_c_rows[r].loop(1000);
		cxx_rows[r].loop(1000);
	}
	for (int run = 0; run < runs; run++) {
		for (size_t r = 0; r < nrows; r++) {
			fl[r].push_back(ns_per_call(floor_loop, calls));
			c[r].push_back(ns_per_call(bench_c_rows[r].loop, calls));
			cxx[r].push_back(ns_per_call(cxx_rows[r].loop, calls));
		}
	}
	std::printf("bench-cxx: %zu calls x %d runs, medians; ratios against the floor of the same row\n",
		    calls, runs);
	std::printf("%-14s %8s %8s %8s %8s %8s %9s\n", "row", "floor", "C ns", "C++ ns", "C/fl",
		    "C++/fl", "C++/C");
	for (size_t r = 0; r < nrows; r++) {
		double f = median(fl[r]), a = median(c[r]), b = median(cxx[r]);

		std::printf("%-14s %8.2f %8.2f %8.2f %7.2fx %7.2fx %8.2fx\n", cxx_rows[r].name, f, a, b,
			    a / f, b / f, b / a);
	}
	std::printf("targets (issue 9): scalars and %%c <= 1.25x floor, %%s <= 1.5x, "
		    "C++ within 10%% of C, disabled < 1 ns\n");
	return 0;
}
