/*
 * Internal to the printf engine: the decoder's fast half, inline.
 *
 * bp_format_decode() is the one decoder; bp_decode() is the same function
 * for the engine's own users, with the tokens that need no parsing (a
 * literal run, the end of the format) handled in line and everything else
 * passed to bp_format_decode().  A format's literal runs and its end are
 * most of its tokens, and a call per token is most of their cost.
 */
#ifndef BP_FORMAT_DECODE_H
#define BP_FORMAT_DECODE_H

#include <bprint/format.h>

#include <stdint.h>
#include <string.h>

/*
 * The end of a literal run: the next '%' or the NUL.  Most runs in trace
 * formats are short, and for those a call into the C library's vector scan
 * costs more than the scan itself.  So: eight bytes at a time while they
 * lie inside the current page (a read that stays in a page holding the
 * format cannot fault, even past the NUL: every C library's strlen relies
 * on it), then the C library for long runs.  Sanitizers would report the
 * bytes after the NUL, so their builds use the C library only.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BP_SCAN_LIBC_ONLY 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
	__has_feature(memory_sanitizer)
#define BP_SCAN_LIBC_ONLY 1
#endif
#endif

#if defined(BP_SCAN_LIBC_ONLY) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
static inline const char *bp_scan_literal(const char *p)
{
	return strchrnul(p, '%');
}
#else
#define SCAN_PAGE 4096	/* the smallest page size of the targets */

static inline const char *bp_scan_literal(const char *p)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	const uint64_t percents = ones * '%';

	for (int i = 0; i < 8 && ((uintptr_t)p & (SCAN_PAGE - 1)) <= SCAN_PAGE - 8; i++, p += 8) {
		uint64_t v, x, hit;

		memcpy(&v, p, 8);
		x = v ^ percents;
		/*
		 * The high bit of each zero byte of v (a NUL) and of x (a '%');
		 * bits above the first may be false, never bits below it, so
		 * on a little-endian machine the lowest set bit is the byte.
		 */
		hit = ((v - ones) & ~v & highs) | ((x - ones) & ~x & highs);
		if (hit)
			return p + (__builtin_ctzll(hit) >> 3);
	}
	return strchrnul(p, '%');
}
#endif

/* A new token: nothing decoded yet. */
static inline void bp_spec_reset(struct bp_printf_spec *spec)
{
	*spec = (struct bp_printf_spec){ .type = BP_FMT_NONE, .base = 10, .precision = -1 };
}

/* bp_format_decode(), exactly. */
static inline int bp_decode(const char *fmt, struct bp_printf_spec *spec)
{
	if (*fmt != '%' && spec->type != BP_FMT_WIDTH && spec->type != BP_FMT_PRECISION) {
		bp_spec_reset(spec);
		if (*fmt == '\0')
			return 0;
		spec->type = BP_FMT_LITERAL;
		return (int)(bp_scan_literal(fmt) - fmt);
	}
	return bp_format_decode(fmt, spec);
}

#endif /* BP_FORMAT_DECODE_H */
