/*
 * bp_bstr_printf(): the read-time user of the decoder.  The block may come
 * from a file or a crashed process, so it is untrusted: every read is
 * bounded by the block's end (block_get*), and the first read that fails
 * turns the rest of the output into literal text only.
 */
#include "format/block.h"
#include "format/decode.h"
#include "format/emit.h"

#include <limits.h>
#include <stdlib.h>

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
static inline __attribute__((always_inline)) bool
emit_from_block(struct bp_sink *o, struct bp_block_in *b, struct bp_printf_spec *spec)
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
		bp_emit_number(o, v, negative, spec);
		return true;
	case BP_FMT_CHAR:
		if (!(p = block_get(b, 1, 1)))
			return false;
		bp_emit_char(o, *p, spec);
		return true;
	case BP_FMT_STR:
		if (!(s = block_get_string(b, &bytes)))
			return false;
		bp_emit_string_n(o, s, bytes, spec);
		return true;
	case BP_FMT_PTR:
		if (!(p = block_get(b, 8, 4)))
			return false;
		bp_emit_pointer(o, (uintptr_t)get_int(p, 8), spec);
		return true;
	case BP_FMT_FLOAT:
		if (spec->length == BP_LEN_LDOUBLE) {
			if (!(p = block_get(b, BP_LDOUBLE_BYTES, 4)))
				return false;
			ld = 0;
			memcpy(&ld, p, BP_LDOUBLE_BYTES);
			bp_emit_ldouble(o, ld, spec);
		} else {
			if (!(p = block_get(b, 8, 4)))
				return false;
			memcpy(&d, p, 8);
			bp_emit_double(o, d, spec);
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
	bp_emit_string(o, text, &spec);
	return true;
}

static bool is_hooked(const struct bp_pointer_hook *hook, const struct bp_printf_spec *spec,
		      char next)
{
	return hook && spec->type == BP_FMT_PTR && next && hook->letters &&
	       strchr(hook->letters, next);
}

/*
 * One argument-reading token, the same for the decoding and the parsed
 * loops.  next is the format character after the token (for the hook).
 * Returns false once the block has run out; after that only literal text
 * prints.
 */
static inline __attribute__((always_inline)) bool
emit_token(struct bp_sink *o, struct bp_block_in *b, struct bp_printf_spec *spec,
	   const char *next, const struct bp_pointer_hook *hook, bool *bad)
{
	bool hooked = is_hooked(hook, spec, *next);
	bool ok;

	if (*bad)
		return hooked;
	if (hooked)
		ok = emit_pointer_ext(o, b, *spec, *next, hook);
	else
		ok = emit_from_block(o, b, spec);
	if (!ok) {
		*bad = true;
		sink_bytes(o, BP_BSTR_BAD_BLOCK, sizeof(BP_BSTR_BAD_BLOCK) - 1);
	}
	return hooked;	/* the letter is consumed, bad block or not */
}

/* The decoding loop; inlined twice, so that without a hook no hook is tested. */
static inline __attribute__((always_inline)) int
bstr_loop(char *buf, size_t size, const char *fmt, const uint32_t *bin, size_t words,
	  const struct bp_pointer_hook *hook)
{
	struct bp_sink o = { .buf = buf, .size = size, .pos = 0 };
	struct bp_block_in b = { .base = (const unsigned char *)bin, .len = bin ? words * 4 : 0 };
	struct bp_printf_spec spec = { 0 };
	bool bad = false;

	for (;;) {
		const char *token = fmt;
		int n = bp_decode(fmt, &spec);

		fmt += n;
		if (sink_plain_token(&o, &spec, token, n))
			continue;
		if (spec.type == BP_FMT_NONE) {
			int r = bp_sink_finish(&o);

			return bad ? -1 : r;
		}
		if (emit_token(&o, &b, &spec, fmt, hook, &bad))
			fmt++;
	}
}

int bp_bstr_printf_ext(char *buf, size_t size, const char *fmt, const uint32_t *bin,
		       size_t words, const struct bp_pointer_hook *hook)
{
	return bstr_loop(buf, size, fmt, bin, words, hook);
}

int bp_bstr_printf(char *buf, size_t size, const char *fmt, const uint32_t *bin, size_t words)
{
	return bstr_loop(buf, size, fmt, bin, words, NULL);
}

/*
 * Parsed formats: the decoder's tokens kept, so that a reader formatting
 * many records of one call site decodes its format once.  A '*' token's
 * value goes to the conversion that follows it, which is what the decoding
 * loop does by resuming with the same spec.
 */
struct bp_parsed_token {
	struct bp_printf_spec spec;
	uint32_t offset, len;	/* the token's text in the format */
};

struct bp_parsed_format {
	char *fmt;		/* a copy */
	size_t ntokens;
	struct bp_parsed_token tok[];
};

struct bp_parsed_format *bp_format_parse(const char *fmt)
{
	struct bp_printf_spec spec = { 0 };
	struct bp_parsed_format *pf, *shrunk;
	size_t len = strlen(fmt), n = 0;

	/* At most one token per format character, plus the end. */
	pf = malloc(sizeof(*pf) + (len + 1) * sizeof(pf->tok[0]));
	if (!pf)
		return NULL;
	pf->fmt = strdup(fmt);
	if (!pf->fmt) {
		free(pf);
		return NULL;
	}
	for (const char *p = pf->fmt;; n++) {
		int used = bp_format_decode(p, &spec);

		pf->tok[n] = (struct bp_parsed_token){ spec, (uint32_t)(p - pf->fmt), (uint32_t)used };
		if (spec.type == BP_FMT_NONE)
			break;
		p += used;
	}
	pf->ntokens = n + 1;
	shrunk = realloc(pf, sizeof(*pf) + pf->ntokens * sizeof(pf->tok[0]));
	return shrunk ? shrunk : pf;
}

void bp_format_parsed_free(struct bp_parsed_format *pf)
{
	if (pf) {
		free(pf->fmt);
		free(pf);
	}
}

int bp_bstr_printf_parsed(char *buf, size_t size, const struct bp_parsed_format *pf,
			  const uint32_t *bin, size_t words, const struct bp_pointer_hook *hook)
{
	struct bp_sink o = { .buf = buf, .size = size, .pos = 0 };
	struct bp_block_in b = { .base = (const unsigned char *)bin, .len = bin ? words * 4 : 0 };
	struct bp_printf_spec spec;
	int32_t star[2];	/* '*' width and precision for the next conversion */
	bool has_star[2] = { false, false };
	bool bad = false;
	bool skip_letter = false;

	for (size_t i = 0; i < pf->ntokens; i++) {
		const struct bp_parsed_token *t = &pf->tok[i];
		const char *text = pf->fmt + t->offset;

		spec = t->spec;
		if (skip_letter && t->len > 0) {
			/* a hook took the first character of this literal */
			skip_letter = false;
			if (spec.type == BP_FMT_LITERAL) {
				sink_bytes(&o, text + 1, t->len - 1);
				continue;
			}
		}
		if (sink_plain_token(&o, &spec, text, (int)t->len)) {
			/* "%*%": the '*' value belonged to this conversion */
			has_star[0] = has_star[1] = false;
			continue;
		}
		if (spec.type == BP_FMT_NONE)
			break;
		if (spec.type == BP_FMT_WIDTH || spec.type == BP_FMT_PRECISION) {
			const unsigned char *p = bad ? NULL : block_get(&b, 4, 4);
			int k = spec.type == BP_FMT_PRECISION;

			if (!p && !bad) {
				bad = true;
				sink_bytes(&o, BP_BSTR_BAD_BLOCK, sizeof(BP_BSTR_BAD_BLOCK) - 1);
			}
			if (p) {
				star[k] = get_i32(p);
				has_star[k] = true;
			}
			continue;
		}
		if (has_star[0])
			bp_spec_set_width(&spec, star[0]);
		if (has_star[1])
			bp_spec_set_precision(&spec, star[1]);
		has_star[0] = has_star[1] = false;
		skip_letter = emit_token(&o, &b, &spec, text + t->len, hook, &bad);
	}
	{
		int r = bp_sink_finish(&o);

		return bad ? -1 : r;
	}
}
