/*
 * The distribution of analysis/dist.h against a reference that keeps and
 * sorts every value: count, min, max, sum and every percentile exact while
 * values are kept, within BP_DIST_ALPHA once sketched; the histogram's
 * buckets equal to counting each value's bucket by brute force; and values
 * added in batches (bp_dist_add_many) giving what one at a time gives.
 */
#define CHECK_KEEP_GOING 20
#include "check.h"

#include "analysis/dist.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

static int cmp_ld(const void *a, const void *b)
{
	long double x = *(const long double *)a, y = *(const long double *)b;

	return (x > y) - (x < y);
}

/* A value of each kind, spread over many magnitudes and signs. */
static union bp_dist_value draw(enum bp_dist_kind kind)
{
	union bp_dist_value v;
	int shift = (int)(next() % 64);

	switch (kind) {
	case BP_DIST_SIGNED:
		v.i = (int64_t)(next() >> shift) * (next() & 1 ? -1 : 1);
		if (next() % 50 == 0)
			v.i = next() & 1 ? INT64_MIN : INT64_MAX;
		break;
	case BP_DIST_UNSIGNED:
		v.u = next() >> shift;
		if (next() % 50 == 0)
			v.u = next() & 1 ? 0 : UINT64_MAX;
		break;
	default:
		v.d = ldexp((double)(next() >> 11), (int)(next() % 80) - 100) * (next() & 1 ? -1 : 1);
		if (next() % 50 == 0)
			v.d = 0;
	}
	return v;
}

/* The quantiles asked, in millionths, so that the reference's rank
 * ceil(q * n) is computed in integers, exactly. */
static const uint64_t qs[] = { 1000, 10000, 250000, 500000, 900000, 990000, 999000, 1000000 };

static long double ref_quantile(const long double *sorted, size_t n, uint64_t q_ppm)
{
	uint64_t r = (q_ppm * n + 999999) / 1000000;

	return sorted[(r < 1 ? 1 : r > n ? n : r) - 1];
}

struct bucket_sum {
	uint64_t total;
	long double prev_hi;
	bool first, contiguous;
};

static void sum_bucket(void *arg, const struct bp_bucket *b)
{
	struct bucket_sum *s = arg;

	/* contiguous, but across zero (no bucket holds (-2^k, 0) when no value is there) */
	if (!s->first && b->lo != s->prev_hi && !(s->prev_hi <= 0 && b->lo >= 0)) {
		s->contiguous = false;
		fprintf(stderr, "gap: %Lg then [%Lg, %Lg)\n", s->prev_hi, b->lo, b->hi);
	}
	s->first = false;
	s->prev_hi = b->hi;
	s->total += b->count;
	CHECK_MSG(b->lo < b->hi, "bucket [%Lg, %Lg)", b->lo, b->hi);
}

/* One distribution of n values, exact or forced into the sketch. */
static void run(enum bp_dist_kind kind, size_t n, bool sketch)
{
	struct bp_dist_pool pool;
	struct bp_dist d;
	long double *ref = malloc(n * sizeof(*ref)), sum = 0;
	__int128 isum = 0;
	struct bucket_sum bs = { .first = true, .contiguous = true };

	bp_dist_pool_init(&pool, BP_BUCKETS_LOG2, 0);
	if (sketch)
		pool.exact_left = 0;	/* the budget spent: past the small size, sketch */
	bp_dist_init(&d, kind);
	for (size_t i = 0; i < n; i++) {
		union bp_dist_value v = draw(kind);

		ref[i] = bp_dist_ld(kind, v);
		sum += ref[i];
		isum += kind == BP_DIST_SIGNED ? (__int128)v.i : (__int128)v.u;
		CHECK(bp_dist_add(&pool, &d, v));
	}
	bp_dist_finish(&d);
	qsort(ref, n, sizeof(*ref), cmp_ld);
	CHECK_EQ(d.count, n);
	CHECK(d.sketch == (sketch && n > BP_DIST_EXACT_SMALL));
	CHECK_MSG(bp_dist_ld(kind, d.min) == ref[0], "min %Lg, want %Lg", bp_dist_ld(kind, d.min), ref[0]);
	CHECK_MSG(bp_dist_ld(kind, d.max) == ref[n - 1], "max");
	if (kind != BP_DIST_FLOAT)
		CHECK_MSG(d.isum == isum, "integer sum");
	else
		CHECK_MSG(d.sum == sum, "sum %Lg, want %Lg (added in the same order)", d.sum, sum);
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		double q = (double)qs[k] / 1e6;
		long double got = bp_dist_quantile(&d, q), want = ref_quantile(ref, n, qs[k]);

		if (!d.sketch)
			CHECK_MSG(got == want, "kind %d n %zu q %g: %Lg, want %Lg", kind, n, q, got,
				  want);
		else
			CHECK_MSG(fabsl(got - want) <= fabsl(want) * 0.01L,
				  "kind %d n %zu q %g: %Lg, want %Lg within 1%%", kind, n, q, got, want);
	}
	/* asked again, in the other order: the ranks selected stay right */
	for (size_t k = sizeof(qs) / sizeof(qs[0]); k-- > 0;) {
		double q = (double)qs[k] / 1e6;
		long double got = bp_dist_quantile(&d, q), want = ref_quantile(ref, n, qs[k]);

		CHECK_MSG(d.sketch ? fabsl(got - want) <= fabsl(want) * 0.01L : got == want,
			  "again, kind %d n %zu q %g: %Lg, want %Lg", kind, n, q, got, want);
	}
	bp_dist_buckets(&pool, &d, sum_bucket, &bs);
	CHECK_MSG(bs.total == n, "buckets hold %llu of %zu", (unsigned long long)bs.total, n);
	CHECK(bs.contiguous);
	bp_dist_free(&d);
	free(ref);
}

/* Linear buckets of width w: each value's count where it belongs. */
struct linear_check {
	const int64_t *v;
	size_t n;
	double w;
};

static void check_linear_bucket(void *arg, const struct bp_bucket *b)
{
	const struct linear_check *c = arg;
	uint64_t want = 0;

	for (size_t i = 0; i < c->n; i++)
		want += (long double)c->v[i] >= b->lo && (long double)c->v[i] < b->hi;
	CHECK_MSG(b->count == want, "[%Lg, %Lg): %llu, want %llu", b->lo, b->hi,
		  (unsigned long long)b->count, (unsigned long long)want);
}

static void run_linear(void)
{
	int64_t v[5000];
	struct bp_dist_pool pool;
	struct bp_dist d;
	struct linear_check c = { v, sizeof(v) / sizeof(v[0]), 7 };

	bp_dist_pool_init(&pool, BP_BUCKETS_LINEAR, 7);
	bp_dist_init(&d, BP_DIST_SIGNED);
	for (size_t i = 0; i < c.n; i++) {
		v[i] = (int64_t)(next() % 1000) - 500;
		CHECK(bp_dist_add(&pool, &d, (union bp_dist_value){ .i = v[i] }));
	}
	bp_dist_finish(&d);
	bp_dist_buckets(&pool, &d, check_linear_bucket, &c);
	bp_dist_free(&d);
}

/* Every bucket, in order, to compare two histograms. */
struct bucket_list {
	struct bp_bucket b[8192];
	size_t n;
};

static void list_bucket(void *arg, const struct bp_bucket *b)
{
	struct bucket_list *l = arg;

	if (l->n < sizeof(l->b) / sizeof(l->b[0]))
		l->b[l->n] = *b;
	l->n++;
}

/*
 * bp_dist_add_many() leaves a distribution as bp_dist_add() one value at a
 * time does: batches of every size from 1 to 300, a budget of exact values
 * that runs out in the middle of a batch (or never), both kinds of buckets.
 */
static void run_batches(enum bp_dist_kind kind, enum bp_bucket_kind buckets, uint64_t budget)
{
	static union bp_dist_value v[30000];
	static struct bucket_list la, lb;
	struct bp_dist_pool pa, pb;
	struct bp_dist a, b;
	size_t n = sizeof(v) / sizeof(v[0]);

	for (size_t i = 0; i < n; i++)
		v[i] = draw(kind);
	if (buckets == BP_BUCKETS_LINEAR)	/* values a linear histogram can hold */
		for (size_t i = 0; i < n; i++) {
			if (kind == BP_DIST_FLOAT)
				v[i].d = (double)(next() % 100000) / 7 - 5000;
			else
				v[i].u = next() % 200000;
		}
	bp_dist_pool_init(&pa, buckets, 13);
	bp_dist_pool_init(&pb, buckets, 13);
	pa.exact_left = pb.exact_left = budget;
	bp_dist_init(&a, kind);
	bp_dist_init(&b, kind);
	for (size_t i = 0; i < n; i++)
		CHECK(bp_dist_add(&pa, &a, v[i]));
	for (size_t i = 0, step; i < n; i += step) {
		step = 1 + next() % 300;
		if (step > n - i)
			step = n - i;
		CHECK(bp_dist_add_many(&pb, &b, v + i, step));
	}
	bp_dist_finish(&a);
	bp_dist_finish(&b);
	CHECK_EQ(b.count, a.count);
	CHECK_EQ(b.min.u, a.min.u);
	CHECK_EQ(b.max.u, a.max.u);
	CHECK(b.isum == a.isum);
	CHECK(b.sum == a.sum);
	CHECK_EQ(b.sketch, a.sketch);
	CHECK_EQ(b.nv, a.nv);
	CHECK_EQ(pb.exact_left, pa.exact_left);
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++)
		CHECK(bp_dist_quantile(&b, (double)qs[k] / 1e6) ==
		      bp_dist_quantile(&a, (double)qs[k] / 1e6));
	la.n = lb.n = 0;
	bp_dist_buckets(&pa, &a, list_bucket, &la);
	bp_dist_buckets(&pb, &b, list_bucket, &lb);
	CHECK_EQ(lb.n, la.n);
	for (size_t k = 0; k < la.n && k < lb.n && k < sizeof(la.b) / sizeof(la.b[0]); k++)
		CHECK(la.b[k].lo == lb.b[k].lo && la.b[k].hi == lb.b[k].hi &&
		      la.b[k].count == lb.b[k].count);
	bp_dist_free(&a);
	bp_dist_free(&b);
}

/* Small known distribution: 1..100, the textbook answers. */
static void run_known(void)
{
	struct bp_dist_pool pool;
	struct bp_dist d;

	bp_dist_pool_init(&pool, BP_BUCKETS_LOG2, 0);
	bp_dist_init(&d, BP_DIST_UNSIGNED);
	for (uint64_t i = 100; i >= 1; i--)
		bp_dist_add(&pool, &d, (union bp_dist_value){ .u = i });
	bp_dist_finish(&d);
	CHECK(bp_dist_quantile(&d, 0.5) == 50);
	CHECK(bp_dist_quantile(&d, 0.9) == 90);
	CHECK(bp_dist_quantile(&d, 0.99) == 99);
	CHECK(bp_dist_quantile(&d, 0.999) == 100);
	CHECK(bp_dist_mean(&d) == 50.5L);
	CHECK(d.isum == 5050);
	bp_dist_free(&d);
}

int main(void)
{
	static const size_t sizes[] = { 1, 2, 3, 10, 127, 128, 129, 1000, 20000 };

	run_known();
	run_linear();
	for (int kind = BP_DIST_SIGNED; kind <= BP_DIST_FLOAT; kind++)
		for (int buckets = BP_BUCKETS_LOG2; buckets <= BP_BUCKETS_LINEAR; buckets++) {
			run_batches((enum bp_dist_kind)kind, (enum bp_bucket_kind)buckets, 0);
			run_batches((enum bp_dist_kind)kind, (enum bp_bucket_kind)buckets, 12345);
			run_batches((enum bp_dist_kind)kind, (enum bp_bucket_kind)buckets, 1u << 20);
		}
	for (int kind = BP_DIST_SIGNED; kind <= BP_DIST_FLOAT; kind++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			run((enum bp_dist_kind)kind, sizes[s], false);
			run((enum bp_dist_kind)kind, sizes[s], true);
		}
	return check_summary("dist_test");
}
