/*
 * format/emit_digits.h - what the two halves of the emit helpers share:
 * emit.c (integers, strings, characters, pointers) and emit_float.c
 * (floating point).  Padding, the field width, and integer digits written
 * backwards, two at a time from tables.  Static inline, as they were in
 * emit.c, so that both halves keep them on their fast paths.
 */
#ifndef BP_FORMAT_EMIT_DIGITS_H
#define BP_FORMAT_EMIT_DIGITS_H

#include "format/emit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

static inline size_t width_of(struct bp_printf_spec spec)
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

#endif /* BP_FORMAT_EMIT_DIGITS_H */
