/*
 * bp_vbin_printf(): the trace-time user of the decoder.  Stores each
 * argument in the block as docs/binary-layout.md says; formats nothing.
 * Pointers are stored, never followed, except a %s's, whose bytes are
 * copied now because they may be gone when the trace is read.
 */
#include "format/block.h"
#include "format/decode.h"
#include "format/emit.h"

size_t bp_vbin_printf(uint32_t *bin, size_t words, const char *fmt, va_list ap)
{
	struct bp_block_out b = { .base = (unsigned char *)bin, .cap = words * 4, .pos = 0 };
	struct bp_printf_spec spec = { 0 };
	int star;
	const char *s;
	double d;

	for (;;) {
		fmt += bp_decode(fmt, &spec);
		switch (spec.type) {
		case BP_FMT_NONE:
			return block_finish(&b);
		case BP_FMT_LITERAL:
		case BP_FMT_INVALID:
		case BP_FMT_PERCENT:
			break;
		case BP_FMT_WIDTH:
			star = va_arg(ap, int);
			bp_spec_set_width(&spec, star);
			block_put32(&b, (uint32_t)star);
			break;
		case BP_FMT_PRECISION:
			star = va_arg(ap, int);
			bp_spec_set_precision(&spec, star);
			block_put32(&b, (uint32_t)star);
			break;
		case BP_FMT_INT:
			if (bp_int_bytes(spec.length) == 4)
				block_put32(&b, (uint32_t)BP_VA_INT(ap, spec.length));
			else
				block_put64(&b, BP_VA_INT(ap, spec.length));
			break;
		case BP_FMT_CHAR:
			block_put_char(&b, (unsigned char)va_arg(ap, int));
			break;
		case BP_FMT_STR:
			s = va_arg(ap, const char *);
			block_put_string(&b, s ? s : bp_null_string(spec.precision), spec.precision);
			break;
		case BP_FMT_PTR:
			block_put64(&b, (uint64_t)(uintptr_t)va_arg(ap, void *));
			break;
		case BP_FMT_FLOAT:
			block_align4(&b);
			if (spec.length == BP_LEN_LDOUBLE) {
				block_put_ldouble(&b, va_arg(ap, long double));
			} else {
				d = va_arg(ap, double);
				block_put(&b, &d, sizeof(d));
			}
			break;
		case BP_FMT_NRCHARS:
			(void)va_arg(ap, void *);
			break;
		}
	}
}

size_t bp_bin_printf(uint32_t *bin, size_t words, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = bp_vbin_printf(bin, words, fmt, ap);
	va_end(ap);
	return n;
}
