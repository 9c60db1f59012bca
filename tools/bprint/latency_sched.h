/*
 * tools/bprint/latency_sched.h - latency --sched: where each span's time
 * went (running, runnable, blocked) by the scheduler's events of the
 * thread that ends it (bprint/spans.h's split), a distribution of each part
 * per group beside the total, and for the longest spans who ran instead
 * and who woke the thread.
 */
#ifndef BPRINT_LATENCY_SCHED_H
#define BPRINT_LATENCY_SCHED_H

#include "analyze.h"

#include <bprint/spans.h>

struct latency_sched;

/* Parts keyed as the total is (its buckets, the names of its key items),
 * the top longest spans' splits kept; NULL if memory ran out. */
struct latency_sched *latency_sched_new(enum bp_bucket_kind buckets, double width,
					const char *const *key_names, size_t nkeys, size_t top);
void latency_sched_free(struct latency_sched *ls);

/* Every event, in order (the sched events are kept): false out of memory. */
bool latency_sched_event(struct latency_sched *ls, struct bp_trace *t,
			 const struct bp_trace_event *e);

/* A span counted in the total: its split into the parts' groups. */
bool latency_sched_span(struct latency_sched *ls, const struct bp_span *sp);

/* The final output: the total (as latency prints it), then the parts,
 * as text, one JSON document, or CSV with a part column. */
bool latency_sched_output(struct latency_sched *ls, const struct analyze_opts *o,
			  struct bp_agg *total, uint64_t lost, const char *title);

#endif /* BPRINT_LATENCY_SCHED_H */
