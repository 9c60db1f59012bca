/*
 * tests/ring/ring_corrupt.c - readers given damaged rings.
 *
 * A reader must treat a ring as untrusted input (it may come from the file
 * of a crashed process).  Valid rings are built, copied into buffers of
 * exactly their size (so that AddressSanitizer sees any read past the end),
 * damaged (bit flips, garbage runs, extreme values in header fields, a short
 * mapping, pure noise behind a valid static line) and read with every
 * reader entry point.  Each call must return a documented code, each record
 * returned must lie in the caller's buffer (a frozen cursor's: in the ring),
 * a frozen cursor must read exactly what a snapshot cursor reads (no
 * writer changes these rings), and the number of records must
 * stay below what the ring's geometry can hold: no crash, no overread, no
 * endless loop.  Undamaged copies must read back exactly.
 */
#include "ring/view.h"
#include "ring/ring.h"
#include "check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

struct base {
	unsigned char *mem;
	size_t bytes;
	uint64_t records;	/* records a snapshot reader gets */
};

static void build(struct base *b, uint32_t page_size, uint32_t npages,
		  enum bp_ring_mode mode, uint64_t count)
{
	struct bp_ring_writer w;
	unsigned char *p;
	uint64_t s, ts = 1000;
	uint32_t len;

	b->bytes = bp_ring_bytes(page_size, npages);
	b->mem = aligned_alloc(64, (b->bytes + 63) & ~(size_t)63);
	CHECK(b->mem != NULL);
	CHECK_EQ(bp_ring_init(b->mem, b->bytes, page_size, mode), BP_RING_OK);
	CHECK_EQ(bp_ring_writer_init(&w, b->mem, b->bytes), BP_RING_OK);
	for (s = 0; s < count; s++) {
		len = 8u + 4u * (uint32_t)rnd_below(20);
		ts += s % 50 == 0 ? (1ull << 33) : rnd_below(100);
		if (s % 77 == 0)
			ts -= 500;
		p = bp_ring_reserve(&w, len, (uint32_t)s, ts);
		if (!p)
			continue;
		memcpy(p, &s, 8);
		memset(p + 8, (int)(s & 0xff), len - 8);
		bp_ring_commit(&w);
	}
}

/* Records one cursor can return from a ring of this memory at most. */
static uint64_t bound(const struct base *b)
{
	const struct bp_ring_ctl *ctl = (const void *)b->mem;

	return (uint64_t)ctl->npages * (ctl->page_size / 8u) + 16;
}

/* What one cursor read of a ring: its records, a hash of all of them
 * (times, indexes, pages, bits, losses, payload bytes) and how it stopped. */
struct reading {
	uint64_t n, hash;
	int rc;
};

static void hash_in(uint64_t *h, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		*h = (*h ^ b[i]) * 0x100000001b3ull;
}

/* Read the whole ring with one cursor.  A frozen cursor's payloads must
 * lie inside the ring, the others' in the caller's buffer. */
static struct reading read_ring(const void *mem, size_t bytes, unsigned flags, uint64_t limit,
				size_t cap)
{
	static uint64_t buf[2048];
	struct bp_ring_cursor c;
	struct bp_ring_event ev;
	struct reading r = { 0, 0xcbf29ce484222325ull, 0 };
	uint64_t calls;

	if ((r.rc = bp_ring_cursor_init(mem, bytes, &c, flags)) != BP_RING_OK)
		return r;
	for (calls = 0; calls <= limit; calls++) {
		memset(&ev, 0, sizeof(ev));
		/* a frozen cursor as the file reader drives it: in line first */
		r.rc = (flags & BP_RING_CURSOR_FROZEN) && bp_ring_next_in_page(&c, &ev)
			? 1 : bp_ring_next(mem, bytes, &c, &ev, buf, cap);
		if (r.rc == 1) {
			const unsigned char *pl = ev.payload;

			if (flags & BP_RING_CURSOR_FROZEN)
				CHECK(pl >= (const unsigned char *)mem &&
				      pl + ev.payload_len <= (const unsigned char *)mem + bytes);
			else
				CHECK(ev.payload == (const void *)buf);
			CHECK_OP(ev.payload_len, <=, cap);
			CHECK_OP(ev.payload_len % 4, ==, 0);
			CHECK_OP(ev.user_bits, <=, BP_RING_USER_BITS_MAX);
			hash_in(&r.hash, &ev.ts, sizeof(ev.ts));
			hash_in(&r.hash, &ev.index, sizeof(ev.index));
			hash_in(&r.hash, &ev.page_seq, sizeof(ev.page_seq));
			hash_in(&r.hash, &ev.user_bits, sizeof(ev.user_bits));
			hash_in(&r.hash, &ev.discarded_before, sizeof(ev.discarded_before));
			hash_in(&r.hash, pl, ev.payload_len);
			r.n++;
			continue;
		}
		CHECK(r.rc == 0 || r.rc == BP_RING_ECORRUPT || r.rc == BP_RING_ENOSPC);
		return r;
	}
	fprintf(stderr, "reader returned more than %llu records\n", (unsigned long long)limit);
	exit(1);
}

static uint64_t drain(const void *mem, size_t bytes, unsigned flags, uint64_t limit,
		      size_t cap)
{
	return read_ring(mem, bytes, flags, limit, cap).n;
}

/* A ring no writer touches reads the same in place as through the
 * seqlock's copies: the same records, and the same end. */
static void frozen_reads_alike(const void *mem, size_t bytes, uint64_t limit)
{
	struct reading a = read_ring(mem, bytes, BP_RING_CURSOR_SNAPSHOT, limit, 16384);
	struct reading b = read_ring(mem, bytes, BP_RING_CURSOR_FROZEN, limit, 16384);

	CHECK_EQ(b.n, a.n);
	CHECK_EQ(b.hash, a.hash);
	CHECK_EQ(b.rc, a.rc);
}

static void poke_stats(const void *mem, size_t bytes)
{
	struct bp_ring_stats st;
	struct bp_ring_page_info pi;
	uint64_t seq;
	int rc;

	rc = bp_ring_stats(mem, bytes, &st);
	CHECK(rc == BP_RING_OK || rc == BP_RING_ECORRUPT);
	if (rc != BP_RING_OK)
		return;
	for (seq = st.head_seq > 20 ? st.head_seq - 20 : 0; seq <= st.head_seq + 2; seq++) {
		rc = bp_ring_page_info(mem, bytes, seq, &pi);
		CHECK(rc == BP_RING_OK || rc == BP_RING_ENOENT || rc == BP_RING_ECORRUPT);
		if (rc == BP_RING_OK)
			CHECK_OP(pi.commit, <=, st.page_size - BP_RING_PAGE_HDR_BYTES);
	}
}

/* One kind of damage to m (bytes long, a copy of a valid ring). */
static void damage(unsigned char *m, size_t bytes, uint32_t page_size)
{
	static const uint64_t extremes[] = { 0, 1, 2, 0x7fffffff, 0xffffffff,
					     0x100000000ull, UINT64_MAX, UINT64_MAX - 1 };
	uint64_t v;
	size_t off, len, i;
	unsigned k, n;

	switch (rnd_below(5)) {
	case 0:		/* bit flips anywhere */
		for (n = 1 + (unsigned)rnd_below(16), k = 0; k < n; k++) {
			off = (size_t)rnd_below(bytes);
			m[off] ^= (unsigned char)(1u << rnd_below(8));
		}
		break;
	case 1:		/* bit flips in the control block and page headers */
		for (n = 1 + (unsigned)rnd_below(4), k = 0; k < n; k++) {
			off = (size_t)rnd_below(BP_RING_CTL_BYTES);
			if (rnd() & 1)
				off = BP_RING_CTL_BYTES +
				      (size_t)rnd_below(bytes / page_size + 1) * page_size +
				      (size_t)rnd_below(BP_RING_PAGE_HDR_BYTES);
			if (off < bytes)
				m[off] ^= (unsigned char)(1u << rnd_below(8));
		}
		break;
	case 2:		/* a run of garbage */
		off = (size_t)rnd_below(bytes);
		len = (size_t)rnd_below(bytes - off) % 600 + 1;
		for (i = 0; i < len; i++)
			m[off + i] = (unsigned char)rnd();
		break;
	case 3:		/* an extreme value in an aligned field */
		if (bytes < 16)
			break;
		off = (size_t)rnd_below(bytes / 8) * 8;
		v = extremes[rnd_below(sizeof(extremes) / sizeof(extremes[0]))];
		if (rnd() & 1)
			memcpy(m + off, &v, 8);
		else
			memcpy(m + off + 4 * rnd_below(2), &v, 4);
		break;
	default:	/* noise everywhere but the static line */
		for (i = 64; i < bytes; i++)
			m[i] = (unsigned char)rnd();
		break;
	}
}

static void exact_copy_reads_back(const struct base *b)
{
	unsigned char *m = malloc(b->bytes);
	uint64_t lim = bound(b);

	CHECK(m != NULL);
	memcpy(m, b->mem, b->bytes);
	CHECK_EQ(drain(m, b->bytes, BP_RING_CURSOR_SNAPSHOT, lim, 16384), b->records);
	CHECK_EQ(drain(m, b->bytes, BP_RING_CURSOR_CONSUME, lim, 16384), b->records);
	CHECK_EQ(drain(m, b->bytes, BP_RING_CURSOR_FROZEN, lim, 16384), b->records);
	frozen_reads_alike(m, b->bytes, lim);
	free(m);
}

static void fuzz(const struct base *b, long long iters)
{
	unsigned char *m;
	uint64_t lim = bound(b);
	size_t bytes;
	long long i;

	for (i = 0; i < iters; i++) {
		/* Sometimes the reader is told about a shorter mapping. */
		bytes = b->bytes;
		if (rnd_below(8) == 0)
			bytes -= (size_t)rnd_below(bytes);
		m = malloc(bytes);	/* exact size: ASan sees overreads */
		CHECK(m != NULL);
		memcpy(m, b->mem, bytes);
		damage(m, bytes, ((const struct bp_ring_ctl *)(const void *)b->mem)->page_size);
		poke_stats(m, bytes);
		drain(m, bytes, BP_RING_CURSOR_SNAPSHOT, lim, 16384);
		drain(m, bytes, (unsigned)(rnd() & 1), lim, (size_t)rnd_below(300));
		drain(m, bytes, BP_RING_CURSOR_CONSUME, lim, 16384);
		frozen_reads_alike(m, bytes, lim);
		free(m);
	}
}

int main(void)
{
	struct base b[3];
	long long iters = test_scale(30000);
	unsigned i;

	build(&b[0], 256, 8, BP_RING_OVERWRITE, 500);	/* lapped */
	build(&b[1], 512, 4, BP_RING_DISCARD, 500);	/* full, drops */
	build(&b[2], 4096, 3, BP_RING_OVERWRITE, 150);	/* partly filled */
	for (i = 0; i < 3; i++) {
		b[i].records = drain(b[i].mem, b[i].bytes, BP_RING_CURSOR_SNAPSHOT,
				     bound(&b[i]), 16384);
		CHECK_OP(b[i].records, >, 0);
		exact_copy_reads_back(&b[i]);
		fuzz(&b[i], iters);
		free(b[i].mem);
	}
	printf("ring_corrupt: ok (%lld damaged rings per geometry)\n", iters);
	return 0;
}
