/*
 * bp_bstr_printf(): the read-time user of the decoder.  The block may come
 * from a file or a crashed process, so it is untrusted: every read is
 * bounded by the block's end (block_get*), and the first read that fails
 * turns the rest of the output into literal text only.
 */
#include "format/block.h"
#include "format/emit.h"

#include <limits.h>

static int32_t get_i32(const unsigned char *p)
{
	int32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get_int(const unsigned char *p, size_t bytes)
{
	uint32_t v32;
	uint64_t v64;

	if (bytes == 4) {
		memcpy(&v32, p, 4);
		return (uint64_t)(int64_t)(int32_t)v32;
	}
	memcpy(&v64, p, 8);
	return v64;
}

/*
 * Emit one argument-reading token from the block.  Returns false if the
 * block ends before the argument does.
 */
static bool emit_from_block(struct bp_sink *o, struct bp_block_in *b,
			    struct bp_printf_spec *spec)
{
	const unsigned char *p;
	const char *s;
	size_t bytes;
	bool negative;
	uint64_t v;
	double d;
	long double ld;

	switch (spec->type) {
	case BP_FMT_WIDTH:
		if (!(p = block_get(b, 4, 4)))
			return false;
		bp_spec_set_width(spec, get_i32(p));
		return true;
	case BP_FMT_PRECISION:
		if (!(p = block_get(b, 4, 4)))
			return false;
		bp_spec_set_precision(spec, get_i32(p));
		return true;
	case BP_FMT_INT:
		bytes = bp_int_bytes(spec->length);
		if (!(p = block_get(b, bytes, 4)))
			return false;
		v = bp_int_reduce(get_int(p, bytes), *spec, &negative);
		bp_emit_number(o, v, negative, *spec);
		return true;
	case BP_FMT_CHAR:
		if (!(p = block_get(b, 1, 1)))
			return false;
		bp_emit_char(o, *p, *spec);
		return true;
	case BP_FMT_STR:
		if (!(s = block_get_string(b)))
			return false;
		bp_emit_string(o, s, *spec);
		return true;
	case BP_FMT_PTR:
		if (!(p = block_get(b, 8, 4)))
			return false;
		bp_emit_pointer(o, (uintptr_t)get_int(p, 8), *spec);
		return true;
	case BP_FMT_FLOAT:
		if (spec->length == BP_LEN_LDOUBLE) {
			if (!(p = block_get(b, BP_LDOUBLE_BYTES, 4)))
				return false;
			ld = 0;
			memcpy(&ld, p, BP_LDOUBLE_BYTES);
			bp_emit_ldouble(o, ld, *spec);
		} else {
			if (!(p = block_get(b, 8, 4)))
				return false;
			memcpy(&d, p, 8);
			bp_emit_double(o, d, *spec);
		}
		return true;
	default:	/* %n stores nothing */
		return true;
	}
}

/*
 * A pointer extension: "%p" followed by one of the hook's letters prints
 * the hook's text for the address (padded to the field width like a
 * string) and consumes the letter.  Returns false if the block is short.
 */
static bool emit_pointer_ext(struct bp_sink *o, struct bp_block_in *b, struct bp_printf_spec spec,
			     char letter, const struct bp_pointer_hook *hook)
{
	const unsigned char *p = block_get(b, 8, 4);
	char text[256];

	if (!p)
		return false;
	text[0] = '\0';
	hook->print(hook->ctx, letter, get_int(p, 8), text, sizeof(text));
	text[sizeof(text) - 1] = '\0';
	spec.precision = -1;
	bp_emit_string(o, text, spec);
	return true;
}

static bool is_hooked(const struct bp_pointer_hook *hook, const struct bp_printf_spec *spec,
		      char next)
{
	return hook && spec->type == BP_FMT_PTR && next && hook->letters &&
	       strchr(hook->letters, next);
}

int bp_bstr_printf_ext(char *buf, size_t size, const char *fmt, const uint32_t *bin,
		       size_t words, const struct bp_pointer_hook *hook)
{
	struct bp_sink o = { .buf = buf, .size = size, .pos = 0 };
	struct bp_block_in b = { .base = (const unsigned char *)bin, .len = bin ? words * 4 : 0 };
	struct bp_printf_spec spec = { 0 };
	bool bad = false;

	for (;;) {
		const char *token = fmt;
		int n = bp_format_decode(fmt, &spec);
		bool ok;

		fmt += n;
		if (sink_plain_token(&o, &spec, token, n))
			continue;
		if (spec.type == BP_FMT_NONE) {
			int r = bp_sink_finish(&o);

			return bad ? -1 : r;
		}
		if (is_hooked(hook, &spec, *fmt)) {
			ok = bad || emit_pointer_ext(&o, &b, spec, *fmt, hook);
			fmt++;
		} else {
			ok = bad || emit_from_block(&o, &b, &spec);
		}
		if (!ok) {
			bad = true;
			sink_bytes(&o, BP_BSTR_BAD_BLOCK, sizeof(BP_BSTR_BAD_BLOCK) - 1);
		}
	}
}

int bp_bstr_printf(char *buf, size_t size, const char *fmt, const uint32_t *bin, size_t words)
{
	return bp_bstr_printf_ext(buf, size, fmt, bin, words, NULL);
}
