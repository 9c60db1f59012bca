/*
 * Internal to the printf engine: writing and reading binary argument blocks
 * (docs/binary-layout.md).  The writer is shared by bp_vbin_printf() and
 * bp_vbin_printf_plan(), so the two cannot drift apart; the reader is
 * bp_bstr_printf()'s and checks every access against the block's end.
 *
 * Writes past the capacity are skipped but still counted, so a writer can
 * always report the size the whole block needs.  Alignment gaps are zeroed,
 * so the same arguments always give the same bytes.
 */
#ifndef BP_FORMAT_BLOCK_H
#define BP_FORMAT_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <float.h>

#include "bprint/format.h"

struct bp_block_out {
	unsigned char *base;
	size_t cap;	/* bytes */
	size_t pos;
};

static inline void block_align4(struct bp_block_out *b)
{
	while (b->pos & 3) {
		if (b->pos < b->cap)
			b->base[b->pos] = 0;
		b->pos++;
	}
}

static inline void block_put(struct bp_block_out *b, const void *v, size_t n)
{
	if (b->pos + n <= b->cap)
		memcpy(b->base + b->pos, v, n);
	b->pos += n;
}

static inline void block_put32(struct bp_block_out *b, uint32_t v)
{
	block_align4(b);
	block_put(b, &v, 4);
}

static inline void block_put64(struct bp_block_out *b, uint64_t v)
{
	block_align4(b);
	block_put(b, &v, 8);
}

static inline void block_put_char(struct bp_block_out *b, unsigned char c)
{
	block_put(b, &c, 1);
}

/*
 * A long double: only its value bytes (10 for x87's 80-bit format), the
 * rest of the BP_LDOUBLE_BYTES zeroed, so padding never leaks into a block.
 */
static inline void block_put_ldouble(struct bp_block_out *b, long double v)
{
	unsigned char bytes[BP_LDOUBLE_BYTES] = { 0 };
#if LDBL_MANT_DIG == 64
	memcpy(bytes, &v, 10);
#else
	memcpy(bytes, &v, sizeof(v) < sizeof(bytes) ? sizeof(v) : sizeof(bytes));
#endif
	block_align4(b);
	block_put(b, bytes, BP_LDOUBLE_BYTES);
}

/* A %s: at most precision bytes (all if negative), then a NUL. */
static inline void block_put_string(struct bp_block_out *b, const char *s, int precision)
{
	size_t n = precision >= 0 ? strnlen(s, (size_t)precision) : strlen(s);

	if (b->pos + n + 1 <= b->cap) {
		memcpy(b->base + b->pos, s, n);
		b->base[b->pos + n] = '\0';
	}
	b->pos += n + 1;
}

/* Pad to a word and return the block's size in words. */
static inline size_t block_finish(struct bp_block_out *b)
{
	block_align4(b);
	return b->pos / 4;
}

struct bp_block_in {
	const unsigned char *base;
	size_t len;	/* bytes */
	size_t pos;
};

/* The next n bytes at the given alignment (1 or 4), or NULL if past the end. */
static inline const unsigned char *block_get(struct bp_block_in *b, size_t n, size_t align)
{
	size_t at = (b->pos + align - 1) & ~(align - 1);

	if (at > b->len || b->len - at < n)
		return NULL;
	b->pos = at + n;
	return b->base + at;
}

#define BLOCK_SHORT_STRING 16	/* bytes scanned in line before memchr() */

/* A NUL-terminated string that ends inside the block, or NULL; *len its
 * length.  Most are short: their first bytes are scanned here, where the
 * call of memchr() cost more than the scan. */
static inline const char *block_get_string(struct bp_block_in *b, size_t *len)
{
	const unsigned char *s, *nul;
	size_t left, k;

	if (b->pos >= b->len)
		return NULL;	/* before any pointer arithmetic: base may be NULL */
	s = b->base + b->pos;
	left = b->len - b->pos;
	for (k = 0; k < left && k < BLOCK_SHORT_STRING && s[k]; k++)
		;
	if (k < left && k < BLOCK_SHORT_STRING) {
		nul = s + k;
	} else if (!(nul = k < left ? memchr(s + k, '\0', left - k) : NULL)) {
		return NULL;
	}
	*len = (size_t)(nul - s);
	b->pos += *len + 1;
	return (const char *)s;
}

/* 0x80 in each byte of w that is zero, 0 in every other: exact per byte
 * (no carry from one byte into the next, as the shorter zero test has). */
static inline uint64_t block_zero_bytes(uint64_t w)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;

	return ~(((w & low7) + low7) | w | low7);
}

/*
 * The length of the NUL-terminated string at byte at of a block of len
 * bytes, false if no NUL lies in [at, len): block_get_string()'s answer,
 * found 8 bytes a load.  Every load stays inside [base, base + len): the
 * last bytes are read by the load that ends at len (its bytes before at
 * shifted out), and a block shorter than 8 bytes is scanned a byte at a
 * time.  What the analysis decode uses for a string it only steps over.
 */
static inline bool block_string_len(const unsigned char *base, size_t len, size_t at,
				    size_t *slen)
{
	size_t i = at;

	if (at >= len)
		return false;	/* before any pointer arithmetic: base may be NULL */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w, z;

	for (; len - i >= 8; i += 8) {
		memcpy(&w, base + i, 8);
		if ((z = block_zero_bytes(w))) {
			*slen = i - at + (size_t)__builtin_ctzll(z) / 8;
			return true;
		}
	}
	if (i == len)
		return false;
	if (len >= 8) {
		memcpy(&w, base + len - 8, 8);
		if (!(z = block_zero_bytes(w) >> (8 * (8 - (len - i)))))
			return false;
		*slen = i - at + (size_t)__builtin_ctzll(z) / 8;
		return true;
	}
#endif
	for (; i < len; i++)
		if (!base[i]) {
			*slen = i - at;
			return true;
		}
	return false;
}

#endif /* BP_FORMAT_BLOCK_H */
