/*
 * Values of keys that alternate reach their groups exactly (analysis/
 * aggregate.h): the values of the last few keys wait in lanes, so every
 * group's count, min, max, sum and percentiles are checked against a
 * distribution of its own fed one value at a time, for fewer keys than
 * lanes, as many, more, and many more; keys in runs, in turns and at
 * random; with a rendering in between (following a live file), and
 * counting only (hist without -v).
 */
#include "check.h"

#include "analysis/aggregate.h"

#include <stdint.h>
#include <string.h>

#define MAX_KEYS 300

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The key of record i out of n: runs of 50, in turns, or at random. */
static unsigned key_of(int pattern, unsigned i, unsigned nkeys)
{
	switch (pattern) {
	case 0: return i / 50 % nkeys;
	case 1: return i % nkeys;
	default: return (unsigned)(next_random() % nkeys);
	}
}

static void same_groups(struct bp_agg *a, struct bp_dist *want, unsigned nkeys, bool counts_only)
{
	struct bp_key k = { 0 };
	size_t seen = 0;

	for (unsigned key = 0; key < nkeys; key++) {
		struct bp_group *g;
		struct bp_dist *d;

		if (!want[key].count)
			continue;
		seen++;
		bp_key_reset(&k);
		CHECK(bp_key_add_uint(&k, key));
		CHECK(g = bp_groups_find(&a->groups, k.b, k.len));
		if (!g)
			continue;
		d = g->data;
		CHECK_MSG(d->count == want[key].count, "key %u: %llu values, want %llu", key,
			  (unsigned long long)d->count, (unsigned long long)want[key].count);
		if (counts_only)
			continue;
		CHECK(d->min.u == want[key].min.u && d->max.u == want[key].max.u);
		CHECK(d->isum == want[key].isum);
		bp_dist_finish(&want[key]);
		for (double q = 0; q <= 1.0; q += 0.125)
			CHECK_MSG(bp_dist_quantile(d, q) == bp_dist_quantile(&want[key], q),
				  "key %u: quantile %g", key, q);
	}
	CHECK(a->groups.n == seen);
	bp_key_free(&k);
}

static void one_case(unsigned nkeys, int pattern, bool counts_only, unsigned n)
{
	static struct bp_dist want[MAX_KEYS];
	struct bp_dist_pool pool;
	struct bp_key k = { 0 };
	struct bp_agg a;
	uint64_t added = 0;

	bp_agg_init(&a, BP_DIST_UNSIGNED, BP_BUCKETS_LOG2, 0);
	a.counts_only = counts_only;
	bp_dist_pool_init(&pool, BP_BUCKETS_LOG2, 0);
	for (unsigned key = 0; key < nkeys; key++)
		bp_dist_init(&want[key], BP_DIST_UNSIGNED);
	for (unsigned i = 0; i < n; i++) {
		unsigned key = key_of(pattern, i, nkeys);
		union bp_dist_value v = { .u = next_random() % 100000 };

		bp_key_reset(&k);
		CHECK(bp_key_add_uint(&k, key));
		CHECK(bp_agg_add(&a, k.b, k.len, v));
		CHECK(bp_dist_add(&pool, &want[key], v));
		added++;
		if (i == n / 3)		/* a rendering while following: adds go on */
			bp_agg_finish(&a);
	}
	bp_agg_finish(&a);
	CHECK(a.records == added);
	same_groups(&a, want, nkeys, counts_only);
	for (unsigned key = 0; key < nkeys; key++)
		bp_dist_free(&want[key]);
	bp_key_free(&k);
	bp_agg_free(&a);
}

int main(void)
{
	static const unsigned nkeys[] = { 1, 2, BP_AGG_LANES - 1, BP_AGG_LANES, BP_AGG_LANES + 1,
					  17, MAX_KEYS };

	for (size_t i = 0; i < sizeof(nkeys) / sizeof(nkeys[0]); i++)
		for (int pattern = 0; pattern < 3; pattern++) {
			one_case(nkeys[i], pattern, false, 20000);
			one_case(nkeys[i], pattern, true, 5000);
		}
	return check_summary("agg_keys_test");
}
