/*
 * analysis/spans.h - spans made of two records, as the kernel's synthetic
 * events pair two events: a "from" record opens a span under a key, the
 * next "to" record of the same key closes one still open, chosen by the
 * pairing rule (enum bp_pair): the most recent (spans of one key nest, as
 * calls do), the oldest (a queue: a pipelined client's requests answered
 * in order), or every one (one end answers all that were opened before
 * it).  The key is built by the caller (analysis/groups.h): the -k
 * fields' values, or the thread.
 *
 * Memory is the open spans' and the distinct keys with open spans, and
 * at most BP_SPANS_IDLE_MAX keys whose spans all closed: a key is
 * forgotten once that many others emptied after it (a key that comes back
 * soon, a request id reused or a thread, finds its group still there), or
 * BP_SPANS_IDLE_MIN while keys rarely come back.
 * Opens never closed and closes without an open are counted, never
 * dropped silently.
 *
 * bp_top keeps the N longest spans seen.
 */
#ifndef BP_ANALYSIS_SPANS_H
#define BP_ANALYSIS_SPANS_H

#include "analysis/groups.h"

#include <bprint/spans.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef BP_SPANS_IDLE_MAX	/* a test sets it low, to see keys forgotten */
#define BP_SPANS_IDLE_MAX 1024	/* keys kept after their last span closed */
#endif
/* The idle queue shrinks to this while keys rarely come back to it: fewer
 * than one in 16 of BP_SPANS_IDLE_WINDOW keys forgotten (every span a new
 * request id, say), whose groups only made the table larger and were
 * removed cold.  It grows again while they do come back, and every 16th
 * window of the small queue tries the whole again (keys that come back
 * later than the small queue keeps them). */
#define BP_SPANS_IDLE_MIN (BP_SPANS_IDLE_MAX < 16 ? BP_SPANS_IDLE_MAX : 16)
#define BP_SPANS_IDLE_WINDOW 4096

struct bp_spans {
	enum bp_pair pair;		/* set after bp_spans_init() (LATEST) */
	struct bp_groups open;		/* key -> its stack of open spans */
	struct bp_group **idle;		/* keys whose spans all closed, oldest first */
	size_t idle_head, nidle;
	size_t idle_cap;		/* the queue's length now, up to the max */
	uint64_t idle_hits;		/* opens that found their key in the queue */
	uint64_t idle_forgets;		/* keys forgotten, in this window */
	unsigned idle_windows;		/* windows with the queue below the max */
	uint64_t nopen;			/* open now */
	uint64_t unmatched_closes;
	/* the span last closed, kept for the caller's struct bp_span */
	unsigned char *last_key, *last_by;
	size_t last_cap_key, last_cap_by;
	/* the group bp_spans_is_open() found last, or bp_spans_open() opened
	 * into last, which the close that follows takes without a lookup
	 * (its key compared) */
	struct bp_group *found;
};

/* A pairing in the caller's memory (bp_spans_new() is the API's). */
void bp_spans_init(struct bp_spans *s);
void bp_spans_fini(struct bp_spans *s);

/* The N longest spans, longest first once sorted. */
struct bp_top_entry {
	struct bp_span_end from, to;
	unsigned char *key;		/* the key, then the by value: one allocation */
	size_t keylen, bylen;
};

struct bp_top {
	struct bp_top_entry *v;		/* a min-heap on the duration */
	size_t n, max;
};

void bp_top_init(struct bp_top *t, size_t max);
void bp_top_free(struct bp_top *t);
/* Offer a span; false if memory ran out. */
bool bp_top_offer(struct bp_top *t, const struct bp_span *sp);
/* Sort the kept spans, longest first (ties: earlier first); the heap is
 * gone after. */
void bp_top_sort(struct bp_top *t);

#endif /* BP_ANALYSIS_SPANS_H */
