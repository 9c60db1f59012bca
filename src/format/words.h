/*
 * Arguments as words: one uint64_t per argument the format consumes, in
 * format order, as a call site hands them over without a va_list
 * (include/bprint/internal.h, BPRINT__WORD): an integer's value (a 4-byte
 * one sign- or zero-extended as its type is), a double's bits, a
 * pointer's address, a string's address.  A long double cannot travel as
 * a word; a plan with one never gets here (bp_words_pack()), and the
 * text of one (bp_words_snprintf()) takes its address, in a word the
 * caller marks.
 *
 * bp_words_pack() makes from words the block that bp_vbin_printf_plan()
 * makes from a va_list, byte for byte, into a bounded destination, and
 * reads each string once: its length is found by copying it, bounded by
 * the precision and the room.  The string may be changing under it
 * (another thread's buffer, which is the caller's bug, not a reason to
 * write a record that does not decode): the copy ends at the first NUL
 * it took, so the block is always a valid one, holding a NUL-ended copy
 * of bytes the string held, never past its bound.
 *
 * bp_words_snprintf() is bp_vsnprintf() with its arguments as words: the
 * text of a record too long for the ring, or of a call with no plan.  The
 * n words are all it reads: a conversion past them prints 0 (a %s
 * "(null)").  Bit i of ldouble set: word i is the address of a long
 * double (for %Lf); any other conversion of that word prints 0.
 */
#ifndef BP_FORMAT_WORDS_H
#define BP_FORMAT_WORDS_H

#include "format/emit.h"

#include <bprint/format.h>	/* bprint__copy_string(), which call sites inline too */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define BP_WORDS_NO_ROOM UINT32_MAX

/*
 * Copy one %s into d: at most precision bytes (all if negative), then a
 * NUL, in at most room bytes.  Returns the bytes taken (the NUL
 * included), or 0 if the string and its NUL do not fit.  The call
 * site's own bprint__put_string_prec(), and the engine's text for a NULL
 * with a precision, which the call site leaves to this path.
 */
static inline uint32_t bp_words_put_string(unsigned char *d, uint32_t room, const char *s,
					   int32_t precision)
{
	size_t n;

	if (!s && precision >= 0) {
		s = bp_null_string(precision);	/* shorter than its precision, if any */
		n = strlen(s);
		if (n >= room)
			return 0;
		memcpy(d, s, n + 1);
		return (uint32_t)n + 1u;
	}
	return bprint__put_string_prec(d, room, s, precision);
}

/*
 * Pack words by plan into d (room bytes).  Returns the block's size in
 * bytes, a multiple of 4, or BP_WORDS_NO_ROOM when it does not fit (what
 * d holds then is undefined).
 */
__attribute__((always_inline))
static inline uint32_t bp_words_pack(unsigned char *d, uint32_t room,
				     const struct bp_arg_plan *plan, const uint64_t *words)
{
	unsigned n = plan->nargs;
	uint32_t pos = 0;
	int32_t star = -1;

	for (unsigned i = 0; i < n; i++) {
		const struct bp_arg_slot *slot = &plan->slot[i];
		uint64_t w = words[i];

		switch (slot->kind) {
		case BP_ARG_CHAR:
			if (pos >= room)
				return BP_WORDS_NO_ROOM;
			d[pos++] = (unsigned char)w;
			continue;
		case BP_ARG_STR:
		case BP_ARG_STR_STAR: {
			int32_t precision = slot->kind == BP_ARG_STR ? slot->precision : star;
			uint32_t took = bp_words_put_string(d + pos, room - pos,
							    (const char *)(uintptr_t)w,
							    precision < 0 ? -1 : precision);

			if (!took)
				return BP_WORDS_NO_ROOM;
			pos += took;
			continue;
		}
		case BP_ARG_SKIP:
			continue;
		case BP_ARG_LDOUBLE:
			return BP_WORDS_NO_ROOM;
		default:
			break;
		}
		/* the 4- and 8-byte slots, at 4-byte alignment, the gap zeroed */
		while (pos & 3u) {
			if (pos >= room)
				return BP_WORDS_NO_ROOM;
			d[pos++] = 0;
		}
		if (slot->kind == BP_ARG_INT32) {
			uint32_t v = (uint32_t)w;

			if (room - pos < 4u)
				return BP_WORDS_NO_ROOM;
			memcpy(d + pos, &v, 4);
			pos += 4;
			star = (int32_t)v;
		} else {
			if (room - pos < 8u)
				return BP_WORDS_NO_ROOM;
			memcpy(d + pos, &w, 8);
			pos += 8;
		}
	}
	while (pos & 3u) {
		if (pos >= room)
			return BP_WORDS_NO_ROOM;
		d[pos++] = 0;
	}
	return pos;
}

/* The text bp_vsnprintf() makes, from n words. */
int bp_words_snprintf(char *buf, size_t size, const char *fmt, const uint64_t *words, size_t n,
		      uint64_t ldouble);

#endif /* BP_FORMAT_WORDS_H */
