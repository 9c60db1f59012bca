/*
 * bp_vsnprintf(): the first user of the decoder, arguments from a va_list.
 */
#include "format/emit.h"

int bp_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct bp_sink o = { .buf = buf, .size = size, .pos = 0 };
	struct bp_printf_spec spec = { 0 };
	va_list args;
	bool negative;
	uint64_t v;

	va_copy(args, ap);
	for (;;) {
		const char *token = fmt;
		int n = bp_format_decode(fmt, &spec);

		fmt += n;
		if (sink_plain_token(&o, &spec, token, n))
			continue;
		switch (spec.type) {
		case BP_FMT_NONE:
			va_end(args);
			return bp_sink_finish(&o);
		case BP_FMT_WIDTH:
			bp_spec_set_width(&spec, va_arg(args, int));
			break;
		case BP_FMT_PRECISION:
			bp_spec_set_precision(&spec, va_arg(args, int));
			break;
		case BP_FMT_INT:
			v = bp_int_reduce(bp_va_int(&args, spec.length), spec, &negative);
			bp_emit_number(&o, v, negative, spec);
			break;
		case BP_FMT_CHAR:
			bp_emit_char(&o, (unsigned char)va_arg(args, int), spec);
			break;
		case BP_FMT_STR:
			bp_emit_string(&o, va_arg(args, const char *), spec);
			break;
		case BP_FMT_PTR:
			bp_emit_pointer(&o, (uintptr_t)va_arg(args, void *), spec);
			break;
		case BP_FMT_FLOAT:
			if (spec.length == BP_LEN_LDOUBLE)
				bp_emit_ldouble(&o, va_arg(args, long double), spec);
			else
				bp_emit_double(&o, va_arg(args, double), spec);
			break;
		case BP_FMT_NRCHARS:
			(void)va_arg(args, void *);	/* never written through */
			break;
		default:
			break;
		}
	}
}

int bp_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = bp_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
