/*
 * The dense page decoder (src/file/dense.c) against the plain reading of
 * the rules (tests/file/dense_reference.h): on every entry, the same
 * verdict and, where both decode, the same page to the last byte.  The
 * decoder's fast paths skip the end check of each varint where the entry
 * has room for the longest coding of what they read, carry a loop's words
 * in registers and write a record's slot late; each is a place where it
 * could accept what the rules refuse, or refuse what they accept, so the
 * entries here are built to end, or go wrong, exactly there:
 *
 * - pages of the shapes bprint record streams (one site in a loop, two
 *   sites alternating, three sites, records of 8 to 64 bytes and longer,
 *   small and large differences, slots shared by two heads), encoded;
 * - every truncation of each entry, its enc made to match the cut, so
 *   that each cut reaches the record decoder (a cut varint, a cut record,
 *   records short of commit) at every distance from the end;
 * - bytes of each entry overwritten with varint-shaped values (0, 0x7f,
 *   0x80, continuation bytes, the largest 5th bytes a field allows and the
 *   smallest it refuses), one or a few at a time;
 * - entries whose records are random varints of 1 to 6 bytes.
 *
 * Each entry is decoded from an allocation of exactly its length into a
 * page of exactly page_size bytes: under the address sanitizer any read
 * past the entry fails.  BPRINT_TEST_QUICK=1 cuts the counts.
 */
#include "file/dense.h"
#include "file/dense_reference.h"
#include "ring/ring.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_KEEP_GOING 10
#include "check.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static unsigned long entries, decoded;

/* Decode in (len bytes) with both decoders; they must agree. */
static void agree(const unsigned char *in, size_t len, uint32_t ps, const char *what)
{
	unsigned char *e = malloc(len ? len : 1), *a = malloc(ps), *b = malloc(ps);
	int ra, rb;

	CHECK(e && a && b);
	memcpy(e, in, len);
	memset(a, 0xa5, ps);
	memset(b, 0x5a, ps);
	ra = bp_dense_decode_page(e, len, ps, a);
	rb = ref_dense_decode_page(e, len, ps, b);
	entries++;
	CHECK_MSG(ra == rb, "%s (%zu bytes, page %u): decoder %d, reference %d", what, len, ps, ra,
		  rb);
	if (ra == 0 && rb == 0) {
		decoded++;
		CHECK_MSG(!memcmp(a, b, ps), "%s (%zu bytes, page %u): pages differ", what, len, ps);
	}
	free(e);
	free(a);
	free(b);
}

/* Entry e (len bytes) with its enc saying n bytes of records (raw bit kept). */
static void set_enc(unsigned char *e, size_t n)
{
	uint32_t enc;

	memcpy(&enc, e + BP_RING_PAGE_HDR_BYTES, 4);
	enc = (enc & BP_COMPACT_RAW) | (uint32_t)n;
	memcpy(e + BP_RING_PAGE_HDR_BYTES, &enc, 4);
}

/* A varint-shaped byte: what the fast paths branch on. */
static unsigned char shaped(void)
{
	static const unsigned char bytes[] = { 0x00, 0x01, 0x02, 0x7e, 0x7f, 0x80, 0x81, 0xff,
					       0x0f, 0x10, 0x1f, 0x20, 0x8f, 0x9f };

	return rnd() % 4 ? bytes[rnd() % sizeof(bytes)] : (unsigned char)rnd();
}

/*
 * A page of one of the streamed shapes; returns its commit.  shape 0: one
 * site in a loop, 1: two sites alternating (bench-analysis's tick file),
 * 2: three sites in turn, 3: three sites in any order (lengths up to a
 * few hundred bytes, large differences, verbatim payloads), 4 and 5: as
 * 1 and 3 with the first two sites' heads in one slot (the reference is
 * then lost at every change of site).
 */
static uint32_t make_page(unsigned char *pg, uint32_t ps, int shape)
{
	static const uint32_t word_choice[] = { 2, 3, 4, 5, 6, 7, 9, 16 };
	uint32_t room = ps - BP_RING_PAGE_HDR_BYTES, off = 0, nsites;
	uint32_t site[3], words[3], last[3] = { UINT32_MAX, UINT32_MAX, UINT32_MAX };
	uint64_t seq = 1 + rnd();
	unsigned spread = rnd() % 4;	/* how large the differences are */

	memset(pg, 0, ps);
	memcpy(pg, &seq, 8);
	bool any = shape == 3 || shape == 5;

	nsites = shape == 0 ? 1 : shape == 1 || shape == 4 ? 2 : 3;
	for (uint32_t i = 0; i < 3; i++) {
		site[i] = any && rnd() % 2 ? rnd() & 0xfffff : 10 + i;
		words[i] = word_choice[rnd() % (any ? 8 : 4)];
		if (any && rnd() % 8 == 0)
			words[i] = 2 + rnd() % 100;
	}
	if (shape >= 4)	/* site 1's head in site 0's slot */
		while (ref_slot_of(words[1] | site[1] << BP_RING_HEAD_USER_SHIFT) !=
			       ref_slot_of(words[0] | site[0] << BP_RING_HEAD_USER_SHIFT) ||
		       site[1] == site[0])
			site[1] = (site[1] + 1) & 0xfffff;
	for (uint32_t n = 0;; n++) {
		uint32_t s = any ? rnd() % nsites : n % nsites, len = words[s] * 4;
		uint32_t head = words[s] | site[s] << BP_RING_HEAD_USER_SHIFT;
		uint32_t delta = spread == 0 ? 20 + rnd() % 8 : spread == 1 ? rnd() % 300 : rnd();
		unsigned char *rec = pg + BP_RING_PAGE_HDR_BYTES + off;

		if (len > room - off)
			break;
		memcpy(rec, &head, 4);
		memcpy(rec + 4, &delta, 4);
		for (uint32_t i = 8; i < len; i += 4) {
			uint32_t w = 0, d;

			if (last[s] != UINT32_MAX)
				memcpy(&w, pg + BP_RING_PAGE_HDR_BYTES + last[s] + i, 4);
			d = spread == 0 ? rnd() % 3 : spread == 1 ? rnd() % 200 - 100
						     : spread == 2 ? rnd() % 70000 : rnd();
			w += rnd() % 4 ? d : 0;
			memcpy(rec + i, &w, 4);
		}
		last[s] = off;
		off += len;
	}
	memcpy(pg + offsetof(struct bp_ring_page, commit), &off, 4);
	return off;
}

/* Every truncation of entry e (len bytes), enc made to match each cut. */
static void truncations(const unsigned char *e, size_t len, uint32_t ps, unsigned char *buf)
{
	for (size_t cut = BP_COMPACT_ENTRY_HDR; cut < len; cut++) {
		memcpy(buf, e, cut);
		set_enc(buf, cut - BP_COMPACT_ENTRY_HDR);
		agree(buf, cut, ps, "truncated");
	}
}

/* Bytes of e's records overwritten, rounds times, 1 to 3 at a time. */
static void overwrites(const unsigned char *e, size_t len, uint32_t ps, unsigned char *buf,
		       int rounds)
{
	if (len <= BP_COMPACT_ENTRY_HDR)
		return;
	for (int r = 0; r < rounds; r++) {
		int k = 1 + (int)(rnd() % 3);

		memcpy(buf, e, len);
		while (k--) {
			size_t at = BP_COMPACT_ENTRY_HDR + rnd() % (len - BP_COMPACT_ENTRY_HDR);

			buf[at] = shaped();
		}
		agree(buf, len, ps, "overwritten");
		/* the same, cut short near its end, where the checked path takes over */
		if (len > BP_COMPACT_ENTRY_HDR + 24) {
			size_t cut = len - 1 - rnd() % 24;

			set_enc(buf, cut - BP_COMPACT_ENTRY_HDR);
			agree(buf, cut, ps, "overwritten and cut");
		}
	}
}

/* Records that are random varints after a real page's header. */
static void noise(uint32_t ps, unsigned char *buf)
{
	size_t n = rnd() % 200, o = BP_COMPACT_ENTRY_HDR;
	uint32_t commit = 4 * (rnd() % ((ps - BP_RING_PAGE_HDR_BYTES) / 4 + 1));
	uint64_t seq = 1;

	memset(buf, 0, BP_COMPACT_ENTRY_HDR);
	memcpy(buf, &seq, 8);
	memcpy(buf + offsetof(struct bp_ring_page, commit), &commit, 4);
	while (o < BP_COMPACT_ENTRY_HDR + n) {
		uint32_t k = 1 + rnd() % 6;

		for (uint32_t i = 0; i < k && o < BP_COMPACT_ENTRY_HDR + n; i++)
			buf[o++] = i + 1 < k ? (unsigned char)(0x80 | shaped()) : shaped() & 0x7f;
	}
	set_enc(buf, o - BP_COMPACT_ENTRY_HDR);
	agree(buf, o, ps, "noise");
}

int main(void)
{
	static const uint32_t sizes[] = { 256, 512, 4096 };
	int quick = getenv("BPRINT_TEST_QUICK") != NULL;
	int pages = quick ? 60 : 400;
	unsigned char *pg = malloc(4096), *e = malloc(bp_compact_entry_max(4096));
	unsigned char *buf = malloc(bp_compact_entry_max(4096));

	if (!pg || !e || !buf)
		return 2;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (int i = 0; i < pages; i++) {
			uint32_t ps = sizes[s];
			size_t len;

			make_page(pg, ps, i % 6);
			len = bp_dense_encode_page(pg, ps, e);
			agree(e, len, ps, "encoded");
			CHECK_MSG(bp_dense_decode_page(e, len, ps, buf) == 0,
				  "an encoded page of shape %d did not decode", i % 6);
			if (ps < 4096 || i % 8 == 0)
				truncations(e, len, ps, buf);
			overwrites(e, len, ps, buf, ps < 4096 ? 100 : 300);
			for (int k = 0; k < 10; k++)
				noise(ps, buf);
		}
	printf("dense decoder against the reference: %lu entries, %lu decoded alike, the rest "
	       "refused alike\n", entries, decoded);
	free(pg);
	free(e);
	free(buf);
	return check_summary("dense_differential");
}
