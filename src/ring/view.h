/*
 * ring/view.h - a ring seen from outside ring/ (docs/ring-buffer.md,
 * "Outside the ring"): what the file's page codecs, the reader, the
 * drainer and the writer's chunk reuse read of a ring beyond the calls of
 * ring.h, so that none of them parses the ring's memory on its own.
 *   - the record-head walk: the length a record's head word gives, and
 *     whether the records of a page tile its commit;
 *   - a probe of a ring's control block: its magic, whether its writer
 *     began, its counters and shape, and blanking it;
 *   - a slot's seq (R1) and the re-check (R3) of a page read in place;
 *   - records no writer changes any more, read in line (a frozen
 *     cursor's, a page iterator's), with every reader's record checks.
 * Barrier labels are those of ring.c and docs/ring-buffer.md ("Barrier
 * pairs").  ring/geom.h, the ring's own geometry and page arithmetic,
 * stays inside ring/.
 */
#ifndef BP_RING_VIEW_H
#define BP_RING_VIEW_H

#include "ring/ring.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- the record-head walk ---------------------------------------------- */

/* The bytes the record whose head word is head spans: its length field
 * (words) in bytes, unchecked. */
static inline uint32_t bp_ring_head_bytes(uint32_t head)
{
	return (head & BP_RING_HEAD_LEN_MASK) * 4u;
}

/*
 * The same, if the record tiles a page's records from where it lies: at
 * least a record header and at most left, the bytes from it to the page's
 * commit; else 0.  A page's records lie end to end from the start of its
 * record area to its commit.  The page codecs (file/compact.c, dense.c)
 * keep every record's bytes as they are, so this is all they check;
 * bp_ring_record_len() is a reader's full check.
 */
static inline uint32_t bp_ring_head_span(uint32_t head, size_t left)
{
	uint32_t len = bp_ring_head_bytes(head);

	return len < BP_RING_REC_HDR_BYTES || len > left ? 0 : len;
}

/* The record at rec with left bytes from it to the commit: its head word
 * into *head and its span (bp_ring_head_span()), or 0 if it does not
 * tile (fewer than a record header's bytes left, or a bad length). */
static inline uint32_t bp_ring_rec_span(const unsigned char *rec, size_t left, uint32_t *head)
{
	if (left < BP_RING_REC_HDR_BYTES)
		return 0;
	memcpy(head, rec, sizeof(*head));
	return bp_ring_head_span(*head, left);
}

/*
 * The length of the record whose head word is head, with left bytes of
 * committed records from it to the page's commit; 0 if it breaks the
 * ring's rules: a length below the record header or past commit, a
 * reserved type, a time extend of another length.  Every reader's check,
 * in the ring (read_record, ring.c) and out of it (bp_ring_page_next, page.c).
 */
static inline uint32_t bp_ring_record_len(uint32_t head, uint32_t left)
{
	uint32_t words = head & BP_RING_HEAD_LEN_MASK;
	uint32_t type = (head >> BP_RING_HEAD_TYPE_SHIFT) & BP_RING_HEAD_TYPE_MASK;
	uint32_t len = words * 4u;

	if (words < 2 || len > left || type > BP_RING_TYPE_TIME_EXTEND ||
	    (type == BP_RING_TYPE_TIME_EXTEND && len != BP_RING_TIME_EXTEND_BYTES))
		return 0;
	return len;
}

/* ---- the control block, probed ----------------------------------------- */

/*
 * The control block at mem (a ring's memory, or a copy of its first
 * BP_RING_CTL_BYTES bytes, 8-byte aligned).  Its fields may change under a
 * prober: a chunk being reused is blanked, then formatted again
 * (docs/file-format.md), so every load is atomic, and a prober that needs
 * the ring itself validated calls bp_ring_stats() or bp_ring_cursor_init().
 * The casts drop const for the atomic loads (C11 takes non-const pointers
 * on some compilers): only loaded through.
 */
static inline struct bp_ring_ctl *bp_ring_ctl_at(const void *mem)
{
	return (struct bp_ring_ctl *)(uintptr_t)mem;
}

/* Its magic, relaxed: BP_RING_MAGIC once bp_ring_init() made it a ring, 0
 * before and once blanked (bp_ring_ctl_clear()); anything else: not ours. */
static inline uint32_t bp_ring_ctl_magic(const void *mem)
{
	return __atomic_load_n(&bp_ring_ctl_at(mem)->magic, __ATOMIC_RELAXED);
}

/* Its head page: nonzero once a writer began the ring's first page (R4,
 * acquire; pairs with W3, the writer's store of head).  A control block
 * whose magic is 0 with a head is not one waiting to be formatted. */
static inline uint64_t bp_ring_ctl_head(const void *mem)
{
	return atomic_load_explicit(&bp_ring_ctl_at(mem)->head_seq, memory_order_acquire);
}

/* The writer's counters, relaxed (as bp_ring_stats() loads them: counts,
 * not ordered against the pages). */
static inline void bp_ring_ctl_counts(const void *mem, uint64_t *written, uint64_t *discarded)
{
	struct bp_ring_ctl *ctl = bp_ring_ctl_at(mem);

	*written = atomic_load_explicit(&ctl->written, memory_order_relaxed);
	*discarded = atomic_load_explicit(&ctl->discarded, memory_order_relaxed);
}

/*
 * The pages of the ring of bytes bytes at mem, as its control block gives
 * them: 1 with *page_size and *npages when its magic is ours and that many
 * pages (each at least a page header) fit after the control block, else 0.
 * Not the ring's full check (bp_ring_stats()): enough to touch the pages'
 * headers, for the ring's own writer, which formatted it.
 */
static inline int bp_ring_ctl_pages(const void *mem, size_t bytes, uint32_t *page_size,
				    uint32_t *npages)
{
	const struct bp_ring_ctl *ctl = bp_ring_ctl_at(mem);
	uint32_t ps = __atomic_load_n(&ctl->page_size, __ATOMIC_RELAXED);
	uint32_t np = __atomic_load_n(&ctl->npages, __ATOMIC_RELAXED);

	if (bp_ring_ctl_magic(mem) != BP_RING_MAGIC || ps < BP_RING_PAGE_HDR_BYTES ||
	    bytes < BP_RING_CTL_BYTES || (uint64_t)np * ps > bytes - BP_RING_CTL_BYTES)
		return 0;
	*page_size = ps;
	*npages = np;
	return 1;
}

/* Blank the control block (every byte 0): the ring fails every reader's
 * checks, and reads as one not formatted yet only while its head is 0
 * too.  Plain stores: the caller orders them (a release fence before). */
static inline void bp_ring_ctl_clear(void *mem)
{
	memset(mem, 0, BP_RING_CTL_BYTES);
}

/* ---- a page read in place: the re-check -------------------------------- */

/*
 * R3: the caller's reads of page seq, in place in its slot (p, from
 * bp_ring_page_slot(); the seq checked before with bp_ring_page_info(),
 * R1), come before this re-check of the slot's seq: an acquire fence,
 * then a relaxed load; pairs with the writer's W1 (seq = 0 before it
 * changes the slot).  1 if the slot still holds seq: what was read is
 * the page's.  0: it was recycled meanwhile; throw the reads away.
 */
static inline int bp_ring_page_unchanged(const struct bp_ring_page *p, uint64_t seq)
{
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&((struct bp_ring_page *)(uintptr_t)p)->seq,
				    memory_order_relaxed) == seq;
}

/* The seq the slot p (bp_ring_page_slot()) holds now, whatever page it
 * is: R1 (acquire; pairs with the writer's W2, the header before seq).
 * 0 while the writer recycles it (after its W1). */
static inline uint64_t bp_ring_slot_seq(const struct bp_ring_page *p)
{
	return atomic_load_explicit(&((struct bp_ring_page *)(uintptr_t)p)->seq,
				    memory_order_acquire);
}

/* ---- records no writer changes any more, read in line ------------------ */

/* How far ahead of the record being read its page is fetched into the
 * cache: reading a trace is a stream through memory that the hardware's
 * prefetch alone left a fifth of the reading time waiting for. */
#define BP_RING_PREFETCH_AHEAD 256u

/*
 * The record at rec, with left bytes of its page committed from rec on,
 * in memory that no writer changes any more (a page copied out of its
 * ring, or the ring of a writer gone).  Returns its length, 0 if it is
 * not a record.  A time extend moves *base_ts and sets *got false; a
 * record sets *got and ev's ts, payload (in place), payload_len and
 * user_bits.
 */
static inline uint32_t bp_ring_static_record(const unsigned char *rec, uint32_t left,
					     uint64_t *base_ts, struct bp_ring_event *ev,
					     int *got)
{
	uint32_t w2[2], len;

	__builtin_prefetch(rec + BP_RING_PREFETCH_AHEAD);
	if (left < BP_RING_REC_HDR_BYTES)
		return 0;
	memcpy(w2, rec, sizeof(w2));
	if (!(len = bp_ring_record_len(w2[0], left)))
		return 0;
	if (((w2[0] >> BP_RING_HEAD_TYPE_SHIFT) & BP_RING_HEAD_TYPE_MASK) ==
	    BP_RING_TYPE_TIME_EXTEND) {
		memcpy(base_ts, rec + BP_RING_REC_HDR_BYTES, sizeof(*base_ts));
		*got = 0;
		return len;
	}
	ev->ts = *base_ts + w2[1];
	ev->payload = rec + BP_RING_REC_HDR_BYTES;
	ev->payload_len = len - BP_RING_REC_HDR_BYTES;
	ev->user_bits = w2[0] >> BP_RING_HEAD_USER_SHIFT;
	*got = 1;
	return len;
}

/* A data record taken from page seq: its index, and the losses the page
 * counts before its first record. */
static inline void bp_ring_record_taken(struct bp_ring_event *ev, uint64_t seq,
					uint64_t *next_rec, uint64_t *disc_pending)
{
	ev->page_seq = seq;
	ev->index = (*next_rec)++;
	ev->discarded_before = *disc_pending;
	*disc_pending = 0;
}

/*
 * The record at c's offset in page seq, whose record area starts at area
 * and holds commit bytes: 1 (a record, into ev), 0 (a time extend, taken)
 * or -1 (not a record: damage; the cursor stays).
 */
static inline int bp_ring_frozen_take(struct bp_ring_cursor *c, const unsigned char *area,
				      uint32_t commit, uint64_t seq, struct bp_ring_event *ev)
{
	int got;
	uint32_t len = bp_ring_static_record(area + c->off, commit - c->off, &c->base_ts, ev, &got);

	if (!len)
		return -1;
	c->off += len;
	if (!got)
		return 0;
	bp_ring_record_taken(ev, seq, &c->next_rec, &c->disc_pending);
	c->read++;
	return 1;
}

/*
 * Reading a file whose writer is gone, nearly every record lies in the
 * page the last one came from: the two calls below take it in the
 * reader's own loop, without the calls down to bp_ring_next() or
 * bp_ring_page_next(), and leave everything else to them (a page's first
 * record, its end, damage).  The checks are theirs: the record lies below
 * the page's commit, its length and type are valid.
 */

/*
 * The next record of a frozen cursor (BP_RING_CURSOR_FROZEN), if it lies
 * in the page the cursor read its last record from: 1 and ev as
 * bp_ring_next() gives them, or 0 (call bp_ring_next(); a time extend may
 * have been taken).  Never 1 for a cursor that is not frozen.
 */
static inline int bp_ring_next_in_page(struct bp_ring_cursor *c, struct bp_ring_event *ev)
{
	if (c->frozen_seq != c->seq || !c->entered || c->off >= c->frozen_commit)
		return 0;
	return bp_ring_frozen_take(c, c->frozen_area, c->frozen_commit, c->seq, ev) == 1;
}

/*
 * The next record of a page iterator (bp_ring_page_next() without a
 * buffer), in line, if it is a data record: 1, or 0 (call
 * bp_ring_page_next(): the page's end, damage; a time extend may have
 * been taken).
 */
static inline int bp_ring_page_next_in_line(struct bp_ring_page_iter *it,
					    struct bp_ring_event *ev)
{
	int got;
	uint32_t len;

	if (it->off >= it->commit)
		return 0;
	len = bp_ring_static_record(it->rec + it->off, it->commit - it->off, &it->base_ts, ev,
				    &got);
	if (!len)
		return 0;
	it->off += len;
	if (got)
		bp_ring_record_taken(ev, it->seq, &it->next_rec, &it->disc_pending);
	return got;
}

#endif /* BP_RING_VIEW_H */
