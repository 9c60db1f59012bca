/*
 * trace/merge.h - the one time merge of the readers: the in-process
 * reader (trace/reader.c: bprint_dump, the crash dump, the consuming
 * reader) and the trace-file reader (reader/merge.c) both keep one record
 * in hand per source (a ring) and return the oldest; this heap keeps the
 * sources that have one, keyed by (timestamp, source index), so that
 * taking the oldest and putting its source's next record back costs
 * O(log sources), not a look at every source.  Ties go to the lower
 * index: the source found first, as a scan in index order would pick.
 *
 * The storage is the caller's (an array with room for one entry per
 * source: the crash dump's reader maps its memory, it may not malloc);
 * nothing here allocates, locks or makes a system call.
 */
#ifndef BP_TRACE_MERGE_H
#define BP_TRACE_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_merge_entry {
	uint64_t ts;			/* the source's record in hand */
	size_t src;			/* the source's index */
};

struct bp_merge {
	struct bp_merge_entry *e;	/* the caller's: room for every source */
	size_t n;			/* entries in the heap */
};

static inline bool bp_merge_before(const struct bp_merge_entry *a, const struct bp_merge_entry *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->src < b->src);
}

/* Source src, whose record in hand has timestamp ts, joins (room assumed). */
static inline void bp_merge_push(struct bp_merge *m, uint64_t ts, size_t src)
{
	struct bp_merge_entry x = { ts, src };
	size_t i = m->n++;

	while (i > 0) {
		size_t up = (i - 1) / 2;

		if (!bp_merge_before(&x, &m->e[up]))
			break;
		m->e[i] = m->e[up];
		i = up;
	}
	m->e[i] = x;
}

/* The source with the oldest record in hand; false if none. */
static inline bool bp_merge_top(const struct bp_merge *m, size_t *src)
{
	if (!m->n)
		return false;
	*src = m->e[0].src;
	return true;
}

static inline uint64_t bp_merge_top_ts(const struct bp_merge *m)
{
	return m->n ? m->e[0].ts : UINT64_MAX;
}

/* The top source leaves (its record was taken). */
static inline void bp_merge_pop(struct bp_merge *m)
{
	struct bp_merge_entry x;
	size_t i = 0;

	if (!m->n)
		return;
	x = m->e[--m->n];
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= m->n)
			break;
		if (c + 1 < m->n && bp_merge_before(&m->e[c + 1], &m->e[c]))
			c++;
		if (!bp_merge_before(&m->e[c], &x))
			break;
		m->e[i] = m->e[c];
		i = c;
	}
	if (m->n)
		m->e[i] = x;
}

#endif /* BP_TRACE_MERGE_H */
