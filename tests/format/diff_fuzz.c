/*
 * Differential fuzz of the printf engine against glibc.
 *
 * Each case is a random valid C11 printf call (fmtgen.c).  It must print
 * exactly what glibc's snprintf prints, by every path:
 *   - bp_vsnprintf(), into a large buffer and into a random short one;
 *   - bp_bstr_printf() of the block bp_vbin_printf() packed;
 * the block must be the one docs/binary-layout.md describes, byte for byte
 * (gaps zeroed), whatever the buffer held before; bp_format_compile() must
 * list the slots the format consumes and bp_vbin_printf_plan() must pack
 * the identical block.  %n is given to glibc as "%.0s" (it consumes the
 * pointer and prints nothing): ours must leave the pointed-to bytes alone.
 *
 *   diff_fuzz [SEED [CASE]]   (or BPRINT_SEED=...; BPRINT_FUZZ_CASES=N)
 *
 * With CASE, runs that one case and prints it.  The seed is printed first,
 * so any failure can be replayed.
 */
#include "format/fmt_test.h"
#include "format/fmtgen.h"

#include <bprint/format.h>

#include <inttypes.h>
#include <time.h>

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

#define BUF 16384
#define WORDS 1024
#define GUARD_WORDS 8
#define SMALL_GUARD 16

struct run {
	const struct fg_case *t;
	char gbuf[BUF], obuf[BUF], sbuf[BUF];
	char tbuf[BUF + SMALL_GUARD], ubuf[BUF + SMALL_GUARD];
	size_t small;
	int gret, oret, tret, sret, uret;
	uint32_t bin0[GUARD_WORDS];
	uint32_t bin[WORDS + GUARD_WORDS], bin2[WORDS + GUARD_WORDS], model[WORDS];
	size_t need0, need, need_plan;
	struct bp_arg_plan plan;
	int plan_rc;
};

static void run_all(void *ctx, ...)
{
	struct run *r = ctx;
	const struct fg_case *t = r->t;
	size_t words;
	va_list ap, c;

	va_start(ap, ctx);

	va_copy(c, ap);
	r->gret = vsnprintf(r->gbuf, BUF, t->gfmt, c);
	va_end(c);

	va_copy(c, ap);
	r->oret = bp_vsnprintf(r->obuf, BUF, t->fmt, c);
	va_end(c);

	memset(r->tbuf, 0x7e, sizeof(r->tbuf));
	va_copy(c, ap);
	r->tret = bp_vsnprintf(r->small ? r->tbuf : NULL, r->small, t->fmt, c);
	va_end(c);

	memset(r->bin0, 0xa5, sizeof(r->bin0));
	va_copy(c, ap);
	r->need0 = bp_vbin_printf(r->bin0, 0, t->fmt, c);
	va_end(c);

	words = r->need0 < WORDS ? r->need0 : WORDS;
	memset(r->bin, 0xa5, sizeof(r->bin));
	va_copy(c, ap);
	r->need = bp_vbin_printf(r->bin, words, t->fmt, c);
	va_end(c);

	memset(r->bin2, 0x3c, sizeof(r->bin2));
	if (r->plan_rc == 0) {
		va_copy(c, ap);
		r->need_plan = bp_vbin_printf_plan(r->bin2, words, &r->plan, c);
		va_end(c);
	}
	va_end(ap);
}

static void show(const char *what, const char *s, int n)
{
	fprintf(stderr, "  %s (%d): ", what, n);
	if (n < 0)
		n = 0;
	t_escape(stderr, s, (size_t)(n < 600 ? n : 600));
	fputc('\n', stderr);
}

static int guard_ok(const char *p, size_t n, int byte)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] != (unsigned char)byte)
			return 0;
	return 1;
}

/* The snprintf contract on a short buffer: a prefix of want, NUL, no more. */
static const char *check_short(const char *got, size_t size, int ret, const char *want, int wret)
{
	size_t keep;

	if (ret != wret)
		return "return value";
	if (size == 0)
		return guard_ok(got, SMALL_GUARD, 0x7e) ? NULL : "wrote into a zero-size buffer";
	keep = (size_t)wret < size - 1 ? (size_t)wret : size - 1;
	if (memcmp(got, want, keep) != 0)
		return "text is not the prefix";
	if (got[keep] != '\0')
		return "no NUL at the end";
	if (!guard_ok(got + size, SMALL_GUARD, 0x7e))
		return "wrote past size";
	return NULL;
}

/* Returns NULL if the case passes, or what failed. */
static const char *check(struct run *r, const struct fg_case *t)
{
	const char *why;
	int strings = 0;
	size_t glen;

	if (r->gret < 0 || r->gret >= BUF)
		return "glibc failed or the output is too long for the test";
	glen = (size_t)r->gret;
	if (r->oret != r->gret || memcmp(r->obuf, r->gbuf, glen + 1) != 0)
		return "bp_vsnprintf differs from glibc";
	if ((why = check_short(r->tbuf, r->small, r->tret, r->gbuf, r->gret)))
		return why;
	if (!fg_sentinels_ok(t))
		return "%n wrote through its pointer";

	if (r->need0 != t->need_words)
		return "bp_vbin_printf(words = 0) size differs from the layout document";
	if (!guard_ok((const char *)r->bin0, sizeof(r->bin0), 0xa5))
		return "bp_vbin_printf(words = 0) wrote into the block";
	if (r->need != r->need0)
		return "bp_vbin_printf size depends on words";
	if (r->need > WORDS)
		return "block too large for the test";
	if (!guard_ok((const char *)(r->bin + r->need), GUARD_WORDS * 4, 0xa5))
		return "bp_vbin_printf wrote past words";
	fg_model_block(t, r->model);
	if (memcmp(r->bin, r->model, r->need * 4) != 0)
		return "block differs from the layout document";

	if (r->plan_rc != 0)
		return "bp_format_compile failed";
	if (r->plan.nargs != t->na)
		return "plan: wrong number of slots";
	for (int i = 0; i < t->na; i++) {
		if (r->plan.slot[i].kind != t->a[i].kind)
			return "plan: wrong slot kind";
		if (t->a[i].kind == BP_ARG_STR && r->plan.slot[i].precision != t->a[i].precision)
			return "plan: wrong string precision";
		strings += t->a[i].kind == BP_ARG_STR || t->a[i].kind == BP_ARG_STR_STAR;
	}
	if (r->plan.nstrings != strings)
		return "plan: wrong nstrings";
	if (strings == 0 && r->plan.fixed_words != t->need_words)
		return "plan: fixed_words is not the block size of a format without %s";
	if (strings && (r->plan.fixed_words > t->need_words ||
			t->need_words > (size_t)r->plan.fixed_words + t->str_words))
		return "plan: fixed_words + string words does not bound the block";
	if (r->need_plan != r->need)
		return "bp_vbin_printf_plan size differs";
	if (memcmp(r->bin2, r->bin, r->need * 4) != 0)
		return "bp_vbin_printf_plan block differs";
	if (!guard_ok((const char *)(r->bin2 + r->need), GUARD_WORDS * 4, 0x3c))
		return "bp_vbin_printf_plan wrote past words";

	r->sret = bp_bstr_printf(r->sbuf, BUF, t->fmt, r->bin, r->need);
	if (r->sret != r->gret || memcmp(r->sbuf, r->gbuf, glen + 1) != 0)
		return "bp_bstr_printf differs from glibc";
	memset(r->ubuf, 0x7e, sizeof(r->ubuf));
	r->uret = bp_bstr_printf(r->small ? r->ubuf : NULL, r->small, t->fmt, r->bin, r->need);
	if ((why = check_short(r->ubuf, r->small, r->uret, r->gbuf, r->gret)))
		return why;
	return NULL;
}

static void report(struct run *r, const struct fg_case *t, uint64_t seed, uint64_t index,
		   const char *why)
{
	fprintf(stderr, "diff_fuzz: seed %" PRIu64 " case %" PRIu64 ": %s\n", seed, index,
		why ? why : "ok");
	fprintf(stderr, "  replay: diff_fuzz %" PRIu64 " %" PRIu64 "\n", seed, index);
	fg_print(stderr, t);
	show("glibc", r->gbuf, r->gret);
	show("bp_vsnprintf", r->obuf, r->oret);
	fprintf(stderr, "  short buffer of %zu: returned %d, ", r->small, r->tret);
	show("got", r->tbuf, (int)(r->small ? strnlen(r->tbuf, r->small) : 0));
	if (r->sret != INT32_MIN)
		show("bp_bstr_printf", r->sbuf, r->sret);
	fprintf(stderr, "  block: %zu words (model %zu, plan %zu, rc %d, nargs %u, fixed %u)\n",
		r->need, t->need_words, r->need_plan, r->plan_rc, r->plan.nargs, r->plan.fixed_words);
	fprintf(stderr, "  got:  ");
	for (size_t i = 0; i < r->need && i < 64; i++)
		fprintf(stderr, " %08" PRIx32, r->bin[i]);
	fprintf(stderr, "\n  want: ");
	fg_model_block(t, r->model);
	for (size_t i = 0; i < t->need_words && i < 64; i++)
		fprintf(stderr, " %08" PRIx32, r->model[i]);
	fprintf(stderr, "\n  plan: ");
	for (size_t i = 0; i < r->need && i < 64; i++)
		fprintf(stderr, " %08" PRIx32, r->bin2[i]);
	fputc('\n', stderr);
}

static uint64_t case_seed(uint64_t seed, uint64_t index)
{
	struct fg_rng r = { .s = seed };
	uint64_t h = fg_next(&r);

	return h ^ (index * 0xd1b54a32d192ed03ULL);
}

static const char *run_case(struct run *r, struct fg_case *t, uint64_t seed, uint64_t index)
{
	struct fg_rng rng = { .s = case_seed(seed, index) };
	struct fg_opts opts;

	fg_default_opts(&opts);
	fg_generate(t, &rng, &opts);
	r->t = t;
	r->plan_rc = bp_format_compile(t->fmt, &r->plan);
	r->need_plan = 0;
	r->sret = INT32_MIN;
	/* A glibc length first, so the short buffer can be anything up to it + 1. */
	r->small = 0;
	fg_call(t->a, t->na, run_all, r);
	if (r->gret >= 0) {
		r->small = fg_below(&rng, (uint32_t)r->gret + 2);
		if (r->small > BUF)
			r->small = BUF;
		fg_call(t->a, t->na, run_all, r);
	}
	return check(r, t);
}

int main(int argc, char **argv)
{
	static struct run r;
	static struct fg_case t;
	const char *env = getenv("BPRINT_SEED");
	const char *ncases = getenv("BPRINT_FUZZ_CASES");
	uint64_t seed, n = (uint64_t)test_scale(1000000);
	struct timespec t0, t1;
	uint64_t floats = 0, strings = 0, stars = 0, ns = 0;

	if (argc > 1)
		seed = strtoull(argv[1], NULL, 0);
	else if (env && *env)
		seed = strtoull(env, NULL, 0);
	else
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	if (ncases && *ncases)
		n = strtoull(ncases, NULL, 0);
	printf("diff_fuzz: seed %" PRIu64 "\n", seed);
	fflush(stdout);

	if (argc > 2) {
		uint64_t index = strtoull(argv[2], NULL, 0);
		const char *why = run_case(&r, &t, seed, index);

		report(&r, &t, seed, index, why);
		return why ? 1 : 0;
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uint64_t i = 0; i < n; i++) {
		const char *why = run_case(&r, &t, seed, i);

		if (why) {
			report(&r, &t, seed, i, why);
			return 1;
		}
		floats += t.has_float;
		ns += t.has_n;
		for (int k = 0; k < t.na; k++) {
			strings += t.a[k].kind == BP_ARG_STR || t.a[k].kind == BP_ARG_STR_STAR;
			stars += t.a[k].conv == '*';
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("diff_fuzz: %" PRIu64 " cases passed in %.1f s (%" PRIu64 " with floats, %" PRIu64
	       " %%s, %" PRIu64 " '*', %" PRIu64 " with %%n)\n",
	       n, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       floats, strings, stars, ns);
	return 0;
}
