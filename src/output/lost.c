/* Records lost before each exported record (lost.h). */
#include "output/lost.h"

#include <stdlib.h>

uint64_t bp_out_lost_before(struct bp_out_lost *l, const struct bp_trace_event *e)
{
	(void)l;
	return e->lost_before;	/* the reader counts every kind now */
}

void bp_out_lost_free(struct bp_out_lost *l)
{
	free(l->ring_next);
	l->ring_next = NULL;
	l->nrings = 0;
}
