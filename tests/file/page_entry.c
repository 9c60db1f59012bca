/*
 * Page entries of compact (type 6, src/file/compact.h) and dense (type 8,
 * src/file/dense.h) pages chunks, encoder against decoder: `page_entry
 * compact` or `page_entry dense` (the tests compact_page and dense_page).
 *
 * The drainer's output is only as good as the round trip, and the reader's
 * decoder takes untrusted bytes, so: random pages of random records (odd
 * lengths, repeated and changing sites, small and large deltas, garbage
 * after commit, pages whose records do not tile commit) must decode to
 * exactly the original bytes up to commit and zeroes after; pages made by
 * the real ring writer likewise; every truncation of an entry must be
 * rejected; an entry with a flipped bit must be rejected or decode to a
 * page that the ring's validating reader can walk.  Run under the address
 * sanitizer, any read or write out of bounds fails the test.  Payloads
 * are random bytes, or the payload of an earlier record of the same site
 * with small changes (counters, constant strings: what the dense coding
 * codes as differences).  Last, the encoder's speed on a page of 16-byte
 * seed records, and for the dense coding the size the specification
 * promises for them (4 bytes a record after the first).
 */
#include "file/compact.h"
#include "file/dense.h"
#include "ring/ring.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

#define CHECK_KEEP_GOING 20
#include "check.h"

struct codec {
	const char *name;
	size_t (*encode)(const unsigned char *restrict, uint32_t, unsigned char *restrict);
	int (*decode)(const unsigned char *, size_t, uint32_t, unsigned char *);
};

static const struct codec codecs[] = {
	{ "compact", bp_compact_encode_page, bp_compact_decode_page },
	{ "dense", bp_dense_encode_page, bp_dense_decode_page },
};
static const struct codec *cx;


/*
 * The payload of the record at off: that of the earlier record at from
 * (same site; its length if not shorter) with some words a little changed,
 * as a counter or a constant string make them.
 */
static void similar(unsigned char *area, uint32_t from, uint32_t off, uint32_t len)
{
	uint32_t flen, n;

	memcpy(&flen, area + from, 4);
	flen = (flen & BP_RING_HEAD_LEN_MASK) * 4;
	if (flen < BP_RING_REC_HDR_BYTES)
		return;	/* a head the generator damaged (1024 words) */
	n = (flen < len ? flen : len) - BP_RING_REC_HDR_BYTES;
	memcpy(area + off + BP_RING_REC_HDR_BYTES, area + from + BP_RING_REC_HDR_BYTES, n);
	for (uint32_t i = 0; i + 4 <= n; i += 4)
		if (rnd() % 3 == 0) {
			uint32_t w;

			memcpy(&w, area + off + BP_RING_REC_HDR_BYTES + i, 4);
			w += rnd() % 5 == 0 ? rnd() : rnd() % 300 - 150;
			memcpy(area + off + BP_RING_REC_HDR_BYTES + i, &w, 4);
		}
}

/* A random page; returns its commit. */
static uint32_t make_page(unsigned char *pg, uint32_t ps, int kind)
{
	uint32_t last_of[4][4];

	uint32_t room = ps - BP_RING_PAGE_HDR_BYTES, off = 0, commit, site = rnd() & 0xfffff;
	uint32_t words = 2 + rnd() % 6, type = 0;
	uint64_t v;

	memset(last_of, 0xff, sizeof(last_of));
	for (uint32_t i = 0; i < ps; i++)
		pg[i] = (unsigned char)rnd();	/* garbage after commit too */
	v = 1 + rnd();
	memcpy(pg, &v, 8);
	while (off < room) {
		uint32_t head, delta, len, *last;

		if (rnd() % 4 == 0)
			site = rnd() % 2 ? rnd() % 4 : rnd() & 0xfffff;	/* a few sites recur */
		if (rnd() % 4 == 0)
			words = 2 + (rnd() % 8 == 0 ? rnd() % BP_RING_REC_MAX_WORDS : rnd() % 12);
		type = rnd() % 8 == 0 ? rnd() % 4 : 0;
		len = words * 4;
		if (len > room - off || rnd() % 64 == 0)
			break;
		head = words | type << BP_RING_HEAD_TYPE_SHIFT | site << BP_RING_HEAD_USER_SHIFT;
		delta = rnd() % 3 == 0 ? rnd() : rnd() % 3 == 0 ? rnd() % 300 : rnd() % 20;
		memcpy(pg + BP_RING_PAGE_HDR_BYTES + off, &head, 4);
		memcpy(pg + BP_RING_PAGE_HDR_BYTES + off + 4, &delta, 4);
		last = &last_of[site % 4][words % 4];
		if (*last != UINT32_MAX && rnd() % 4 != 0)
			similar(pg + BP_RING_PAGE_HDR_BYTES, *last, off, len);
		if (site < 4)
			*last = off;
		off += len;
	}
	if (kind == 3)
		off = 0;	/* an empty page, as a fresh head page is */
	commit = off;
	if (kind == 1 && commit + 4 <= room)
		commit += 4 * (1 + rnd() % ((room - commit) / 4));	/* records don't tile */
	if (kind == 2)
		commit = room + 1 + rnd() % 64;			/* damaged commit */
	memcpy(pg + offsetof(struct bp_ring_page, commit), &commit, 4);
	return commit;
}

/* decoded == original up to commit, zeroes after. */
static int same_page(const unsigned char *orig, const unsigned char *dec, uint32_t ps)
{
	uint32_t commit;

	memcpy(&commit, orig + offsetof(struct bp_ring_page, commit), 4);
	if (memcmp(orig, dec, BP_RING_PAGE_HDR_BYTES + commit))
		return 0;
	for (uint32_t i = BP_RING_PAGE_HDR_BYTES + commit; i < ps; i++)
		if (dec[i])
			return 0;
	return 1;
}

/* Walk a decoded page with the ring's page iterator, as the reader does. */
static void walk(const unsigned char *pg, uint32_t ps)
{
	static uint32_t buf[BP_RING_REC_MAX_WORDS];
	struct bp_ring_page_iter it;
	struct bp_ring_event ev;
	uint64_t seq;

	memcpy(&seq, pg, 8);
	if (!seq || bp_ring_page_begin(&it, pg, ps, 0) != BP_RING_OK)
		return;
	for (int i = 0; i < 4096 && bp_ring_page_next(&it, &ev, buf, sizeof(buf)) == 1; i++)
		;
}

static void round_trip(const unsigned char *pg, uint32_t ps, unsigned char *e,
		       unsigned char *dec, int deep)
{
	size_t len = cx->encode(pg, ps, e), elen;
	uint32_t commit, enc;
	int ok;

	memcpy(&commit, pg + offsetof(struct bp_ring_page, commit), 4);
	CHECK_MSG(len <= bp_compact_entry_max(ps), "entry of %zu bytes, max %zu", len,
	      bp_compact_entry_max(ps));
	elen = bp_compact_entry_len(e, ps);
	CHECK_MSG(elen == len, "entry length %zu, encoded %zu", elen, len);
	ok = cx->decode(e, len, ps, dec) == 0;
	if (commit > ps - BP_RING_PAGE_HDR_BYTES) {
		CHECK_MSG(!ok, "a page with commit %u past the page decoded", commit);
		return;
	}
	CHECK_MSG(ok, "page (commit %u) did not decode", commit);
	CHECK_MSG(ok && same_page(pg, dec, ps), "page (commit %u) decoded differently", commit);
	if (!deep)
		return;
	memcpy(&enc, e + BP_RING_PAGE_HDR_BYTES, 4);
	/* every truncation, as cut and with enc claiming the cut length */
	for (size_t cut = 0; cut < len; cut++) {
		CHECK_MSG(cx->decode(e, cut, ps, dec) != 0, "cut at %zu decoded", cut);
		if (cut >= BP_COMPACT_ENTRY_HDR) {
			uint32_t n = (uint32_t)(cut - BP_COMPACT_ENTRY_HDR) | (enc & BP_COMPACT_RAW);

			memcpy(e + BP_RING_PAGE_HDR_BYTES, &n, 4);
			CHECK_MSG(cx->decode(e, cut, ps, dec) != 0,
			      "cut at %zu with its enc decoded", cut);
			memcpy(e + BP_RING_PAGE_HDR_BYTES, &enc, 4);
		}
	}
	/* bit flips: rejected, or a page the validating reader walks */
	for (int k = 0; k < 64; k++) {
		size_t at = rnd() % len;
		unsigned char bit = (unsigned char)(1u << (rnd() % 8));

		e[at] ^= bit;
		elen = bp_compact_entry_len(e, ps);
		if (elen == len && cx->decode(e, len, ps, dec) == 0)
			walk(dec, ps);
		e[at] ^= bit;
	}
}

/* Pages from the real writer: records of every length, copied like the drainer. */
static void writer_pages(uint32_t ps, unsigned char *e, unsigned char *dec, unsigned char *pg)
{
	size_t bytes = bp_ring_bytes(ps, 8);
	unsigned char *ring = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
	struct bp_ring_writer w;
	struct bp_ring_stats st;
	uint64_t ts = 1, copied = 0;

	if (!ring || bp_ring_init(ring, bytes, ps, BP_RING_OVERWRITE) != BP_RING_OK ||
	    bp_ring_writer_init(&w, ring, bytes) != BP_RING_OK)
		exit(2);
	for (int i = 0; i < 20000; i++) {
		uint32_t plen = rnd() % 5 == 0 ? 4 * (rnd() % 64) : 8;
		unsigned char *p;

		if (plen + BP_RING_REC_HDR_BYTES > ps - BP_RING_PAGE_HDR_BYTES)
			plen = 8;
		ts += rnd() % 7 == 0 ? rnd() : rnd() % 40;	/* large steps: time extends */
		p = bp_ring_reserve(&w, plen, 1 + rnd() % 3, ts);
		if (!p)
			continue;
		for (uint32_t k = 0; k < plen; k++)
			p[k] = (unsigned char)rnd();
		bp_ring_commit(&w);
		if (bp_ring_stats(ring, bytes, &st) == BP_RING_OK)
			for (uint64_t s = st.head_seq > 8 ? st.head_seq - 7 : 1; s <= st.head_seq; s++)
				if (rnd() % 16 == 0 && bp_ring_copy_page(ring, bytes, s, pg) == BP_RING_OK) {
					round_trip(pg, ps, e, dec, rnd() % 8 == 0);
					copied++;
				}
	}
	CHECK_MSG(copied > 100, "only %llu writer pages", (unsigned long long)copied);
	free(ring);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Bytes of a dense entry's first record, a 16-byte one without a reference. */
static size_t first_bytes(const unsigned char *e)
{
	const unsigned char *p = e + BP_COMPACT_ENTRY_HDR;
	size_t n = 0;

	for (int field = 0; field < 4; field++) {	/* tag, time, two words */
		while (p[n] & 0x80)
			n++;
		n++;
	}
	return n;
}

static void speed(unsigned char *pg, unsigned char *e, unsigned char *dec)
{
	const uint32_t ps = 4096;
	uint32_t off = 0, commit;
	uint64_t v = 1, sink = 0;
	int n = 200000;
	double t0, t1, t2;

	memset(pg, 0, ps);
	memcpy(pg, &v, 8);
	while (off + 16 <= ps - BP_RING_PAGE_HDR_BYTES) {
		uint32_t head = 4 | 14u << BP_RING_HEAD_USER_SHIFT, delta = 10 + rnd() % 8;

		memcpy(pg + BP_RING_PAGE_HDR_BYTES + off, &head, 4);
		memcpy(pg + BP_RING_PAGE_HDR_BYTES + off + 4, &delta, 4);
		memcpy(pg + BP_RING_PAGE_HDR_BYTES + off + 8, &v, 8);
		v += 1 + rnd() % 3;
		off += 16;
	}
	commit = off;
	memcpy(pg + offsetof(struct bp_ring_page, commit), &commit, 4);
	t0 = now_s();
	for (int i = 0; i < n; i++) {
		sink += cx->encode(pg, ps, e);
		__asm__ volatile("" ::: "memory");
	}
	t1 = now_s();
	for (int i = 0; i < n; i++) {
		sink += (uint64_t)cx->decode(e, bp_compact_entry_len(e, ps), ps, dec);
		__asm__ volatile("" ::: "memory");
	}
	t2 = now_s();
	printf("%s: 4 KiB page of %u 16-byte records: %zu bytes encoded, encode %.0f ns, decode %.0f ns (%llu)\n",
	       cx->name, commit / 16, bp_compact_entry_len(e, ps), (t1 - t0) / n * 1e9,
	       (t2 - t1) / n * 1e9, (unsigned long long)(sink & 1));
	CHECK_MSG(same_page(pg, dec, ps), "speed page decoded differently");
	/* docs/file-format.md, type 8: a seed record after the first takes 4 bytes */
	if (cx->decode == bp_dense_decode_page)
		CHECK_MSG(bp_compact_entry_len(e, ps) == BP_COMPACT_ENTRY_HDR + first_bytes(e) +
							     4 * (commit / 16 - 1),
		      "seed page: %zu bytes", bp_compact_entry_len(e, ps));
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[] = { 256, 512, 4096, 65536 };
	unsigned char *pg = malloc(65536), *e = malloc(bp_compact_entry_max(65536));
	unsigned char *dec = malloc(65536);
	int quick = getenv("BPRINT_TEST_QUICK") != NULL;

	if (!pg || !e || !dec)
		return 2;
	for (size_t i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++)
		if (argc == 2 && !strcmp(argv[1], codecs[i].name))
			cx = &codecs[i];
	if (!cx) {
		fprintf(stderr, "usage: page_entry compact|dense\n");
		return 2;
	}
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		int rounds = sizes[s] > 4096 ? 40 : quick ? 400 : 2000;

		for (int i = 0; i < rounds; i++) {
			make_page(pg, sizes[s], i % 10 == 0 ? 1 : i % 37 == 0 ? 2 : i % 53 == 0 ? 3 : 0);
			round_trip(pg, sizes[s], e, dec, sizes[s] <= 4096 && i % 4 == 0);
		}
		if (sizes[s] <= 4096)
			writer_pages(sizes[s], e, dec, pg);
	}
	/* entries that claim more than any page encodes to */
	memset(e, 0, BP_COMPACT_ENTRY_HDR);
	{
		uint32_t n = (uint32_t)bp_compact_enc_max(4096) + 1;

		memcpy(e + BP_RING_PAGE_HDR_BYTES, &n, 4);
		CHECK_MSG(bp_compact_entry_len(e, 4096) == 0, "oversized enc accepted");
	}
	speed(pg, e, dec);
	free(pg);
	free(e);
	free(dec);
	if (check_summary(cx->name))
		return 1;
	printf("%s page entries: ok\n", cx->name);
	return 0;
}
