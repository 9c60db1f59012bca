/* Records lost before each exported record (lost.h). */
#include "output/lost.h"

#include <stdlib.h>
#include <string.h>

uint64_t bp_out_lost_before(struct bp_out_lost *l, const struct bp_trace_event *e)
{
	uint64_t lost = e->lost_before;

	if (e->ring >= l->nrings) {
		size_t n = e->ring + 1;
		uint64_t *a = realloc(l->ring_next, n * sizeof(*a));

		if (!a)
			return lost;
		memset(a + l->nrings, 0, (n - l->nrings) * sizeof(*a));
		l->ring_next = a;
		l->nrings = n;
	}
	if (e->index > l->ring_next[e->ring])
		lost += e->index - l->ring_next[e->ring];	/* overwritten */
	l->ring_next[e->ring] = e->index + 1;
	return lost;
}

void bp_out_lost_free(struct bp_out_lost *l)
{
	free(l->ring_next);
	l->ring_next = NULL;
	l->nrings = 0;
}
