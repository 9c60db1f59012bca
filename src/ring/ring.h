/*
 * ring/ring.h - per-writer ring buffers of trace records.
 *
 * Why it looks like this (the specification is docs/ring-buffer.md):
 *   - A ring lives in memory the caller provides, possibly a file mapped by
 *     another process after a crash, so the ring holds no pointers, only
 *     sequence numbers and offsets, and readers check every field.
 *   - One writer per ring, which may run in a signal handler: it uses plain
 *     stores and atomic loads/stores (release/acquire), never a
 *     read-modify-write, lock, system call or allocation.  Its state is in
 *     struct bp_ring_writer, outside the shared memory.
 *   - The ring is cut into pages, each with a sequence number, so that a
 *     reader detects (seqlock style) that its page was recycled and can
 *     resynchronise on the oldest page, counting exactly what it lost.
 *   - reserve/commit are inline: the common case is a bounds check, two
 *     header stores, and at commit one release store of the page's commit.
 *
 *	ring memory:
 *	+------------------+--------+--------+-----+--------+
 *	| control (256 B)  | page 0 | page 1 | ... | page N-1|
 *	+------------------+--------+--------+-----+--------+
 *	page:  | header (40 B) | rec | rec | ... | (commit) unused |
 *	rec:   | u32 head: len words:10 type:2 user:20 | u32 delta | payload |
 */
#ifndef BPRINT_RING_H
#define BPRINT_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define BP_RING_MAGIC		0x47525042u	/* "BPRG" in memory order */
#define BP_RING_VERSION		1u
#define BP_RING_CTL_BYTES	256u
#define BP_RING_PAGE_HDR_BYTES	40u
#define BP_RING_PAGE_MIN	256u
#define BP_RING_PAGE_MAX	(1u << 30)
#define BP_RING_PAGE_DEFAULT	4096u
#define BP_RING_REC_HDR_BYTES	8u
#define BP_RING_REC_MAX_WORDS	1023u
#define BP_RING_USER_BITS_MAX	0xfffffu	/* 20 user bits */

/* Record head word. */
#define BP_RING_HEAD_LEN_MASK	0x3ffu
#define BP_RING_HEAD_TYPE_SHIFT	10
#define BP_RING_HEAD_TYPE_MASK	0x3u
#define BP_RING_HEAD_USER_SHIFT	12
#define BP_RING_TYPE_DATA	0u
#define BP_RING_TYPE_TIME_EXTEND 1u
#define BP_RING_TIME_EXTEND_BYTES 16u

/* Return codes.  Readers never return anything else negative. */
#define BP_RING_OK		0
#define BP_RING_EINVAL		(-1)	/* bad argument (size, alignment, mode) */
#define BP_RING_ECORRUPT	(-2)	/* the memory is not a valid ring */
#define BP_RING_ENOSPC		(-3)	/* the caller's buffer is too small */
#define BP_RING_ENOENT		(-4)	/* no such page (not yet, or recycled) */

enum bp_ring_mode {
	BP_RING_OVERWRITE = 0,	/* flight recorder: recycle the oldest page */
	BP_RING_DISCARD = 1,	/* drop new records until a page is consumed */
	BP_RING_BLOCK = 2,	/* discard, but a writer that may wait (bp_ring_writer_block)
				 * first waits for an attached consumer, bounded */
};

/* "overwrite", "discard", "block" (mode.c); NULL for a value that is no mode. */
const char *bp_ring_mode_name(uint32_t mode);
/* The mode named name: 0 and *mode, or -1 for a name that is none. */
int bp_ring_mode_parse(const char *name, enum bp_ring_mode *mode);

/* Control block, at offset 0 of the ring.  Offsets pinned in ring.c. */
struct bp_ring_ctl {
	/* static line: written once by bp_ring_init() */
	uint32_t magic;
	uint16_t version;
	uint16_t ctl_bytes;
	uint32_t page_size;
	uint32_t npages;
	uint32_t mode;
	uint32_t page_hdr_bytes;
	uint8_t reserved0[40];
	/* writer line */
	_Atomic uint64_t head_seq;
	_Atomic uint64_t written;
	_Atomic uint64_t discarded;
	_Atomic uint64_t block_waits;	/* block mode: times the writer waited */
	_Atomic uint64_t block_ns;	/* and the nanoseconds it waited in all */
	uint8_t reserved1[24];
	/* reader line: written by the consumer only */
	_Atomic uint64_t consumed_seq;
	_Atomic uint64_t consumer;	/* nonzero (the consumer's pid) while one is attached */
	uint8_t reserved2[112];
};

/* Page header, at the start of every page. */
struct bp_ring_page {
	_Atomic uint64_t seq;
	_Atomic uint64_t base_ts;
	_Atomic uint64_t first_rec;
	_Atomic uint64_t discarded_before;
	_Atomic uint32_t commit;
	uint32_t reserved;
};

/*
 * Writer state, private to the writer (never in the shared memory).  Fields
 * are internal; initialise with bp_ring_writer_init().  One exception: the
 * tracer's inline fast path (include/bprint/internal.h, src/trace/emit.c) works on
 * a copy of rec, off, end and base_ts and writes records into the current
 * page itself, then sets off and reloads written (from ctl->written, which
 * it increments in place) before the next call here (docs/ring-buffer.md,
 * "The writer").
 */
struct bp_ring_writer {
	unsigned char *rec;		/* record area of the current page */
	_Atomic uint32_t *commit;	/* commit word of the current page */
	struct bp_ring_ctl *ctl;
	unsigned char *pages;		/* page slot 0 */
	uint32_t page_size;		/* geometry, copied at init: the shared */
	uint32_t npages;		/* copy is never trusted again */
	uint32_t mode;
	uint32_t off;			/* next record offset in the record area */
	uint32_t end;			/* record area size; off = end: no page */
	uint32_t pending;		/* bytes reserved, not yet committed */
	uint32_t max_rec;		/* largest record, bytes */
	uint64_t seq;			/* current page seq, 0 = none */
	uint64_t base_ts;		/* time base of the next record */
	uint64_t written;		/* stored + discarded */
	uint64_t discarded;
	uint64_t disc_at_page;		/* discarded when this page started */
	uint64_t block_max_ns;		/* block mode: longest wait, 0 = never wait */
	uint64_t stalled_at;		/* consumed_seq when a wait last timed out + 1 */
	uint64_t block_waits;
	uint64_t block_ns;
};

/* Bytes of memory a ring of this geometry needs; 0 if the geometry is bad
 * (page_size not a power of two in [256, 2^30], npages < 2, overflow). */
size_t bp_ring_bytes(uint32_t page_size, uint32_t npages);

/*
 * Format mem (8-byte aligned, bytes long) as an empty ring with pages of
 * page_size bytes, as many as fit.  Nothing may use the memory meanwhile.
 * Returns BP_RING_OK or BP_RING_EINVAL.
 */
int bp_ring_init(void *mem, size_t bytes, uint32_t page_size, enum bp_ring_mode mode);

/*
 * The same on memory whose page headers are known to read as zero (new
 * memory from mmap, a file's new space, or headers cleared before):
 * only the control block is written.  A thread's first record then
 * touches one page, not every page of its ring (4 MiB: 1,024 page faults,
 * milliseconds in a file); the writer reaches the others one at a time.
 */
int bp_ring_init_clean(void *mem, size_t bytes, uint32_t page_size, enum bp_ring_mode mode);

/*
 * Attach the (only) writer to a ring made by bp_ring_init().  The writer
 * continues after the ring's last page, so a ring may be re-attached (after
 * fork, say).  Returns BP_RING_OK or BP_RING_ECORRUPT.
 */
int bp_ring_writer_init(struct bp_ring_writer *w, void *mem, size_t bytes);

/*
 * Block mode: let this writer wait up to max_ns for the consumer when its
 * ring is full (docs/ring-buffer.md, "Page switch, block mode").  0, the
 * default after bp_ring_writer_init(), never waits: the tracer leaves it
 * so for the rings of nested calls.
 */
static inline void bp_ring_writer_block(struct bp_ring_writer *w, uint64_t max_ns)
{
	w->block_max_ns = max_ns;
}

/*
 * Attach (pid != 0) or detach (0) the ring's consumer, as seen by a
 * block-mode writer: it waits only while one is attached.  The consumer
 * calls it; a consumer that dies attached costs each writer one timeout.
 */
void bp_ring_consumer_attach(void *mem, size_t bytes, uint64_t pid);

/* Records stored so far (written and not discarded). */
static inline uint64_t bp_ring_stored(const struct bp_ring_writer *w)
{
	return w->written - w->discarded;
}

/* Largest payload bp_ring_reserve() accepts. */
static inline uint32_t bp_ring_max_payload(const struct bp_ring_writer *w)
{
	return w->max_rec - BP_RING_REC_HDR_BYTES;
}

/*
 * Block mode, ring full: wait (spin briefly, then short sleeps) until the
 * consumer frees the next page's slot, at most w->block_max_ns.  Returns 1
 * when the slot is free, 0 when there is no consumer, the wait timed out,
 * or it timed out before with the consumer not moving since (a stopped or
 * dead consumer costs one timeout, not one per record).  Counts the wait
 * in block_waits and block_ns.  In src/ring/wait.c; the one writer call
 * that makes system calls.
 */
int bp_ring_wait_room(struct bp_ring_writer *w);

/* The out-of-line part of bp_ring_reserve() (page switch, time extend,
 * drops); same contract.  Not meant to be called directly. */
void *bp_ring_reserve_slow(struct bp_ring_writer *w, uint32_t payload_bytes,
			   uint32_t user_bits, uint64_t ts);

/*
 * Reserve a record of payload_bytes (rounded up to 4; the padding is
 * zeroed) with the low 20 bits of user_bits and timestamp ts.  Returns
 * where to write the payload, then call bp_ring_commit() before the next
 * reserve.  Returns NULL when the record is dropped (counted as
 * discarded): discard mode with no free page, or payload_bytes above
 * bp_ring_max_payload().  A time extend is inserted when ts is below the
 * time base or more than 2^32 - 1 above it.
 */
/*
 * The fast half of bp_ring_reserve(): the same result when the record fits
 * the current page with a 32-bit delta, else NULL with nothing changed (the
 * caller then takes its own slow path, which ends in bp_ring_reserve()).
 * Lets a caller keep its fast path free of calls.
 */
static inline void *bp_ring_reserve_fast(struct bp_ring_writer *w, uint32_t payload_bytes,
					 uint32_t user_bits, uint64_t ts)
{
	uint32_t *head;
	uint32_t len;

	/* 1. size: at most 1023 words with the header */
	if (__builtin_expect(payload_bytes > BP_RING_REC_MAX_WORDS * 4u - BP_RING_REC_HDR_BYTES, 0))
		return NULL;
	len = BP_RING_REC_HDR_BYTES + ((payload_bytes + 3u) & ~3u);

	/* 2. room in this page and the delta fits in 32 bits */
	if (__builtin_expect(len > w->end - w->off || ts < w->base_ts ||
			     ts - w->base_ts > UINT32_MAX, 0))
		return NULL;

	/* 3. fill the header; the reader sees nothing until commit */
	head = (uint32_t *)(void *)(w->rec + w->off);
	head[0] = (len / 4u) | ((user_bits & BP_RING_USER_BITS_MAX) << BP_RING_HEAD_USER_SHIFT);
	head[1] = (uint32_t)(ts - w->base_ts);
	if (payload_bytes & 3u)
		head[len / 4u - 1u] = 0;
	w->pending = len;
	return head + 2;
}

static inline void *bp_ring_reserve(struct bp_ring_writer *w, uint32_t payload_bytes,
				    uint32_t user_bits, uint64_t ts)
{
	void *p = bp_ring_reserve_fast(w, payload_bytes, user_bits, ts);

	return __builtin_expect(p != NULL, 1) ? p
		: bp_ring_reserve_slow(w, payload_bytes, user_bits, ts);
}

/* Publish the record reserved last. */
static inline void bp_ring_commit(struct bp_ring_writer *w)
{
	w->off += w->pending;
	w->pending = 0;
	/* W4: record bytes before commit; pairs with the reader's R2 (acquire). */
	atomic_store_explicit(w->commit, w->off, memory_order_release);
	w->written++;
	atomic_store_explicit(&w->ctl->written, w->written, memory_order_relaxed);
}

/* One record returned by bp_ring_next(). */
struct bp_ring_event {
	uint64_t ts;			/* absolute timestamp */
	const void *payload;		/* in the caller's buffer */
	uint32_t payload_len;		/* multiple of 4 */
	uint32_t user_bits;		/* 20 bits */
	uint64_t page_seq;		/* page it was read from */
	uint64_t index;			/* stored-record index (gaps = overwritten) */
	uint64_t discarded_before;	/* first record of a page: the page's
					 * discarded_before; else 0 */
};

/* Reader position.  Fields are internal except the counters. */
struct bp_ring_cursor {
	uint64_t seq;			/* page being read, 0 = not positioned */
	uint64_t base_ts;		/* time base */
	uint64_t next_rec;		/* index of the next record expected */
	uint64_t disc_pending;		/* page's discarded_before, not yet reported */
	uint32_t off;			/* offset in the record area */
	uint32_t entered;		/* page header of seq read */
	uint32_t consumer;		/* publishes consumed_seq */
	uint32_t frozen;		/* no writer: records read in place */
	uint64_t read;			/* records returned */
	uint64_t overwritten;		/* records lost to recycling, exact */
	uint64_t slot_seq;		/* the page seq whose slot is below (0: none) */
	uint32_t slot;			/* its slot: no division per record */
	uint32_t frozen_commit;		/* a frozen cursor: the commit of page */
	uint64_t frozen_seq;		/* frozen_seq (0: none), whose record */
	const unsigned char *frozen_area;	/* area it last read (view.h) */
	/* the ring's geometry as last checked, for the ring at geom_mem of
	 * geom_bytes: checked again only if the magic changed (ring.c) */
	const void *geom_mem;
	size_t geom_bytes;
	uint32_t geom_page_size, geom_npages, geom_mode, geom_area;
};

#define BP_RING_CURSOR_SNAPSHOT	0u
#define BP_RING_CURSOR_CONSUME	1u
#define BP_RING_CURSOR_FROZEN	2u	/* the ring's writer is gone for good */

/*
 * Position a cursor at the ring's oldest valid page (a consumer: the page
 * after consumed_seq if that is newer).  flags: BP_RING_CURSOR_SNAPSHOT or
 * BP_RING_CURSOR_CONSUME (one consumer per ring; bp_ring_next() then stores
 * into the ring memory, which must be writable), or BP_RING_CURSOR_FROZEN:
 * no writer will touch the ring again (its process is dead), so records
 * are read in place, without the seqlock's copies and re-checks; the
 * bounds checks stay.  Returns BP_RING_OK or BP_RING_ECORRUPT.
 */
int bp_ring_cursor_init(const void *mem, size_t bytes, struct bp_ring_cursor *c,
			unsigned flags);

/*
 * Copy the next record's payload into buf (cap bytes; a frozen cursor
 * points ev->payload into the ring instead, valid while mem stays mapped)
 * and describe it in ev.  Returns 1 (a record, exactly as written), 0 (nothing more for now:
 * call again later to follow a live writer), BP_RING_ENOSPC (payload larger
 * than cap; the cursor stays) or BP_RING_ECORRUPT.  Never reads outside
 * [mem, mem + bytes) and never loops without bound, whatever the memory holds.
 */
int bp_ring_next(const void *mem, size_t bytes, struct bp_ring_cursor *c,
		 struct bp_ring_event *ev, void *buf, size_t cap);

struct bp_ring_stats {
	uint32_t page_size;
	uint32_t npages;
	uint32_t mode;
	uint32_t max_payload;
	uint64_t head_seq;
	uint64_t written;
	uint64_t discarded;
	uint64_t consumed_seq;
	uint64_t block_waits;		/* block mode: waits for the consumer */
	uint64_t block_ns;		/* time spent in them */
	uint64_t consumer;		/* attached consumer's pid, 0 = none */
};

/* Validate the ring and load its counters.  BP_RING_OK or BP_RING_ECORRUPT. */
int bp_ring_stats(const void *mem, size_t bytes, struct bp_ring_stats *st);

struct bp_ring_page_info {
	uint64_t seq;
	uint64_t base_ts;
	uint64_t first_rec;
	uint64_t discarded_before;
	uint32_t commit;		/* bytes of records */
	uint32_t slot;
};

/*
 * Header of page seq, read consistently (seqlock).  BP_RING_OK,
 * BP_RING_ENOENT (not written yet, or recycled) or BP_RING_ECORRUPT.
 */
int bp_ring_page_info(const void *mem, size_t bytes, uint64_t seq,
		      struct bp_ring_page_info *pi);

/*
 * Copy page seq whole (page_size bytes: header, then records) into out,
 * validated like bp_ring_next() (seqlock): the copy's commit is the one
 * loaded before the bytes, every record below it is complete, and the bytes
 * after it are zeroed.  For the page the writer is filling, that is the
 * records committed so far.  BP_RING_OK, BP_RING_ENOENT (not written yet,
 * or recycled before or during the copy) or BP_RING_ECORRUPT.  The records
 * themselves are not checked: read them with the usual reader checks.
 */
int bp_ring_copy_page(const void *mem, size_t bytes, uint64_t seq, void *out);

/*
 * Where page seq's slot is in the ring (page_size bytes, header first),
 * whatever page it holds now; NULL if the ring fails its checks or seq is
 * 0.  For a consumer that reads a completed page in place (the drainer
 * encodes discard-mode pages straight from the ring): it checks the page
 * with bp_ring_page_info() before and its seq after, as bp_ring_copy_page()
 * does, and only then publishes it consumed.
 */
const void *bp_ring_page_slot(const void *mem, size_t bytes, uint64_t seq);

/*
 * The consumer is done with every page up to seq: a discard or block mode
 * writer may reuse their slots (R5, release: the consumer's reads of the
 * pages come before; pairs with the writer's W5).  For a consumer that
 * copies pages itself (bp_ring_copy_page(), bp_ring_page_slot()) instead
 * of reading them with a consumer cursor.
 */
void bp_ring_consumed(void *mem, size_t bytes, uint64_t seq);

/* ---- one page, out of its ring ----------------------------------------- */

/*
 * A page copied out of a ring (a stream file's pages, the drainer's copy of
 * a page), read record by record with the checks bp_ring_next() makes in
 * the ring (docs/ring-buffer.md, "Readers"): commit within the record
 * area and a multiple of 4, every record's length, type and time extend,
 * first_rec never going backwards.  No seqlock: the copy is the caller's
 * and does not change while it is read.  Fields are internal.
 */
struct bp_ring_page_iter {
	const unsigned char *rec;	/* the page's record area */
	uint32_t commit;		/* bytes of records */
	uint32_t off;			/* next record */
	uint64_t seq;			/* the page's header */
	uint64_t base_ts;		/* time base, moved by time extends */
	uint64_t next_rec;		/* index of the next data record */
	uint64_t disc_pending;		/* discarded_before, until the first record */
};

/*
 * Start reading the page at page (page_size bytes, header first; it stays
 * the caller's, unchanged, while the iterator reads it).  next_rec: the
 * index the caller expects the page's first record to have at least (0:
 * any); a page whose first_rec is below it goes backwards.  Returns
 * BP_RING_OK, BP_RING_EINVAL (page_size not a ring's) or BP_RING_ECORRUPT
 * (commit out of the record area, first_rec going backwards).
 */
int bp_ring_page_begin(struct bp_ring_page_iter *it, const void *page, uint32_t page_size,
		       uint64_t next_rec);

/*
 * The page's next record, as bp_ring_next() returns it (ev->index from the
 * page's first_rec, ev->discarded_before on its first record): 1, 0 (the
 * page ends; it->next_rec is then the index after its last record),
 * BP_RING_ENOSPC (payload larger than cap; the iterator stays) or
 * BP_RING_ECORRUPT (a record breaks the ring's rules).  buf NULL: the
 * payload is not copied, ev->payload points into the page.
 */
int bp_ring_page_next(struct bp_ring_page_iter *it, struct bp_ring_event *ev, void *buf,
		      size_t cap);

/*
 * Data records (time extends are not records) in the copied page at page,
 * up to its end or to the first record that breaks the ring's rules; 0 for
 * a page whose header does.  What reading the page returns, counted.
 */
uint64_t bp_ring_page_records(const void *page, uint32_t page_size);

/*
 * Cut the copied page at page (the caller's, page_size bytes) to its
 * records of stored-record index in [first, end): the ones before are
 * dropped (the rest move to the start of the record area, the header's
 * first_rec and base_ts follow, its discarded_before, which belonged to
 * the first record, is cleared), the ones after are left out (commit
 * lowered).  prefix_bit nonzero: when records were dropped, the first
 * one kept, if its user bits lack prefix_bit, gets it and the u32
 * prefix_word before its payload (the tracer's CPU word, which it writes
 * on a page's first record: the record contract of src/trace/record.h).
 * For a window of a trace (bprint record --trigger).  BP_RING_OK, or as
 * bp_ring_page_begin() and bp_ring_page_next().
 */
int bp_ring_page_cut(void *page, uint32_t page_size, uint64_t first, uint64_t end,
		     uint32_t prefix_bit, uint32_t prefix_word);

#endif /* BPRINT_RING_H */
