/*
 * The exporters' count of records lost before each record: what the
 * reader reports (discarded, or lost by the drainer) plus the gap in the
 * ring's stored-record index since the last record of that ring
 * (overwritten).  Both exporters mark such records, so both use this.
 */
#ifndef BP_OUTPUT_LOST_H
#define BP_OUTPUT_LOST_H

#include <stddef.h>
#include <stdint.h>

#include "reader/reader.h"

struct bp_out_lost {
	uint64_t *ring_next;	/* per ring: the next index expected */
	size_t nrings;
};

/* Records lost just before e (0 if none); out of memory counts only e's own. */
uint64_t bp_out_lost_before(struct bp_out_lost *l, const struct bp_trace_event *e);

void bp_out_lost_free(struct bp_out_lost *l);

#endif
