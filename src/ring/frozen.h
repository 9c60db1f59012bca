/*
 * ring/frozen.h - records no writer changes any more, read in line: a
 * frozen cursor's (BP_RING_CURSOR_FROZEN, ring.h) and a page iterator's.
 * Reading a file whose writer is gone, nearly every record lies in the
 * page the last one came from: bp_ring_next_in_page() and
 * bp_ring_page_next_in_line() take it in the reader's own loop, without
 * the calls down to bp_ring_next() or bp_ring_page_next(), and leave
 * everything else to them (a page's first record, its end, damage).  The
 * checks are theirs: the record lies below the page's commit, its length
 * and type are valid.
 */
#ifndef BP_RING_FROZEN_H
#define BP_RING_FROZEN_H

#include "ring/geom.h"
#include "ring/ring.h"

#include <stdint.h>

/*
 * The record at c's offset in page seq, whose record area starts at area
 * and holds commit bytes: 1 (a record, into ev), 0 (a time extend, taken)
 * or -1 (not a record: damage; the cursor stays).
 */
static inline int frozen_take(struct bp_ring_cursor *c, const unsigned char *area,
			      uint32_t commit, uint64_t seq, struct bp_ring_event *ev)
{
	int got;
	uint32_t len = static_record(area + c->off, commit - c->off, &c->base_ts, ev, &got);

	if (!len)
		return -1;
	c->off += len;
	if (!got)
		return 0;
	record_taken(ev, seq, &c->next_rec, &c->disc_pending);
	c->read++;
	return 1;
}

/*
 * The next record of a frozen cursor, if it lies in the page the cursor
 * read its last record from: 1 and ev as bp_ring_next() gives them, or 0
 * (call bp_ring_next(); a time extend may have been taken).  Never 1 for
 * a cursor that is not frozen.
 */
static inline int bp_ring_next_in_page(struct bp_ring_cursor *c, struct bp_ring_event *ev)
{
	if (c->frozen_seq != c->seq || !c->entered || c->off >= c->frozen_commit)
		return 0;
	return frozen_take(c, c->frozen_area, c->frozen_commit, c->seq, ev) == 1;
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
	len = static_record(it->rec + it->off, it->commit - it->off, &it->base_ts, ev, &got);
	if (!len)
		return 0;
	it->off += len;
	if (got)
		record_taken(ev, it->seq, &it->next_rec, &it->disc_pending);
	return got;
}

#endif /* BP_RING_FROZEN_H */
