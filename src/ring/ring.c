/*
 * ring/ring.c - ring buffer slow paths and readers.
 *
 * Why it is built this way (docs/ring-buffer.md is the specification):
 *   - The writer's common case is inline in ring.h; what is here runs once
 *     per page or on a drop, and is kept out of line (noinline, cold).
 *   - Readers trust nothing: the same code reads a live ring and the ring of
 *     a process that died, from a file anybody could have written.  Every
 *     field is checked before it is used as an offset or a length, every loop
 *     is bounded by the ring's geometry, and a record is parsed only from
 *     the reader's private copy.
 *   - Pages are protected seqlock style: a reader loads the page seq, copies,
 *     and loads the seq again; any change means the copy may be torn and is
 *     thrown away.  The copy itself is the one deliberate data race; it is
 *     isolated in copy_racy().
 *   - Barriers are named W1..W5 (writer) and R1..R5 (reader) as in the
 *     document's "Barrier pairs" table.
 */
#include "ring/geom.h"
#include <stdbool.h>

#include <string.h>

_Static_assert(sizeof(struct bp_ring_ctl) == BP_RING_CTL_BYTES, "control block is 256 bytes");
_Static_assert(offsetof(struct bp_ring_ctl, page_size) == 8, "layout");
_Static_assert(offsetof(struct bp_ring_ctl, mode) == 16, "layout");
_Static_assert(offsetof(struct bp_ring_ctl, head_seq) == 64, "writer line at 64");
_Static_assert(offsetof(struct bp_ring_ctl, written) == 72, "layout");
_Static_assert(offsetof(struct bp_ring_ctl, discarded) == 80, "layout");
_Static_assert(offsetof(struct bp_ring_ctl, block_waits) == 88, "layout");
_Static_assert(offsetof(struct bp_ring_ctl, block_ns) == 96, "layout");
_Static_assert(offsetof(struct bp_ring_ctl, consumed_seq) == 128, "reader line at 128");
_Static_assert(offsetof(struct bp_ring_ctl, consumer) == 136, "layout");
_Static_assert(sizeof(struct bp_ring_page) == BP_RING_PAGE_HDR_BYTES, "page header is 40 bytes");
_Static_assert(offsetof(struct bp_ring_page, first_rec) == 16, "layout");
_Static_assert(offsetof(struct bp_ring_page, commit) == 32, "layout");
_Static_assert(sizeof(_Atomic uint64_t) == 8 && sizeof(_Atomic uint32_t) == 4,
	       "atomics have the size of their values");

#define BP_COLD __attribute__((noinline, cold))

/* Internal result of one reader step: go round the loop again. */
#define STEP_AGAIN 2
/* Iterations of one bp_ring_next() call before it answers "nothing now". */
#define NEXT_BUDGET (1u << 16)
/* Resynchronisation attempts while the writer keeps moving. */
#define RESYNC_TRIES 64

/* ---- geometry ---------------------------------------------------------- */

size_t bp_ring_bytes(uint32_t page_size, uint32_t npages)
{
	if (!page_size_ok(page_size) || npages < 2)
		return 0;
	if (npages > (SIZE_MAX - BP_RING_CTL_BYTES) / page_size)
		return 0;
	return BP_RING_CTL_BYTES + (size_t)npages * page_size;
}

/* ---- init -------------------------------------------------------------- */

static int format(void *mem, size_t bytes, uint32_t page_size, enum bp_ring_mode mode,
		  bool clear_pages)
{
	struct bp_ring_ctl *ctl = mem;
	uint32_t npages, i;
	size_t n;

	if (!mem || ((uintptr_t)mem & 7u) || !page_size_ok(page_size) ||
	    (mode != BP_RING_OVERWRITE && mode != BP_RING_DISCARD && mode != BP_RING_BLOCK) ||
	    bytes < BP_RING_CTL_BYTES)
		return BP_RING_EINVAL;
	n = (bytes - BP_RING_CTL_BYTES) / page_size;
	if (n < 2)
		return BP_RING_EINVAL;
	npages = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;

	memset(ctl, 0, sizeof(*ctl));
	for (i = 0; clear_pages && i < npages; i++)
		memset((unsigned char *)mem + BP_RING_CTL_BYTES + (size_t)i * page_size, 0,
		       BP_RING_PAGE_HDR_BYTES);
	ctl->version = BP_RING_VERSION;
	ctl->ctl_bytes = BP_RING_CTL_BYTES;
	ctl->page_size = page_size;
	ctl->npages = npages;
	ctl->mode = (uint32_t)mode;
	ctl->page_hdr_bytes = BP_RING_PAGE_HDR_BYTES;
	/* The magic last: a half-formatted ring (a crash during init) fails
	 * the readers' first check. */
	atomic_thread_fence(memory_order_release);
	ctl->magic = BP_RING_MAGIC;
	return BP_RING_OK;
}

int bp_ring_init(void *mem, size_t bytes, uint32_t page_size, enum bp_ring_mode mode)
{
	return format(mem, bytes, page_size, mode, true);
}

int bp_ring_init_clean(void *mem, size_t bytes, uint32_t page_size, enum bp_ring_mode mode)
{
	return format(mem, bytes, page_size, mode, false);
}

/* ---- writer ------------------------------------------------------------ */

int bp_ring_writer_init(struct bp_ring_writer *w, void *mem, size_t bytes)
{
	struct geom g;
	struct bp_ring_ctl *ctl = mem;
	int rc = load_geom(mem, bytes, &g);

	if (rc)
		return rc;
	memset(w, 0, sizeof(*w));
	w->ctl = ctl;
	w->pages = (unsigned char *)mem + BP_RING_CTL_BYTES;
	w->page_size = g.page_size;
	w->npages = g.npages;
	w->mode = g.mode;
	w->end = g.area;
	w->off = g.area;	/* no current page: the first reserve switches */
	w->max_rec = max_record(g.page_size);
	w->seq = atomic_load_explicit(&ctl->head_seq, memory_order_relaxed);
	w->written = atomic_load_explicit(&ctl->written, memory_order_relaxed);
	w->discarded = atomic_load_explicit(&ctl->discarded, memory_order_relaxed);
	if (w->discarded > w->written)
		return BP_RING_ECORRUPT;
	w->disc_at_page = w->discarded;
	w->block_waits = atomic_load_explicit(&ctl->block_waits, memory_order_relaxed);
	w->block_ns = atomic_load_explicit(&ctl->block_ns, memory_order_relaxed);
	return BP_RING_OK;
}

/*
 * Drop the record being reserved, and close the current page: no later
 * record goes into it (its room is given up), so the next stored record
 * opens the next page, whose discarded_before then counts exactly the
 * records dropped between the page's last record and that one: a reader
 * shows the loss where it happened (docs/ring-buffer.md, "Drops").
 */
BP_COLD static void *drop(struct bp_ring_writer *w)
{
	w->off = w->end;
	w->discarded++;
	w->written++;
	atomic_store_explicit(&w->ctl->discarded, w->discarded, memory_order_relaxed);
	atomic_store_explicit(&w->ctl->written, w->written, memory_order_relaxed);
	return NULL;
}

/* Move to page seq + 1 with time base ts.  Returns 0 in discard mode when
 * that page's slot is not consumed yet. */
BP_COLD static int switch_page(struct bp_ring_writer *w, uint64_t ts)
{
	uint64_t next = w->seq + 1;
	struct bp_ring_page *p;
	uint64_t consumed;

	/* 0. discard and block modes: reuse a slot only once the consumer is
	 * done with it */
	if (w->mode != BP_RING_OVERWRITE && next > w->npages) {
		/* W5: the consumer's reads of the old page before our stores to
		 * it; pairs with the consumer's R5 release of consumed_seq. */
		consumed = atomic_load_explicit(&w->ctl->consumed_seq, memory_order_acquire);
		if (consumed < next - w->npages)
			return 0;
	}
	p = (struct bp_ring_page *)(void *)(w->pages +
		(size_t)slot_of(w->npages, next) * w->page_size);

	/* 1. invalidate.  W1: seq = 0 before the new header and records;
	 * pairs with the reader's R3 fence before it re-checks seq. */
	atomic_store_explicit(&p->seq, 0, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);

	/* 2. the new header */
	atomic_store_explicit(&p->base_ts, ts, memory_order_relaxed);
	atomic_store_explicit(&p->first_rec, bp_ring_stored(w), memory_order_relaxed);
	atomic_store_explicit(&p->discarded_before, w->discarded - w->disc_at_page,
			      memory_order_relaxed);
	atomic_store_explicit(&p->commit, 0, memory_order_relaxed);

	/* 3. W2: the header before seq; pairs with the reader's R1. */
	atomic_store_explicit(&p->seq, next, memory_order_release);

	/* 4. W3: the new page, and the old page's last commit, before head;
	 * pairs with the reader's R4. */
	atomic_store_explicit(&w->ctl->head_seq, next, memory_order_release);

	w->seq = next;
	w->rec = (unsigned char *)p + BP_RING_PAGE_HDR_BYTES;
	w->commit = &p->commit;
	w->off = 0;
	w->base_ts = ts;
	w->disc_at_page = w->discarded;
	return 1;
}

static int needs_extend(const struct bp_ring_writer *w, uint64_t ts)
{
	return ts < w->base_ts || ts - w->base_ts > UINT32_MAX;
}

/* Store a time extend at the current offset; it is committed together with
 * the record that follows it. */
static void put_extend(struct bp_ring_writer *w, uint64_t ts)
{
	uint32_t *x = (uint32_t *)(void *)(w->rec + w->off);

	x[0] = BP_RING_TIME_EXTEND_BYTES / 4u | BP_RING_TYPE_TIME_EXTEND << BP_RING_HEAD_TYPE_SHIFT;
	x[1] = 0;
	memcpy(&x[2], &ts, sizeof(ts));
	w->base_ts = ts;
	w->pending = BP_RING_TIME_EXTEND_BYTES;
}

BP_COLD void *bp_ring_reserve_slow(struct bp_ring_writer *w, uint32_t payload_bytes,
				   uint32_t user_bits, uint64_t ts)
{
	uint32_t len, need, *head;
	int extend;

	/* 1. too large for any page: dropped, counted */
	if (payload_bytes > w->max_rec - BP_RING_REC_HDR_BYTES)
		return drop(w);
	len = BP_RING_REC_HDR_BYTES + ((payload_bytes + 3u) & ~3u);

	/* 2. does the delta need a time extend first? */
	extend = needs_extend(w, ts);
	need = len + (extend ? BP_RING_TIME_EXTEND_BYTES : 0u);

	/* 3. no room: next page (its base is ts, so no extend there); block
	 * mode first waits, bounded, for the consumer to free its slot */
	if (need > w->end - w->off) {
		if (!switch_page(w, ts) &&
		    (!w->block_max_ns || !bp_ring_wait_room(w) || !switch_page(w, ts)))
			return drop(w);
		extend = 0;
	}

	/* 4. the extend, then the record */
	w->pending = 0;
	if (extend)
		put_extend(w, ts);
	head = (uint32_t *)(void *)(w->rec + w->off + w->pending);
	head[0] = (len / 4u) | ((user_bits & BP_RING_USER_BITS_MAX) << BP_RING_HEAD_USER_SHIFT);
	head[1] = (uint32_t)(ts - w->base_ts);
	if (payload_bytes & 3u)
		head[len / 4u - 1u] = 0;
	w->pending += len;
	return head + 2;
}

/* ---- reader ------------------------------------------------------------ */

/*
 * The seqlock's data copy (geom.h).  In line, where reading a record is
 * two copies of a few words; out of line under ThreadSanitizer only, whose
 * exemption holds for a function's own body, not for one inlined into an
 * instrumented caller.
 */
#if defined(__SANITIZE_THREAD__)
#define BP_RACY_COPY_INLINE __attribute__((noinline))
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BP_RACY_COPY_INLINE __attribute__((noinline))
#endif
#endif
#ifndef BP_RACY_COPY_INLINE
#define BP_RACY_COPY_INLINE inline __attribute__((always_inline))
#endif

BP_NO_TSAN static BP_RACY_COPY_INLINE void copy_racy(void *dst, const unsigned char *src,
						     uint32_t words)
{
	const volatile uint32_t *s = (const volatile uint32_t *)(const void *)src;
	unsigned char *d = dst;
	uint32_t i, v;

	for (i = 0; i < words; i++) {
		v = s[i];
		memcpy(d + (size_t)i * 4u, &v, sizeof(v));
	}
}

/* Jump to the oldest page still valid, at or after the cursor's page.
 * Returns STEP_AGAIN (positioned), 0 (empty ring or writer too fast for
 * now) or BP_RING_ECORRUPT. */
static int resync(const struct geom *g, struct bp_ring_cursor *c)
{
	struct bp_ring_ctl *ctl = ctl_of(g);
	uint64_t h, h2, oldest, start, n;
	int tries;

	for (tries = 0; tries < RESYNC_TRIES; tries++) {
		/* R4: head before the pages' seq; pairs with W3. */
		h = atomic_load_explicit(&ctl->head_seq, memory_order_acquire);
		if (h == 0)
			return 0;
		oldest = h >= g->npages ? h - g->npages + 1 : 1;
		start = c->seq > oldest ? c->seq : oldest;
		for (n = start; n <= h && n - start < g->npages; n++) {
			/* R1 */
			if (atomic_load_explicit(&page_at(g, n)->seq, memory_order_acquire) != n)
				continue;
			if (c->consumer && n > 1)
				/* R5: reads of earlier pages before consumed_seq;
				 * pairs with the writer's W5. */
				atomic_store_explicit(&ctl->consumed_seq, n - 1, memory_order_release);
			c->seq = n;
			c->off = 0;
			c->entered = 0;
			return STEP_AGAIN;
		}
		/* No valid page: only a moving writer explains that. */
		h2 = atomic_load_explicit(&ctl->head_seq, memory_order_acquire);
		if (h2 == h)
			return BP_RING_ECORRUPT;
	}
	return 0;
}

/* The cursor's page does not hold seq c->seq: not yet written, recycled,
 * or corrupt (see the page-state table in the document). */
static int page_missing(const struct geom *g, struct bp_ring_cursor *c)
{
	struct bp_ring_page *p = page_at(g, c->seq);
	uint64_t h, s;

	/* R4: head before the page's seq, so a page published before head is
	 * seen; pairs with W3. */
	h = atomic_load_explicit(&ctl_of(g)->head_seq, memory_order_acquire);
	s = atomic_load_explicit(&p->seq, memory_order_acquire);
	if (s == c->seq)
		return STEP_AGAIN;
	if (c->seq > h)
		return 0;
	if (s != 0 && slot_of(g->npages, s) != slot_of(g->npages, c->seq))
		return BP_RING_ECORRUPT;
	if (s == 0 || s > c->seq)
		return resync(g, c);
	return BP_RING_ECORRUPT;
}

/* A check failed on page p: if the page changed, the data was torn, so
 * resynchronise; if not, the memory is bad. */
static int torn_or_corrupt(const struct geom *g, struct bp_ring_cursor *c,
			   struct bp_ring_page *p, uint64_t s1)
{
	if (page_unchanged(p, s1))
		return BP_RING_ECORRUPT;
	return resync(g, c);
}

/* Read the header of the page the cursor just reached. */
static int enter_page(const struct geom *g, struct bp_ring_cursor *c,
		      struct bp_ring_page *p, uint64_t s1)
{
	uint64_t base = atomic_load_explicit(&p->base_ts, memory_order_relaxed);
	uint64_t first = atomic_load_explicit(&p->first_rec, memory_order_relaxed);
	uint64_t disc = atomic_load_explicit(&p->discarded_before, memory_order_relaxed);

	if (!page_unchanged(p, s1))
		return resync(g, c);
	/* a ring's first page is made before any record is stored */
	if (first < c->next_rec || (c->seq == 1 && first != 0))
		return BP_RING_ECORRUPT;
	c->overwritten += first - c->next_rec;
	c->next_rec = first;
	c->base_ts = base;
	c->disc_pending = disc;
	c->off = 0;
	c->entered = 1;
	return STEP_AGAIN;
}

/* The cursor reached commit on page p. */
static int end_of_page(const struct geom *g, struct bp_ring_cursor *c,
		       struct bp_ring_page *p, uint64_t s1)
{
	struct bp_ring_ctl *ctl = ctl_of(g);
	uint64_t h;
	uint32_t commit;

	/* R4: head before the final commit; pairs with W3. */
	h = atomic_load_explicit(&ctl->head_seq, memory_order_acquire);
	if (h <= c->seq)
		return 0;
	/* R2 */
	commit = atomic_load_explicit(&p->commit, memory_order_acquire);
	if (!page_unchanged(p, s1))
		return resync(g, c);
	if (commit > g->area || commit < c->off)
		return BP_RING_ECORRUPT;
	if (commit > c->off)
		return STEP_AGAIN;	/* committed just before the switch */
	if (c->consumer)
		/* R5: our reads of this page before consumed_seq; pairs with
		 * the writer's W5. */
		atomic_store_explicit(&ctl->consumed_seq, c->seq, memory_order_release);
	c->seq++;
	c->off = 0;
	c->entered = 0;
	return STEP_AGAIN;
}

/* The record at the cursor of a ring whose writer is gone, in place; the
 * page is kept for bp_ring_next_in_page(). */
static int read_frozen(struct bp_ring_cursor *c, const unsigned char *rec, uint32_t commit,
		       struct bp_ring_event *ev, uint64_t s1)
{
	const unsigned char *area = rec - c->off;
	int rc = bp_ring_frozen_take(c, area, commit, s1, ev);

	c->frozen_area = area;
	c->frozen_commit = commit;
	c->frozen_seq = s1;
	return rc == 1 ? 1 : rc == 0 ? STEP_AGAIN : BP_RING_ECORRUPT;
}

/* Copy the record at the cursor (commit bytes are valid in this page). */
static int read_record(const struct geom *g, struct bp_ring_cursor *c,
		       struct bp_ring_page *p, uint64_t s1, uint32_t commit,
		       struct bp_ring_event *ev, void *buf, size_t cap)
{
	const unsigned char *rec = (const unsigned char *)p + BP_RING_PAGE_HDR_BYTES + c->off;
	uint32_t w2[2], words, type, len;
	uint64_t ts;

	if (commit - c->off < BP_RING_REC_HDR_BYTES)
		return torn_or_corrupt(g, c, p, s1);
	if (c->frozen)
		return read_frozen(c, rec, commit, ev, s1);
	__builtin_prefetch(rec + BP_RING_PREFETCH_AHEAD);
	copy_racy(w2, rec, 2);
	len = bp_ring_record_len(w2[0], commit - c->off);
	if (!len)
		return torn_or_corrupt(g, c, p, s1);
	words = len / 4u;
	type = (w2[0] >> BP_RING_HEAD_TYPE_SHIFT) & BP_RING_HEAD_TYPE_MASK;

	if (type == BP_RING_TYPE_TIME_EXTEND) {
		copy_racy(&ts, rec + BP_RING_REC_HDR_BYTES, 2);
		if (!page_unchanged(p, s1))
			return resync(g, c);
		c->base_ts = ts;
		c->off += len;
		return STEP_AGAIN;
	}

	if (len - BP_RING_REC_HDR_BYTES > cap) {
		if (!page_unchanged(p, s1))
			return resync(g, c);
		return BP_RING_ENOSPC;
	}
	copy_racy(buf, rec + BP_RING_REC_HDR_BYTES, words - 2);
	if (!page_unchanged(p, s1))
		return resync(g, c);

	ev->ts = c->base_ts + w2[1];
	ev->payload = buf;
	ev->payload_len = len - BP_RING_REC_HDR_BYTES;
	ev->user_bits = w2[0] >> BP_RING_HEAD_USER_SHIFT;
	bp_ring_record_taken(ev, s1, &c->next_rec, &c->disc_pending);
	c->off += len;
	c->read++;
	return 1;
}

/* The cursor's page: its slot worked out once per page (the division was
 * a fifth of reading a record), checked against the geometry every time. */
static struct bp_ring_page *cursor_page(const struct geom *g, struct bp_ring_cursor *c)
{
	if (c->slot_seq != c->seq || c->slot >= g->npages) {
		c->slot = slot_of(g->npages, c->seq);
		c->slot_seq = c->seq;
	}
	return page_at_slot(g, c->slot);
}

/* One step at the cursor's page: a record, or STEP_AGAIN, 0, an error. */
static int step(const struct geom *g, struct bp_ring_cursor *c,
		struct bp_ring_event *ev, void *buf, size_t cap)
{
	struct bp_ring_page *p = cursor_page(g, c);
	uint64_t s1;
	uint32_t commit;

	/* R1: seq before the header and records; pairs with W2. */
	s1 = atomic_load_explicit(&p->seq, memory_order_acquire);
	if (s1 != c->seq)
		return page_missing(g, c);
	if (!c->entered)
		return enter_page(g, c, p, s1);
	/* R2: commit before the record bytes; pairs with W4. */
	commit = atomic_load_explicit(&p->commit, memory_order_acquire);
	if (commit > g->area || (commit & 3u) || c->off > commit)
		return torn_or_corrupt(g, c, p, s1);
	if (c->off == commit)
		return end_of_page(g, c, p, s1);
	return read_record(g, c, p, s1, commit, ev, buf, cap);
}

int bp_ring_cursor_init(const void *mem, size_t bytes, struct bp_ring_cursor *c,
			unsigned flags)
{
	struct geom g;
	uint64_t consumed;
	int rc = load_geom(mem, bytes, &g);

	memset(c, 0, sizeof(*c));
	if (rc)
		return rc;
	c->frozen = !!(flags & BP_RING_CURSOR_FROZEN);
	if (flags & BP_RING_CURSOR_CONSUME) {
		c->consumer = 1;
		consumed = atomic_load_explicit(&ctl_of(&g)->consumed_seq, memory_order_acquire);
		if (consumed == UINT64_MAX)
			return BP_RING_ECORRUPT;
		if (consumed)
			c->seq = consumed + 1;	/* checked on first use */
	}
	return BP_RING_OK;
}

/*
 * The geometry of the ring a cursor reads, checked once: the static line
 * is written once, before the ring is shared, so it is checked again only
 * when the cursor moves to another ring or the magic no longer reads as a
 * ring's (a chunk reused, or damage).  Every access goes through the
 * geometry checked, whatever the static line holds later, so a change of
 * its other fields cannot take a read outside the ring.
 */
static int cursor_geom(const void *mem, size_t bytes, struct bp_ring_cursor *c,
		       struct geom *g)
{
	int rc;

	if (c->geom_mem == mem && c->geom_bytes == bytes && mem &&
	    ((const struct bp_ring_ctl *)mem)->magic == BP_RING_MAGIC) {
		*g = (struct geom){ mem, c->geom_page_size, c->geom_npages, c->geom_mode,
				    c->geom_area };
		return BP_RING_OK;
	}
	if ((rc = load_geom(mem, bytes, g)) != BP_RING_OK)
		return rc;
	c->geom_mem = mem, c->geom_bytes = bytes;
	c->geom_page_size = g->page_size, c->geom_npages = g->npages;
	c->geom_mode = g->mode, c->geom_area = g->area;
	return BP_RING_OK;
}

int bp_ring_next(const void *mem, size_t bytes, struct bp_ring_cursor *c,
		 struct bp_ring_event *ev, void *buf, size_t cap)
{
	struct geom g;
	uint32_t budget;
	int rc = cursor_geom(mem, bytes, c, &g);

	if (rc)
		return rc;
	for (budget = 0; budget < NEXT_BUDGET; budget++) {
		rc = c->seq == 0 ? resync(&g, c) : step(&g, c, ev, buf, cap);
		if (rc != STEP_AGAIN)
			return rc;
	}
	return 0;
}

int bp_ring_copy_page(const void *mem, size_t bytes, uint64_t seq, void *out)
{
	struct geom g;
	struct bp_ring_page *p;
	struct bp_ring_page *copy = out;
	uint64_t s1;
	uint32_t commit;
	int rc = page_enter(mem, bytes, seq, &g, &p, &s1);				/* R1 */

	if (rc)
		return rc;
	commit = atomic_load_explicit(&p->commit, memory_order_acquire);	/* R2 */
	if (commit > g.area || (commit & 3u))
		commit = g.area + 1;	/* reported after the re-check */
	copy_racy(out, (const unsigned char *)p,
		  (BP_RING_PAGE_HDR_BYTES + (commit <= g.area ? commit : 0)) / 4u);
	if (!page_unchanged(p, s1))						/* R3 */
		return BP_RING_ENOENT;
	if (commit > g.area)
		return BP_RING_ECORRUPT;
	/* The header as validated: its seq, and the commit the bytes were copied under. */
	atomic_store_explicit(&copy->seq, s1, memory_order_relaxed);
	atomic_store_explicit(&copy->commit, commit, memory_order_relaxed);
	memset((unsigned char *)out + BP_RING_PAGE_HDR_BYTES + commit, 0, g.area - commit);
	return BP_RING_OK;
}
