/*
 * fuzz_roundtrip: the three paths of the printf engine against glibc, on
 * calls the fuzzer chooses.  The input drives the generator of the
 * differential tests (tests/format/fmtgen.c) as its random source, so every
 * input is a valid C11 printf call: a format from the generated safe set
 * and argument values taken from the input's bytes.  Then
 *
 *   bp_vsnprintf(x) == glibc vsnprintf(x)
 *                   == bp_bstr_printf(bp_vbin_printf(x))
 *                   == bp_bstr_printf(bp_vbin_printf_plan(x))
 *
 * and the block must be the one docs/binary-layout.md describes.  Any
 * difference prints the case and aborts.
 * Seeds: fuzz/corpus/fuzz_roundtrip/.
 */
#include "format/fmtgen.h"

#include <bprint/format.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BUF 16384
#define WORDS 1024

struct run {
	const struct fg_case *t;
	char gbuf[BUF], obuf[BUF], bbuf[BUF], pbuf[BUF];
	int gret, oret;
	uint32_t bin[WORDS], pbin[WORDS], model[WORDS];
	size_t need, pneed;
	struct bp_arg_plan plan;
	int plan_rc;
};

static void run_all(void *ctx, ...)
{
	struct run *r = ctx;
	const struct fg_case *t = r->t;
	va_list ap, c;

	va_start(ap, ctx);
	va_copy(c, ap);
	r->gret = vsnprintf(r->gbuf, BUF, t->gfmt, c);
	va_end(c);
	va_copy(c, ap);
	r->oret = bp_vsnprintf(r->obuf, BUF, t->fmt, c);
	va_end(c);
	va_copy(c, ap);
	r->need = bp_vbin_printf(r->bin, WORDS, t->fmt, c);
	va_end(c);
	if (r->plan_rc == 0) {
		va_copy(c, ap);
		r->pneed = bp_vbin_printf_plan(r->pbin, WORDS, &r->plan, c);
		va_end(c);
	}
	va_end(ap);
}

static void fail(const struct run *r, const char *why)
{
	fprintf(stderr, "fuzz_roundtrip: %s\n", why);
	fg_print(stderr, r->t);
	fprintf(stderr, "  glibc   (%d): %.300s\n  bprint  (%d): %.300s\n  bstr: %.300s\n",
		r->gret, r->gbuf, r->oret, r->obuf, r->bbuf);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fg_case t;
	static struct run r;
	struct fg_rng rng = { .s = 0, .data = data, .len = size, .pos = 0 };
	struct fg_opts opts;
	int bret;

	fg_default_opts(&opts);
	memset(&t, 0, sizeof(t));
	fg_generate(&t, &rng, &opts);
	memset(r.bin, 0xa5, sizeof(r.bin));
	memset(r.pbin, 0x3c, sizeof(r.pbin));
	r.t = &t;
	r.plan_rc = bp_format_compile(t.fmt, &r.plan);
	fg_call(t.a, t.na, run_all, &r);

	if (r.gret < 0 || r.gret >= BUF)
		return 0;	/* too long to compare here */
	if (r.oret != r.gret || memcmp(r.obuf, r.gbuf, (size_t)r.gret + 1) != 0)
		fail(&r, "bp_vsnprintf differs from glibc");
	if (!fg_sentinels_ok(&t))
		fail(&r, "%n wrote through its pointer");
	if (r.need != t.need_words || r.need > WORDS)
		fail(&r, "bp_vbin_printf size differs from the layout document");
	memset(r.model, 0, sizeof(r.model));
	fg_model_block(&t, r.model);
	if (memcmp(r.bin, r.model, r.need * 4) != 0)
		fail(&r, "bp_vbin_printf block differs from the layout document");
	bret = bp_bstr_printf(r.bbuf, BUF, t.fmt, r.bin, r.need);
	if (bret != r.gret || memcmp(r.bbuf, r.gbuf, (size_t)r.gret + 1) != 0)
		fail(&r, "bp_bstr_printf(bp_vbin_printf()) differs from glibc");
	if (r.plan_rc == 0) {
		if (r.pneed != r.need || memcmp(r.pbin, r.bin, r.need * 4) != 0)
			fail(&r, "bp_vbin_printf_plan block differs from bp_vbin_printf's");
		bret = bp_bstr_printf(r.pbuf, BUF, t.fmt, r.pbin, r.pneed);
		if (bret != r.gret || memcmp(r.pbuf, r.gbuf, (size_t)r.gret + 1) != 0)
			fail(&r, "bp_bstr_printf(bp_vbin_printf_plan()) differs from glibc");
	}
	return 0;
}
