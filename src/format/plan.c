/*
 * Argument plans: the decoder run once per call site, ahead of time, so that
 * the tracer's hot path packs a block with a loop over a few slot kinds and
 * never parses the format.  bp_vbin_printf_plan() must produce exactly the
 * block bp_vbin_printf() produces; both use the writer in block.h.
 */
#include "format/block.h"
#include "format/emit.h"

static uint8_t int_kind(uint8_t length)
{
	switch (length) {
	case BP_LEN_L: return BP_ARG_LONG;
	case BP_LEN_LL: return BP_ARG_LLONG;
	case BP_LEN_J: return BP_ARG_INTMAX;
	case BP_LEN_Z: return BP_ARG_SIZE;
	case BP_LEN_T: return BP_ARG_PTRDIFF;
	default: return BP_ARG_INT32;
	}
}

/* The slot for the token in spec, or 0 for a token with no argument. */
static uint8_t slot_kind(const struct bp_printf_spec *spec, bool star_precision)
{
	switch (spec->type) {
	case BP_FMT_WIDTH:
	case BP_FMT_PRECISION: return BP_ARG_INT32;
	case BP_FMT_INT: return int_kind(spec->length);
	case BP_FMT_CHAR: return BP_ARG_CHAR;
	case BP_FMT_STR: return star_precision ? BP_ARG_STR_STAR : BP_ARG_STR;
	case BP_FMT_PTR: return BP_ARG_PTR;
	case BP_FMT_FLOAT:
		return spec->length == BP_LEN_LDOUBLE ? BP_ARG_LDOUBLE : BP_ARG_DOUBLE;
	case BP_FMT_NRCHARS: return BP_ARG_SKIP;
	default: return 0;
	}
}

static size_t slot_bytes(uint8_t kind)
{
	switch (kind) {
	case BP_ARG_INT32: return 4;
	case BP_ARG_CHAR: return 1;
	case BP_ARG_LDOUBLE: return BP_LDOUBLE_BYTES;
	case BP_ARG_SKIP:
	case BP_ARG_STR:
	case BP_ARG_STR_STAR: return 0;
	default: return 8;
	}
}

int bp_format_compile(const char *fmt, struct bp_arg_plan *plan)
{
	struct bp_printf_spec spec = { 0 };
	bool star_precision = false;
	size_t fixed = 0;	/* bytes, as if every string were empty */

	*plan = (struct bp_arg_plan){ 0 };
	for (;;) {
		uint8_t kind;

		fmt += bp_format_decode(fmt, &spec);
		if (spec.type == BP_FMT_NONE)
			break;
		kind = slot_kind(&spec, star_precision);
		star_precision = spec.type == BP_FMT_PRECISION;
		if (spec.type == BP_FMT_PRECISION)
			spec.precision = 0;	/* a value comes at run time */
		if (!kind)
			continue;
		if (plan->nargs == BP_PLAN_MAX_ARGS || spec.precision > INT16_MAX)
			return -1;
		plan->slot[plan->nargs++] = (struct bp_arg_slot){
			.kind = kind,
			.precision = (int16_t)(kind == BP_ARG_STR ? spec.precision : -1),
		};
		if (kind == BP_ARG_STR || kind == BP_ARG_STR_STAR) {
			plan->nstrings++;
			fixed += 1;
		} else if (kind != BP_ARG_CHAR && kind != BP_ARG_SKIP) {
			fixed = (fixed + 3) & ~(size_t)3;
			fixed += slot_bytes(kind);
		} else {
			fixed += slot_bytes(kind);
		}
	}
	/* Exact when there are no strings; a lower bound otherwise. */
	plan->fixed_words = (uint16_t)((fixed + 3) / 4);
	return 0;
}

size_t bp_vbin_printf_plan(uint32_t *bin, size_t words, const struct bp_arg_plan *plan, va_list ap)
{
	struct bp_block_out b = { .base = (unsigned char *)bin, .cap = words * 4, .pos = 0 };
	int star = -1;
	const char *s;
	double d;

	for (unsigned i = 0; i < plan->nargs; i++) {
		const struct bp_arg_slot *slot = &plan->slot[i];

		switch (slot->kind) {
		case BP_ARG_INT32:
			star = va_arg(ap, int);
			block_put32(&b, (uint32_t)star);
			break;
		case BP_ARG_CHAR:
			block_put_char(&b, (unsigned char)va_arg(ap, int));
			break;
		case BP_ARG_LONG:
			block_put64(&b, (uint64_t)va_arg(ap, long));
			break;
		case BP_ARG_LLONG:
			block_put64(&b, (uint64_t)va_arg(ap, long long));
			break;
		case BP_ARG_INTMAX:
			block_put64(&b, (uint64_t)va_arg(ap, intmax_t));
			break;
		case BP_ARG_SIZE:
			block_put64(&b, (uint64_t)va_arg(ap, size_t));
			break;
		case BP_ARG_PTRDIFF:
			block_put64(&b, (uint64_t)va_arg(ap, ptrdiff_t));
			break;
		case BP_ARG_PTR:
			block_put64(&b, (uint64_t)(uintptr_t)va_arg(ap, void *));
			break;
		case BP_ARG_STR:
		case BP_ARG_STR_STAR: {
			int precision = slot->kind == BP_ARG_STR ? slot->precision
							       : (star < 0 ? -1 : star);

			s = va_arg(ap, const char *);
			block_put_string(&b, s ? s : bp_null_string(precision), precision);
			break;
		}
		case BP_ARG_DOUBLE:
			d = va_arg(ap, double);
			block_align4(&b);
			block_put(&b, &d, sizeof(d));
			break;
		case BP_ARG_LDOUBLE:
			block_put_ldouble(&b, va_arg(ap, long double));
			break;
		case BP_ARG_SKIP:
			(void)va_arg(ap, void *);
			break;
		}
	}
	return block_finish(&b);
}
