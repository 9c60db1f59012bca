/*
 * tests/ring/ring_block.c - block mode (docs/ring-buffer.md, "Page switch,
 * block mode").
 *
 *   1. no consumer attached: a full ring drops at once, no wait counted;
 *   2. a writer that may not wait (block_max_ns 0, a nested ring) drops at
 *      once even with a consumer attached;
 *   3. a consumer attached that never consumes (stopped, or dead): the
 *      first full reserve waits the timeout and drops; the following ones
 *      drop at once (one wait counted), and the writer waits again once
 *      the consumer moves;
 *   4. a consumer thread and a writer flat out on a small ring: nothing is
 *      discarded, the consumer reads every record, in order, and
 *      read + overwritten + discarded == written.
 */
#include "ring/ring.h"
#include "check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TIMEOUT_NS (30u * 1000u * 1000u)

struct ring {
	void *mem;
	size_t bytes;
	struct bp_ring_writer w;
};

static void ring_new(struct ring *r, uint32_t page_size, uint32_t npages)
{
	r->bytes = bp_ring_bytes(page_size, npages);
	CHECK(r->bytes != 0);
	r->mem = aligned_alloc(64, (r->bytes + 63) & ~(size_t)63);
	CHECK(r->mem != NULL);
	CHECK_EQ(bp_ring_init(r->mem, r->bytes, page_size, BP_RING_BLOCK), BP_RING_OK);
	CHECK_EQ(bp_ring_writer_init(&r->w, r->mem, r->bytes), BP_RING_OK);
}

static int put(struct ring *r, uint64_t v)
{
	uint64_t *p = bp_ring_reserve(&r->w, sizeof(v), 1, v);

	if (!p)
		return 0;
	memcpy(p, &v, sizeof(v));
	bp_ring_commit(&r->w);
	return 1;
}

/* Fill the ring until the first drop; returns the records stored. */
static uint64_t fill(struct ring *r)
{
	uint64_t n = 0;

	while (put(r, n))
		n++;
	return n;
}

static struct bp_ring_stats stats(const struct ring *r)
{
	struct bp_ring_stats st;

	CHECK_EQ(bp_ring_stats(r->mem, r->bytes, &st), BP_RING_OK);
	return st;
}

static void no_consumer(void)
{
	struct ring r;

	ring_new(&r, 256, 4);
	bp_ring_writer_block(&r.w, TIMEOUT_NS);
	CHECK(fill(&r) > 0);
	CHECK_EQ(stats(&r).discarded, 1);
	CHECK_EQ(stats(&r).block_waits, 0);
	CHECK_EQ(stats(&r).mode, BP_RING_BLOCK);
	free(r.mem);
}

static void may_not_wait(void)
{
	struct ring r;

	ring_new(&r, 256, 4);
	bp_ring_consumer_attach(r.mem, r.bytes, 1);
	CHECK_EQ(stats(&r).consumer, 1);
	CHECK(fill(&r) > 0);	/* block_max_ns left at 0 */
	CHECK_EQ(stats(&r).block_waits, 0);
	free(r.mem);
}

static void stalled_consumer(void)
{
	struct bp_ring_cursor c;
	struct bp_ring_event ev;
	uint64_t buf[8], stored;
	struct ring r;

	ring_new(&r, 256, 4);
	bp_ring_writer_block(&r.w, TIMEOUT_NS);
	bp_ring_consumer_attach(r.mem, r.bytes, 1);
	stored = fill(&r);
	CHECK_EQ(stats(&r).block_waits, 1);
	CHECK_OP(stats(&r).block_ns, >=, TIMEOUT_NS);
	for (int i = 0; i < 100; i++)
		CHECK(!put(&r, 1000 + (uint64_t)i));
	CHECK_EQ(stats(&r).block_waits, 1);	/* went on without waiting */
	CHECK_EQ(stats(&r).discarded, 101);

	/* the consumer moves: the writer gets room (and waits again when full) */
	CHECK_EQ(bp_ring_cursor_init(r.mem, r.bytes, &c, BP_RING_CURSOR_CONSUME), BP_RING_OK);
	for (uint64_t i = 0; i < stored; i++)
		CHECK_EQ(bp_ring_next(r.mem, r.bytes, &c, &ev, buf, sizeof(buf)), 1);
	CHECK(fill(&r) > 0);
	CHECK_EQ(stats(&r).block_waits, 2);
	CHECK_EQ(stats(&r).discarded, 102);
	CHECK_EQ(c.read, stored);
	CHECK_EQ(c.overwritten, 0);
	free(r.mem);
}

struct flat {
	struct ring r;
	uint64_t n;
	_Atomic int done;
	uint64_t read, bad;
};

static void *consume(void *arg)
{
	struct flat *f = arg;
	struct bp_ring_cursor c;
	struct bp_ring_event ev;
	uint64_t buf[8], want = 0;
	int rc, done;

	CHECK_EQ(bp_ring_cursor_init(f->r.mem, f->r.bytes, &c, BP_RING_CURSOR_CONSUME), BP_RING_OK);
	for (;;) {
		done = atomic_load_explicit(&f->done, memory_order_acquire);
		while ((rc = bp_ring_next(f->r.mem, f->r.bytes, &c, &ev, buf, sizeof(buf))) == 1) {
			if (ev.payload_len != 8 || buf[0] != want)
				f->bad++;
			want = buf[0] + 1;
		}
		CHECK_EQ(rc, 0);
		if (done)
			break;
	}
	f->read = c.read;
	CHECK_EQ(c.overwritten, 0);
	return NULL;
}

static void flat_out(void)
{
	static struct flat f;
	pthread_t th;

	ring_new(&f.r, 256, 3);
	f.n = (uint64_t)test_scale(1000000);
	bp_ring_writer_block(&f.r.w, 10ull * 1000 * 1000 * 1000);	/* never times out here */
	bp_ring_consumer_attach(f.r.mem, f.r.bytes, 1);
	CHECK_EQ(pthread_create(&th, NULL, consume, &f), 0);
	for (uint64_t i = 0; i < f.n; i++)
		CHECK(put(&f.r, i));
	/* the head page is read once the writer moves on: one record past it */
	atomic_store_explicit(&f.done, 1, memory_order_release);
	CHECK_EQ(pthread_join(th, NULL), 0);
	CHECK_EQ(stats(&f.r).discarded, 0);
	CHECK_EQ(stats(&f.r).written, f.n);
	CHECK_EQ(f.bad, 0);
	/* a consumer reads up to the head page; the rest is there */
	CHECK_OP(f.read, <=, f.n);
	CHECK_OP(f.n - f.read, <=, 256 / 16);
	free(f.r.mem);
}

int main(void)
{
	no_consumer();
	may_not_wait();
	stalled_consumer();
	flat_out();
	puts("ring_block: all passed");
	return 0;
}
