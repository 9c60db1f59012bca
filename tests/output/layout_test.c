/*
 * The site layout (src/reader/site_layout.c, docs/fields.md): a table of
 * formats against the names, types, sizes, bases and conversion indexes
 * the rule gives them, written out by hand; the argN aliases; then values
 * read back from blocks that bp_bin_printf() packed from known values (so
 * every expected value is the test's own input), every truncation of each
 * block refused (copied to a heap buffer of exactly that size, so a
 * sanitizer sees any read past it), a word too many and a string without
 * its NUL refused.
 */
#define CHECK_KEEP_GOING 1000
#include "check.h"

#include "reader/site_layout.h"

#include <bprint.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>



/* One expected field: name, type, size, base, conversion char, N. */
struct want {
	const char *name;
	uint8_t type, size, base;
	char conv;
	uint32_t n;
};

#define S(nm, sz, cv, n) { nm, BP_FIELD_SIGNED, sz, 10, cv, n }
#define U(nm, sz, b, cv, n) { nm, BP_FIELD_UNSIGNED, sz, b, cv, n }
#define STAR(nm, n) { nm, BP_FIELD_SIGNED, 4, 10, '*', n }
#define FL(nm, cv, n) { nm, BP_FIELD_FLOAT, 8, 0, cv, n }
#define STR(nm, n) { nm, BP_FIELD_STRING, 0, 0, 's', n }
#define CH(nm, n) { nm, BP_FIELD_CHAR, 1, 0, 'c', n }
#define PTR(nm, n) { nm, BP_FIELD_POINTER, 8, 16, 'p', n }

struct format_case {
	const char *fmt;
	uint32_t flags;
	unsigned n;
	struct want f[12];
};

static const struct format_case table[] = {
	/* the words: '=', ':', ' ' before the conversion; the last word */
	{ "dur_us=%lld", 0, 1, { S("dur_us", 8, 'd', 0) } },
	{ "dur_us: %lld", 0, 1, { S("dur_us", 8, 'd', 0) } },
	{ "dur_us %lld", 0, 1, { S("dur_us", 8, 'd', 0) } },
	{ "cmd %s argc %d dur_us %lld", 0, 3,
	  { STR("cmd", 0), S("argc", 4, 'd', 1), S("dur_us", 8, 'd', 2) } },
	{ "request %d.%d", 0, 2, { S("request", 4, 'd', 0), S("arg1", 4, 'd', 1) } },
	{ "0x%x", 0, 1, { U("arg0", 4, 16, 'x', 0) } },
	{ "addr 0x%lx", 0, 1, { U("addr", 8, 16, 'x', 0) } },
	{ "9z=%d _x9=%d", 0, 2, { S("arg0", 4, 'd', 0), S("_x9", 4, 'd', 1) } },
	{ "the (pid %d)", 0, 1, { S("pid", 4, 'd', 0) } },
	{ "%d%d", 0, 2, { S("arg0", 4, 'd', 0), S("arg1", 4, 'd', 1) } },
	{ "naïve=%d", 0, 1, { S("ve", 4, 'd', 0) } },
	{ "no conversions at all", 0, 0, { { 0 } } },
	/* every conversion and length */
	{ "i %d %i %u %x %X %o", 0, 6,
	  { S("i", 4, 'd', 0), S("arg1", 4, 'i', 1), U("arg2", 4, 10, 'u', 2),
	    U("arg3", 4, 16, 'x', 3), U("arg4", 4, 16, 'X', 4), U("arg5", 4, 8, 'o', 5) } },
	{ "a%hhd b%hhu c%hd d%hu e%ld f%lu g%lld h%llx i%jd j%zu k%zd l%td", 0, 12,
	  { S("a", 1, 'd', 0), U("b", 1, 10, 'u', 1), S("c", 2, 'd', 2), U("d", 2, 10, 'u', 3),
	    S("e", 8, 'd', 4), U("f", 8, 10, 'u', 5), S("g", 8, 'd', 6), U("h", 8, 16, 'x', 7),
	    S("i", 8, 'd', 8), U("j", 8, 10, 'u', 9), S("k", 8, 'd', 10), S("l", 8, 'd', 11) } },
	{ "f=%f F=%F e=%e E=%E g=%g G=%G a=%a A=%A L=%Lf", 0, 9,
	  { FL("f", 'f', 0), FL("F", 'F', 1), FL("e", 'e', 2), FL("E", 'E', 3), FL("g", 'g', 4),
	    FL("G", 'G', 5), FL("a", 'a', 6), FL("A", 'A', 7), FL("L", 'f', 8) } },
	{ "c=%c s=%s p=%p", 0, 3, { CH("c", 0), STR("s", 1), PTR("p", 2) } },
	/* %pS and %ps: pointers, flagged; the letter is not text for the next word */
	{ "at %pS caller %ps", BP_LAYOUT_SYMBOLS, 2, { PTR("at", 0), PTR("caller", 1) } },
	{ "%pSfoo=%d", BP_LAYOUT_SYMBOLS, 2, { PTR("arg0", 0), S("foo", 4, 'd', 1) } },
	{ "steps=%d ps=%p", 0, 2, { S("steps", 4, 'd', 0), PTR("ps", 1) } },
	/* stars: fields of their own, before their conversion's value */
	{ "x=%*d", 0, 2, { STAR("x_width", 0), S("x", 4, 'd', 0) } },
	{ "name %.*s", 0, 2, { STAR("name_precision", 0), STR("name", 0) } },
	{ "%*.*f", 0, 3, { STAR("arg0_width", 0), STAR("arg0_precision", 0), FL("arg0", 'f', 0) } },
	{ "%*d|%.*s|%-*.*x %n%c", 0, 8,
	  { STAR("arg0_width", 0), S("arg0", 4, 'd', 0), STAR("arg1_precision", 1),
	    STR("arg1", 1), STAR("arg2_width", 2), STAR("arg2_precision", 2),
	    U("arg2", 4, 16, 'x', 2), CH("arg3", 3) } },
	/* %n and %% are no value conversions; %% is literal text */
	{ "a=%d%n b=%d", 0, 2, { S("a", 4, 'd', 0), S("b", 4, 'd', 1) } },
	{ "load %d%% cpu %% %u", 0, 2, { S("load", 4, 'd', 0), U("cpu", 4, 10, 'u', 1) } },
	{ "100%%=%d", 0, 1, { S("arg0", 4, 'd', 0) } },
	{ "x%n%d", 0, 1, { S("arg0", 4, 'd', 0) } },
	/* clashes: an earlier field's name, the fallback's own form */
	{ "a=%d a=%d", 0, 2, { S("a", 4, 'd', 0), S("arg1", 4, 'd', 1) } },
	{ "arg1=%d x=%d", 0, 2, { S("arg0", 4, 'd', 0), S("x", 4, 'd', 1) } },
	{ "%d arg0=%d arg7_width=%d", 0, 3,
	  { S("arg0", 4, 'd', 0), S("arg1", 4, 'd', 1), S("arg2", 4, 'd', 2) } },
	{ "argv=%s arg=%d", 0, 2, { STR("argv", 0), S("arg", 4, 'd', 1) } },
	{ "x=%*d x_width=%d", 0, 3, { STAR("x_width", 0), S("x", 4, 'd', 0), S("arg1", 4, 'd', 1) } },
	{ "x_width=%d x=%*d", 0, 3,
	  { S("x_width", 4, 'd', 0), STAR("arg1_width", 1), S("arg1", 4, 'd', 1) } },
	/* a '*' whose conversion stores nothing: "starK" */
	{ "%*% v=%d", 0, 2, { STAR("star0", 0), S("v", 4, 'd', 0) } },
	{ "star0=%d %*n", 0, 2, { S("star0", 4, 'd', 0), STAR("star1", 1) } },
	/* an invalid token ends a conversion and takes nothing */
	{ "q=%y r=%d", 0, 1, { S("r", 4, 'd', 0) } },
};

static void check_format(const struct format_case *c)
{
	struct bp_site_layout *l = bp_site_layout_new(7, BPRINT__SITE_PRINTK, c->fmt);
	const struct bp_trace_layout *lay = l ? &l->pub : NULL;

	if (!l || !l->has_plan) {
		CHECK_MSG(0, "\"%s\": no layout", c->fmt);
		bp_site_layout_free(l);
		return;
	}
	CHECK_MSG(lay->site_id == 7 && lay->fields == l->field, "\"%s\": site id or fields", c->fmt);
	CHECK_MSG(lay->flags == c->flags, "\"%s\": flags %u, want %u", c->fmt, lay->flags, c->flags);
	CHECK_MSG(lay->nfields == c->n, "\"%s\": %u fields, want %u", c->fmt, lay->nfields, c->n);
	for (unsigned i = 0; i < lay->nfields && i < c->n; i++) {
		const struct bp_trace_field *f = &lay->fields[i];
		const struct want *w = &c->f[i];

		CHECK_MSG(!strcmp(f->name, w->name) && f->type == w->type && f->size == w->size &&
		      f->base == w->base && f->conv == w->conv && f->conversion == w->n,
		      "\"%s\" field %u: %s type %u size %u base %u conv %c N %u, want %s %u %u %u %c %u",
		      c->fmt, i, f->name, f->type, f->size, f->base, f->conv, f->conversion, w->name,
		      w->type, w->size, w->base, w->conv, w->n);
		/* every name by itself, every conversion's own value by argN */
		CHECK_MSG(bp_trace_field_index(lay, f->name) == (int)i, "\"%s\": index of %s", c->fmt,
		      f->name);
		if (f->conv != '*') {
			char alias[16];

			snprintf(alias, sizeof(alias), "arg%u", f->conversion);
			CHECK_MSG(bp_trace_field_index(lay, alias) == (int)i, "\"%s\": alias %s", c->fmt,
			      alias);
		}
	}
	for (unsigned i = 0; i < lay->nfields; i++)
		for (unsigned k = 0; k < i; k++)
			CHECK_MSG(strcmp(lay->fields[i].name, lay->fields[k].name), "\"%s\": %s twice",
			      c->fmt, lay->fields[i].name);
	bp_site_layout_free(l);
}

static void aliases(void)
{
	struct bp_site_layout *l = bp_site_layout_new(1, BPRINT__SITE_PRINTK, "a=%d %*s b=%d");
	const struct bp_trace_layout *lay = &l->pub;

	CHECK_MSG(bp_trace_field_index(lay, "a") == 0, "a");
	CHECK_MSG(bp_trace_field_index(lay, "arg0") == 0, "arg0");
	CHECK_MSG(bp_trace_field_index(lay, "arg1") == 2, "arg1: the string, not its width");
	CHECK_MSG(bp_trace_field_index(lay, "arg1_width") == 1, "arg1_width by name");
	CHECK_MSG(bp_trace_field_index(lay, "arg2") == 3, "arg2");
	CHECK_MSG(bp_trace_field_index(lay, "b") == 3, "b");
	CHECK_MSG(bp_trace_field_index(lay, "arg3") == -1, "arg3: no such conversion");
	CHECK_MSG(bp_trace_field_index(lay, "arg01") == -1, "arg01 is no alias");
	CHECK_MSG(bp_trace_field_index(lay, "arg") == -1, "arg");
	CHECK_MSG(bp_trace_field_index(lay, "arg1x") == -1, "arg1x");
	CHECK_MSG(bp_trace_field_index(lay, "arg99999999999999999999") == -1, "huge N");
	CHECK_MSG(bp_trace_field_index(lay, "c") == -1, "c");
	CHECK_MSG(bp_trace_field_index(NULL, "a") == -1, "no layout");
	bp_site_layout_free(l);
}

/* Each field's conversion text (for `bprint formats`). */
static void texts(void)
{
	static const struct {
		const char *fmt;
		const char *text[6];
	} c[] = {
		{ "%*d|%.*s|%-*.*llx %n%c", { "%*d", "%*d", "%.*s", "%.*s", "%-*.*llx", "%-*.*llx" } },
		{ "at %pS, %p: %5.2Lf", { "%pS", "%p", "%5.2Lf" } },
		{ "%*% x=%'d %hhu", { "%*%", "%hhu" } },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct bp_site_layout *l = bp_site_layout_new(1, BPRINT__SITE_PRINTK, c[i].fmt);

		for (unsigned k = 0; l && k < l->pub.nfields && k < 6; k++)
			CHECK_MSG(c[i].text[k] && strlen(c[i].text[k]) == l->text[k].len &&
			      !memcmp(c[i].fmt + l->text[k].offset, c[i].text[k], l->text[k].len),
			      "\"%s\" field %u: text \"%.*s\"", c[i].fmt, k, (int)l->text[k].len,
			      c[i].fmt + l->text[k].offset);
		bp_site_layout_free(l);
	}
}

/* Formats without a plan, and trace_puts() text. */
static void no_plan(void)
{
	char many[200] = "";
	struct bp_site_layout *l;

	for (int i = 0; i < 33; i++)
		strcat(many, "%d");
	l = bp_site_layout_new(1, BPRINT__SITE_PRINTK, many);
	CHECK_MSG(l && !l->has_plan && l->pub.nfields == 0 && l->pf, "33 slots: no plan, a parse");
	bp_site_layout_free(l);
	l = bp_site_layout_new(1, BPRINT__SITE_PUTS, "a puts with %d in it");
	CHECK_MSG(l && l->has_plan && l->puts && l->pub.nfields == 0, "puts: no fields");
	CHECK_MSG(l && bp_site_layout_decode(l, NULL, 0, NULL, 0) == 0, "puts: the empty block");
	bp_site_layout_free(l);
}

/* ---- values ---- */

struct value {
	int64_t i;
	uint64_t u;
	double d;
	const char *s;
};

/* The block bin[0 .. words) of fmt against want[0 .. n), then its damage. */
static void check_block(const char *fmt, const uint32_t *bin, size_t words,
			const struct value *want, unsigned n)
{
	struct bp_site_layout *l = bp_site_layout_new(1, BPRINT__SITE_PRINTK, fmt);
	struct bp_field_value v[BP_PLAN_MAX_ARGS];
	uint32_t *copy;

	if (!l || l->pub.nfields != n) {
		CHECK_MSG(0, "\"%s\": no layout of %u fields", fmt, n);
		bp_site_layout_free(l);
		return;
	}
	CHECK_MSG(bp_site_layout_decode(l, bin, words, v, BP_PLAN_MAX_ARGS) == (int)n,
	      "\"%s\": block refused", fmt);
	for (unsigned i = 0; i < n; i++) {
		const struct bp_trace_field *f = &l->field[i];
		const struct value *w = &want[i];

		switch (f->type) {
		case BP_FIELD_SIGNED:
			CHECK_MSG(v[i].v.i == w->i, "\"%s\" %s: %lld, want %lld", fmt, f->name,
			      (long long)v[i].v.i, (long long)w->i);
			break;
		case BP_FIELD_FLOAT:
			CHECK_MSG(!memcmp(&v[i].v.d, &w->d, 8), "\"%s\" %s: %a, want %a", fmt, f->name,
			      v[i].v.d, w->d);
			break;
		case BP_FIELD_STRING:
			CHECK_MSG(v[i].s && v[i].len == strlen(w->s) && !memcmp(v[i].s, w->s, v[i].len),
			      "\"%s\" %s: \"%.*s\", want \"%s\"", fmt, f->name, (int)v[i].len,
			      v[i].s ? v[i].s : "", w->s);
			break;
		default:
			CHECK_MSG(v[i].v.u == w->u, "\"%s\" %s: %llu, want %llu", fmt, f->name,
			      (unsigned long long)v[i].v.u, (unsigned long long)w->u);
		}
	}
	/* fewer slots than fields: the block is checked all the same */
	CHECK_MSG(bp_site_layout_decode(l, bin, words, v, 0) == (int)n, "\"%s\": nvals 0", fmt);
	for (size_t w = 0; w < words; w++) {
		copy = malloc(w ? w * 4 : 1);
		memcpy(copy, bin, w * 4);
		CHECK_MSG(bp_site_layout_decode(l, w ? copy : NULL, w, v, BP_PLAN_MAX_ARGS) == -1,
		      "\"%s\": block cut to %zu of %zu words accepted", fmt, w, words);
		free(copy);
	}
	copy = calloc(words + 1, 4);
	memcpy(copy, bin, words * 4);
	CHECK_MSG(bp_site_layout_decode(l, copy, words + 1, v, BP_PLAN_MAX_ARGS) == -1,
	      "\"%s\": a word too many accepted", fmt);
	free(copy);
	bp_site_layout_free(l);
}

#define BLOCK(fmt, ...)                                                         \
	(words = bp_bin_printf(bin, sizeof(bin) / 4, fmt, __VA_ARGS__), fmt)
#define N(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

static void values(void)
{
	uint32_t bin[64];
	size_t words;
	const char *f;
	int nsink = 0;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
	f = BLOCK("%hhd %hhu %hd %hu %ld %lu %lld %llx %jd %zu %zd %td %d %u", 300, 300, 70000, 70000,
		  -1234567890123L, 18446744073709551615UL, -9223372036854775807LL - 1,
		  0x1122334455667788ULL, (intmax_t)-3, (size_t)4096, (ssize_t)-7, (ptrdiff_t)-9,
		  -5, 4000000000u);
#pragma GCC diagnostic pop
	{
		static const struct value w[] = {
			{ .i = 44 }, { .u = 44 }, { .i = 4464 }, { .u = 4464 },
			{ .i = -1234567890123LL }, { .u = UINT64_MAX }, { .i = INT64_MIN },
			{ .u = 0x1122334455667788ULL }, { .i = -3 }, { .u = 4096 }, { .i = -7 },
			{ .i = -9 }, { .i = -5 }, { .u = 4000000000u },
		};
		check_block(f, bin, words, w, N(w));
	}
	f = BLOCK("%c%s|%.3s|%p %p %f %Le %g %c", 'A', "quote \" back \\ \n é", "abcdef",
		  (void *)0x1234, (void *)NULL, 3.25, (long double)-0.5, -0.0, 0xff);
	{
		static const struct value w[] = {
			{ .u = 'A' }, { .s = "quote \" back \\ \n é" }, { .s = "abc" },
			{ .u = 0x1234 }, { .u = 0 }, { .d = 3.25 }, { .d = -0.5 }, { .d = -0.0 },
			{ .u = 0xff },
		};
		check_block(f, bin, words, w, N(w));
	}
	f = BLOCK("%*d|%.*s|%-*.*x %n%c", 6, 42, 2, "xyz", 8, 3, 0xabu, &nsink, 'z');
	{
		static const struct value w[] = {
			{ .i = 6 }, { .i = 42 }, { .i = 2 }, { .s = "xy" }, { .i = 8 }, { .i = 3 },
			{ .u = 0xab }, { .u = 'z' },
		};
		check_block(f, bin, words, w, N(w));
	}
	f = BLOCK("%f %f %f %s", DBL_MAX, DBL_TRUE_MIN, -INFINITY, "");
	{
		static const struct value w[] = {
			{ .d = DBL_MAX }, { .d = DBL_TRUE_MIN }, { .d = -INFINITY }, { .s = "" },
		};
		check_block(f, bin, words, w, N(w));
	}
}

static void refused(void)
{
	struct bp_site_layout *l = bp_site_layout_new(1, BPRINT__SITE_PRINTK, "%s");
	struct bp_field_value v[2];
	uint32_t bin[4];

	/* a string whose NUL is missing, filling the whole block */
	memcpy(bin, "abcdefghijklmnop", 16);
	CHECK_MSG(bp_site_layout_decode(l, bin, 4, v, 2) == -1, "unterminated string accepted");
	bp_site_layout_free(l);
	/* no arguments: only the empty block */
	l = bp_site_layout_new(1, BPRINT__SITE_PRINTK, "plain text");
	CHECK_MSG(bp_site_layout_decode(l, NULL, 0, v, 2) == 0, "empty block refused");
	CHECK_MSG(bp_site_layout_decode(l, bin, 1, v, 2) == -1, "extra word accepted");
	bp_site_layout_free(l);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		check_format(&table[i]);
	aliases();
	texts();
	no_plan();
	values();
	refused();
	if (!check_failures)
		printf("layout: all passed (%zu formats)\n", sizeof(table) / sizeof(table[0]));
	return check_summary("layout");
}
