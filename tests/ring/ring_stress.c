/*
 * tests/ring/ring_stress.c - one writer, one consumer, one snapshot reader,
 * concurrently, on one ring.
 *
 * usage: ring_stress overwrite|discard PAGE_SIZE NPAGES
 *
 * Record s (s = 0, 1, 2, ...) is a pure function of s: its length, payload
 * words, user bits and timestamp (with jumps and steps backwards, so time
 * extends happen).  The readers recompute it from the sequence number in
 * the payload and check every byte, so a torn, misplaced or stale record is
 * caught.  Sequence numbers must strictly increase, the ring's record
 * indexes too, and at the end the accounting must be exact:
 *   consumer: read + overwritten + discarded == written
 *   snapshot: read + overwritten == written - discarded
 * Neither reader assumes anything about timing: the same checks hold
 * whatever the interleaving.
 */
#include "ring/ring.h"
#include "check.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *g_mem;
static size_t g_bytes;
static uint64_t g_count;
static uint32_t g_maxp;			/* largest payload used */
static atomic_int g_done;
static uint64_t g_dropped;		/* NULL returns seen by the writer */
static _Atomic uint64_t g_cons_next;	/* consumer: index of its next record */
static atomic_int g_cons_done;

static uint32_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return (uint32_t)x;
}

/* Payload bytes of record s: 16 .. g_maxp, a multiple of 4, mostly small. */
static uint32_t rec_len(uint64_t s)
{
	uint32_t h = mix(s);
	uint32_t span = (h & 7u) ? 10u : (g_maxp - 16u) / 4u + 1u;

	return 16u + 4u * ((h >> 3) % span);
}

static uint64_t rec_ts(uint64_t s)
{
	uint64_t ts = s * 7u + ((s >> 12) << 33);

	return s % 997u == 0 ? ts - 5000u : ts;
}

/* payload: u64 s | u32 len | words mix(s + i) ... | u32 checksum */
static void fill(unsigned char *p, uint64_t s, uint32_t len)
{
	uint32_t i, w, sum = 0;

	memcpy(p, &s, 8);
	memcpy(p + 8, &len, 4);
	for (i = 12; i + 4 < len; i += 4) {
		w = mix(s + i);
		memcpy(p + i, &w, 4);
	}
	for (i = 0; i + 4 < len; i += 4) {
		memcpy(&w, p + i, 4);
		sum = sum * 31u + w;
	}
	memcpy(p + len - 4, &sum, 4);
}

static void check_record(const struct bp_ring_event *ev, uint64_t *s_out)
{
	static _Thread_local unsigned char want[8192];
	uint64_t s;

	CHECK(ev->payload_len >= 16);
	memcpy(&s, ev->payload, 8);
	CHECK_OP(s, <, g_count);
	CHECK_EQ(ev->payload_len, rec_len(s));
	fill(want, s, ev->payload_len);
	if (memcmp(want, ev->payload, ev->payload_len) != 0) {
		fprintf(stderr, "record %llu corrupted\n", (unsigned long long)s);
		exit(1);
	}
	CHECK_EQ(ev->user_bits, s & BP_RING_USER_BITS_MAX);
	CHECK(ev->ts == rec_ts(s));
	*s_out = s;
}

/*
 * One window of 8192 records in eight, the writer stays at most 64 stored
 * records ahead of the consumer, so both states are exercised: a consumer
 * keeping up (pages handed back in discard mode) and a writer racing ahead
 * (lapping, drops).  The wait is on the consumer's progress, not on time,
 * and cannot deadlock: a consumer that read all it could has index = stored.
 */
static void pace(const struct bp_ring_writer *w, uint64_t s)
{
	if ((s >> 13) % 8u != 0)
		return;
	while (bp_ring_stored(w) > atomic_load_explicit(&g_cons_next, memory_order_acquire) + 64 &&
	       !atomic_load_explicit(&g_cons_done, memory_order_acquire))
		sched_yield();
}

static void *writer(void *arg)
{
	struct bp_ring_writer w;
	unsigned char *p;
	uint64_t s;
	uint32_t len;

	(void)arg;
	CHECK_EQ(bp_ring_writer_init(&w, g_mem, g_bytes), BP_RING_OK);
	for (s = 0; s < g_count; s++) {
		pace(&w, s);
		len = rec_len(s);
		p = bp_ring_reserve(&w, len, (uint32_t)s, rec_ts(s));
		if (!p) {
			g_dropped++;
			continue;
		}
		fill(p, s, len);
		bp_ring_commit(&w);
	}
	atomic_store_explicit(&g_done, 1, memory_order_release);
	return NULL;
}

struct reader {
	unsigned flags;
	struct bp_ring_cursor c;
	uint64_t gaps;		/* sum of index gaps: must equal c.overwritten */
	uint64_t disc_seen;	/* sum of discarded_before */
};

static void *reader(void *arg)
{
	struct reader *r = arg;
	uint64_t buf[1024];
	struct bp_ring_event ev;
	uint64_t s, last_s = 0, next_index = 0;
	int rc, have = 0, done = 0;

	CHECK_EQ(bp_ring_cursor_init(g_mem, g_bytes, &r->c, r->flags), BP_RING_OK);
	for (;;) {
		rc = bp_ring_next(g_mem, g_bytes, &r->c, &ev, buf, sizeof(buf));
		CHECK_OP(rc, >=, 0);
		if (rc == 0) {
			if (done)
				break;	/* drained after the writer stopped */
			done = atomic_load_explicit(&g_done, memory_order_acquire);
			sched_yield();
			continue;
		}
		check_record(&ev, &s);
		if (have)
			CHECK_OP(s, >, last_s);
		CHECK_OP(ev.index, >=, next_index);
		r->gaps += ev.index - next_index;
		r->disc_seen += ev.discarded_before;
		next_index = ev.index + 1;
		last_s = s;
		have = 1;
		if (r->flags & BP_RING_CURSOR_CONSUME)
			atomic_store_explicit(&g_cons_next, next_index, memory_order_release);
	}
	if (r->flags & BP_RING_CURSOR_CONSUME)
		atomic_store_explicit(&g_cons_done, 1, memory_order_release);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tw, tc, ts;
	struct reader cons = { .flags = BP_RING_CURSOR_CONSUME };
	struct reader snap = { .flags = BP_RING_CURSOR_SNAPSHOT };
	struct bp_ring_stats st;
	enum bp_ring_mode mode;
	uint32_t page_size, npages;

	if (argc != 4) {
		fprintf(stderr, "usage: %s overwrite|discard PAGE_SIZE NPAGES\n", argv[0]);
		return 2;
	}
	mode = strcmp(argv[1], "discard") == 0 ? BP_RING_DISCARD : BP_RING_OVERWRITE;
	page_size = (uint32_t)strtoul(argv[2], NULL, 0);
	npages = (uint32_t)strtoul(argv[3], NULL, 0);
	g_count = (uint64_t)test_scale(10000000);
	g_bytes = bp_ring_bytes(page_size, npages);
	CHECK(g_bytes != 0);
	g_mem = aligned_alloc(64, (g_bytes + 63) & ~(size_t)63);
	CHECK(g_mem != NULL);
	CHECK_EQ(bp_ring_init(g_mem, g_bytes, page_size, mode), BP_RING_OK);
	CHECK_EQ(bp_ring_stats(g_mem, g_bytes, &st), BP_RING_OK);
	g_maxp = st.max_payload < 600 ? st.max_payload : 600;

	/* The consumer first, so that it sees the ring from its first page. */
	CHECK_EQ(pthread_create(&tc, NULL, reader, &cons), 0);
	CHECK_EQ(pthread_create(&ts, NULL, reader, &snap), 0);
	CHECK_EQ(pthread_create(&tw, NULL, writer, NULL), 0);
	CHECK_EQ(pthread_join(tw, NULL), 0);
	CHECK_EQ(pthread_join(tc, NULL), 0);
	CHECK_EQ(pthread_join(ts, NULL), 0);

	CHECK_EQ(bp_ring_stats(g_mem, g_bytes, &st), BP_RING_OK);
	printf("%s %u x %u: written %llu discarded %llu; consumer read %llu overwritten %llu; "
	       "snapshot read %llu overwritten %llu\n",
	       argv[1], page_size, npages, (unsigned long long)st.written,
	       (unsigned long long)st.discarded, (unsigned long long)cons.c.read,
	       (unsigned long long)cons.c.overwritten, (unsigned long long)snap.c.read,
	       (unsigned long long)snap.c.overwritten);
	CHECK_EQ(st.written, g_count);
	CHECK_EQ(st.discarded, g_dropped);
	CHECK_EQ(cons.c.read + cons.c.overwritten + st.discarded, st.written);
	CHECK_EQ(snap.c.read + snap.c.overwritten, st.written - st.discarded);
	CHECK_EQ(cons.gaps, cons.c.overwritten);
	CHECK_EQ(snap.gaps, snap.c.overwritten);
	CHECK_OP(cons.c.read, >, 0);
	if (mode == BP_RING_DISCARD) {
		/* The consumer is never lapped; drops before a page switch are
		 * reported by the next page (later ones have no page yet). */
		CHECK_EQ(cons.c.overwritten, 0);
		CHECK_OP(cons.disc_seen, <=, st.discarded);
	} else {
		CHECK_EQ(st.discarded, 0);
	}
	free(g_mem);
	return 0;
}
