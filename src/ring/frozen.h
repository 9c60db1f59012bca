/*
 * ring/frozen.h - a frozen cursor's records in line (BP_RING_CURSOR_FROZEN,
 * ring.h).  Reading a file whose writer is gone, nearly every record lies
 * in the page the cursor took the last one from: bp_ring_next_in_page()
 * takes it in the reader's own loop, without the calls down to
 * bp_ring_next(), and leaves everything else to it (a page's first
 * record, its end, damage).  The checks are bp_ring_next()'s: the record
 * lies below the page's commit, its length and type are valid.
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
	ev->page_seq = seq;
	ev->index = c->next_rec++;
	ev->discarded_before = c->disc_pending;
	c->disc_pending = 0;
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

#endif /* BP_RING_FROZEN_H */
