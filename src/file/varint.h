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
#include <string.h>

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

/* bp_varint_get() of a field of bits bits (32, or 33 for a dense tag),
 * called as bp_varint_get8() is: the varint's end, or NULL. */
static inline const unsigned char *bp_varint_get_bits(const unsigned char *p,
						      const unsigned char *end, uint64_t *v,
						      unsigned bits)
{
	return bp_varint_get(&p, end, v, bits == 32 ? BP_VARINT_LAST32 : BP_VARINT_LAST33) ? NULL
											 : p;
}

/*
 * bp_varint_get() of a field of bits bits (32, or 33 for a dense tag) for a
 * decoder that has proved at least 8 bytes readable from p, and so a whole
 * varint before its end: no end check and no loop.  One load; a branch a
 * length, each with its constant step, so that a predicted length lets the
 * next varint's load start at once (a length computed from the bytes
 * would chain every varint's load to the one before).  Returns the
 * varint's end, or NULL where bp_varint_get() returns -1: a 5th byte with
 * bit 7, or above 0x0f for 32 bits (0x1f for 33), bits past the field's.
 */
static inline const unsigned char *bp_varint_get8(const unsigned char *p, uint64_t *v,
						   unsigned bits)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	if (__builtin_expect(!(w & 0x80), 1)) {
		*v = w & 0x7f;
		return p + 1;
	}
	if (!(w & 0x8000)) {
		*v = (w & 0x7f) | (w >> 1 & 0x3f80);
		return p + 2;
	}
	if (!(w & 0x800000)) {
		*v = (w & 0x7f) | (w >> 1 & 0x3f80) | (w >> 2 & 0x1fc000);
		return p + 3;
	}
	if (!(w & 0x80000000)) {
		*v = (w & 0x7f) | (w >> 1 & 0x3f80) | (w >> 2 & 0x1fc000) | (w >> 3 & 0xfe00000);
		return p + 4;
	}
	if ((w >> 32 & 0xff) >> (bits - 28))
		return NULL;	/* a 6th byte (bit 7 set), or bits past the field's */
	*v = (w & 0x7f) | (w >> 1 & 0x3f80) | (w >> 2 & 0x1fc000) | (w >> 3 & 0xfe00000) |
	     (w >> 4 & 0xff0000000ull);
	return p + 5;
#else
	return bp_varint_get_bits(p, p + BP_VARINT_MAX, v, bits);
#endif
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
