/*
 * A generator of random valid C11 printf calls, for the differential tests
 * and the round-trip fuzzer: a format, typed arguments, the glibc format
 * that must print the same text, and the block docs/binary-layout.md says
 * bp_vbin_printf() must produce for it.
 *
 * Arguments are passed by their C type through fg_call(), which switches
 * over every sequence of up to FG_MAXA argument classes and makes one
 * variadic call of that shape.
 */
#ifndef BP_TEST_FMTGEN_H
#define BP_TEST_FMTGEN_H

#include <bprint/format.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FG_MAXA 5	/* arguments per call ('*' values included) */
#define FG_MAXC 4	/* conversions per format */
#define FG_FMTMAX 512
#define FG_STRMAX 240

/* How an argument is passed: the C type of the variadic argument. */
enum fg_class {
	FG_INT,		/* int: d i u o x X c with no/hh/h length, '*' values */
	FG_LLONG,	/* long long: l ll j z t (all 64-bit on LP64) */
	FG_PTR,		/* void * / const char *: p s n */
	FG_DOUBLE,	/* double: f e g a, and with l */
	FG_LDOUBLE,	/* long double: L */
};

struct fg_arg {
	uint8_t cls;		/* enum fg_class */
	uint8_t kind;		/* the plan slot kind it must compile to */
	char conv;		/* its conversion, or '*' */
	int16_t precision;	/* kind BP_ARG_STR: the slot's precision */
	int32_t eff_prec;	/* %s: the precision in effect (-1: none) */
	union {
		int i;
		long long ll;
		const void *p;
		double d;
		long double ld;
	} v;
	/* Expected block slot, from the layout document. */
	size_t off, size;
};

/* One piece of the format: literal text or one conversion. */
struct fg_piece {
	uint16_t start, end;	/* in fmt */
	uint16_t gstart, gend;	/* in gfmt */
	uint8_t first_arg, nargs;
	char conv;		/* 0 for literal text */
};

struct fg_case {
	char fmt[FG_FMTMAX];	/* for bprint */
	char gfmt[FG_FMTMAX];	/* for glibc: %n replaced by %.0s */
	struct fg_arg a[FG_MAXA];
	int na;
	struct fg_piece piece[2 * FG_MAXC + 2];
	int npieces;
	int has_n;		/* a %n writes nothing into sentinel[] */
	int has_float;
	size_t need_words;	/* the block's size by the layout document */
	size_t str_words;	/* sum over %s of ceil((stored + 1) / 4) */
	/* Storage the arguments point into: do not copy a case. */
	char str[FG_MAXA][FG_STRMAX];
	unsigned char sentinel[FG_MAXA][16];
};

/*
 * Random source: splitmix64 from a seed, or (data != NULL) the bytes of a
 * fuzzer input, zeros once they run out.
 */
struct fg_rng {
	uint64_t s;
	const uint8_t *data;
	size_t len, pos;
};

struct fg_opts {
	int max_conv;		/* at most FG_MAXC */
	int max_width;		/* cap on digit and '*' widths (magnitude) */
	int no_percent;		/* no "%%" conversions */
	int no_n;		/* no %n conversions */
};

uint64_t fg_next(struct fg_rng *r);
uint32_t fg_below(struct fg_rng *r, uint32_t n);

void fg_default_opts(struct fg_opts *o);
void fg_generate(struct fg_case *t, struct fg_rng *r, const struct fg_opts *o);

/* The layout model: fill out[0..need_words-1] (words >= need_words). */
void fg_model_block(const struct fg_case *t, uint32_t *out);

/* True if the sentinels behind every %n are untouched. */
int fg_sentinels_ok(const struct fg_case *t);

/* Call fn(ctx, args[0], ..., args[n-1]) with each argument of its class. */
typedef void (*fg_fn)(void *ctx, ...);
void fg_call(const struct fg_arg *args, int n, fg_fn fn, void *ctx);

void fg_print(FILE *f, const struct fg_case *t);

/* Reset *a to an argument of class cls (for hand-made argument lists). */
void fg_set(struct fg_arg *a, uint8_t cls);

#endif /* BP_TEST_FMTGEN_H */
