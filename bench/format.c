/*
 * bench/format: what the printf engine costs per call, against glibc.
 *
 * For a fixed set of formats it times, in one process and interleaved:
 *
 *   glibc      vsnprintf() into a 256-byte buffer (the baseline)
 *   vsnprintf  bp_vsnprintf() into the same buffer
 *   bstr       bp_bstr_printf() of a block packed once beforehand
 *   vbin       bp_vbin_printf() of the same arguments into a block
 *   plan       bp_vbin_printf_plan() with the format compiled beforehand
 *
 * Each figure is the median over several runs of ns per call, and every
 * ratio is glibc's time divided by ours, measured in the same run (above 1
 * means faster than glibc).  Every call goes through a variadic entry
 * point, its format read from a volatile pointer and its output passed to
 * an empty asm that claims to read memory, so no call can be folded away.
 *
 * The targets, from issue #2: bp_vsnprintf and bp_bstr_printf at least 2x
 * as fast as glibc on the integer and string formats (timer, pointer, long
 * string, literal), and at most 10 % slower on the float formats (the mixed
 * one, whose %5.2f is a float conversion, and a pure "%.3f").
 *
 *   build/bench/bench-format [calls-per-run] [runs]
 */
#include <bprint/format.h>

#include "bench.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUF 256
#define WORDS 128

static long calls = 20000;
static int runs = 11;

enum category { CAT_INT, CAT_STR, CAT_FLOAT };
static const char *const cat_name[] = { "integer", "string", "float" };

enum fn { FN_GLIBC, FN_VSN, FN_BSTR, FN_VBIN, FN_PLAN, NFN };
static const char *const fn_name[] = { "glibc", "vsnprintf", "bstr", "vbin", "plan" };

/* Inputs the compiler cannot see through. */
static char long_str[201];
static const char *volatile v_long_str = long_str;
static const char *volatile v_word = "irq";
static const char *volatile v_word2 = "eth0";
static volatile unsigned long long v_jiffies = 4294967296ULL + 123456789ULL;
static volatile int v_int = -4711;
static volatile unsigned v_hex = 0xbeefU;
static volatile double v_double = 3.14159265358979;
static void *volatile v_ptr = (void *)(uintptr_t)0x7ffd1234abcdULL;

static void clobber(const void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

/*
 * The variadic users are called through their variadic entry points:
 * glibc's snprintf, bp_snprintf and bp_bin_printf each wrap the va_list
 * function the same way.  The plan packer has none, so it gets one here.
 * (Formats are read through a volatile, so no call is folded.)
 */
static __attribute__((noinline))
size_t w_plan(uint32_t *bin, size_t words, const struct bp_arg_plan *plan, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, plan);
	n = bp_vbin_printf_plan(bin, words, plan, ap);
	va_end(ap);
	return n;
}

/*
 * One format: its text, and a function that makes one call of the given
 * kind with the format's arguments.  The arguments are spelled once per
 * format by CALLS(), for all four variadic users.  Returns what the call
 * returned (vbin: the block's words).
 */
struct bench_case;
typedef long (*call_fn)(const struct bench_case *c, enum fn fn, char *buf, uint32_t *bin);

struct bench_case {
	const char *name;
	const char *fmt;
	enum category cat;
	call_fn call;
	struct bp_arg_plan plan;
	uint32_t block[WORDS];	/* packed once, for bstr */
	size_t words;
	double med[NFN];
	double ratio[NFN];	/* median over runs of glibc / fn in that run */
};

#define CALLS(name, ...)                                                        \
static long call_##name(const struct bench_case *c, enum fn fn, char *buf,      \
			uint32_t *bin)                                          \
{                                                                               \
	const char *volatile vf = c->fmt;                                       \
	const char *f = vf;                                                     \
										\
	switch (fn) {                                                           \
	case FN_GLIBC: return snprintf(buf, BUF, f, __VA_ARGS__);               \
	case FN_VSN: return bp_snprintf(buf, BUF, f, __VA_ARGS__);              \
	case FN_BSTR: return bp_bstr_printf(buf, BUF, f, c->block, c->words);   \
	case FN_VBIN: return (long)bp_bin_printf(bin, WORDS, f, __VA_ARGS__);   \
	case FN_PLAN: return (long)w_plan(bin, WORDS, &c->plan, __VA_ARGS__);   \
	default: return 0;                                                      \
	}                                                                       \
}

/* The formats come from a volatile pointer, on purpose. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
CALLS(timer, v_jiffies)
CALLS(pointer, v_ptr)
CALLS(longstr, v_long_str)
CALLS(literal, 0)
CALLS(mixed, v_word, v_int, v_hex, v_word2, v_double)
CALLS(flt, v_double)
#pragma GCC diagnostic pop

static struct bench_case cases[] = {
	{ .name = "timer", .fmt = "This is the timer interrupt: %llu", .cat = CAT_INT,
	  .call = call_timer },
	{ .name = "pointer", .fmt = "%p", .cat = CAT_INT, .call = call_pointer },
	{ .name = "longstr", .fmt = "%s", .cat = CAT_STR, .call = call_longstr },
	{ .name = "literal", .fmt = "softirq: nothing pending, back to idle", .cat = CAT_STR,
	  .call = call_literal },
	{ .name = "mixed", .fmt = "%s:%d %08x %-10s|%5.2f", .cat = CAT_FLOAT, .call = call_mixed },
	{ .name = "float", .fmt = "%.3f", .cat = CAT_FLOAT, .call = call_flt },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/*
 * Pack each case's block and plan, and check that every path prints what
 * glibc prints: a benchmark of wrong output measures nothing.
 */
static int prepare(struct bench_case *c)
{
	char want[BUF], got[BUF];
	uint32_t bin[WORDS];
	long words;
	int bad = 0;

	if (bp_format_compile(c->fmt, &c->plan) != 0) {
		fprintf(stderr, "%s: bp_format_compile failed\n", c->name);
		return -1;
	}
	words = c->call(c, FN_VBIN, NULL, c->block);
	if (words < 0 || words > WORDS) {
		fprintf(stderr, "%s: block of %ld words\n", c->name, words);
		return -1;
	}
	c->words = (size_t)words;
	memset(bin, 0, sizeof(bin));
	if (c->call(c, FN_PLAN, NULL, bin) != words || memcmp(bin, c->block, c->words * 4)) {
		fprintf(stderr, "%s: plan and vbin blocks differ\n", c->name);
		bad = -1;
	}
	c->call(c, FN_GLIBC, want, NULL);
	for (enum fn fn = FN_VSN; fn <= FN_BSTR; fn++) {
		c->call(c, fn, got, NULL);
		if (strcmp(want, got) != 0) {
			fprintf(stderr, "%s: %s printed \"%s\", glibc \"%s\"\n", c->name,
				fn_name[fn], got, want);
			bad = -1;
		}
	}
	return bad;
}

/*
 * One run: every function on every case, interleaved, each timed as the
 * fastest of BATCHES batches of calls/BATCHES calls (a batch that another
 * process preempted tells nothing about the code).
 */
#define BATCHES 8

static void run_once(double t[][NFN], char *buf, uint32_t *bin)
{
	long per = calls / BATCHES > 0 ? calls / BATCHES : 1;

	for (size_t i = 0; i < NCASES; i++) {
		const struct bench_case *c = &cases[i];

		for (int k = 0; k < NFN; k++) {
			/* rotate the order, so no function always runs first */
			enum fn fn = (enum fn)((k + (int)i) % NFN);
			double best = 0;

			for (int j = 0; j < BATCHES; j++) {
				double t0 = bench_now_ns(), dt;

				for (long n = 0; n < per; n++) {
					c->call(c, fn, buf, bin);
					clobber(buf);
					clobber(bin);
				}
				dt = (bench_now_ns() - t0) / (double)per;
				if (j == 0 || dt < best)
					best = dt;
			}
			t[i][fn] = best;
		}
	}
}

static const char *verdict(bool ok)
{
	return ok ? "holds" : "FAILS";
}

int main(int argc, char **argv)
{
	static double t[64][NCASES][NFN];
	double v[64];
	char buf[BUF];
	uint32_t bin[WORDS];
	int failed = 0;

	if (argc > 1)
		calls = atol(argv[1]);
	if (argc > 2)
		runs = atoi(argv[2]);
	if (calls < 1 || runs < 1 || runs > 64) {
		fprintf(stderr, "usage: %s [calls-per-run] [runs <= 64]\n", argv[0]);
		return 2;
	}
	for (size_t i = 0; i < sizeof(long_str) - 1; i++)
		long_str[i] = (char)('a' + i % 26);

	for (size_t i = 0; i < NCASES; i++)
		if (prepare(&cases[i]) != 0)
			failed = 1;
	if (failed)
		return 1;

	run_once(t[0], buf, bin);	/* warm up */
	for (int r = 0; r < runs; r++)
		run_once(t[r], buf, bin);
	for (size_t i = 0; i < NCASES; i++) {
		for (int fn = 0; fn < NFN; fn++) {
			for (int r = 0; r < runs; r++)
				v[r] = t[r][i][fn];
			cases[i].med[fn] = bench_median(v, runs);
			for (int r = 0; r < runs; r++)
				v[r] = t[r][i][FN_GLIBC] / t[r][i][fn];
			cases[i].ratio[fn] = bench_median(v, runs);
		}
	}

	printf("bench-format: ns per call, median of %d runs of %ld calls "
	       "(each run the fastest of %d batches);\nratio = glibc / ours in the same run, "
	       "median over the runs (>1: faster than glibc)\n\n", runs, calls, BATCHES);
	printf("%-8s %-8s %8s %10s %6s %8s %6s %8s %8s\n", "format", "kind", "glibc",
	       "vsnprintf", "ratio", "bstr", "ratio", "vbin", "plan");
	for (size_t i = 0; i < NCASES; i++) {
		const struct bench_case *c = &cases[i];
		const double *m = c->med;

		printf("%-8s %-8s %8.1f %10.1f %5.2fx %8.1f %5.2fx %8.1f %8.1f\n", c->name,
		       cat_name[c->cat], m[FN_GLIBC], m[FN_VSN], c->ratio[FN_VSN],
		       m[FN_BSTR], c->ratio[FN_BSTR], m[FN_VBIN], m[FN_PLAN]);
	}
	printf("\nformats:\n");
	for (size_t i = 0; i < NCASES; i++)
		printf("  %-8s \"%.48s%s\"\n", cases[i].name,
		       cases[i].fmt, strlen(cases[i].fmt) > 48 ? "..." : "");
	printf("  (longstr's argument is %zu characters)\n\n", strlen(long_str));

	for (size_t i = 0; i < NCASES; i++) {
		const struct bench_case *c = &cases[i];

		for (enum fn fn = FN_VSN; fn <= FN_BSTR; fn++) {
			double ratio = c->ratio[fn];

			if (c->cat == CAT_FLOAT)
				printf("target %-14s %-8s at most 10%% slower than glibc: "
				       "%5.2fx %s\n", fn == FN_VSN ? "bp_vsnprintf" : "bp_bstr_printf",
				       c->name, ratio, verdict(ratio >= 1 / 1.10));
			else
				printf("target %-14s %-8s at least 2x faster than glibc:  "
				       "%5.2fx %s\n", fn == FN_VSN ? "bp_vsnprintf" : "bp_bstr_printf",
				       c->name, ratio, verdict(ratio >= 2.0));
		}
	}
	return 0;
}
