/*
 * fuzz_decode: bp_format_decode() over arbitrary text.  The input, cut at
 * its first NUL, is a format; it is decoded token by token the way every
 * user loops over the decoder (a '*' token gets a value from the input and
 * the decoding resumes), and each token is checked: it consumes at least
 * one character unless it is the end, never goes past the NUL, and its
 * spec holds values the users can rely on.  Then the same format goes
 * through the users that need no arguments: bp_bstr_printf() of an empty
 * block and of a block of zeros, whose text must match
 * bp_bstr_printf_parsed()'s, and bp_format_compile().
 * Seeds: fuzz/corpus/fuzz_decode/.
 */
#include <bprint/format.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK_ABORTS
#include "check.h"

static void check_spec(const struct bp_printf_spec *s)
{
	CHECK(s->type <= BP_FMT_INVALID);
	CHECK(s->length <= BP_LEN_LDOUBLE);
	CHECK(s->precision >= -1);
	CHECK(s->field_width >= 0);
	if (s->type == BP_FMT_INT)
		CHECK(s->base == 8 || s->base == 10 || s->base == 16);
	if (s->type == BP_FMT_FLOAT)
		CHECK(strchr("fFeEgGaA", s->conv) && s->conv);
}

static char out1[4096], out2[4096];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *fmt = malloc(size + 1);	/* exact size: ASan sees any overread */
	struct bp_printf_spec spec = { 0 };
	struct bp_parsed_format *pf;
	struct bp_arg_plan plan;
	static uint32_t zeros[64];
	size_t len, pos = 0, tokens = 0;
	int r1, r2;

	if (!fmt)
		return 0;
	memcpy(fmt, data, size);
	fmt[size] = '\0';
	len = strlen(fmt);

	for (;;) {
		uint8_t prev = spec.type;
		int n = bp_format_decode(fmt + pos, &spec);

		CHECK(n >= 0 && (size_t)n <= len - pos);
		if (spec.type == BP_FMT_NONE) {
			CHECK(n == 0 && pos == len);
			break;
		}
		CHECK(n > 0);
		check_spec(&spec);
		if (spec.type == BP_FMT_LITERAL)
			CHECK(prev != BP_FMT_WIDTH && prev != BP_FMT_PRECISION &&
			      !memchr(fmt + pos, '%', (size_t)n));
		else if (prev != BP_FMT_WIDTH && prev != BP_FMT_PRECISION)
			CHECK(fmt[pos] == '%');	/* a conversion starts at its '%' */
		if (spec.type == BP_FMT_WIDTH) {
			int w = (int)(tokens * 7 % 40) - 20;	/* negative ones too */

			spec.field_width = w < 0 ? -w : w;
			if (w < 0)
				spec.flags |= BP_FLAG_LEFT;
		} else if (spec.type == BP_FMT_PRECISION) {
			spec.precision = (int)(tokens * 5 % 30) - 5 < 0 ? -1 : (int)(tokens * 5 % 30) - 5;
		}
		pos += (size_t)n;
		CHECK(++tokens <= len + 1);
	}

	/* The argument-free users: a block too short, and one of zeros. */
	r1 = bp_bstr_printf(out1, sizeof(out1), fmt, NULL, 0);
	pf = bp_format_parse(fmt);
	if (pf) {
		r2 = bp_bstr_printf_parsed(out2, sizeof(out2), pf, NULL, 0, NULL);
		CHECK(r1 == r2 && strcmp(out1, out2) == 0);
		r1 = bp_bstr_printf(out1, sizeof(out1), fmt, zeros, 64);
		r2 = bp_bstr_printf_parsed(out2, sizeof(out2), pf, zeros, 64, NULL);
		CHECK(r1 == r2 && strcmp(out1, out2) == 0);
		bp_format_parsed_free(pf);
	}
	if (bp_format_compile(fmt, &plan) == 0)
		CHECK(plan.nargs <= BP_PLAN_MAX_ARGS);
	free(fmt);
	return 0;
}
