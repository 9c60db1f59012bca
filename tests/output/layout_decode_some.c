/*
 * bp_site_layout_decode_some() (src/reader/site_layout.c), the decode of
 * some fields that `bprint hist` uses per record, against the full decode,
 * bp_site_layout_decode(), on every layout of a corpus of formats: blocks
 * packed by the writer's own helpers (format/block.h) from random values,
 * then damaged (cut short, a word too many, a string's NUL gone, a byte
 * changed, a NUL put in at each byte, every NUL gone).  For every block
 * and every set of wanted fields (all of them
 * for up to 8 fields, else a sample) the two must agree: the same return,
 * the wanted values the same, and nothing written but the wanted fields.
 */
#define CHECK_KEEP_GOING 20
#include "check.h"

#include "reader/site_layout.h"
#include "format/block.h"

#include <bprint.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long compared;


/* Strings, chars, floats, stars and their mixes: whatever aligns or not. */
static const char *const corpus[] = {
	"cmd %s argc %d dur_us %lld",
	"begin req %u cmd %s",
	"end req %u cmd %s dur_us %lld",
	"dur_us=%lld",
	"%d",
	"%c",
	"%c%c%c%d",
	"c=%c s=%s p=%p",
	"%s",
	"%s%s%s",
	"%s%c%lld%c%s%hhd",
	"a%hhd b%hhu c%hd d%hu e%ld f%lu g%lld h%llx i%jd j%zu k%zd l%td",
	"f=%f F=%F e=%e E=%E g=%g G=%G a=%a A=%A L=%Lf",
	"%Lf %c %Lf %s %Lf",
	"at %pS caller %ps n=%d",
	"x=%*d",
	"name %*s",
	"name %.*s",
	"%*.*f",
	"%*d|%.*s|%-*.*x %n%c",
	"%c%.*s%c%*s%d",
	"a=%d%n b=%d",
	"load %d%% cpu %% %u",
	"%*% v=%d",
	"q=%y r=%d",
	"no conversions at all",
	"%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
	"%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d",
	"%s %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
	"%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %lld",
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

/* A block for l's fields from random values: strings of 0 to 40 bytes
 * (past the in-line scan of block_get_string() too). */
static size_t pack(const struct bp_site_layout *l, uint32_t *bin, size_t cap_words)
{
	struct bp_block_out b = { .base = (unsigned char *)bin, .cap = cap_words * 4 };

	for (unsigned i = 0; i < l->pub.nfields; i++) {
		char s[48];
		size_t n;

		switch (l->slot[i]) {
		case BP_ARG_STR:
		case BP_ARG_STR_STAR:
			n = next() % 41;
			for (size_t k = 0; k < n; k++)
				s[k] = (char)(1 + next() % 255);
			s[n] = '\0';
			block_put_string(&b, s, -1);
			break;
		case BP_ARG_CHAR:
			block_put_char(&b, (unsigned char)next());
			break;
		case BP_ARG_INT32:
			block_put32(&b, (uint32_t)next());
			break;
		case BP_ARG_LDOUBLE:
			block_put_ldouble(&b, (long double)(int64_t)next() / 7);
			break;
		default:	/* the 64-bit slots, %p, double */
			block_put64(&b, next());
			break;
		}
	}
	return block_finish(&b);
}

static bool same_value(const struct bp_field_value *a, const struct bp_field_value *b)
{
	return a->v.u == b->v.u && a->s == b->s && a->len == b->len;
}

/* One block against one wanted set, with room for n values. */
static void compare(const char *fmt, const struct bp_site_layout *l, const uint32_t *bin,
		    size_t words, uint32_t wanted, size_t n)
{
	struct bp_field_value full[BP_PLAN_MAX_ARGS], some[BP_PLAN_MAX_ARGS], poison;
	int rf, rs;

	memset(&poison, 0xa5, sizeof(poison));
	for (unsigned i = 0; i < BP_PLAN_MAX_ARGS; i++)
		some[i] = poison;
	rf = bp_site_layout_decode(l, bin, words, full, n);
	rs = bp_site_layout_decode_some(l, bin, words, wanted, some, n);
	compared++;
	CHECK_MSG(rf == rs, "\"%s\" (%zu words, wanted %#x, n %zu): %d, the full decode %d", fmt, words,
	      wanted, n, rs, rf);
	for (unsigned i = 0; i < BP_PLAN_MAX_ARGS; i++) {
		bool want = i < n && i < l->pub.nfields && (wanted >> i & 1);

		if (want && rf >= 0)
			CHECK_MSG(same_value(&some[i], &full[i]), "\"%s\" field %u: not the full decode's",
			      fmt, i);
		if (!want)
			CHECK_MSG(!memcmp(&some[i], &poison, sizeof(poison)),
			      "\"%s\" field %u written, not wanted (%#x, n %zu)", fmt, i, wanted, n);
	}
}

/* Every wanted set of up to 8 fields, else the empty one, all, each field
 * alone and random ones; each with room for all values and for fewer. */
static void compare_all(const char *fmt, const struct bp_site_layout *l, const uint32_t *bin,
			size_t words)
{
	unsigned nf = l->pub.nfields;
	size_t room[] = { BP_PLAN_MAX_ARGS, nf, nf / 2, 0 };

	for (size_t r = 0; r < sizeof(room) / sizeof(room[0]); r++) {
		if (nf <= 8) {
			for (uint32_t m = 0; m < 1u << nf; m++)
				compare(fmt, l, bin, words, m, room[r]);
			compare(fmt, l, bin, words, UINT32_MAX, room[r]);
			continue;
		}
		compare(fmt, l, bin, words, 0, room[r]);
		compare(fmt, l, bin, words, UINT32_MAX, room[r]);
		for (unsigned i = 0; i < nf; i++)
			compare(fmt, l, bin, words, UINT32_C(1) << i, room[r]);
		for (int k = 0; k < 16; k++)
			compare(fmt, l, bin, words, (uint32_t)next(), room[r]);
	}
}

/* The block as packed, then damaged, each copied to a heap buffer of
 * exactly its size (a sanitizer sees any read past it). */
static void check_block(const char *fmt, const struct bp_site_layout *l, const uint32_t *bin,
			size_t words)
{
	uint32_t *copy = malloc((words + 1) * 4);

	memcpy(copy, bin, words * 4);
	compare_all(fmt, l, copy, words);
	for (size_t w = 0; w < words; w++) {	/* cut short */
		uint32_t *cut = malloc(w ? w * 4 : 1);

		memcpy(cut, bin, w * 4);
		compare_all(fmt, l, w ? cut : NULL, w);
		free(cut);
	}
	copy[words] = 0;			/* a word too many */
	compare_all(fmt, l, copy, words + 1);
	for (size_t k = 0; k < words * 4; k++) {	/* a NUL gone, a byte changed */
		unsigned char *p = (unsigned char *)copy, was = p[k];

		if (was == 0 || next() % 4 == 0) {
			p[k] = was ? (unsigned char)next() : 'x';
			compare_all(fmt, l, copy, words);
			p[k] = was;
		}
	}
	/* a NUL put in at every byte (a string cut early: its 8-byte scan
	 * must find the first NUL, wherever in its word), and every NUL of
	 * the block gone at once (the scan runs to the block's end) */
	for (size_t k = 0; k < words * 4; k++) {
		unsigned char *p = (unsigned char *)copy, was = p[k];

		if (was) {
			p[k] = 0;
			compare(fmt, l, copy, words, UINT32_MAX, BP_PLAN_MAX_ARGS);
			compare(fmt, l, copy, words, 0, BP_PLAN_MAX_ARGS);
			p[k] = was;
		}
	}
	{
		unsigned char *p = (unsigned char *)copy;

		for (size_t k = 0; k < words * 4; k++)
			if (!p[k])
				p[k] = 0x80;	/* high bit set: the zero test's carry case */
		compare_all(fmt, l, copy, words);
		for (size_t w = 1; w < words; w++)	/* and cut: no NUL at all */
			compare(fmt, l, copy, w, UINT32_MAX, BP_PLAN_MAX_ARGS);
	}
	free(copy);
}

/*
 * block_string_len() (the strings' scan, 8 bytes a load) against a byte
 * loop: blocks of 4 to 40 bytes, each in an allocation of exactly its
 * size, of bytes drawn from those a word-wise zero test gets wrong when
 * written carelessly (0, 1, 0x7f, 0x80, 0xff, a letter), from every start.
 */
static void check_string_len(void)
{
	static const unsigned char pick[] = { 0, 1, 0x7f, 0x80, 0xff, 'a', 'a', 'a' };

	for (size_t len = 4; len <= 40; len += 4) {
		for (int round = 0; round < 400; round++) {
			unsigned char *p = malloc(len);
			unsigned zeros = (unsigned)(next() % 4);	/* 0: one NUL in 8 */

			for (size_t k = 0; k < len; k++)
				p[k] = zeros ? pick[1 + next() % 7] : pick[next() % 8];
			for (unsigned z = 0; z < zeros; z++)
				p[next() % len] = 0;
			for (size_t at = 0; at <= len; at++) {
				size_t want = at, got = 12345;
				bool found, ok;

				while (want < len && p[want])
					want++;
				found = want < len;
				ok = block_string_len(p, len, at, &got);
				compared++;
				CHECK_MSG(ok == found && (!ok || got == want - at),
					  "block_string_len(%zu bytes, at %zu): %d %zu, a byte loop %d %zu",
					  len, at, ok, got, found, want - at);
			}
			free(p);
		}
	}
}

int main(void)
{
	uint32_t bin[256];

	check_string_len();

	for (size_t f = 0; f < sizeof(corpus) / sizeof(corpus[0]); f++) {
		struct bp_site_layout *l = bp_site_layout_new(1, BPRINT__SITE_PRINTK, corpus[f]);

		if (!l) {
			CHECK_MSG(0, "\"%s\": no layout", corpus[f]);
			continue;
		}
		for (int round = 0; round < 8; round++)
			check_block(corpus[f], l, bin, pack(l, bin, sizeof(bin) / 4));
		bp_site_layout_free(l);
	}
	{	/* a trace_puts() site: no fields, only the empty block */
		struct bp_site_layout *l = bp_site_layout_new(1, BPRINT__SITE_PUTS, "text");

		check_block("puts", l, bin, 0);
		bin[0] = 7;
		check_block("puts", l, bin, 1);
		bp_site_layout_free(l);
	}
	if (!check_failures)
		printf("decode_some: all passed (%zu formats, %lu comparisons)\n",
		       sizeof(corpus) / sizeof(corpus[0]), compared);
	return check_summary("decode_some");
}
