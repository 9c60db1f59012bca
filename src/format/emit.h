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

#include <limits.h>
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

/*
 * memcpy() of a short run without a call: fixed-size moves, the last one
 * overlapping the previous, never touching a byte outside [0, n).  Most of
 * what a format copies (literal runs, a number's digits) is that short.
 */
static inline void bp_copy(char *d, const char *s, size_t n)
{
	uint64_t a, b;
	uint32_t x, y;

	if (n >= 8 && n <= 64) {
		for (size_t i = 0; i + 8 < n; i += 8) {
			memcpy(&a, s + i, 8);
			memcpy(d + i, &a, 8);
		}
		memcpy(&b, s + n - 8, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(&x, s, 4);
		memcpy(&y, s + n - 4, 4);
		memcpy(d, &x, 4);
		memcpy(d + n - 4, &y, 4);
	} else if (n > 0 && n < 4) {
		d[0] = s[0];
		d[n / 2] = s[n / 2];
		d[n - 1] = s[n - 1];
	} else if (n > 64) {
		memcpy(d, s, n);
	}
}

static inline void sink_bytes(struct bp_sink *o, const char *s, size_t n)
{
	if (o->pos < o->size) {
		size_t room = o->size - o->pos;

		bp_copy(o->buf + o->pos, s, n < room ? n : room);
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
static inline int bp_sink_finish(struct bp_sink *o)
{
	if (o->size > 0)
		o->buf[o->pos < o->size ? o->pos : o->size - 1] = '\0';
	return o->pos > INT_MAX ? -1 : (int)o->pos;
}

void bp_emit_number(struct bp_sink *o, uint64_t magnitude, bool negative,
		    const struct bp_printf_spec *spec);
void bp_emit_string(struct bp_sink *o, const char *s, const struct bp_printf_spec *spec);
/* A string of len bytes (its NUL, if any, not counted), as %s prints it. */
void bp_emit_string_n(struct bp_sink *o, const char *s, size_t len,
		      const struct bp_printf_spec *spec);
void bp_emit_char(struct bp_sink *o, unsigned char c, const struct bp_printf_spec *spec);
void bp_emit_pointer(struct bp_sink *o, uintptr_t p, const struct bp_printf_spec *spec);
void bp_emit_double(struct bp_sink *o, double v, const struct bp_printf_spec *spec);
void bp_emit_ldouble(struct bp_sink *o, long double v, const struct bp_printf_spec *spec);

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
 * A macro, so that the users can va_arg() their va_list parameter itself
 * instead of a va_copy() of it (where va_list is an array type, the address
 * of a va_list parameter is not a va_list *), a copy that measurably cost
 * every call.
 */
#define BP_VA_INT(ap, length)                                                   \
	((length) == BP_LEN_L ? (uint64_t)va_arg(ap, long) :                    \
	 (length) == BP_LEN_LL ? (uint64_t)va_arg(ap, long long) :              \
	 (length) == BP_LEN_J ? (uint64_t)va_arg(ap, intmax_t) :                \
	 (length) == BP_LEN_Z ? (uint64_t)va_arg(ap, size_t) :                  \
	 (length) == BP_LEN_T ? (uint64_t)va_arg(ap, ptrdiff_t) :               \
	 (uint64_t)(int64_t)va_arg(ap, int))

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
