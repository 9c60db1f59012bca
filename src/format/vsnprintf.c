/*
 * bp_vsnprintf(): the first user of the decoder, arguments from a va_list.
 */
#include "format/decode.h"
#include "format/emit.h"

int bp_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct bp_sink o = { .buf = buf, .size = size, .pos = 0 };
	struct bp_printf_spec spec = { 0 };
	bool negative;
	uint64_t v;

	for (;;) {
		const char *token = fmt;
		int n = bp_decode(fmt, &spec);

		fmt += n;
		if (sink_plain_token(&o, &spec, token, n))
			continue;
		switch (spec.type) {
		case BP_FMT_NONE:
			return bp_sink_finish(&o);
		case BP_FMT_WIDTH:
			bp_spec_set_width(&spec, va_arg(ap, int));
			break;
		case BP_FMT_PRECISION:
			bp_spec_set_precision(&spec, va_arg(ap, int));
			break;
		case BP_FMT_INT:
			v = bp_int_reduce(BP_VA_INT(ap, spec.length), spec, &negative);
			bp_emit_number(&o, v, negative, &spec);
			break;
		case BP_FMT_CHAR:
			bp_emit_char(&o, (unsigned char)va_arg(ap, int), &spec);
			break;
		case BP_FMT_STR:
			bp_emit_string(&o, va_arg(ap, const char *), &spec);
			break;
		case BP_FMT_PTR:
			bp_emit_pointer(&o, (uintptr_t)va_arg(ap, void *), &spec);
			break;
		case BP_FMT_FLOAT:
			if (spec.length == BP_LEN_LDOUBLE)
				bp_emit_ldouble(&o, va_arg(ap, long double), &spec);
			else
				bp_emit_double(&o, va_arg(ap, double), &spec);
			break;
		case BP_FMT_NRCHARS:
			(void)va_arg(ap, void *);	/* never written through */
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
