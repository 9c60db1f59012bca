/*
 * tests/ring/ring_unit.c - single-threaded cases of the ring buffer.
 *
 * Each case builds a small ring, drives the writer into one situation (a
 * record size, a time extend, a page switch, a full discard ring, a lapped
 * reader) and checks both what a reader returns and the ring's counters,
 * including the exact accounting read + overwritten + discarded == written.
 */
#include "ring/view.h"
#include "ring/ring.h"
#include "check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct ring {
	void *mem;
	size_t bytes;
	struct bp_ring_writer w;
};

static void ring_new(struct ring *r, uint32_t page_size, uint32_t npages, enum bp_ring_mode mode)
{
	r->bytes = bp_ring_bytes(page_size, npages);
	CHECK(r->bytes != 0);
	r->mem = aligned_alloc(64, (r->bytes + 63) & ~(size_t)63);
	CHECK(r->mem != NULL);
	memset(r->mem, 0xa5, r->bytes);	/* init must not rely on zeroed memory */
	CHECK_EQ(bp_ring_init(r->mem, r->bytes, page_size, mode), BP_RING_OK);
	CHECK_EQ(bp_ring_writer_init(&r->w, r->mem, r->bytes), BP_RING_OK);
}

static void ring_free(struct ring *r)
{
	free(r->mem);
}

/* Write one record: payload = the u64 value v, then len - 8 bytes of v's low byte. */
static int put(struct ring *r, uint32_t len, uint32_t user, uint64_t ts, uint64_t v)
{
	unsigned char *p = bp_ring_reserve(&r->w, len, user, ts);

	if (!p)
		return 0;
	if (len >= 8) {
		memcpy(p, &v, 8);
		memset(p + 8, (int)(v & 0xff), len - 8);
	} else {
		memset(p, (int)(v & 0xff), len);
	}
	bp_ring_commit(&r->w);
	return 1;
}

static struct bp_ring_stats stats(const struct ring *r)
{
	struct bp_ring_stats st;

	CHECK_EQ(bp_ring_stats(r->mem, r->bytes, &st), BP_RING_OK);
	return st;
}

static uint32_t commit_of(const struct ring *r, uint64_t seq)
{
	struct bp_ring_page_info pi;

	CHECK_EQ(bp_ring_page_info(r->mem, r->bytes, seq, &pi), BP_RING_OK);
	return pi.commit;
}

static uint64_t payload_u64(const struct bp_ring_event *ev)
{
	uint64_t v;

	CHECK(ev->payload_len >= 8);
	memcpy(&v, ev->payload, 8);
	return v;
}

static void test_geometry(void)
{
	static _Alignas(64) unsigned char mem[256 + 4 * 4096 + 64];
	struct bp_ring_stats st;
	struct bp_ring_writer w;

	CHECK_EQ(bp_ring_bytes(4096, 4), 256 + 4 * 4096);
	CHECK_EQ(bp_ring_bytes(256, 2), 256 + 512);
	CHECK_EQ(bp_ring_bytes(255, 4), 0);
	CHECK_EQ(bp_ring_bytes(128, 4), 0);
	CHECK_EQ(bp_ring_bytes(768, 4), 0);
	CHECK_EQ(bp_ring_bytes(4096, 1), 0);
	CHECK_EQ(bp_ring_bytes(1u << 31, 4), 0);

	CHECK_EQ(bp_ring_init(NULL, sizeof(mem), 4096, BP_RING_OVERWRITE), BP_RING_EINVAL);
	CHECK_EQ(bp_ring_init(mem + 4, sizeof(mem) - 4, 4096, BP_RING_OVERWRITE), BP_RING_EINVAL);
	CHECK_EQ(bp_ring_init(mem, sizeof(mem), 1000, BP_RING_OVERWRITE), BP_RING_EINVAL);
	CHECK_EQ(bp_ring_init(mem, 256 + 4096 + 100, 4096, BP_RING_OVERWRITE), BP_RING_EINVAL);
	CHECK_EQ(bp_ring_init(mem, 100, 256, BP_RING_OVERWRITE), BP_RING_EINVAL);
	CHECK_EQ(bp_ring_init(mem, sizeof(mem), 4096, (enum bp_ring_mode)7), BP_RING_EINVAL);

	/* As many pages as fit; the slack after them is unused. */
	CHECK_EQ(bp_ring_init(mem, sizeof(mem), 4096, BP_RING_DISCARD), BP_RING_OK);
	CHECK_EQ(bp_ring_stats(mem, sizeof(mem), &st), BP_RING_OK);
	CHECK_EQ(st.npages, 4);
	CHECK_EQ(st.page_size, 4096);
	CHECK_EQ(st.mode, BP_RING_DISCARD);
	CHECK_EQ(st.max_payload, 4096 - 40 - 8);
	CHECK_EQ(st.head_seq, 0);
	CHECK_EQ(st.written, 0);

	/* A mapping shorter than the geometry, or a damaged static line. */
	CHECK_EQ(bp_ring_stats(mem, 256 + 3 * 4096, &st), BP_RING_ECORRUPT);
	CHECK_EQ(bp_ring_writer_init(&w, mem, 256 + 3 * 4096), BP_RING_ECORRUPT);
	mem[0] ^= 1;
	CHECK_EQ(bp_ring_stats(mem, sizeof(mem), &st), BP_RING_ECORRUPT);
	mem[0] ^= 1;
	mem[4] = 2;	/* version */
	CHECK_EQ(bp_ring_stats(mem, sizeof(mem), &st), BP_RING_ECORRUPT);
	mem[4] = 1;
	mem[8] = 1;	/* page_size 4097 */
	CHECK_EQ(bp_ring_stats(mem, sizeof(mem), &st), BP_RING_ECORRUPT);
	mem[8] = 0;
	CHECK_EQ(bp_ring_stats(mem, sizeof(mem), &st), BP_RING_OK);

	/* Largest payload: the page area for small pages, 1023 words for big. */
	CHECK_EQ(bp_ring_init(mem, 256 + 4 * 256, 256, BP_RING_OVERWRITE), BP_RING_OK);
	CHECK_EQ(bp_ring_writer_init(&w, mem, 256 + 4 * 256), BP_RING_OK);
	CHECK_EQ(bp_ring_max_payload(&w), 256 - 40 - 8);
	CHECK_EQ(bp_ring_init(mem, sizeof(mem), 8192, BP_RING_OVERWRITE), BP_RING_OK);
	CHECK_EQ(bp_ring_writer_init(&w, mem, sizeof(mem)), BP_RING_OK);
	CHECK_EQ(bp_ring_max_payload(&w), 1023 * 4 - 8);
}

static void test_record_sizes(void)
{
	struct ring r;
	struct bp_ring_cursor c;
	struct bp_ring_event ev;
	unsigned char buf[8192];
	unsigned char *p;
	uint32_t i;

	ring_new(&r, 4096, 4, BP_RING_OVERWRITE);
	/* The hard target: one u64 argument makes a 16-byte record. */
	CHECK(put(&r, 8, 0x12345, 1000, 0x1122334455667788ull));
	CHECK_EQ(commit_of(&r, 1), 16);
	CHECK(put(&r, 0, 7, 1001, 0));
	CHECK_EQ(commit_of(&r, 1), 24);
	CHECK(put(&r, 5, 8, 1002, 0));	/* rounded to 8, padding zeroed */
	CHECK_EQ(commit_of(&r, 1), 40);
	CHECK(put(&r, 12, 9, 1003, 42));
	CHECK_EQ(commit_of(&r, 1), 60);
	/* Largest record: one per page. */
	CHECK(put(&r, bp_ring_max_payload(&r.w), 10, 1004, 43));
	CHECK_EQ(commit_of(&r, 2), 4056);
	/* Too large for any page: dropped and counted. */
	CHECK(bp_ring_reserve(&r.w, bp_ring_max_payload(&r.w) + 1, 0, 1005) == NULL);
	CHECK(bp_ring_reserve(&r.w, UINT32_MAX, 0, 1005) == NULL);
	CHECK_EQ(stats(&r).discarded, 2);
	CHECK_EQ(stats(&r).written, 7);

	CHECK_EQ(bp_ring_cursor_init(r.mem, r.bytes, &c, BP_RING_CURSOR_SNAPSHOT), BP_RING_OK);
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf)), 1);
	CHECK_EQ(ev.payload_len, 8);
	CHECK_EQ(ev.user_bits, 0x12345);
	CHECK_EQ(ev.ts, 1000);
	CHECK_EQ(payload_u64(&ev), 0x1122334455667788ull);
	CHECK_EQ(ev.index, 0);
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf)), 1);
	CHECK_EQ(ev.payload_len, 0);
	CHECK_EQ(ev.user_bits, 7);
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf)), 1);
	CHECK_EQ(ev.payload_len, 8);
	p = (unsigned char *)buf;
	for (i = 0; i < 5; i++)
		CHECK_EQ(p[i], 0);	/* v = 0 */
	for (i = 5; i < 8; i++)
		CHECK_EQ(p[i], 0);	/* padding */
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf)), 1);
	CHECK_EQ(ev.payload_len, 12);
	CHECK_EQ(payload_u64(&ev), 42);
	/* A buffer too small is reported and the cursor stays. */
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &ev, buf, 100), BP_RING_ENOSPC);
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf)), 1);
	CHECK_EQ(ev.payload_len, 4048);
	CHECK_EQ(ev.page_seq, 2);
	CHECK_EQ(ev.index, 4);
	CHECK_EQ(ev.discarded_before, 0);
	CHECK_EQ(payload_u64(&ev), 43);
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf)), 0);
	CHECK_EQ(c.read + c.overwritten + stats(&r).discarded, stats(&r).written);
	ring_free(&r);
}

static void test_time_extend(void)
{
	static const uint64_t ts[] = {
		100, 100ull + UINT32_MAX,	/* largest delta: no extend */
		100ull + UINT32_MAX + 1,	/* extend */
		50,				/* backwards: extend */
		51, UINT64_MAX, 0, 1ull << 40,
	};
	static const uint32_t commit[] = { 16, 32, 64, 96, 112, 144, 176, 208 };
	struct ring r;
	struct bp_ring_cursor c;
	struct bp_ring_event ev;
	uint64_t buf[8];
	uint32_t i, n = sizeof(ts) / sizeof(ts[0]);

	ring_new(&r, 4096, 2, BP_RING_OVERWRITE);
	for (i = 0; i < n; i++) {
		CHECK(put(&r, 8, i, ts[i], i));
		CHECK_EQ(commit_of(&r, 1), commit[i]);
	}
	CHECK_EQ(stats(&r).written, n);	/* extends are not records */
	CHECK_EQ(bp_ring_cursor_init(r.mem, r.bytes, &c, BP_RING_CURSOR_SNAPSHOT), BP_RING_OK);
	for (i = 0; i < n; i++) {
		CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf)), 1);
		CHECK_EQ(ev.user_bits, i);
		CHECK(ev.ts == ts[i]);
		CHECK_EQ(payload_u64(&ev), i);
	}
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf)), 0);
	ring_free(&r);
}

/* Page switch and a reader tailing the page the writer is still filling. */
static void test_page_switch_and_tail(void)
{
	struct ring r;
	struct bp_ring_cursor c;
	struct bp_ring_event ev;
	struct bp_ring_page_info pi;
	uint64_t buf[64];
	uint64_t v = 0, expect = 0;
	int i;

	ring_new(&r, 256, 8, BP_RING_OVERWRITE);
	CHECK_EQ(bp_ring_cursor_init(r.mem, r.bytes, &c, BP_RING_CURSOR_CONSUME), BP_RING_OK);
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf)), 0);	/* empty */

	/* 216-byte area: 13 records of 16 bytes, then 8 bytes left over. */
	for (i = 0; i < 3; i++, v++)
		CHECK(put(&r, 8, 1, 10 + v, v));
	for (i = 0; i < 3; i++) {
		CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf)), 1);
		CHECK_EQ(payload_u64(&ev), expect++);
	}
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf)), 0);
	for (i = 0; i < 10; i++, v++)
		CHECK(put(&r, 8, 1, 10 + v, v));
	CHECK_EQ(stats(&r).head_seq, 1);
	CHECK_EQ(commit_of(&r, 1), 13 * 16);
	CHECK(put(&r, 8, 1, 10 + v, v));	/* does not fit: page 2 */
	v++;
	CHECK_EQ(stats(&r).head_seq, 2);
	CHECK_EQ(bp_ring_page_info(r.mem, r.bytes, 2, &pi), BP_RING_OK);
	CHECK_EQ(pi.first_rec, 13);
	CHECK_EQ(pi.base_ts, 10 + 13);
	CHECK_EQ(pi.commit, 16);
	CHECK_EQ(pi.slot, 1);
	CHECK_EQ(bp_ring_page_info(r.mem, r.bytes, 3, &pi), BP_RING_ENOENT);
	CHECK_EQ(stats(&r).consumed_seq, 0);
	for (i = 0; i < 11; i++) {
		CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf)), 1);
		CHECK_EQ(payload_u64(&ev), expect);
		CHECK_EQ(ev.ts, 10 + expect);
		CHECK_EQ(ev.index, expect);
		CHECK_EQ(ev.page_seq, expect < 13 ? 1 : 2);
		expect++;
	}
	CHECK_EQ(stats(&r).consumed_seq, 1);	/* the consumer finished page 1 */
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf)), 0);
	CHECK_EQ(c.read, v);
	CHECK_EQ(c.overwritten, 0);
	ring_free(&r);
}

static void test_discard(void)
{
	struct ring r;
	struct bp_ring_cursor snap, cons;
	struct bp_ring_event ev;
	uint64_t buf[64];
	uint64_t v = 0, stored = 0, expect = 0;
	int i, n;

	ring_new(&r, 256, 3, BP_RING_DISCARD);
	/* 3 pages of 13 records; no consumer yet: the rest is dropped. */
	for (i = 0; i < 100; i++, v++)
		stored += (uint64_t)put(&r, 8, 2, v, v);
	CHECK_EQ(stored, 39);
	CHECK_EQ(stats(&r).written, 100);
	CHECK_EQ(stats(&r).discarded, 61);
	CHECK_EQ(stats(&r).head_seq, 3);

	/* A snapshot reader sees the first records written, and changes nothing. */
	CHECK_EQ(bp_ring_cursor_init(r.mem, r.bytes, &snap, BP_RING_CURSOR_SNAPSHOT), BP_RING_OK);
	while ((n = bp_ring_next(r.mem, r.bytes, &snap, &ev, buf, sizeof(buf))) == 1)
		CHECK_EQ(payload_u64(&ev), expect++);
	CHECK_EQ(n, 0);
	CHECK_EQ(expect, 39);
	CHECK_EQ(stats(&r).consumed_seq, 0);
	CHECK(!put(&r, 8, 2, v, v));
	v++;

	/* The consumer frees pages 1 and 2 (page 3 is still the head). */
	CHECK_EQ(bp_ring_cursor_init(r.mem, r.bytes, &cons, BP_RING_CURSOR_CONSUME), BP_RING_OK);
	for (expect = 0; expect < 39; expect++) {
		CHECK_EQ(bp_ring_next(r.mem, r.bytes, &cons, &ev, buf, sizeof(buf)), 1);
		CHECK_EQ(payload_u64(&ev), expect);
	}
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &cons, &ev, buf, sizeof(buf)), 0);
	CHECK_EQ(stats(&r).consumed_seq, 2);
	/* Now two more pages fit. */
	for (i = 0; i < 30; i++, v++)
		stored += (uint64_t)put(&r, 8, 2, v, v);
	CHECK_EQ(stored, 39 + 26);
	/* Page 4 tells where records were lost: 62 dropped while 3 was head. */
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &cons, &ev, buf, sizeof(buf)), 1);
	CHECK_EQ(ev.page_seq, 4);
	CHECK_EQ(ev.discarded_before, 62);
	CHECK_EQ(ev.index, 39);
	CHECK_EQ(payload_u64(&ev), 101);
	while ((n = bp_ring_next(r.mem, r.bytes, &cons, &ev, buf, sizeof(buf))) == 1)
		CHECK_EQ(ev.discarded_before, 0);
	CHECK_EQ(n, 0);
	CHECK_EQ(cons.overwritten, 0);
	CHECK_EQ(cons.read + cons.overwritten + stats(&r).discarded, stats(&r).written);

	/* A restarted consumer continues after consumed_seq. */
	CHECK_EQ(bp_ring_cursor_init(r.mem, r.bytes, &cons, BP_RING_CURSOR_CONSUME), BP_RING_OK);
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &cons, &ev, buf, sizeof(buf)), 1);
	CHECK_EQ(ev.page_seq, stats(&r).consumed_seq + 1);
	ring_free(&r);
}

static void test_overwrite_lapping(void)
{
	struct ring r;
	struct bp_ring_cursor c;
	struct bp_ring_event ev;
	uint64_t buf[64];
	uint64_t v, last;
	int i, n;

	ring_new(&r, 256, 4, BP_RING_OVERWRITE);
	CHECK_EQ(bp_ring_cursor_init(r.mem, r.bytes, &c, BP_RING_CURSOR_CONSUME), BP_RING_OK);
	for (v = 0; v < 5; v++)
		CHECK(put(&r, 8, 3, v, v));
	for (i = 0; i < 5; i++)
		CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf)), 1);
	/* 1000 more: the cursor's page (1) is long gone. */
	for (; v < 1005; v++)
		CHECK(put(&r, 8, 3, v, v));
	CHECK_EQ(stats(&r).head_seq, (1005 + 12) / 13);
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf)), 1);
	/* Oldest valid page is head - 3; its first record is the next one. */
	CHECK_EQ(ev.page_seq, stats(&r).head_seq - 3);
	CHECK_EQ(ev.index, (ev.page_seq - 1) * 13);
	CHECK_EQ(payload_u64(&ev), ev.index);
	CHECK_EQ(c.overwritten, ev.index - 5);
	last = ev.index;
	while ((n = bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf))) == 1) {
		CHECK_EQ(ev.index, last + 1);
		CHECK_EQ(payload_u64(&ev), ev.index);
		last = ev.index;
	}
	CHECK_EQ(n, 0);
	CHECK_EQ(last, 1004);
	CHECK_EQ(c.read + c.overwritten + stats(&r).discarded, stats(&r).written);
	CHECK_EQ(stats(&r).consumed_seq, stats(&r).head_seq - 1);

	/* A snapshot cursor that starts late counts what it never saw. */
	CHECK_EQ(bp_ring_cursor_init(r.mem, r.bytes, &c, BP_RING_CURSOR_SNAPSHOT), BP_RING_OK);
	while ((n = bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf))) == 1)
		;
	CHECK_EQ(n, 0);
	CHECK_EQ(c.read + c.overwritten, 1005);
	CHECK_EQ(c.read, 1005 - (stats(&r).head_seq - 4) * 13);
	ring_free(&r);
}

/* A writer re-attached to a ring continues on a new page. */
static void test_reattach(void)
{
	struct ring r;
	struct bp_ring_cursor c;
	struct bp_ring_event ev;
	uint64_t buf[8];
	uint64_t v;
	int n;

	ring_new(&r, 256, 4, BP_RING_OVERWRITE);
	for (v = 0; v < 3; v++)
		CHECK(put(&r, 8, 0, v, v));
	CHECK_EQ(bp_ring_writer_init(&r.w, r.mem, r.bytes), BP_RING_OK);
	for (; v < 6; v++)
		CHECK(put(&r, 8, 0, v, v));
	CHECK_EQ(stats(&r).head_seq, 2);
	CHECK_EQ(bp_ring_cursor_init(r.mem, r.bytes, &c, BP_RING_CURSOR_SNAPSHOT), BP_RING_OK);
	for (v = 0; (n = bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf))) == 1; v++) {
		CHECK_EQ(payload_u64(&ev), v);
		CHECK_EQ(ev.index, v);
	}
	CHECK_EQ(n, 0);
	CHECK_EQ(v, 6);
	ring_free(&r);
}

/*
 * bp_ring_page_cut(): a copied page cut to the records of index [first,
 * end) reads exactly those records (timestamps across time extends,
 * payloads, user bits), first_rec from first; with a prefix bit, the
 * first record kept after a cut front carries the bit and the word before
 * its payload.
 */
static void test_page_cut(void)
{
	const uint32_t bit = 1u << 19, word = 0xc0ffee;
	struct ring r;
	struct bp_ring_page_iter it, cut_it;
	struct bp_ring_event a, b;
	struct bp_ring_stats st;
	unsigned char *copy = malloc(512), *cut = malloc(512);
	uint64_t ts = 100, cuts = 0;

	CHECK(copy != NULL && cut != NULL);
	ring_new(&r, 512, 64, BP_RING_DISCARD);
	for (uint64_t i = 0; i < 120; i++) {
		ts += i % 5 == 0 ? (1ull << 33) : 3;	/* time extends among them */
		put(&r, (uint32_t)(8 + 4 * (i % 11)), (uint32_t)i, ts, i);
	}
	st = stats(&r);
	for (uint64_t seq = 1; seq < st.head_seq; seq++) {
		uint64_t f0, f1;

		CHECK_EQ(bp_ring_copy_page(r.mem, r.bytes, seq, copy), BP_RING_OK);
		CHECK_EQ(bp_ring_page_begin(&it, copy, 512, 0), BP_RING_OK);
		f0 = it.next_rec;
		f1 = f0 + bp_ring_page_records(copy, 512);
		for (uint64_t first = f0; first <= f1; first++) {
			for (uint64_t end = first; end <= f1; end++) {
				for (int prefix = 0; prefix < 2; prefix++) {
					uint64_t n = 0;

					memcpy(cut, copy, 512);
					CHECK_EQ(bp_ring_page_cut(cut, 512, first, end, prefix ? bit : 0,
								  word), BP_RING_OK);
					CHECK_EQ(bp_ring_page_begin(&it, copy, 512, 0), BP_RING_OK);
					CHECK_EQ(bp_ring_page_begin(&cut_it, cut, 512, 0), BP_RING_OK);
					while (bp_ring_page_next(&it, &a, NULL, 0) == 1) {
						int prefixed = prefix && first > f0 && a.index == first;

						if (a.index < first || a.index >= end)
							continue;
						CHECK_EQ(bp_ring_page_next(&cut_it, &b, NULL, 0), 1);
						CHECK_EQ(b.index, a.index);
						CHECK_EQ(b.ts, a.ts);
						CHECK_EQ(b.user_bits, a.user_bits | (prefixed ? bit : 0));
						CHECK_EQ(b.payload_len, a.payload_len + (prefixed ? 4 : 0));
						if (prefixed)
							CHECK(memcmp(b.payload, &word, 4) == 0);
						CHECK(memcmp((const unsigned char *)b.payload + (prefixed ? 4 : 0),
							     a.payload, a.payload_len) == 0);
						n++;
					}
					CHECK_EQ(bp_ring_page_next(&cut_it, &b, NULL, 0), 0);
					CHECK_EQ(n, end - first);
					CHECK_EQ(bp_ring_page_records(cut, 512), end - first);
					cuts++;
				}
			}
		}
	}
	CHECK(cuts > 100);
	free(copy);
	free(cut);
	ring_free(&r);
}

/*
 * A page copied out of the ring reads the same with the page iterator as
 * in the ring with a cursor: records of every size, time extends, a first
 * page's discarded_before; a damaged copy is refused.
 */
static void test_page_iterator(void)
{
	struct ring r;
	struct bp_ring_cursor c;
	struct bp_ring_event a, b, p, q;
	struct bp_ring_page_iter it, in_place, in_line;
	struct bp_ring_stats st;
	uint32_t buf1[1024], buf2[1024];
	unsigned char *copy = malloc(512);
	uint64_t ts = 100, expect = 0, n = 0;

	CHECK(copy != NULL);
	ring_new(&r, 512, 64, BP_RING_DISCARD);
	for (uint64_t i = 0; i < 200; i++) {
		ts += i % 7 == 0 ? (1ull << 33) : 3;	/* a time extend now and then */
		put(&r, (uint32_t)(8 + 4 * (i % 23)), (uint32_t)i, ts, i);
	}
	st = stats(&r);
	CHECK_EQ(bp_ring_cursor_init(r.mem, r.bytes, &c, BP_RING_CURSOR_SNAPSHOT), BP_RING_OK);
	for (uint64_t seq = 1; seq <= st.head_seq; seq++) {
		CHECK_EQ(bp_ring_copy_page(r.mem, r.bytes, seq, copy), BP_RING_OK);
		CHECK_EQ(bp_ring_page_begin(&it, copy, 512, expect), BP_RING_OK);
		CHECK_EQ(bp_ring_page_begin(&in_place, copy, 512, expect), BP_RING_OK);
		CHECK_EQ(bp_ring_page_begin(&in_line, copy, 512, expect), BP_RING_OK);
		while (bp_ring_page_next(&it, &b, buf2, sizeof(buf2)) == 1) {
			/* without a buffer: the same record, its payload in the page */
			CHECK_EQ(bp_ring_page_next(&in_place, &p, NULL, 0), 1);
			CHECK(p.ts == b.ts && p.index == b.index && p.payload_len == b.payload_len);
			CHECK((const unsigned char *)p.payload >= copy &&
			      (const unsigned char *)p.payload + p.payload_len <= copy + 512);
			CHECK(memcmp(p.payload, buf2, p.payload_len) == 0);
			/* as the file reader drives it: in line first */
			CHECK(bp_ring_page_next_in_line(&in_line, &q) ||
			      bp_ring_page_next(&in_line, &q, NULL, 0) == 1);
			CHECK(q.ts == b.ts && q.index == b.index && q.page_seq == b.page_seq &&
			      q.discarded_before == b.discarded_before && q.payload == p.payload &&
			      q.user_bits == b.user_bits);
			CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &a, buf1, sizeof(buf1)), 1);
			CHECK_EQ(a.ts, b.ts);
			CHECK_EQ(a.index, b.index);
			CHECK_EQ(a.user_bits, b.user_bits);
			CHECK_EQ(a.page_seq, b.page_seq);
			CHECK_EQ(a.discarded_before, b.discarded_before);
			CHECK_EQ(a.payload_len, b.payload_len);
			CHECK(memcmp(buf1, buf2, a.payload_len) == 0);
			n++;
		}
		CHECK(!bp_ring_page_next_in_line(&in_line, &q));
		CHECK_EQ(bp_ring_page_next(&in_line, &q, NULL, 0), 0);
		CHECK_EQ(bp_ring_page_records(copy, 512), it.next_rec - expect);
		expect = it.next_rec;
	}
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &a, buf1, sizeof(buf1)), 0);
	CHECK_EQ(n, st.written - st.discarded);
	/* going backwards, a commit past the page, a record past commit */
	CHECK_EQ(bp_ring_page_begin(&it, copy, 512, expect + 1), BP_RING_ECORRUPT);
	CHECK_EQ(bp_ring_page_begin(&it, copy, 300, 0), BP_RING_EINVAL);
	memcpy(copy + 32, &(uint32_t){ 512 - 40 + 4 }, 4);
	CHECK_EQ(bp_ring_page_begin(&it, copy, 512, 0), BP_RING_ECORRUPT);
	CHECK_EQ(bp_ring_page_records(copy, 512), 0);
	memcpy(copy + 32, &(uint32_t){ 12 }, 4);
	CHECK_EQ(bp_ring_page_begin(&it, copy, 512, 0), BP_RING_OK);
	CHECK_EQ(bp_ring_page_next(&it, &b, buf2, sizeof(buf2)), BP_RING_ECORRUPT);
	free(copy);
	ring_free(&r);
}

/*
 * A drop closes the page (docs/ring-buffer.md, "Drops"): no record after
 * a dropped one goes into the page it did not fit in, so the next page's
 * discarded_before is exactly the gap, on the first record after it.
 */
static void test_drop_closes_page(void)
{
	struct ring r;
	struct bp_ring_cursor cons, snap;
	struct bp_ring_event ev;
	uint64_t buf[64];
	uint64_t v = 0;
	int i, n;

	/* discard: 3 pages of 13 16-byte records, 8 bytes left in each */
	ring_new(&r, 256, 3, BP_RING_DISCARD);
	for (i = 0; i < 39; i++, v++)
		CHECK(put(&r, 8, 2, v, v));
	CHECK(!put(&r, 8, 2, v, v));	/* no room, no free page */
	v++;
	CHECK(!put(&r, 0, 2, v, v));	/* 8 bytes would fit: the page is closed */
	v++;
	CHECK_EQ(commit_of(&r, 3), 13 * 16);
	CHECK_EQ(stats(&r).discarded, 2);
	CHECK_EQ(bp_ring_cursor_init(r.mem, r.bytes, &cons, BP_RING_CURSOR_CONSUME), BP_RING_OK);
	while ((n = bp_ring_next(r.mem, r.bytes, &cons, &ev, buf, sizeof(buf))) == 1)
		CHECK_EQ(ev.discarded_before, 0);
	CHECK_EQ(n, 0);
	CHECK(put(&r, 8, 2, v, v));	/* page 4, in page 1's freed slot */
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &cons, &ev, buf, sizeof(buf)), 1);
	CHECK_EQ(ev.page_seq, 4);
	CHECK_EQ(ev.discarded_before, 2);
	CHECK_EQ(payload_u64(&ev), 41);
	ring_free(&r);

	/* overwrite: a record too large for any page, then a small one */
	ring_new(&r, 256, 4, BP_RING_OVERWRITE);
	CHECK(put(&r, 8, 2, 1, 1));
	CHECK(bp_ring_reserve(&r.w, bp_ring_max_payload(&r.w) + 1, 2, 2) == NULL);
	CHECK(put(&r, 8, 2, 3, 3));
	CHECK_EQ(commit_of(&r, 1), 16);
	CHECK_EQ(bp_ring_cursor_init(r.mem, r.bytes, &snap, BP_RING_CURSOR_SNAPSHOT), BP_RING_OK);
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &snap, &ev, buf, sizeof(buf)), 1);
	CHECK_EQ(ev.discarded_before, 0);
	CHECK_EQ(bp_ring_next(r.mem, r.bytes, &snap, &ev, buf, sizeof(buf)), 1);
	CHECK_EQ(ev.page_seq, 2);
	CHECK_EQ(ev.discarded_before, 1);
	CHECK_EQ(payload_u64(&ev), 3);
	CHECK_EQ(snap.read + snap.overwritten + stats(&r).discarded, stats(&r).written);
	ring_free(&r);
}

int main(void)
{
	test_geometry();
	test_record_sizes();
	test_time_extend();
	test_page_switch_and_tail();
	test_discard();
	test_drop_closes_page();
	test_overwrite_lapping();
	test_reattach();
	test_page_iterator();
	test_page_cut();
	printf("ring_unit: ok\n");
	return 0;
}
