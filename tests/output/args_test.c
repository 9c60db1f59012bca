/*
 * output/args: typed arguments read back from blocks that bp_bin_printf()
 * packed from known values, so that every expected value is the test's own
 * input.  Then every truncation of each block (copied to a heap buffer of
 * exactly that size, so a sanitizer sees any read past it), a block with a
 * word too many, and a string without its NUL must all be refused.
 */
#include "output/args.h"

#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_KEEP_GOING 1000
#include "check.h"

/* What one value should be. */
struct want {
	uint8_t type, size, base;
	const char *name;
	int64_t i;
	uint64_t u;
	double d;
	const char *s;
};

#define WI(sz, b, nm, v) { BP_ARGT_INT, sz, b, nm, .i = (v) }
#define WU(sz, b, nm, v) { BP_ARGT_UINT, sz, b, nm, .u = (v) }
#define WC(nm, v) { BP_ARGT_CHAR, 1, 10, nm, .u = (v) }
#define WD(nm, v) { BP_ARGT_DOUBLE, 8, 10, nm, .d = (v) }
#define WS(nm, v) { BP_ARGT_STR, 0, 10, nm, .s = (v) }
#define WP(nm, v) { BP_ARGT_PTR, 8, 16, nm, .u = (v) }

static void check_value(const char *fmt, unsigned i, const struct bp_arg_desc *d,
			const struct bp_arg_value *v, const struct want *w)
{
	CHECK_MSG(d->type == w->type, "\"%s\" arg %u: type %u, want %u", fmt, i, d->type, w->type);
	CHECK_MSG(d->type == BP_ARGT_STR || d->size == w->size, "\"%s\" arg %u: size %u, want %u",
	      fmt, i, d->size, w->size);
	CHECK_MSG(d->base == w->base, "\"%s\" arg %u: base %u, want %u", fmt, i, d->base, w->base);
	CHECK_MSG(!strcmp(d->name, w->name), "\"%s\" arg %u: name %s, want %s", fmt, i, d->name,
	      w->name);
	switch (w->type) {
	case BP_ARGT_INT:
		CHECK_MSG(v->v.i == w->i, "\"%s\" arg %u: %lld, want %lld", fmt, i,
		      (long long)v->v.i, (long long)w->i);
		break;
	case BP_ARGT_DOUBLE:
		CHECK_MSG(v->v.d == w->d, "\"%s\" arg %u: %g, want %g", fmt, i, v->v.d, w->d);
		break;
	case BP_ARGT_STR:
		CHECK_MSG(v->s && v->len == strlen(w->s) && !memcmp(v->s, w->s, v->len),
		      "\"%s\" arg %u: \"%.*s\", want \"%s\"", fmt, i, (int)v->len,
		      v->s ? v->s : "", w->s);
		break;
	default:
		CHECK_MSG(v->v.u == w->u, "\"%s\" arg %u: %llu, want %llu", fmt, i,
		      (unsigned long long)v->v.u, (unsigned long long)w->u);
	}
}

/* The block bin[0 .. words) of fmt against want[0 .. n), then its damage. */
static void check_block(const char *fmt, const uint32_t *bin, size_t words,
			const struct want *want, unsigned n)
{
	struct bp_arg_layout lay;
	struct bp_arg_value v[BP_PLAN_MAX_ARGS];
	uint32_t *copy;

	if (bp_args_compile(fmt, &lay) != 0) {
		CHECK_MSG(0, "\"%s\" does not compile", fmt);
		return;
	}
	CHECK_MSG(lay.n == n, "\"%s\": %u values, want %u", fmt, lay.n, n);
	if (lay.n != n)
		return;
	CHECK_MSG(bp_args_decode(&lay, bin, words, v) == (int)n, "\"%s\": block refused", fmt);
	for (unsigned i = 0; i < n; i++)
		check_value(fmt, i, &lay.d[i], &v[i], &want[i]);
	for (size_t w = 0; w < words; w++) {
		copy = malloc(w ? w * 4 : 1);
		memcpy(copy, bin, w * 4);
		CHECK_MSG(bp_args_decode(&lay, w ? copy : NULL, w, v) == -1,
		      "\"%s\": block cut to %zu of %zu words accepted", fmt, w, words);
		free(copy);
	}
	copy = calloc(words + 1, 4);
	memcpy(copy, bin, words * 4);
	CHECK_MSG(bp_args_decode(&lay, copy, words + 1, v) == -1, "\"%s\": a word too many accepted",
	      fmt);
	free(copy);
}

#define BLOCK(fmt, ...)                                                         \
	(words = bp_bin_printf(bin, sizeof(bin) / 4, fmt, __VA_ARGS__), fmt)
#define N(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

static void kinds(void)
{
	int nsink = 0;
	uint32_t bin[64];
	size_t words;
	const char *f;

	f = BLOCK("int %d %i %u %x %X %o", -5, 1000, 4000000000u, 0xbeefu, 0xabcdu, 0755u);
	{
		static const struct want w[] = {
			WI(4, 10, "arg0", -5), WI(4, 10, "arg1", 1000),
			WU(4, 10, "arg2", 4000000000u), WU(4, 16, "arg3", 0xbeef),
			WU(4, 16, "arg4", 0xabcd), WU(4, 8, "arg5", 0755),
		};
		check_block(f, bin, words, w, N(w));
	}
	/* values wider than hh and h, reduced as printf reduces them */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
	f = BLOCK("%hhd %hhu %hd %hu %ld %lu %lld %llx %jd %zu %zd %td", 300, 300, 70000, 70000,
		  -1234567890123L, 18446744073709551615UL, -9223372036854775807LL - 1,
		  0x1122334455667788ULL, (intmax_t)-3, (size_t)4096, (ssize_t)-7, (ptrdiff_t)-9);
#pragma GCC diagnostic pop
	{
		static const struct want w[] = {
			WI(1, 10, "arg0", 44), WU(1, 10, "arg1", 44),
			WI(2, 10, "arg2", 4464), WU(2, 10, "arg3", 4464),
			WI(8, 10, "arg4", -1234567890123LL), WU(8, 10, "arg5", UINT64_MAX),
			WI(8, 10, "arg6", INT64_MIN), WU(8, 16, "arg7", 0x1122334455667788ULL),
			WI(8, 10, "arg8", -3), WU(8, 10, "arg9", 4096),
			WI(8, 10, "arg10", -7), WI(8, 10, "arg11", -9),
		};
		check_block(f, bin, words, w, N(w));
	}
	f = BLOCK("%c%s|%.3s|%p %p %f %Le %g", 'A', "quote \" back \\", "abcdef",
		  (void *)0x1234, (void *)NULL, 3.25, (long double)-0.5, 1e300);
	{
		static const struct want w[] = {
			WC("arg0", 'A'), WS("arg1", "quote \" back \\"), WS("arg2", "abc"),
			WP("arg3", 0x1234), WP("arg4", 0), WD("arg5", 3.25), WD("arg6", -0.5),
			WD("arg7", 1e300),
		};
		check_block(f, bin, words, w, N(w));
	}
	f = BLOCK("%*d|%.*s|%-*.*x %n%c", 6, 42, 2, "xyz", 8, 3, 0xabu, &nsink, 'z');
	{
		static const struct want w[] = {
			WI(4, 10, "arg1_width", 6), WI(4, 10, "arg1", 42),
			WI(4, 10, "arg3_precision", 2), WS("arg3", "xy"),
			WI(4, 10, "arg6_width", 8), WI(4, 10, "arg6_precision", 3),
			WU(4, 16, "arg6", 0xab), WC("arg7", 'z'),
		};
		check_block(f, bin, words, w, N(w));
	}
}

static void names(void)
{
	uint32_t bin[64];
	size_t words;
	const char *f;

	f = BLOCK("pid=%d comm: %s cpu:%u x=%*d msg=%d event=%d 9z=%d", 7, "sh", 2u, 3, 4, 5, 6, 8);
	{
		static const struct want w[] = {
			WI(4, 10, "pid", 7), WS("comm", "sh"), WU(4, 10, "cpu", 2),
			WI(4, 10, "x_width", 3), WI(4, 10, "x", 4), WI(4, 10, "arg5", 5),
			WI(4, 10, "arg6", 6), WI(4, 10, "arg7", 8),
		};
		check_block(f, bin, words, w, N(w));
	}
	/* a name used twice, a name that looks like a fallback, none after %% */
	f = BLOCK("a=%d a=%d arg1=%d 100%%=%d", 1, 2, 3, 4);
	{
		static const struct want w[] = {
			WI(4, 10, "arg0", 1), WI(4, 10, "arg1", 2), WI(4, 10, "arg2", 3),
			WI(4, 10, "arg3", 4),
		};
		check_block(f, bin, words, w, N(w));
	}
}

static void refused(void)
{
	struct bp_arg_layout lay;
	struct bp_arg_value v[BP_PLAN_MAX_ARGS];
	uint32_t bin[4];

	/* a string whose NUL is missing, filling the whole block */
	memcpy(bin, "abcdefghijklmnop", 16);
	CHECK_MSG(bp_args_compile("%s", &lay) == 0, "\"%%s\" does not compile");
	CHECK_MSG(bp_args_decode(&lay, bin, 4, v) == -1, "unterminated string accepted");
	/* no arguments: only the empty block */
	CHECK_MSG(bp_args_compile("plain text", &lay) == 0 && lay.n == 0, "plain text");
	CHECK_MSG(bp_args_decode(&lay, NULL, 0, v) == 0, "empty block refused");
	CHECK_MSG(bp_args_decode(&lay, bin, 1, v) == -1, "extra word accepted");
	/* too many slots for a plan; no format */
	CHECK_MSG(bp_args_compile("%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d",
			      &lay) == -1, "33 slots compiled");
	CHECK_MSG(bp_args_compile(NULL, &lay) == -1, "NULL format compiled");
}

static void cache(void)
{
	struct bp_args_cache c = { 0 };
	const struct bp_arg_layout *a, *b;

	for (uint32_t id = 1; id <= 1000; id++) {
		a = bp_args_cache_get(&c, id * 7919u, id % 2 ? "%d %s" : "%u");
		CHECK_MSG(a && a->n == (id % 2 ? 2u : 1u), "site %u: wrong layout", id);
	}
	a = bp_args_cache_get(&c, 7919u, "%u");	/* cached: the first format stays */
	b = bp_args_cache_get(&c, 7919u, "%d %s");
	CHECK_MSG(a && a == b && a->n == 2, "cache returned a new layout");
	CHECK_MSG(bp_args_cache_get(&c, 5, NULL) == NULL, "no format gave a layout");
	CHECK_MSG(bp_args_cache_get(&c, 5, "%d") == NULL, "a failed site was compiled again");
	bp_args_cache_free(&c);
}

int main(void)
{
	kinds();
	names();
	refused();
	cache();
	if (check_summary("args"))
		return 1;
	printf("args: all passed\n");
	return 0;
}
