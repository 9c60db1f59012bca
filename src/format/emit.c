/*
 * Emit helpers: one conversion's text, from its value and its spec, into a
 * sink.  The rules are C11's as glibc implements them; the comments name
 * the corner each branch exists for.
 */
#include "format/emit.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

static inline void sink_fill(struct bp_sink *o, char c, size_t n)
{
	if (n == 0)
		return;
	if (o->pos < o->size) {
		size_t room = o->size - o->pos;

		memset(o->buf + o->pos, c, n < room ? n : room);
	}
	o->pos += n;
}

static size_t width_of(struct bp_printf_spec spec)
{
	return spec.field_width > 0 ? (size_t)spec.field_width : 0;
}

static const char two_digits[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* "00" .. "ff": two lower-case hex digits per byte value. */
static const char two_hex[513] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

static inline void put2(char *p, unsigned v)
{
	memcpy(p, two_digits + 2 * v, 2);
}

/* Exactly eight digits of v < 10^8, in 32-bit arithmetic, two chains at once. */
static inline void put8(char *p, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v % 10000;

	put2(p, hi / 100);
	put2(p + 2, hi % 100);
	put2(p + 4, lo / 100);
	put2(p + 6, lo % 100);
}

/* Digits of v in base 8, 10 or 16, written backwards ending at end. */
static inline __attribute__((always_inline)) char *
format_digits(char *end, uint64_t v, unsigned base, bool upper)
{
	const char *hex = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char *p = end;

	if (base == 10) {
		uint32_t x;

		while (v >= 100000000) {
			p -= 8;
			put8(p, (uint32_t)(v % 100000000));
			v /= 100000000;
		}
		x = (uint32_t)v;
		while (x >= 100) {
			p -= 2;
			put2(p, x % 100);
			x /= 100;
		}
		if (x >= 10) {
			p -= 2;
			put2(p, x);
		} else if (x > 0) {
			*--p = (char)('0' + x);
		}
	} else if (base == 16 && !upper) {
		for (; v >= 256; v >>= 8) {
			p -= 2;
			memcpy(p, two_hex + 2 * (v & 255), 2);
		}
		if (v >= 16) {
			p -= 2;
			memcpy(p, two_hex + 2 * v, 2);
		} else if (v > 0) {
			*--p = hex[v];
		}
	} else {
		unsigned shift = base == 16 ? 4 : 3;

		for (; v; v >>= shift)
			*--p = hex[v & (base - 1)];
	}
	return p;
}

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
