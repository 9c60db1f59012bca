/*
 * file/varint.h - the unsigned LEB128 varints and the zigzag map of the
 * compact (type 6) and dense (type 8) page entries (docs/file-format.md).
 * Inline, because both codecs spend most of their time here.  A varint is
 * at most 5 bytes; the decoder is told the largest 5th byte its field
 * allows (0x0f: 32 bits, 0x1f: 33 bits) and refuses anything longer.
 */
#ifndef BP_FILE_VARINT_H
#define BP_FILE_VARINT_H

#include <stdint.h>

#define BP_VARINT_MAX		5u	/* bytes */
#define BP_VARINT_LAST32	0x0fu	/* largest 5th byte of a 32-bit field */
#define BP_VARINT_LAST33	0x1fu	/* of a 33-bit field */

static inline unsigned char *bp_varint_put(unsigned char *o, uint64_t v)
{
	if (__builtin_expect(v < 0x80, 1)) {
		*o = (unsigned char)v;
		return o + 1;
	}
	while (v >= 0x80) {
		*o++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*o++ = (unsigned char)v;
	return o;
}

/* bp_varint_put() of a 32-bit value, unrolled: no loop-carried branch. */
static inline unsigned char *bp_varint_put32(unsigned char *o, uint32_t v)
{
	if (v < 1u << 7) {
		o[0] = (unsigned char)v;
		return o + 1;
	}
	o[0] = (unsigned char)(v | 0x80);
	if (v < 1u << 14) {
		o[1] = (unsigned char)(v >> 7);
		return o + 2;
	}
	o[1] = (unsigned char)(v >> 7 | 0x80);
	if (v < 1u << 21) {
		o[2] = (unsigned char)(v >> 14);
		return o + 3;
	}
	o[2] = (unsigned char)(v >> 14 | 0x80);
	if (v < 1u << 28) {
		o[3] = (unsigned char)(v >> 21);
		return o + 4;
	}
	o[3] = (unsigned char)(v >> 21 | 0x80);
	o[4] = (unsigned char)(v >> 28);
	return o + 5;
}

/* A varint from [*in, end) into *v: 0, or -1 if it is cut or too long. */
static inline int bp_varint_get(const unsigned char **in, const unsigned char *end, uint64_t *v,
				unsigned last_max)
{
	const unsigned char *p = *in;
	uint64_t x = 0;

	if (__builtin_expect(p != end && *p < 0x80, 1)) {
		*v = *p;
		*in = p + 1;
		return 0;
	}
	for (unsigned shift = 0; shift < 7 * BP_VARINT_MAX; shift += 7) {
		uint64_t b;

		if (p == end)
			return -1;
		b = *p++;
		if (shift == 7 * (BP_VARINT_MAX - 1) && b > last_max)
			return -1;	/* more bits than the field, or a 6th byte */
		x |= (b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*in = p;
			*v = x;
			return 0;
		}
	}
	return -1;
}

static inline uint32_t bp_zigzag(uint32_t d)
{
	return d << 1 ^ (uint32_t)-(d >> 31);
}

static inline uint32_t bp_unzigzag(uint32_t z)
{
	return z >> 1 ^ (uint32_t)-(z & 1);
}

#endif /* BP_FILE_VARINT_H */
