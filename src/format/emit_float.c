/*
 * Emit helpers for floating point (emit.h): %f, %e, %g and %a, of a double
 * or a long double, into a sink.  Apart from emit.c because it is a job of
 * its own: %f of a double without the C library (128-bit arithmetic), the
 * rest rebuilt into a format for snprintf, and huge widths and precisions
 * padded here.  The digits and padding it shares with emit.c are in
 * emit_digits.h.
 */
#include "format/emit.h"

#include "format/emit_digits.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Floating point: the C library generates the digits (the issue allows it;
 * correct rounding of binary to decimal is a project of its own).  The spec
 * is rebuilt into a "%<flags>*.*<L><conv>" format and printed straight into
 * the sink's buffer: snprintf's own truncation and NUL are harmless there,
 * since the final NUL is placed by bp_sink_finish().
 */
static int float_format(char *f, struct bp_printf_spec spec, bool is_long)
{
	int i = 0;

	f[i++] = '%';
	if (spec.flags & BP_FLAG_LEFT) f[i++] = '-';
	if (spec.flags & BP_FLAG_PLUS) f[i++] = '+';
	if (spec.flags & BP_FLAG_SPACE) f[i++] = ' ';
	if (spec.flags & BP_FLAG_ALT) f[i++] = '#';
	if (spec.flags & BP_FLAG_ZERO) f[i++] = '0';
	f[i++] = '*';
	f[i++] = '.';
	f[i++] = '*';
	if (is_long)
		f[i++] = 'L';
	f[i++] = spec.conv;
	f[i] = '\0';
	return i;
}

/*
 * A width or precision this large comes from a hostile or broken block more
 * often than from a program, and the C library allocates and fills a buffer
 * of that size for it.  Above FLOAT_SMALL we pad ourselves, and ask the C
 * library only for the digits that can be other than zero: a binary value
 * with F fractional bits has at most F decimals and at most F plus its
 * integer digits significant digits (a hex mantissa at most 16 digits).
 * The zeros past those are added here, before the exponent if there is one.
 */
#define FLOAT_SMALL 512
#define FLOAT_BODY 2048

#include <math.h>

/* An upper bound on the digits of precision that can be other than zero. */
static int float_digits_bound(struct bp_printf_spec spec, bool is_long, double d, long double ld)
{
	uint64_t m;
	int ex, frac, intdig;

	if (spec.conv == 'a' || spec.conv == 'A')
		return 32;
	if (is_long) {
		if (!isfinite(ld) || ld == 0)
			return 0;
		m = (uint64_t)ldexpl(fabsl(frexpl(ld, &ex)), 64);
		frac = 64 - __builtin_ctzll(m) - ex;
	} else {
		if (!isfinite(d) || d == 0)
			return 0;
		m = (uint64_t)ldexp(fabs(frexp(d, &ex)), 53);
		frac = 53 - __builtin_ctzll(m) - ex;
	}
	intdig = ex > 0 ? ex * 30103 / 100000 + 1 : 1;
	return (frac > 0 ? frac : 0) + intdig + 2;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static int float_snprintf(char *dst, size_t room, const char *f, int width, int precision,
			  bool is_long, double d, long double ld)
{
	if (is_long)
		return snprintf(dst, room, f, width, precision, ld);
	return snprintf(dst, room, f, width, precision, d);
}
#pragma GCC diagnostic pop

/*
 * The huge case, in a function of its own so that only it has the big stack
 * buffer.  Digits that do not fit in it (a long double of large magnitude)
 * go to an allocation.  Returns false, having printed nothing, if the C
 * library fails or the allocation does; the caller then leaves it all to the
 * C library.
 */
static __attribute__((noinline)) bool
sink_float_huge(struct bp_sink *o, struct bp_printf_spec spec, bool is_long, double d,
		long double ld)
{
	char f[16], body[FLOAT_BODY];
	char *text = body, *big = NULL;
	uint8_t flags = spec.flags;
	/* at least 1, so that the decimal point is there when zeros follow */
	int cap = float_digits_bound(spec, is_long, d, ld) + 1;
	bool g = spec.conv == 'g' || spec.conv == 'G';
	bool hex = spec.conv == 'a' || spec.conv == 'A';
	size_t extra = 0, len, split, lead = 0, pad, total;
	int n;

	if (spec.precision > cap) {
		/* %g without '#' drops trailing zeros: there are none to add */
		if (!g || (flags & BP_FLAG_ALT))
			extra = (size_t)spec.precision - (size_t)cap;
		spec.precision = cap;
	}
	spec.flags &= (uint8_t)~(BP_FLAG_LEFT | BP_FLAG_ZERO);
	float_format(f, spec, is_long);
	n = float_snprintf(body, sizeof(body), f, 0, spec.precision, is_long, d, ld);
	if (n < 0)
		return false;
	len = (size_t)n;
	if (len >= sizeof(body)) {
		/* a long double of large magnitude: at most 4933 + 16445 digits */
		big = malloc(len + 1);
		if (!big)
			return false;
		float_snprintf(big, len + 1, f, 0, spec.precision, is_long, d, ld);
		text = big;
	}

	/* Where the zeros of the precision go: before the exponent, or last. */
	split = len;
	for (size_t i = 0; extra && i < len; i++)
		if (text[i] == 'e' || text[i] == 'E' || text[i] == 'p' || text[i] == 'P')
			split = i;
	/* What '0' padding goes after: the sign, and 0x for %a. */
	if (len && (text[0] == '+' || text[0] == '-' || text[0] == ' '))
		lead = 1;
	if (!(text[lead] >= '0' && text[lead] <= '9')) {
		extra = 0;		/* inf, nan: no digits, '0' pads with spaces */
		flags &= (uint8_t)~BP_FLAG_ZERO;
	} else if (hex) {
		lead += 2;
	}

	total = len + extra;
	pad = width_of(spec) > total ? width_of(spec) - total : 0;
	if (flags & BP_FLAG_LEFT) {
		flags &= (uint8_t)~BP_FLAG_ZERO;
	} else if (!(flags & BP_FLAG_ZERO)) {
		sink_fill(o, ' ', pad);
	}
	sink_bytes(o, text, lead);
	if (flags & BP_FLAG_ZERO)
		sink_fill(o, '0', pad);
	sink_bytes(o, text + lead, split - lead);
	sink_fill(o, '0', extra);
	sink_bytes(o, text + split, len - split);
	if (flags & BP_FLAG_LEFT)
		sink_fill(o, ' ', pad);
	free(big);
	return true;
}

static void sink_float(struct bp_sink *o, struct bp_printf_spec spec, bool is_long,
		       double d, long double ld)
{
	char f[16];
	char *dst = o->pos < o->size ? o->buf + o->pos : NULL;
	size_t room = dst ? o->size - o->pos : 0;
	int n;

	if ((spec.field_width > FLOAT_SMALL || spec.precision > FLOAT_SMALL) &&
	    sink_float_huge(o, spec, is_long, d, ld))
		return;
	float_format(f, spec, is_long);
	n = float_snprintf(dst, room, f, spec.field_width, spec.precision, is_long, d, ld);
	if (n > 0)
		o->pos += (size_t)n;
}

#ifdef __SIZEOF_INT128__
typedef unsigned __int128 u128;

/* 5^0 .. 5^27: the largest power of five below 2^63. */
#define FIXED_MAX_PRECISION 27

static uint64_t pow5(int p)
{
	uint64_t r = 1;

	while (p-- > 0)
		r *= 5;
	return r;
}

static int u128_bits(u128 v)
{
	uint64_t hi = (uint64_t)(v >> 64);

	if (hi)
		return 128 - __builtin_clzll(hi);
	return (uint64_t)v ? 64 - __builtin_clzll((uint64_t)v) : 0;
}

/*
 * |v| * 10^p, rounded to nearest with ties to even (what glibc prints in
 * the default rounding mode), from the bits of a finite double v.  A double
 * is m * 2^e exactly, so |v| * 10^p = m * 5^p * 2^(e+p): a 128-bit product
 * and a shift.  Returns false for what does not fit in 128 bits.
 */
static inline __attribute__((always_inline)) bool
fixed_scaled(uint64_t bits, int p, u128 *q)
{
	unsigned bexp = (unsigned)(bits >> 52) & 0x7ff;
	uint64_t m = bits & ((1ULL << 52) - 1);
	int e, shift;
	u128 n;

	if (bexp == 0) {
		e = -1074;
	} else {
		m |= 1ULL << 52;
		e = (int)bexp - 1075;
	}
	n = (u128)m * pow5(p);	/* < 2^53 * 2^63 */
	shift = e + p;
	if (n == 0) {
		*q = 0;
	} else if (shift >= 0) {
		if (u128_bits(n) + shift > 127)
			return false;
		*q = n << shift;
	} else if (-shift >= 128) {
		*q = 0;		/* n < 2^116: below half of the last unit */
	} else {
		u128 r = n & (((u128)1 << -shift) - 1);
		u128 half = (u128)1 << (-shift - 1);

		*q = n >> -shift;
		if (r > half || (r == half && (*q & 1)))
			(*q)++;
	}
	return true;
}

/* Sign, integer digits, point and p decimals into out, from the ndig
 * digits at d; returns the length. */
static inline __attribute__((always_inline)) size_t
fixed_text(char *out, bool negative, const char *d, size_t ndig, int p,
	   struct bp_printf_spec spec)
{
	size_t nint = ndig - (size_t)p;
	char *w = out;

	if (negative)
		*w++ = '-';
	else if (spec.flags & BP_FLAG_PLUS)
		*w++ = '+';
	else if (spec.flags & BP_FLAG_SPACE)
		*w++ = ' ';
	memcpy(w, d, nint);
	w += nint;
	if (p > 0 || (spec.flags & BP_FLAG_ALT))
		*w++ = '.';
	memcpy(w, d + nint, (size_t)p);
	w += p;
	return (size_t)(w - out);
}

/* The text of a number padded to the field width: '0' pads after the sign. */
static inline __attribute__((always_inline)) void
emit_fixed_padded(struct bp_sink *o, const char *out, size_t len, struct bp_printf_spec spec)
{
	size_t pad = width_of(spec) > len ? width_of(spec) - len : 0;
	size_t zeros = 0;

	if (!(spec.flags & BP_FLAG_LEFT) && (spec.flags & BP_FLAG_ZERO)) {
		zeros = pad;
		pad = 0;
	}
	if (!(spec.flags & BP_FLAG_LEFT))
		sink_fill(o, ' ', pad);
	if (zeros) {
		size_t sign = out[0] == '-' || out[0] == '+' || out[0] == ' ';

		sink_bytes(o, out, sign);
		sink_fill(o, '0', zeros);
		sink_bytes(o, out + sign, len - sign);
	} else {
		sink_bytes(o, out, len);
	}
	if (spec.flags & BP_FLAG_LEFT)
		sink_fill(o, ' ', pad);
}

/*
 * %f and %F of a finite double, without the C library (fixed_scaled() says
 * how).  Returns false, having printed nothing, for what does not fit in
 * 128 bits (huge values, a precision above FIXED_MAX_PRECISION), and for
 * infinities and NaNs.
 */
static bool emit_fixed(struct bp_sink *o, double v, struct bp_printf_spec spec)
{
	static const uint64_t e19 = 10000000000000000000ULL;
	int p = spec.precision < 0 ? 6 : spec.precision;
	uint64_t bits;
	unsigned bexp;
	u128 q;
	char dig[64], out[72];
	char *d = dig + sizeof(dig);
	size_t ndig, len;

	memcpy(&bits, &v, sizeof(bits));
	bexp = (unsigned)(bits >> 52) & 0x7ff;
	if (bexp == 0x7ff || p > FIXED_MAX_PRECISION)
		return false;
	if (!fixed_scaled(bits, p, &q))
		return false;

	/* The digits of q, at least p + 1 of them. */
	while (q >= e19) {
		uint64_t chunk = (uint64_t)(q % e19);
		char *stop = d - 19;

		q /= e19;
		d = format_digits(d, chunk, 10, false);
		while (d > stop)
			*--d = '0';
	}
	d = format_digits(d, (uint64_t)q, 10, false);
	while ((size_t)(dig + sizeof(dig) - d) < (size_t)p + 1)
		*--d = '0';
	ndig = (size_t)(dig + sizeof(dig) - d);

	len = fixed_text(out, bits >> 63, d, ndig, p, spec);
	emit_fixed_padded(o, out, len, spec);
	return true;
}
#else
static bool emit_fixed(struct bp_sink *o, double v, struct bp_printf_spec spec)
{
	(void)o;
	(void)v;
	(void)spec;
	return false;
}
#endif

void bp_emit_double(struct bp_sink *o, double v, const struct bp_printf_spec *sp)
{
	struct bp_printf_spec spec = *sp;

	if ((spec.conv == 'f' || spec.conv == 'F') && emit_fixed(o, v, spec))
		return;
	sink_float(o, spec, false, v, 0);
}

void bp_emit_ldouble(struct bp_sink *o, long double v, const struct bp_printf_spec *sp)
{
	struct bp_printf_spec spec = *sp;
	sink_float(o, spec, true, 0, v);
}
