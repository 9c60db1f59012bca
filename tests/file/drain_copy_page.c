/*
 * bp_ring_copy_page() against a live writer thread, both modes.
 *
 * The writer stores records whose payload is their own stored index.  The
 * copier copies pages as the drainer does (completed pages, consumed_seq
 * published after each; the head page too, while it is being filled) and
 * checks every copy it is given: the page seq it asked for, a valid commit,
 * records that parse up to it, payload == first_rec + position, zeroes after
 * commit.  Discard mode: copied + discarded == written exactly, no page
 * missed.  Overwrite mode: every page is either copied or reported gone.
 */
#include "ring/ring.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 256u
#define NPAGES 4u

static _Alignas(64) unsigned char ring[256 + NPAGES * PAGE];
static atomic_int done;
static uint64_t total;

static void *writer(void *arg)
{
	struct bp_ring_writer w;

	(void)arg;
	bp_ring_writer_init(&w, ring, sizeof(ring));
	for (uint64_t i = 0, ts = 1; i < total; i++, ts++) {
		uint64_t *p = bp_ring_reserve(&w, (uint32_t)(8 + (i % 3) * 4), 1, ts);

		if (p) {
			uint64_t v = bp_ring_stored(&w);

			memcpy(p, &v, 8);
			bp_ring_commit(&w);
		}
	}
	atomic_store(&done, 1);
	return NULL;
}

static int fail(const char *what, uint64_t seq)
{
	fprintf(stderr, "page %llu: %s\n", (unsigned long long)seq, what);
	exit(1);
}

/* Check a copy; returns its record count. */
static uint64_t check_copy(const unsigned char *pg, uint64_t seq, int head)
{
	const struct bp_ring_page *h = (const void *)pg;
	uint32_t commit = h->commit, off = 0;
	uint64_t first = h->first_rec, n = 0;

	if (h->seq != seq)
		fail("wrong seq in the copy", seq);
	if (commit > PAGE - 40 || (commit & 3))
		fail("bad commit", seq);
	while (off < commit) {
		uint32_t head_w, len;
		uint64_t v;

		memcpy(&head_w, pg + 40 + off, 4);
		len = (head_w & 0x3ff) * 4;
		if (len < 8 || len > commit - off)
			fail("bad record length", seq);
		if (((head_w >> 10) & 3) == 0) {
			memcpy(&v, pg + 40 + off + 8, 8);
			if (v != first + n)
				fail("torn or misplaced record", seq);
			n++;
		}
		off += len;
	}
	for (uint32_t i = 40 + commit; i < PAGE; i++)
		if (pg[i])
			fail("bytes after commit not zeroed", seq);
	if (!head && n == 0)
		fail("a completed page without records", seq);
	return n;
}

static void run(enum bp_ring_mode mode)
{
	unsigned char copy[PAGE];
	uint64_t next = 1, records = 0, gone = 0, head_copies = 0;
	struct bp_ring_stats st;
	pthread_t t;

	bp_ring_init(ring, sizeof(ring), PAGE, mode);
	atomic_store(&done, 0);
	if (bp_ring_copy_page(ring, sizeof(ring), 0, copy) != BP_RING_ENOENT ||
	    bp_ring_copy_page(ring, sizeof(ring), 1, copy) != BP_RING_ENOENT)
		fail("copy of a page not written yet", 1);
	pthread_create(&t, NULL, writer, NULL);
	for (;;) {
		int fin = atomic_load(&done);

		bp_ring_stats(ring, sizeof(ring), &st);
		while (next < st.head_seq) {
			int rc = bp_ring_copy_page(ring, sizeof(ring), next, copy);

			if (rc == BP_RING_OK) {
				records += check_copy(copy, next, 0);
				bp_ring_consumed(ring, sizeof(ring), next);
			} else if (rc == BP_RING_ENOENT) {
				if (mode == BP_RING_DISCARD)
					fail("a page gone in discard mode", next);
				gone++;
			} else {
				fail("corrupt", next);
			}
			next++;
		}
		if (st.head_seq && bp_ring_copy_page(ring, sizeof(ring), st.head_seq, copy) == 0) {
			check_copy(copy, st.head_seq, 1);	/* being filled: a valid prefix */
			head_copies++;
		}
		if (fin)
			break;
	}
	bp_ring_stats(ring, sizeof(ring), &st);
	while (next <= st.head_seq) {
		if (bp_ring_copy_page(ring, sizeof(ring), next, copy) == 0)
			records += check_copy(copy, next, next == st.head_seq);
		next++;
	}
	pthread_join(t, NULL);
	printf("%s: written %llu discarded %llu copied %llu records, %llu pages gone, "
	       "%llu head copies\n", mode == BP_RING_DISCARD ? "discard" : "overwrite",
	       (unsigned long long)st.written, (unsigned long long)st.discarded,
	       (unsigned long long)records, (unsigned long long)gone,
	       (unsigned long long)head_copies);
	if (mode == BP_RING_DISCARD && records + st.discarded != st.written)
		fail("discard mode: copied + discarded != written", 0);
	if (mode == BP_RING_OVERWRITE && records + st.discarded > st.written)
		fail("overwrite mode: more copied than written", 0);
}

int main(void)
{
	const char *q = getenv("BPRINT_TEST_QUICK");

	total = q && *q && *q != '0' ? 200000 : 3000000;
	run(BP_RING_DISCARD);
	run(BP_RING_OVERWRITE);
	return 0;
}
