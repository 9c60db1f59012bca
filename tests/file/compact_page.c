/*
 * Compact page entries (src/file/compact.h), encoder against decoder.
 *
 * The drainer's output is only as good as the round trip, and the reader's
 * decoder takes untrusted bytes, so: random pages of random records (odd
 * lengths, repeated and changing sites, small and large deltas, garbage
 * after commit, pages whose records do not tile commit) must decode to
 * exactly the original bytes up to commit and zeroes after; pages made by
 * the real ring writer likewise; every truncation of an entry must be
 * rejected; an entry with a flipped bit must be rejected or decode to a
 * page that the ring's validating reader can walk.  Run under the address
 * sanitizer, any read or write out of bounds fails the test.  Last, the
 * encoder's speed on a page of 16-byte records.
 */
#include "file/compact.h"
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

static unsigned long failures;

#define CHECK(c, ...) do { \
	if (!(c)) { \
		fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		if (++failures > 20) \
			exit(1); \
	} \
} while (0)

/* A random page; returns its commit. */
static uint32_t make_page(unsigned char *pg, uint32_t ps, int kind)
{
	uint32_t room = ps - BP_RING_PAGE_HDR_BYTES, off = 0, commit, site = rnd() & 0xfffff;
	uint32_t words = 2 + rnd() % 6, type = 0;
	uint64_t v;

	for (uint32_t i = 0; i < ps; i++)
		pg[i] = (unsigned char)rnd();	/* garbage after commit too */
	v = 1 + rnd();
	memcpy(pg, &v, 8);
	while (off < room) {
		uint32_t head, delta, len;

		if (rnd() % 4 == 0)
			site = rnd() & 0xfffff;
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
		off += len;
	}
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

/* Walk a decoded page with the ring's validating reader, as the reader does. */
static void walk(const unsigned char *pg, uint32_t ps)
{
	static unsigned char *stage;
	static uint32_t stage_ps;
	static uint32_t buf[BP_RING_REC_MAX_WORDS];
	size_t bytes = bp_ring_bytes(ps, 2);
	struct bp_ring_cursor c;
	struct bp_ring_event ev;
	struct bp_ring_ctl *ctl;
	uint64_t seq;

	if (stage_ps != ps) {
		free(stage);
		stage = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
		stage_ps = ps;
	}
	if (!stage || bp_ring_init(stage, bytes, ps, BP_RING_OVERWRITE) != BP_RING_OK)
		exit(2);
	memcpy(&seq, pg, 8);
	if (!seq)
		return;
	memcpy(stage + BP_RING_CTL_BYTES + (size_t)((seq - 1) % 2) * ps, pg, ps);
	ctl = (void *)stage;
	atomic_store_explicit(&ctl->head_seq, seq, memory_order_relaxed);
	if (bp_ring_cursor_init(stage, bytes, &c, BP_RING_CURSOR_SNAPSHOT) != BP_RING_OK)
		return;
	for (int i = 0; i < 4096 && bp_ring_next(stage, bytes, &c, &ev, buf, sizeof(buf)) == 1; i++)
		;
}

static void round_trip(const unsigned char *pg, uint32_t ps, unsigned char *e,
		       unsigned char *dec, int deep)
{
	size_t len = bp_compact_encode_page(pg, ps, e), elen;
	uint32_t commit, enc;
	int ok;

	memcpy(&commit, pg + offsetof(struct bp_ring_page, commit), 4);
	CHECK(len <= bp_compact_entry_max(ps), "entry of %zu bytes, max %zu", len,
	      bp_compact_entry_max(ps));
	elen = bp_compact_entry_len(e, ps);
	CHECK(elen == len, "entry length %zu, encoded %zu", elen, len);
	ok = bp_compact_decode_page(e, len, ps, dec) == 0;
	if (commit > ps - BP_RING_PAGE_HDR_BYTES) {
		CHECK(!ok, "a page with commit %u past the page decoded", commit);
		return;
	}
	CHECK(ok, "page (commit %u) did not decode", commit);
	CHECK(ok && same_page(pg, dec, ps), "page (commit %u) decoded differently", commit);
	if (!deep)
		return;
	memcpy(&enc, e + BP_RING_PAGE_HDR_BYTES, 4);
	/* every truncation, as cut and with enc claiming the cut length */
	for (size_t cut = 0; cut < len; cut++) {
		CHECK(bp_compact_decode_page(e, cut, ps, dec) != 0, "cut at %zu decoded", cut);
		if (cut >= BP_COMPACT_ENTRY_HDR) {
			uint32_t n = (uint32_t)(cut - BP_COMPACT_ENTRY_HDR) | (enc & BP_COMPACT_RAW);

			memcpy(e + BP_RING_PAGE_HDR_BYTES, &n, 4);
			CHECK(bp_compact_decode_page(e, cut, ps, dec) != 0,
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
		if (elen == len && bp_compact_decode_page(e, len, ps, dec) == 0)
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
	CHECK(copied > 100, "only %llu writer pages", (unsigned long long)copied);
	free(ring);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
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
		sink += bp_compact_encode_page(pg, ps, e);
		__asm__ volatile("" ::: "memory");
	}
	t1 = now_s();
	for (int i = 0; i < n; i++) {
		sink += (uint64_t)bp_compact_decode_page(e, bp_compact_entry_len(e, ps), ps, dec);
		__asm__ volatile("" ::: "memory");
	}
	t2 = now_s();
	printf("4 KiB page of %u 16-byte records: %zu bytes encoded, encode %.0f ns, decode %.0f ns (%llu)\n",
	       commit / 16, bp_compact_entry_len(e, ps), (t1 - t0) / n * 1e9, (t2 - t1) / n * 1e9,
	       (unsigned long long)(sink & 1));
	CHECK(same_page(pg, dec, ps), "speed page decoded differently");
}

int main(void)
{
	static const uint32_t sizes[] = { 256, 512, 4096, 65536 };
	unsigned char *pg = malloc(65536), *e = malloc(bp_compact_entry_max(65536));
	unsigned char *dec = malloc(65536);
	int quick = getenv("BPRINT_TEST_QUICK") != NULL;

	if (!pg || !e || !dec)
		return 2;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		int rounds = sizes[s] > 4096 ? 40 : quick ? 400 : 2000;

		for (int i = 0; i < rounds; i++) {
			make_page(pg, sizes[s], i % 10 == 0 ? 1 : i % 37 == 0 ? 2 : 0);
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
		CHECK(bp_compact_entry_len(e, 4096) == 0, "oversized enc accepted");
	}
	speed(pg, e, dec);
	free(pg);
	free(e);
	free(dec);
	if (failures)
		return 1;
	printf("compact_page: ok\n");
	return 0;
}
