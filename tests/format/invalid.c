/*
 * Invalid tokens and hostile input.
 *
 * 1. Invalid tokens ("%y", "%5", "abc%", "%1$d", "%lc", "%Z", "%*y", ...)
 *    are copied verbatim and consume no argument: the expected text is
 *    glibc's output for the same format with the invalid token's '%'
 *    escaped, so the next valid conversion must get the next argument.
 *    The same from bp_snprintf, bp_bstr_printf(bp_vbin_printf()) and the
 *    plan; formats sit at the end of a page followed by a PROT_NONE page.
 *    %n writes nothing (glibc gets "%.0s" there).
 * 2. Truncated blocks: random formats, their block cut at every word count:
 *    the conversions that fit print as glibc prints them, the first that
 *    does not prints "<bad block>", later ones nothing, literal text stays,
 *    and the result is -1 (docs/binary-layout.md, "Reading a block").
 * 3. Strings not terminated inside the block, a NULL block.
 * 4. Garbage blocks for random formats, read by an independent model of
 *    the reader: same verdict, same text.  Blocks end at a guard page.
 *    Where huge '*' values make the text unknowable, the verdict is still
 *    checked: a bad block is -1 with the marker, a good one -1 only if its
 *    text may pass INT_MAX.
 * In 2-4, bp_bstr_printf_parsed() must print what bp_bstr_printf() prints.
 * 5. Widths and precisions beyond INT32_MAX saturate; more than INT_MAX of
 *    output is -1, floats included (padded without a buffer that size).
 *
 * About a second; BPRINT_TEST_QUICK=1 (sanitizer builds) runs a tenth.
 */
#include "format/fmt_test.h"
#include "format/fmtgen.h"

#include <bprint/format.h>

#include <float.h>
#include <inttypes.h>
#include <limits.h>

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

#define BIG 16384
#define MAXWORDS 1024
#define BAD BP_BSTR_BAD_BLOCK

static struct t_guard fmt_page, bin_page;
static unsigned char sent[8][16];

/*
 * What a %n points at: 15 bytes of 0x5a and a NUL.  glibc gets "%.0s" for
 * it, and the sanitizers' printf interceptors measure that string whatever
 * its precision, so it must be terminated.
 */
static void reset_sentinels(void)
{
	memset(sent, 0x5a, sizeof(sent));
	for (size_t i = 0; i < 8; i++)
		sent[i][15] = 0;
}

static int sentinels_ok(void)
{
	for (size_t i = 0; i < 8; i++)
		for (size_t j = 0; j < 16; j++)
			if (sent[i][j] != (j == 15 ? 0 : 0x5a))
				return 0;
	return 1;
}

/* ---- 1. invalid tokens ------------------------------------------------ */

/*
 * `...` marks an invalid token (ours: as is; glibc: '%' doubled), {...} a
 * %n (ours: as is; glibc: "%.0s").
 */
static void unmark(const char *marked, char *ours, char *theirs)
{
	int in_invalid = 0, in_n = 0;

	for (const char *p = marked; *p; p++) {
		if (*p == '`') {
			in_invalid = !in_invalid;
			continue;
		}
		if (*p == '{' || *p == '}') {
			in_n = *p == '{';
			if (!in_n)
				theirs += sprintf(theirs, "%%.0s");
			continue;
		}
		*ours++ = *p;
		if (in_n)
			continue;
		if (in_invalid && *p == '%')
			*theirs++ = '%';
		*theirs++ = *p;
	}
	*ours = *theirs = '\0';
}

static void check_marked(int line, const char *marked, ...)
{
	static char want[BIG], got[BIG], small[64];
	static uint32_t bin[MAXWORDS], bin2[MAXWORDS];
	char ours[256], theirs[256];
	const char *fmt;
	struct bp_arg_plan plan;
	int wlen, ret;
	size_t need, need2;
	va_list ap, c;

	unmark(marked, ours, theirs);
	fmt = t_guard_str(&fmt_page, ours);
	reset_sentinels();
	va_start(ap, marked);

	va_copy(c, ap);
	wlen = vsnprintf(want, sizeof(want), theirs, c);
	va_end(c);

	va_copy(c, ap);
	ret = bp_vsnprintf(got, sizeof(got), fmt, c);
	va_end(c);
	if (ret != wlen || memcmp(got, want, (size_t)wlen + 1) != 0) {
		FAIL("line %d: bp_vsnprintf(\"%s\") returned %d, want %d", line, ours, ret, wlen);
		fprintf(stderr, "  want ");
		t_escape(stderr, want, (size_t)wlen);
		fprintf(stderr, "\n  got  ");
		t_escape(stderr, got, ret > 0 ? (size_t)ret : 0);
		fputc('\n', stderr);
	}
	for (size_t size = 0; size < sizeof(small) && size <= (size_t)wlen + 1; size++) {
		size_t keep = size ? ((size_t)wlen < size - 1 ? (size_t)wlen : size - 1) : 0;

		va_copy(c, ap);
		ret = bp_vsnprintf(small, size, fmt, c);
		va_end(c);
		CHECK_MSG(ret == wlen && (!size || (memcmp(small, want, keep) == 0 && small[keep] == 0)),
			"line %d: bp_vsnprintf(size %zu, \"%s\") wrong truncation", line, size, ours);
	}

	memset(bin, 0xa5, sizeof(bin));
	va_copy(c, ap);
	need = bp_vbin_printf(bin, MAXWORDS, fmt, c);
	va_end(c);
	ret = bp_bstr_printf(got, sizeof(got), fmt, bin, need);
	if (ret != wlen || memcmp(got, want, (size_t)wlen + 1) != 0) {
		FAIL("line %d: bp_bstr_printf(\"%s\") returned %d, want %d", line, ours, ret, wlen);
		fprintf(stderr, "  want ");
		t_escape(stderr, want, (size_t)wlen);
		fprintf(stderr, "\n  got  ");
		t_escape(stderr, got, ret > 0 ? (size_t)ret : 0);
		fputc('\n', stderr);
	}
	if (bp_format_compile(fmt, &plan) != 0) {
		FAIL("line %d: bp_format_compile(\"%s\") failed", line, ours);
	} else {
		memset(bin2, 0x3c, sizeof(bin2));
		va_copy(c, ap);
		need2 = bp_vbin_printf_plan(bin2, MAXWORDS, &plan, c);
		va_end(c);
		CHECK_MSG(need2 == need && memcmp(bin, bin2, need * 4) == 0,
			"line %d: plan block differs for \"%s\"", line, ours);
	}
	va_end(ap);
	CHECK_MSG(sentinels_ok(), "line %d: %%n wrote through its pointer (\"%s\")", line, ours);
}

#define M(...) check_marked(__LINE__, __VA_ARGS__)

static void invalid_tokens(void)
{
	/* unknown conversions: the next conversion gets the first argument */
	M("`%y`%d", 42);
	M("`%5y`|%d", 42);
	M("`%-08.3y`%s", "x");
	M("`%w`%d%s", 1, "s");
	M("`%k` `%K` `%b` `%B` `%r` `%v` `%@` `%!`%d", 3);
	M("`%\x01`%d`%\x7f``%\xff`", 5);
	M("%%`%y`%%%d", 6);
	M("`%y`%d`%k`%s", 3, "end");
	/* cut short by the end of the format */
	M("abc`%`");
	M("%d`%`", 7);
	M("%d`%5`", 7);
	M("%d`%-`", 7);
	M("%d`%+`", 7);
	M("%d`% `", 7);
	M("%d`%#`", 7);
	M("%d`%0`", 7);
	M("%d`%.`", 7);
	M("%d`%.3`", 7);
	M("%d`%5.3`", 7);
	M("%d`%l`", 7);
	M("%d`%ll`", 7);
	M("%d`%hh`", 7);
	M("%d`%L`", 7);
	M("%d`%j`", 7);
	M("`%`");
	/* positional arguments are rejected, whole */
	M("`%1$d` %d", 42);
	M("`%2$s` %s", "a");
	M("`%1$` %d", 42);
	M("`%*1$d` %d", 5);
	M("`%.*1$d` %d", 5);
	M("`%-10$d` %d", 5);
	/* length modifiers C11 does not define for the conversion */
	M("`%lc`%d", 42);
	M("`%ls`%d", 42);
	M("`%hf`%d", 42);
	M("`%hhe`%d", 42);
	M("`%Lx`%d", 42);
	M("`%Ld`%d", 42);
	M("`%hp`%d", 42);
	M("`%lp`%d", 42);
	M("`%hs`%d", 42);
	M("`%llf`%d", 42);
	M("`%jg`%d", 42);
	M("`%zc`%d", 42);
	M("`%Ls`%d", 42);
	M("`%Lc`%d", 42);
	M("`%Ln`%d", 42);
	M("`%l%`%d", 42);
	M("`%lll`d%d", 42);
	M("`%hhh`d%d", 42);
	/* glibc extensions */
	M("`%m`%d", 42);
	M("`%Z` d%d", 42);
	M("`%Z`d%d", 42);
	M("`%q`d%d", 42);
	M("`%'`d%d", 42);
	M("`%I`d%d", 42);
	M("`%C`%d", 42);
	M("`%S`%d", 42);
	/* a '*' inside an invalid conversion consumes nothing either */
	M("`%*y`%d", 5, 6);
	M("`%.*y`%d", 5, 6);
	M("`%*.*y`%d", 5, 6, 7);
	M("%d`%*`", 1, 2);
	M("%d`%.*`", 1, 2);
	M("%d`%*.*`", 1, 2, 3);
	M("%d`%*.*l`", 1);
	M("`%*lc`%s", "s");
	M("`%-*.*hp`%d%s", 8, "s");
	/* %n consumes its pointer and writes nothing, with every length */
	M("a{%n}b%d", (void *)sent[0], 42);
	M("{%hhn}{%hn}{%ln}{%lln}{%jn}{%zn}{%tn}%s", (void *)sent[0], (void *)sent[1], (void *)sent[2],
	  (void *)sent[3], (void *)sent[4], (void *)sent[5], (void *)sent[6], "x");
	M("%d{%n}%d", 1, (void *)sent[0], 2);
	M("%s{%n}`%y`%s", "a", (void *)sent[0], "b");
}

/* ---- 2-4. block reading ----------------------------------------------- */

struct glibc_call {
	const char *fmt;
	char *buf;
	int ret;
};

static void glibc_sink(void *ctx, ...)
{
	struct glibc_call *g = ctx;
	va_list ap;

	va_start(ap, ctx);
	g->ret = vsnprintf(g->buf, BIG, g->fmt, ap);
	va_end(ap);
}

/*
 * What bp_bstr_printf() must print when the first unreadable conversion is
 * piece `bad` (or none, bad < 0), the arguments being args.
 */
static int expected_text(const struct fg_case *t, const struct fg_arg *args, int bad, char *out)
{
	char prefix[FG_FMTMAX];
	struct glibc_call g = { prefix, out, 0 };
	size_t cut = bad < 0 ? strlen(t->gfmt) : t->piece[bad].gstart;
	size_t n;

	memcpy(prefix, t->gfmt, cut);
	prefix[cut] = '\0';
	fg_call(args, t->na, glibc_sink, &g);
	if (g.ret < 0 || bad < 0)
		return g.ret;
	n = (size_t)g.ret;
	n += (size_t)sprintf(out + n, "%s", BAD);
	for (int i = bad + 1; i < t->npieces; i++) {
		const struct fg_piece *p = &t->piece[i];

		if (!p->conv) {
			memcpy(out + n, t->fmt + p->start, (size_t)(p->end - p->start));
			n += (size_t)(p->end - p->start);
		} else if (p->conv == '%') {
			out[n++] = '%';	/* "%%" reads nothing: it still prints */
		}
	}
	out[n] = '\0';
	return -1;
}

static int parsed_agrees(const char *fmt, const uint32_t *bin, size_t words, const char *got, int ret);

static int check_block_text(const struct fg_case *t, const char *fmt, const uint32_t *bin, size_t words,
			    const char *want, int wret, const char *what)
{
	static char got[BIG + 32], small[32];
	size_t wlen = strlen(want);
	int ret = bp_bstr_printf(got, BIG, fmt, bin, words);

	if (ret != wret || strcmp(got, want) != 0) {
		FAIL("%s: bp_bstr_printf(words %zu) returned %d, want %d", what, words, ret, wret);
		fg_print(stderr, t);
		fprintf(stderr, "  want ");
		t_escape(stderr, want, wlen);
		fprintf(stderr, "\n  got  ");
		t_escape(stderr, got, strnlen(got, BIG));
		fputc('\n', stderr);
		return 0;
	}
	if (!parsed_agrees(fmt, bin, words, got, ret)) {
		FAIL("%s: bp_bstr_printf_parsed(words %zu) differs from bp_bstr_printf", what, words);
		fg_print(stderr, t);
		return 0;
	}
	/* The -1 result with a short buffer: still the prefix, NUL-terminated. */
	memset(small, 0x7e, sizeof(small));
	ret = bp_bstr_printf(small, 16, fmt, bin, words);
	if (ret != wret || strncmp(small, want, 15) != 0 || small[wlen < 15 ? wlen : 15] != '\0' ||
	    small[16] != 0x7e) {
		FAIL("%s: bp_bstr_printf(size 16, words %zu) wrong truncation", what, words);
		fg_print(stderr, t);
		return 0;
	}
	return 1;
}

static uint32_t *block_at_end(const void *src, size_t words)
{
	uint32_t *bin = t_guard_at(&bin_page, words * 4);

	memcpy(bin, src, words * 4);
	return bin;
}

static void truncated_blocks(unsigned ncase)
{
	static struct fg_case t;
	static uint32_t model[MAXWORDS];
	static char want[BIG + 32];
	struct fg_opts opts;
	unsigned long checks = 0;

	fg_default_opts(&opts);
	for (unsigned i = 0; i < ncase; i++) {
		struct fg_rng r = { .s = 0x7472756e63ULL + i };
		const char *fmt;

		fg_generate(&t, &r, &opts);
		fmt = t_guard_str(&fmt_page, t.fmt);
		fg_model_block(&t, model);
		for (size_t words = 0; words <= t.need_words; words++) {
			int bad = -1, wret;
			char what[64];

			for (int k = 0; k < t.npieces && bad < 0; k++) {
				const struct fg_piece *p = &t.piece[k];

				for (int j = p->first_arg; j < p->first_arg + p->nargs; j++)
					if (t.a[j].size && t.a[j].off + t.a[j].size > words * 4)
						bad = k;
			}
			wret = expected_text(&t, t.a, bad, want);
			snprintf(what, sizeof(what), "truncated block, case %u", i);
			if (wret < -1 || !check_block_text(&t, fmt, block_at_end(model, words), words, want, wret, what))
				return;
			checks++;
		}
	}
	printf("invalid: %u formats, %lu truncated blocks\n", ncase, checks);
}

static void unterminated_strings(void)
{
	static const char bytes[] = "abcdefghijklmnopqrstuvwxyz012345";	/* 32 bytes, no NUL within */
	char got[64];
	uint32_t words[2] = { 42, 0 };
	const uint32_t *bin;
	int ret;

	for (size_t w = 0; w <= 8; w++) {
		bin = block_at_end(bytes, w);
		ret = bp_bstr_printf(got, sizeof(got), "[%s]", bin, w);
		CHECK_MSG(ret == -1 && strcmp(got, "[" BAD "]") == 0, "%%s unterminated in %zu words: %d \"%s\"", w,
			ret, got);
		ret = bp_bstr_printf(got, sizeof(got), "[%.3s]", bin, w);
		CHECK_MSG(ret == -1 && strcmp(got, "[" BAD "]") == 0,
			"%%.3s unterminated in %zu words: %d \"%s\"", w, ret, got);
		ret = bp_bstr_printf(got, sizeof(got), "%c%s|%d", bin, w);
		CHECK_MSG(ret == -1 && (w ? got[0] == 'a' && strcmp(got + 1, BAD "|") == 0 : strcmp(got, BAD "|") == 0),
			"%%c%%s|%%d unterminated in %zu words: %d \"%s\"", w, ret, got);
	}
	/* an int, then a string that runs to the end */
	{
		uint32_t b[3];

		b[0] = 42;
		memcpy(&b[1], "abcdefgh", 8);
		bin = block_at_end(b, 3);
		ret = bp_bstr_printf(got, sizeof(got), "%d %s end", bin, 3);
		CHECK_MSG(ret == -1 && strcmp(got, "42 " BAD " end") == 0, "int + unterminated: %d \"%s\"", ret, got);
	}
	/* a NULL block of zero words */
	ret = bp_bstr_printf(got, sizeof(got), "%s", NULL, 0);
	CHECK_MSG(ret == -1 && strcmp(got, BAD) == 0, "NULL block, %%s: %d \"%s\"", ret, got);
	ret = bp_bstr_printf(got, sizeof(got), "x%dy", NULL, 0);
	CHECK_MSG(ret == -1 && strcmp(got, "x" BAD "y") == 0, "NULL block, %%d: %d \"%s\"", ret, got);
	ret = bp_bstr_printf(got, sizeof(got), "no args%%", NULL, 0);
	CHECK_MSG(ret == 8 && strcmp(got, "no args%") == 0, "NULL block, no args: %d \"%s\"", ret, got);
	ret = bp_bstr_printf(got, sizeof(got), "%c", NULL, 0);
	CHECK_MSG(ret == -1 && strcmp(got, BAD) == 0, "NULL block, %%c: %d \"%s\"", ret, got);
	/* a zero-word block that is not NULL */
	ret = bp_bstr_printf(got, sizeof(got), "%s|%d", words, 0);
	CHECK_MSG(ret == -1 && strcmp(got, BAD "|") == 0, "empty block: %d \"%s\"", ret, got);
}

/* A valid x87 encoding (the explicit integer bit matches the exponent). */
static int ldouble_valid(const unsigned char *b)
{
#if LDBL_MANT_DIG == 64
	unsigned e = (unsigned)(b[8] | (b[9] << 8)) & 0x7fff;
	int integer = b[7] >> 7;

	return e == 0 ? !integer : integer;
#else
	(void)b;
	return 1;
#endif
}

/*
 * The reader, modelled: decode args from a garbage block.  Returns the piece
 * index of the first unreadable conversion or -1; *comparable is cleared
 * when the text cannot be checked against glibc (huge '*' values, invalid
 * long double encodings).
 */
static int model_read(const struct fg_case *t, const unsigned char *b, size_t len, struct fg_arg *args,
		      int *comparable)
{
	size_t pos = 0;

	*comparable = 1;
	for (int k = 0; k < t->npieces; k++) {
		const struct fg_piece *p = &t->piece[k];

		for (int j = p->first_arg; j < p->first_arg + p->nargs; j++) {
			const struct fg_arg *a = &t->a[j];
			struct fg_arg *o = &args[j];
			size_t at = (pos + 3) & ~(size_t)3, n;
			uint64_t u;

			fg_set(o, a->cls);
			switch (a->kind) {
			case BP_ARG_INT32:
				if (at + 4 > len)
					return k;
				memcpy(&o->v.i, b + at, 4);
				if (o->v.i > 1000 || o->v.i < -1000)
					*comparable = 0;
				pos = at + 4;
				break;
			case BP_ARG_CHAR:
				if (pos + 1 > len)
					return k;
				o->v.i = b[pos++];
				break;
			case BP_ARG_STR:
			case BP_ARG_STR_STAR: {
				const unsigned char *nul;

				if (pos >= len || !(nul = memchr(b + pos, 0, len - pos)))
					return k;
				o->v.p = b + pos;
				pos = (size_t)(nul - b) + 1;
				break;
			}
			case BP_ARG_SKIP:
				o->v.p = "";	/* glibc's "%.0s" */
				break;
			case BP_ARG_DOUBLE:
				if (at + 8 > len)
					return k;
				memcpy(&o->v.d, b + at, 8);
				pos = at + 8;
				break;
			case BP_ARG_LDOUBLE:
				if (at + BP_LDOUBLE_BYTES > len)
					return k;
				o->v.ld = 0;
				memcpy(&o->v.ld, b + at, LDBL_MANT_DIG == 64 ? 10 : sizeof(long double));
				if (!ldouble_valid(b + at))
					*comparable = 0;
				pos = at + BP_LDOUBLE_BYTES;
				break;
			case BP_ARG_PTR:
				if (at + 8 > len)
					return k;
				memcpy(&u, b + at, 8);
				o->v.p = (const void *)(uintptr_t)u;
				pos = at + 8;
				break;
			default:
				if (at + 8 > len)
					return k;
				memcpy(&o->v.ll, b + at, 8);
				pos = at + 8;
				break;
			}
			n = pos;
			(void)n;
		}
	}
	return -1;
}

/*
 * An upper bound on a text's length below INT_MAX proves it cannot pass
 * INT_MAX: every conversion prints at most its '*' values plus what its
 * value needs (at most 6000 characters: a long double's %Lf digits; digit
 * widths are at most fg_opts.max_width), strings at most the block.
 */
static int may_pass_int_max(const struct fg_case *t, const struct fg_arg *args, const char *fmt,
			    size_t words)
{
	uint64_t bound = strlen(fmt) + words * 4 + (uint64_t)FG_MAXC * (6000 + 300);

	for (int j = 0; j < t->na; j++)
		if (t->a[j].conv == '*')
			bound += (uint64_t)(args[j].v.i < 0 ? -(int64_t)args[j].v.i : args[j].v.i);
	return bound > INT_MAX;
}

/*
 * The marker is in the text, unless the text was cut before it: the text
 * (NULs from %c included) ends at the last NUL before the 0x7f filler.
 */
static int has_bad_marker(const char *got)
{
	size_t len = (size_t)((const char *)memrchr(got, '\0', BIG) - got);

	return len >= BIG - 1 || memmem(got, len, BAD, sizeof(BAD) - 1) != NULL;
}

/* bp_bstr_printf_parsed() must give what bp_bstr_printf() gave. */
static int parsed_agrees(const char *fmt, const uint32_t *bin, size_t words, const char *got, int ret)
{
	static char pgot[BIG + 32];
	struct bp_parsed_format *pf = bp_format_parse(fmt);
	int pret;

	if (!pf)
		return 0;
	pret = bp_bstr_printf_parsed(pgot, BIG, pf, bin, words, NULL);
	bp_format_parsed_free(pf);
	return pret == ret && strcmp(pgot, got) == 0;
}

static void garbage_blocks(unsigned ncase)
{
	static struct fg_case t;
	static struct fg_arg args[FG_MAXA];
	static unsigned char block[MAXWORDS * 4];
	static char want[BIG + 32], got[BIG + 32];
	struct fg_opts opts;
	unsigned long bad = 0, good = 0, skipped = 0;

	fg_default_opts(&opts);
	for (unsigned i = 0; i < ncase; i++) {
		struct fg_rng r = { .s = 0x67617262ULL + i };
		size_t words;
		const char *fmt;
		uint32_t *bin;
		int bad_piece, comparable, wret, ret;
		unsigned zero_odds;

		fg_generate(&t, &r, &opts);
		fmt = t_guard_str(&fmt_page, t.fmt);
		words = fg_below(&r, (uint32_t)t.need_words + 9);
		zero_odds = 1 + fg_below(&r, 30);
		for (size_t j = 0; j < words * 4; j++)
			block[j] = fg_below(&r, 100) < zero_odds ? 0 : (unsigned char)fg_next(&r);
		bin = block_at_end(block, words);

		bad_piece = model_read(&t, (const unsigned char *)bin, words * 4, args, &comparable);
		if (!comparable) {
			/*
			 * Huge '*' values: the text is not glibc's to check, but
			 * the verdict is.  A bad block is -1; a good one is -1
			 * only if its text may pass INT_MAX, which needs at
			 * least that much width and precision.
			 */
			memset(got, 0x7f, BIG);
			ret = bp_bstr_printf(got, BIG, fmt, bin, words);
			if (bad_piece >= 0)
				CHECK_MSG(ret == -1 && has_bad_marker(got),
					"garbage case %u: returned %d, reader model says bad", i, ret);
			else
				CHECK_MSG(ret >= 0 || may_pass_int_max(&t, args, fmt, words),
					"garbage case %u: returned -1, reader model says good", i);
			CHECK_MSG(parsed_agrees(fmt, bin, words, got, ret),
				"garbage case %u: bp_bstr_printf_parsed differs", i);
			skipped++;
			continue;
		}
		wret = expected_text(&t, args, bad_piece, want);
		if (!check_block_text(&t, fmt, bin, words, want, wret, "garbage block"))
			return;
		if (bad_piece >= 0)
			bad++;
		else
			good++;
	}
	printf("invalid: %u garbage blocks (%lu bad, %lu readable, %lu verdict only)\n", ncase, bad, good,
	       skipped);
}

/* ---- 5. saturation ---------------------------------------------------- */

static int bp_both(char *buf, size_t size, const char *fmt, ...)
{
	uint32_t bin[64];
	size_t need;
	int r1, r2;
	va_list ap, c;

	va_start(ap, fmt);
	va_copy(c, ap);
	r1 = bp_vsnprintf(buf, size, fmt, c);
	va_end(c);
	need = bp_vbin_printf(bin, 64, fmt, ap);
	va_end(ap);
	r2 = bp_bstr_printf(buf, size, fmt, bin, need);
	if (r1 != r2)
		FAIL("\"%s\": bp_vsnprintf %d, bp_bstr_printf %d", fmt, r1, r2);
	return r1;
}

static void saturation(void)
{
	char b[64];
	int r;

	r = bp_both(b, sizeof(b), "%99999999999d", 1);
	CHECK_MSG(r == INT_MAX, "%%99999999999d: %d, want INT_MAX (width saturates at INT32_MAX)", r);
	r = bp_both(b, sizeof(b), "%99999999999d|", 1);
	CHECK_MSG(r == -1, "%%99999999999d|: %d, want -1 (longer than INT_MAX)", r);
	r = bp_both(b, sizeof(b), "%-2147483647d|", 1);
	CHECK_MSG(r == -1 && strncmp(b, "1      ", 7) == 0, "%%-2147483647d|: %d \"%.10s\"", r, b);
	r = bp_both(b, sizeof(b), "%.99999999999d", 7);
	CHECK_MSG(r == INT_MAX && strspn(b, "0") == sizeof(b) - 1, "%%.99999999999d: %d", r);
	r = bp_both(b, sizeof(b), "%.99999999999s|", "abc");
	CHECK_MSG(r == 4 && strcmp(b, "abc|") == 0, "%%.99999999999s|: %d \"%s\"", r, b);
	r = bp_both(b, sizeof(b), "%*d", INT_MIN, 5);
	CHECK_MSG(r == INT_MAX && b[0] == '5', "%%*d of INT_MIN: %d \"%.8s\" (left-justified, INT32_MAX wide)", r,
		b);
	r = bp_both(b, sizeof(b), "%.*d", INT_MIN, 5);
	CHECK_MSG(r == 1 && strcmp(b, "5") == 0, "%%.*d of INT_MIN: %d \"%s\" (negative: no precision)", r, b);
	/*
	 * Floats: a huge width or precision is padded and zero-filled by the
	 * engine, without a C library buffer of that size (emit_float.c).
	 */
	r = bp_both(b, sizeof(b), "%.99999999999f", 1.0);
	CHECK_MSG(r == -1, "%%.99999999999f of 1.0: %d \"%.8s\", want -1 (\"1.\" and INT32_MAX zeros is longer "
		"than INT_MAX)", r, b);
	r = bp_both(b, sizeof(b), "%2147483647e", 1.0);
	CHECK_MSG(r == INT_MAX && b[0] == ' ', "%%2147483647e: %d \"%.8s\"", r, b);
	r = bp_both(b, sizeof(b), "%-2147483647a|", -0.5);
	CHECK_MSG(r == -1 && strncmp(b, "-0x1p-1 ", 8) == 0, "%%-2147483647a|: %d \"%.10s\"", r, b);
	r = bp_both(b, sizeof(b), "%0*.*Lg", 100000, 3000, 1e4000L);
	CHECK_MSG(r == 100000 && strncmp(b, "0000", 4) == 0, "%%0*.*Lg of 1e4000L: %d \"%.10s\"", r, b);
}

int main(void)
{
	unsigned scale = (unsigned)test_scale(10);

	t_guard_init(&fmt_page, 4096);
	t_guard_init(&bin_page, MAXWORDS * 4);
	setvbuf(stdout, NULL, _IOLBF, 0);
	invalid_tokens();
	unterminated_strings();
	printf("invalid: token and unterminated-string cases done\n");
	truncated_blocks(300 * scale);
	garbage_blocks(5000 * scale);
	saturation();
	return t_exit_status("invalid");
}
