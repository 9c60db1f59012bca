/*
 * Internal to the printf engine: the output sink, the emit helpers shared by
 * bp_vsnprintf() and bp_bstr_printf(), and the block layout rules shared by
 * bp_vbin_printf(), bp_vbin_printf_plan() and bp_bstr_printf().
 *
 * A sink writes only inside its buffer but always advances, so truncated
 * output still counts its full length (C99 snprintf's return value).  Every
 * emit helper takes the decoded spec, as the seed thread asked.
 */
#ifndef BP_FORMAT_EMIT_H
#define BP_FORMAT_EMIT_H

#include <bprint/format.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct bp_sink {
	char *buf;
	size_t size;	/* bytes writable at buf, the NUL included */
	size_t pos;	/* bytes produced so far, written or not */
};

static inline void sink_bytes(struct bp_sink *o, const char *s, size_t n)
{
	if (o->pos < o->size) {
		size_t room = o->size - o->pos;

		memcpy(o->buf + o->pos, s, n < room ? n : room);
	}
	o->pos += n;
}

static inline void sink_char(struct bp_sink *o, char c)
{
	if (o->pos < o->size)
		o->buf[o->pos] = c;
	o->pos++;
}

/*
 * The tokens that print without an argument, the same in every user:
 * literal text and invalid conversions as they stand in the format, "%%"
 * as '%'.  Returns false for any other token.
 */
static inline bool sink_plain_token(struct bp_sink *o, const struct bp_printf_spec *spec,
				    const char *token, int n)
{
	switch (spec->type) {
	case BP_FMT_LITERAL:
	case BP_FMT_INVALID:
		sink_bytes(o, token, (size_t)n);
		return true;
	case BP_FMT_PERCENT:
		sink_char(o, '%');
		return true;
	default:
		return false;
	}
}

/* NUL-terminate and return the snprintf result. */
int bp_sink_finish(struct bp_sink *o);

void bp_emit_number(struct bp_sink *o, uint64_t magnitude, bool negative,
		    struct bp_printf_spec spec);
void bp_emit_string(struct bp_sink *o, const char *s, struct bp_printf_spec spec);
void bp_emit_char(struct bp_sink *o, unsigned char c, struct bp_printf_spec spec);
void bp_emit_pointer(struct bp_sink *o, uintptr_t p, struct bp_printf_spec spec);
void bp_emit_double(struct bp_sink *o, double v, struct bp_printf_spec spec);
void bp_emit_ldouble(struct bp_sink *o, long double v, struct bp_printf_spec spec);

/* A '*' value: a negative width means '-' and its magnitude. */
static inline void bp_spec_set_width(struct bp_printf_spec *spec, int w)
{
	if (w < 0) {
		spec->flags |= BP_FLAG_LEFT;
		w = w == INT32_MIN ? INT32_MAX : -w;
	}
	spec->field_width = w;
}

/* A '*' value: a negative precision means none. */
static inline void bp_spec_set_precision(struct bp_printf_spec *spec, int p)
{
	spec->precision = p < 0 ? -1 : p;
}

/*
 * The value of a %d-style conversion, reduced to its length modifier's type
 * (so that "%hhd" of 300 is 44), as magnitude and sign.
 */
static inline uint64_t bp_int_reduce(uint64_t raw, struct bp_printf_spec spec, bool *negative)
{
	int64_t v;

	if (!(spec.flags & BP_FLAG_SIGNED)) {
		*negative = false;
		switch (spec.length) {
		case BP_LEN_HH: return (unsigned char)raw;
		case BP_LEN_H: return (unsigned short)raw;
		case BP_LEN_NONE: return (unsigned int)raw;
		default: return raw;
		}
	}
	switch (spec.length) {
	case BP_LEN_HH: v = (signed char)raw; break;
	case BP_LEN_H: v = (short)raw; break;
	case BP_LEN_NONE: v = (int)raw; break;
	default: v = (int64_t)raw; break;
	}
	*negative = v < 0;
	return *negative ? 0 - (uint64_t)v : (uint64_t)v;
}

/*
 * Fetch a %d-style argument of the given length modifier.  Values narrower
 * than long come back as passed (an int), reduced later by bp_int_reduce().
 */
static inline uint64_t bp_va_int(va_list *ap, uint8_t length)
{
	switch (length) {
	case BP_LEN_L: return (uint64_t)va_arg(*ap, long);
	case BP_LEN_LL: return (uint64_t)va_arg(*ap, long long);
	case BP_LEN_J: return (uint64_t)va_arg(*ap, intmax_t);
	case BP_LEN_Z: return (uint64_t)va_arg(*ap, size_t);
	case BP_LEN_T: return (uint64_t)va_arg(*ap, ptrdiff_t);
	default: return (uint64_t)(int64_t)va_arg(*ap, int);
	}
}

/* Bytes a %d-style value takes in a block: 4, or 8 for long and wider. */
static inline size_t bp_int_bytes(uint8_t length)
{
	switch (length) {
	case BP_LEN_NONE:
	case BP_LEN_HH:
	case BP_LEN_H:
		return 4;
	default:
		return 8;
	}
}

/*
 * What a %s of NULL stores: glibc prints "(null)", or nothing when the
 * precision is too small to hold it.
 */
static inline const char *bp_null_string(int32_t precision)
{
	return precision >= 0 && precision < 6 ? "" : "(null)";
}

#endif /* BP_FORMAT_EMIT_H */
