/*
 * Values of keys that alternate reach their groups exactly (analysis/
 * aggregate.h): the values of the last few keys wait in lanes, so every
 * group's count, min, max, sum and percentiles are checked against a
 * distribution of its own fed one value at a time, for fewer keys than
 * lanes, as many, more, and many more; keys in runs, in turns, at random
 * and at random with a few far more often (keys without a lane wait in
 * their groups, and lanes change hands); through the API's call and the
 * one in line; with a rendering in between (following a live file), and
 * counting only (hist without -v).
 *
 * And the key items themselves: bp_key_add_field() in line (an integer
 * not below 0, a string of up to BP_KEY_SHORT_STRING bytes) gives the
 * bytes the out-of-line path gives, for every type, strings of 0 to 40
 * bytes and keys with and without room, items one after the other.
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

/* The key of record i out of n: runs of 50, in turns, at random, or at
 * random with a few keys far more often than the rest (a lane changes
 * hands to the keys added to most). */
static unsigned key_of(int pattern, unsigned i, unsigned nkeys)
{
	switch (pattern) {
	case 0: return i / 50 % nkeys;
	case 1: return i % nkeys;
	case 2: return (unsigned)(next_random() % nkeys);
	default: {
		double u = (double)(next_random() >> 11) / 9007199254740992.0;

		return (unsigned)(u * u * u * nkeys);
	}
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
		if (i % 2)	/* the API's call, and the one in line */
			CHECK(bp_agg_add(&a, k.b, k.len, v, i) == 0);
		else
			CHECK(bp_agg_add_inline(&a, k.b, k.len, v));
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
	bp_agg_fini(&a);
}

/* Every field type and string length, each appended to a key that has
 * room and to one that must grow: the same bytes as the out-of-line
 * path's, and for a string 's', its length (4 bytes), its bytes. */
static void key_items(void)
{
	static const char text[] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH";
	static const uint8_t types[] = { BP_FIELD_SIGNED, BP_FIELD_UNSIGNED, BP_FIELD_POINTER,
					 BP_FIELD_FLOAT, BP_FIELD_CHAR, BP_FIELD_STRING, 0xff };
	static const int64_t ints[] = { 0, 1, -1, INT64_MAX, INT64_MIN, 300 };

	for (size_t cap = 0; cap < 2; cap++)
		for (size_t t = 0; t < sizeof(types); t++)
			for (size_t n = 0; n <= 40; n++) {
				struct bp_key fast = { 0 }, slow = { 0 };
				struct bp_field_value v = { .s = text + n % 3, .len = n };

				v.v.i = ints[n % 6];
				if (types[t] == BP_FIELD_FLOAT)
					v.v.d = (double)n - 20.5;
				if (cap) {	/* room made first: the in-line path */
					CHECK(bp_key_add_uint(&fast, 7) && bp_key_add_uint(&slow, 7));
				}
				for (int twice = 0; twice < 2; twice++) {
					CHECK(bp_key_add_field(&fast, types[t], &v));
					CHECK(bp_key_add_field_slow(&slow, types[t], &v));
				}
				CHECK_MSG(fast.len == slow.len && !memcmp(fast.b, slow.b, fast.len),
					  "type %u, %zu bytes: %zu and %zu bytes of key", types[t], n,
					  fast.len, slow.len);
				if (types[t] == BP_FIELD_STRING) {
					uint32_t len = (uint32_t)n;
					size_t at = cap ? 9 : 0;

					CHECK_EQ(fast.len, at + 2 * (5 + n));
					CHECK(fast.b[at] == 's' && !memcmp(fast.b + at + 1, &len, 4) &&
					      !memcmp(fast.b + at + 5, v.s, n));
				}
				bp_key_free(&fast);
				bp_key_free(&slow);
			}
}

int main(void)
{
	key_items();
	static const unsigned nkeys[] = { 1, 2, BP_AGG_LANES - 1, BP_AGG_LANES, BP_AGG_LANES + 1,
					  17, 2 * BP_AGG_LANES + BP_AGG_PENDING, MAX_KEYS };

	for (size_t i = 0; i < sizeof(nkeys) / sizeof(nkeys[0]); i++)
		for (int pattern = 0; pattern < 4; pattern++) {
			one_case(nkeys[i], pattern, false, 20000);
			one_case(nkeys[i], pattern, true, 5000);
		}
	return check_summary("agg_keys_test");
}
