/*
 * analysis/dist.h - the distribution of one value (a field, a span's
 * duration) over the records of one group: count, min, max, sum, mean,
 * percentiles and a histogram, in memory bounded by the groups, not the
 * records.
 *
 *	bp_dist_init()      an empty distribution of integers or doubles
 *	bp_dist_add_*()     one value
 *	bp_dist_finish()    ready to query
 *	bp_dist_quantile()  the value at rank ceil(q * count), selected in
 *	                    place (linear on average: no sort)
 *	bp_dist_buckets()   the histogram, bucket by bucket
 *
 * Percentiles are exact while every group's values fit in a budget shared
 * by all distributions of one bp_dist_pool (BP_DIST_EXACT_VALUES values);
 * past it, a distribution that still keeps its values turns them into a
 * relative-error sketch (a group of at most BP_DIST_EXACT_SMALL values
 * stays exact, so that many small groups cost little): logarithmic buckets of ratio gamma = (1 + a) /
 * (1 - a), a = BP_DIST_ALPHA, whose representative value is within a of
 * every value in it (the DDSketch construction, Masson et al., VLDB 2019).
 * The rank is exact either way; min, max, count and sum are always exact.
 * The histogram's buckets (log2 or linear) are counted exactly, always.
 *
 * Values of 64-bit integers are kept as they are (int64 or uint64, the
 * field's type); the sketch and the mean work in long double.
 */
#ifndef BP_ANALYSIS_DIST_H
#define BP_ANALYSIS_DIST_H

#include <bprint/aggregate.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BP_DIST_EXACT_SMALL	64u		/* a group this small stays exact */
#define BP_DIST_ALPHA		0.0095		/* the sketch's relative error (< 1 %) */
#define BP_DIST_MAX_BUCKETS	100000u		/* linear buckets of one group, at most */
#define BP_DIST_FIXED		8		/* ranks selected, remembered */
#ifndef BP_DIST_COUNT32_MAX	/* a test sets it low, to see counts widen */
#define BP_DIST_COUNT32_MAX	UINT32_MAX	/* the largest 32-bit bucket count */
#endif

/* What every distribution of a run shares: the exact-value budget. */
struct bp_dist_pool {
	uint64_t exact_left;	/* values that may still be kept exactly */
	bool sketched;		/* some distribution gave up its exact values */
	enum bp_bucket_kind buckets;
	double width;		/* linear buckets' width (> 0) */
};

/* Counts over a range of integer indexes [lo, lo + n), grown on demand:
 * 32-bit (c) until one would pass 2^32 - 1, then 64-bit (big). */
struct bp_counts {
	int64_t lo;
	size_t n;
	uint32_t *c;
	uint64_t *big;
};

struct bp_dist {
	enum bp_dist_kind kind;
	uint64_t count;			/* values added, NaN included */
	uint64_t nan;
	union bp_dist_value min, max;
	long double sum;		/* doubles: the sum */
	__int128 isum;			/* integers: the exact sum */
	/* exact values as keys that sort as the values do (.u), or NULL once
	 * sketched */
	union bp_dist_value *v;
	size_t nv, capv;
	bool sketch;
	struct bp_counts sk_pos, sk_neg;	/* sketch indexes of |x| */
	uint64_t sk_zero;
	/* the histogram */
	struct bp_counts h_pos, h_neg;	/* log2: exponent; linear: index */
	uint64_t h_zero;		/* log2: values in (-1, 1) */
	bool h_overflow;		/* linear: more than BP_DIST_MAX_BUCKETS */
	/* ranks of v already in place (selected), ascending */
	unsigned nfixed;
	size_t fixed[BP_DIST_FIXED];
};

void bp_dist_pool_init(struct bp_dist_pool *p, enum bp_bucket_kind buckets, double width);

void bp_dist_init(struct bp_dist *d, enum bp_dist_kind kind);
void bp_dist_free(struct bp_dist *d);

/* Add one value; false when memory ran out (the value is then counted in
 * count, min, max and sum only). */
bool bp_dist_add(struct bp_dist_pool *p, struct bp_dist *d, union bp_dist_value v);

/* The same for v[0 .. n), as n calls of bp_dist_add() would leave d. */
bool bp_dist_add_many(struct bp_dist_pool *p, struct bp_dist *d, const union bp_dist_value *v,
		      size_t n);

/* After the last add, before the queries (may be called again after more
 * adds). */
void bp_dist_finish(struct bp_dist *d);

/* The q-quantile (0 < q <= 1): the value at rank ceil(q * n) of the n
 * values sorted (NaN left out), as a long double; exact unless d->sketch.
 * 0 if there are no values. */
long double bp_dist_quantile(struct bp_dist *d, double q);

/* The mean, 0 if there are no values. */
long double bp_dist_mean(const struct bp_dist *d);

/* One histogram bucket: values in [lo, hi) (for log2 buckets of negative
 * values, (lo, hi]: -2 is in (-4, -2]). */
struct bp_bucket {
	long double lo, hi;
	uint64_t count;
};

/* Call fn for every bucket from the lowest non-empty one to the highest,
 * empty ones between included (so that a bar chart shows the gaps). */
void bp_dist_buckets(const struct bp_dist_pool *p, const struct bp_dist *d,
		     void (*fn)(void *arg, const struct bp_bucket *b), void *arg);

/* A value as a long double. */
long double bp_dist_ld(enum bp_dist_kind kind, union bp_dist_value v);

#endif /* BP_ANALYSIS_DIST_H */
