/*
 * Emit helpers: one conversion's text, from its value and its spec, into a
 * sink.  The rules are C11's as glibc implements them; the comments name
 * the corner each branch exists for.  Integers, strings, characters and
 * pointers here; floating point in emit_float.c; the digits and padding
 * both use in emit_digits.h.
 */
#include "format/emit.h"

#include "format/emit_digits.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * The conversion is assembled backwards in one local buffer, digits, then
 * precision zeros, then the prefix, so that it reaches the sink in one copy;
 * only padding to a field width goes separately.
 */
#define NUMBER_ZEROS 64	/* precision zeros assembled locally; more are filled */

/* Decimal digits of v: 1 for 0. */
static inline unsigned count_digits10(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
		1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
		1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
		1000000000000000000ULL, 10000000000000000000ULL,
	};
	/* v | 1 has the digits of v, and one for 0 */
	uint64_t x = v | 1;
	/* log10(2) ~ 1233 / 4096: t is the count, or one short */
	unsigned t = (unsigned)(64 - __builtin_clzll(x)) * 1233 >> 12;

	return t + (x >= pow10[t]);
}

void bp_emit_number(struct bp_sink *o, uint64_t magnitude, bool negative,
		    const struct bp_printf_spec *sp)
{
	struct bp_printf_spec spec = *sp;

	/*
	 * The common case, "%d" or "%llu" with nothing else: the digits go
	 * straight into the buffer when they fit.
	 */
	if (spec.base == 10 && spec.field_width == 0 && spec.precision < 0 &&
	    !(spec.flags & (BP_FLAG_PLUS | BP_FLAG_SPACE)) && o->pos < o->size) {
		size_t n = count_digits10(magnitude) + negative;

		if (o->size - o->pos >= n) {
			char *p = o->buf + o->pos;

			if (negative)
				*p = '-';
			if (magnitude == 0)
				p[n - 1] = '0';
			else
				format_digits(p + n, magnitude, 10, false);
			o->pos += n;
			return;
		}
	}
	char tmp[NUMBER_ZEROS + 24 + 3];	/* zeros, 22 octal digits of 2^64 - 1, prefix */
	char *end = tmp + sizeof(tmp);
	char *first = format_digits(end, magnitude, spec.base, spec.flags & BP_FLAG_UPPER);
	size_t ndigits = (size_t)(end - first);
	/* No precision means at least one digit: 0 prints "0", "%.0d" nothing. */
	size_t min_digits = spec.precision < 0 ? 1 : (size_t)spec.precision;
	size_t zeros = min_digits > ndigits ? min_digits - ndigits : 0;
	char prefix[3];	/* sign, then "0x" */
	size_t nprefix = 0;
	size_t len, pad;

	if (negative)
		prefix[nprefix++] = '-';
	else if ((spec.flags & BP_FLAG_SIGNED) && (spec.flags & BP_FLAG_PLUS))
		prefix[nprefix++] = '+';
	else if ((spec.flags & BP_FLAG_SIGNED) && (spec.flags & BP_FLAG_SPACE))
		prefix[nprefix++] = ' ';

	if (spec.flags & BP_FLAG_ALT) {
		if (spec.base == 16 && magnitude != 0) {
			prefix[nprefix++] = '0';
			prefix[nprefix++] = (spec.flags & BP_FLAG_UPPER) ? 'X' : 'x';
		} else if (spec.base == 8 && zeros == 0) {
			zeros = 1;	/* "%#o" always starts with 0 */
		}
	}

	len = nprefix + zeros + ndigits;
	pad = width_of(spec) > len ? width_of(spec) - len : 0;
	/* '0' pads with zeros unless '-' or a precision is given. */
	if (!(spec.flags & BP_FLAG_LEFT) && (spec.flags & BP_FLAG_ZERO) && spec.precision < 0) {
		zeros += pad;
		pad = 0;
	}
	if (!(spec.flags & BP_FLAG_LEFT))
		sink_fill(o, ' ', pad);
	if (zeros <= NUMBER_ZEROS) {
		first -= zeros;
		memset(first, '0', zeros);
		first -= nprefix;
		memcpy(first, prefix, nprefix);
		sink_bytes(o, first, (size_t)(end - first));
	} else {
		sink_bytes(o, prefix, nprefix);
		sink_fill(o, '0', zeros);
		sink_bytes(o, first, ndigits);
	}
	if (spec.flags & BP_FLAG_LEFT)
		sink_fill(o, ' ', pad);
}

/* Text padded to the field width; '0' pads with spaces here, as in glibc. */
static void emit_padded(struct bp_sink *o, const char *s, size_t n, struct bp_printf_spec spec)
{
	size_t pad = width_of(spec) > n ? width_of(spec) - n : 0;

	if (!(spec.flags & BP_FLAG_LEFT))
		sink_fill(o, ' ', pad);
	sink_bytes(o, s, n);
	if (spec.flags & BP_FLAG_LEFT)
		sink_fill(o, ' ', pad);
}

void bp_emit_string_n(struct bp_sink *o, const char *s, size_t len,
		      const struct bp_printf_spec *spec)
{
	if (spec->precision >= 0 && (size_t)spec->precision < len)
		len = (size_t)spec->precision;
	if (spec->field_width == 0)
		sink_bytes(o, s, len);
	else
		emit_padded(o, s, len, *spec);
}

void bp_emit_string(struct bp_sink *o, const char *s, const struct bp_printf_spec *spec)
{
	size_t n;

	if (!s)
		s = bp_null_string(spec->precision);
	n = spec->precision >= 0 ? strnlen(s, (size_t)spec->precision) : strlen(s);
	bp_emit_string_n(o, s, n, spec);
}

void bp_emit_char(struct bp_sink *o, unsigned char c, const struct bp_printf_spec *sp)
{
	struct bp_printf_spec spec = *sp;
	char ch = (char)c;

	emit_padded(o, &ch, 1, spec);
}

/* glibc: NULL is "(nil)" (precision ignored); else "%#lx" that keeps '+' and ' '. */
void bp_emit_pointer(struct bp_sink *o, uintptr_t p, const struct bp_printf_spec *sp)
{
	struct bp_printf_spec spec = *sp;

	if (!p) {
		emit_padded(o, "(nil)", 5, spec);
		return;
	}
	/* The common case, a bare "%p": straight into the buffer. */
	if (spec.field_width == 0 && spec.precision < 0 &&
	    !(spec.flags & (BP_FLAG_PLUS | BP_FLAG_SPACE)) && o->pos < o->size) {
		size_t n = 2 + (size_t)(64 - __builtin_clzll((uint64_t)p) + 3) / 4;

		if (o->size - o->pos >= n) {
			char *d = o->buf + o->pos;

			d[0] = '0';
			d[1] = 'x';
			format_digits(d + n, p, 16, false);
			o->pos += n;
			return;
		}
	}
	spec.base = 16;
	spec.flags |= BP_FLAG_ALT | BP_FLAG_SIGNED;
	spec.flags &= (uint8_t)~BP_FLAG_UPPER;
	bp_emit_number(o, p, false, &spec);
}
