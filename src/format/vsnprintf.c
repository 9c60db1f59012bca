/*
 * bp_vsnprintf(): the first user of the decoder, arguments from a va_list;
 * and bp_words_snprintf(), the same loop with its arguments as words
 * (format/words.h).  One loop, inlined for each source, so that the two
 * cannot print differently.
 */
#include "format/decode.h"
#include "format/emit.h"
#include "format/words.h"

/* Where the arguments come from: a va_list, or words (ap NULL). */
struct arg_source {
	va_list *ap;
	const uint64_t *words;
	size_t left;		/* words not yet taken */
	uint64_t ldouble;	/* which words hold a long double's address, bit 0 the first */
};

/*
 * The next word; 0 once they have run out (a caller's miscount, never a
 * read past them).  *is_ld: the word is a long double's address, which
 * only take_ldouble() uses (any other conversion gets 0 for it).
 */
static inline uint64_t next_word_ld(struct arg_source *src, bool *is_ld)
{
	uint64_t w;

	*is_ld = false;
	if (src->left == 0)
		return 0;
	src->left--;
	w = *src->words++;
	*is_ld = src->ldouble & 1u;
	src->ldouble >>= 1;
	return w;
}

static inline uint64_t next_word(struct arg_source *src)
{
	bool is_ld;
	uint64_t w = next_word_ld(src, &is_ld);

	return is_ld ? 0 : w;
}

static inline int32_t take_int(struct arg_source *src)
{
	return src->ap ? va_arg(*src->ap, int) : (int32_t)(uint32_t)next_word(src);
}

/* A %d-style value as BP_VA_INT() fetches it: 4-byte ones sign-extended. */
static inline uint64_t take_integer(struct arg_source *src, uint8_t length)
{
	if (src->ap)
		return BP_VA_INT(*src->ap, length);
	return bp_int_bytes(length) == 4 ? (uint64_t)(int64_t)(int32_t)(uint32_t)next_word(src)
					 : next_word(src);
}

static inline const void *take_pointer(struct arg_source *src)
{
	return src->ap ? va_arg(*src->ap, void *) : (const void *)(uintptr_t)next_word(src);
}

static inline double take_double(struct arg_source *src)
{
	uint64_t bits;
	double d;

	if (src->ap)
		return va_arg(*src->ap, double);
	bits = next_word(src);
	memcpy(&d, &bits, sizeof(d));
	return d;
}

/* A long double travels as its address, in a word its mask marks; any other word gives 0. */
static inline long double take_ldouble(struct arg_source *src)
{
	bool is_ld;
	uint64_t w;

	if (src->ap)
		return va_arg(*src->ap, long double);
	w = next_word_ld(src, &is_ld);
	return is_ld && w ? *(const long double *)(uintptr_t)w : 0;
}

static inline __attribute__((always_inline)) int
format_loop(char *buf, size_t size, const char *fmt, struct arg_source *src)
{
	struct bp_sink o = { .buf = buf, .size = size, .pos = 0 };
	struct bp_printf_spec spec = { 0 };
	bool negative;
	uint64_t v;

	for (;;) {
		const char *token = fmt;
		int n = bp_decode(fmt, &spec);

		fmt += n;
		if (sink_plain_token(&o, &spec, token, n))
			continue;
		switch (spec.type) {
		case BP_FMT_NONE:
			return bp_sink_finish(&o);
		case BP_FMT_WIDTH:
			bp_spec_set_width(&spec, take_int(src));
			break;
		case BP_FMT_PRECISION:
			bp_spec_set_precision(&spec, take_int(src));
			break;
		case BP_FMT_INT:
			v = bp_int_reduce(take_integer(src, spec.length), spec, &negative);
			bp_emit_number(&o, v, negative, &spec);
			break;
		case BP_FMT_CHAR:
			bp_emit_char(&o, (unsigned char)take_int(src), &spec);
			break;
		case BP_FMT_STR:
			bp_emit_string(&o, take_pointer(src), &spec);
			break;
		case BP_FMT_PTR:
			bp_emit_pointer(&o, (uintptr_t)take_pointer(src), &spec);
			break;
		case BP_FMT_FLOAT:
			if (spec.length == BP_LEN_LDOUBLE)
				bp_emit_ldouble(&o, take_ldouble(src), &spec);
			else
				bp_emit_double(&o, take_double(src), &spec);
			break;
		case BP_FMT_NRCHARS:
			(void)take_pointer(src);	/* never written through */
			break;
		default:
			break;
		}
	}
}

int bp_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	va_list aq;	/* a va_list parameter may be an array's pointer: take a copy's address */
	struct arg_source src = { .ap = &aq };
	int n;

	va_copy(aq, ap);
	n = format_loop(buf, size, fmt, &src);
	va_end(aq);
	return n;
}

int bp_words_snprintf(char *buf, size_t size, const char *fmt, const uint64_t *words, size_t n,
		      uint64_t ldouble)
{
	struct arg_source src = { .ap = NULL, .words = words, .left = n, .ldouble = ldouble };

	return format_loop(buf, size, fmt, &src);
}

int bp_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = bp_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
