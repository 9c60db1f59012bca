/*
 * The distribution of one value over a group's records (analysis/dist.h).
 *
 * Three things are kept per value added: the exact statistics (count, min,
 * max, sum), the histogram bucket's count, and the value itself while the
 * pool's budget lasts.  Once the budget is spent, a distribution of more
 * than BP_DIST_EXACT_SMALL values moves its values into sketch buckets and
 * keeps counting there; ranks stay exact, values come back within
 * BP_DIST_ALPHA of the truth.
 */
#include "analysis/dist.h"

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void sketch_tables(void);

void bp_dist_pool_init(struct bp_dist_pool *p, enum bp_bucket_kind buckets, double width)
{
	*p = (struct bp_dist_pool){
		.exact_left = BP_DIST_EXACT_VALUES,
		.buckets = buckets,
		.width = width > 0 ? width : 1,
	};
	sketch_tables();
}

static void counts_free(struct bp_counts *c);

void bp_dist_init(struct bp_dist *d, enum bp_dist_kind kind)
{
	*d = (struct bp_dist){ .kind = kind };
}

void bp_dist_free(struct bp_dist *d)
{
	free(d->v);
	counts_free(&d->sk_pos);
	counts_free(&d->sk_neg);
	counts_free(&d->h_pos);
	counts_free(&d->h_neg);
	*d = (struct bp_dist){ .kind = d->kind };
}

long double bp_dist_ld(enum bp_dist_kind kind, union bp_dist_value v)
{
	switch (kind) {
	case BP_DIST_SIGNED:
		return (long double)v.i;
	case BP_DIST_UNSIGNED:
		return (long double)v.u;
	default:
		return (long double)v.d;
	}
}

/* ---- counts over an index range ----------------------------------------- */

/* Counts are 32 bits (half the memory of a sketch of many groups) until
 * one would pass 2^32 - 1: then the range moves to 64-bit counts. */
static uint64_t count_of(const struct bp_counts *c, size_t k)
{
	return c->big ? c->big[k] : c->c[k];
}

static bool widen(struct bp_counts *c)
{
	if (!(c->big = malloc(c->n * sizeof(*c->big))))
		return false;
	for (size_t k = 0; k < c->n; k++)
		c->big[k] = c->c[k];
	free(c->c);
	c->c = NULL;
	return true;
}

/* Move the range to [lo, lo + n) (n entries, zeroed where new). */
static bool regrow(struct bp_counts *c, int64_t lo, size_t n)
{
	size_t at = c->n ? (size_t)(c->lo - lo) : 0, w = c->big ? 8 : 4;
	void *grown = calloc(n, w), *old = c->big ? (void *)c->big : (void *)c->c;

	if (!grown)
		return false;
	if (c->n)
		memcpy((char *)grown + at * w, old, c->n * w);
	free(old);
	if (c->big)
		c->big = grown;
	else
		c->c = grown;
	c->lo = lo, c->n = n;
	return true;
}

/* Count one at index i, growing the range (by an eighth again, in the
 * direction it grew: a sketch's range settles after a few values, and ten
 * thousand groups' slack adds up); false if it would pass max entries or
 * memory ran out.  counts_add() below is the common case in line. */
static bool counts_add_grow(struct bp_counts *c, int64_t i, size_t max)
{
	if (c->n == 0 || i < c->lo || i >= c->lo + (int64_t)c->n) {
		int64_t lo = c->n && c->lo < i ? c->lo : i;
		int64_t hi = c->n && c->lo + (int64_t)c->n > i + 1 ? c->lo + (int64_t)c->n : i + 1;
		size_t n = (size_t)(hi - lo), extra;

		if (n > max)
			return false;
		extra = n / 8 + 4 < max - n ? n / 8 + 4 : max - n;
		if (c->n && i < c->lo)
			lo -= (int64_t)extra;
		if (!regrow(c, lo, n + extra))
			return false;
	}
	if (c->big) {
		c->big[i - c->lo]++;
		return true;
	}
	if (c->c[i - c->lo] == BP_DIST_COUNT32_MAX && !widen(c))
		return false;
	if (c->big)
		c->big[i - c->lo]++;
	else
		c->c[i - c->lo]++;
	return true;
}

/* Count one at index i: an index inside the range, of a 32-bit count with
 * room, is one compare; the rest (growing, widening) is out of line. */
static inline bool counts_add(struct bp_counts *c, int64_t i, size_t max)
{
	uint64_t at = (uint64_t)i - (uint64_t)c->lo;

	if (at < c->n && c->c && c->c[at] < BP_DIST_COUNT32_MAX) {
		c->c[at]++;
		return true;
	}
	return counts_add_grow(c, i, max);
}

static void counts_free(struct bp_counts *c)
{
	free(c->c);
	free(c->big);
}

/* The lowest and highest indexes with a count, false if none. */
static bool counts_span(const struct bp_counts *c, int64_t *lo, int64_t *hi)
{
	size_t a = 0, b = c->n;

	while (a < b && !count_of(c, a))
		a++;
	while (b > a && !count_of(c, b - 1))
		b--;
	if (a == b)
		return false;
	*lo = c->lo + (int64_t)a, *hi = c->lo + (int64_t)b - 1;
	return true;
}

static uint64_t counts_at(const struct bp_counts *c, int64_t i)
{
	return i >= c->lo && i < c->lo + (int64_t)c->n ? count_of(c, (size_t)(i - c->lo)) : 0;
}

/* A value as an unsigned key that sorts as the value does: the sign bit
 * of a signed integer flipped; a double's bits, all flipped if negative,
 * else with the sign bit set (IEEE 754 orders like that; NaN never comes). */
static uint64_t sort_key(enum bp_dist_kind kind, union bp_dist_value v)
{
	if (kind == BP_DIST_SIGNED)
		return v.u ^ (1ull << 63);
	if (kind == BP_DIST_FLOAT) {
		uint64_t bits;

		memcpy(&bits, &v.d, 8);
		return bits >> 63 ? ~bits : bits | 1ull << 63;
	}
	return v.u;
}

static union bp_dist_value from_sort_key(enum bp_dist_kind kind, uint64_t k)
{
	union bp_dist_value v;

	if (kind == BP_DIST_SIGNED) {
		v.u = k ^ (1ull << 63);
	} else if (kind == BP_DIST_FLOAT) {
		uint64_t bits = k >> 63 ? k & ~(1ull << 63) : ~k;

		memcpy(&v.d, &bits, 8);
	} else {
		v.u = k;
	}
	return v;
}

/* ---- the sketch --------------------------------------------------------- */

/*
 * The sketch's index, ceil(ln(x) / ln(gamma)), in integers: x = 2^e (1 + f)
 * gives e ln(2) / ln(gamma) + ln(1 + f) / ln(gamma), both in fixed point
 * (SKETCH_ONE is 1).  The second is a table over f's leading 10 bits,
 * interpolated by its next 32 (error below 2e-7 of a bucket's width in ln,
 * far inside alpha), where libm's log() was a third of a sketched hist run
 * and a double's table lookup still a fifth.  An integer value never goes
 * through a double.
 */
#define SKETCH_FRAC_BITS 32
#define SKETCH_ONE ((int64_t)1 << SKETCH_FRAC_BITS)
#define SKETCH_TABLE_BITS 10
#define SKETCH_MAX_BUCKETS ((size_t)1 << 20)

static pthread_once_t sketch_once = PTHREAD_ONCE_INIT;
static long double ln_gamma;			/* ln(gamma) */
static double inv_ln_gamma;			/* 1 / ln(gamma) */
static int64_t ln2_fixed;			/* ln(2) / ln(gamma), fixed point */
static int64_t ln_mantissa_fixed[(1 << SKETCH_TABLE_BITS) + 1];
					/* ln(1 + k / 1024) / ln(gamma), fixed point */

static void make_sketch_tables(void)
{
	ln_gamma = logl((1 + (long double)BP_DIST_ALPHA) / (1 - (long double)BP_DIST_ALPHA));
	inv_ln_gamma = (double)(1 / ln_gamma);
	ln2_fixed = (int64_t)llroundl(logl(2) / ln_gamma * SKETCH_ONE);
	for (int k = 0; k <= 1 << SKETCH_TABLE_BITS; k++)
		ln_mantissa_fixed[k] = (int64_t)llroundl(
			log1pl((long double)k / (1 << SKETCH_TABLE_BITS)) / ln_gamma * SKETCH_ONE);
}

/* The tables, made once per process (a pool's init asks, off the hot path). */
static void sketch_tables(void)
{
	pthread_once(&sketch_once, make_sketch_tables);
}

/* ceil(y / SKETCH_ONE), y of either sign (no shift of a negative number) */
static int64_t ceil_fixed(int64_t y)
{
	return y >= 0 ? (int64_t)(((uint64_t)y + (uint64_t)SKETCH_ONE - 1) >> SKETCH_FRAC_BITS) :
			-(int64_t)((uint64_t)-y >> SKETCH_FRAC_BITS);
}

/* The bucket of 2^e (1 + f), f the 64-bit fraction (its first bit is 1/2). */
static inline int64_t sketch_index_of(int64_t e, uint64_t f)
{
	unsigned k = (unsigned)(f >> (64 - SKETCH_TABLE_BITS));
	uint64_t rest = f << SKETCH_TABLE_BITS >> (64 - SKETCH_FRAC_BITS);
	uint64_t step = (uint64_t)(ln_mantissa_fixed[k + 1] - ln_mantissa_fixed[k]);

	return ceil_fixed(e * ln2_fixed + ln_mantissa_fixed[k] +
			  (int64_t)((step * rest) >> SKETCH_FRAC_BITS));
}

/* The same for a double x > 0. */
static int64_t sketch_index_double(double x)
{
	uint64_t bits;
	int e;

	memcpy(&bits, &x, 8);
	e = (int)(bits >> 52 & 0x7ff);
	if (e == 0 || e == 0x7ff)	/* subnormal or infinite: rare, exactly */
		return (int64_t)ceil(log(x) * inv_ln_gamma);
	return sketch_index_of(e - 1023, bits << 12);
}

/* The value that stands for bucket i: within alpha of all of it. */
static long double sketch_value(int64_t i)
{
	long double gamma = expl(ln_gamma);

	return 2 * expl((long double)i * ln_gamma) / (gamma + 1);
}

/* An integer value as its sign, magnitude (INT64_MIN's is 2^63) and the
 * magnitude's leading zero bits (64 for 0): what both its log2 bucket and
 * its sketch bucket start from, worked out once per value. */
struct int_parts {
	bool negative;
	uint64_t magnitude;
	int lead;
};

static inline struct int_parts int_parts_of(enum bp_dist_kind kind, union bp_dist_value v)
{
	struct int_parts x = { .negative = kind == BP_DIST_SIGNED && v.i < 0 };

	x.magnitude = x.negative ? (uint64_t)0 - v.u : v.u;
	x.lead = x.magnitude ? __builtin_clzll(x.magnitude) : 64;
	return x;
}

/* An integer into the sketch: gamma^(i-1) < magnitude <= gamma^i, on its
 * sign's side. */
static inline bool sketch_add_int(struct bp_dist *d, struct int_parts x)
{
	if (!x.magnitude) {
		d->sk_zero++;
		return true;
	}
	return counts_add(x.negative ? &d->sk_neg : &d->sk_pos,
			  sketch_index_of(63 - x.lead, x.magnitude << x.lead << 1),
			  SKETCH_MAX_BUCKETS);
}

static bool sketch_add_double(struct bp_dist *d, double x)
{
	if (x == 0) {
		d->sk_zero++;
		return true;
	}
	return counts_add(x > 0 ? &d->sk_pos : &d->sk_neg, sketch_index_double(x > 0 ? x : -x),
			  SKETCH_MAX_BUCKETS);
}

/* Move the exact values into the sketch. */
static bool to_sketch(struct bp_dist_pool *p, struct bp_dist *d)
{
	bool ok = true;

	for (size_t k = 0; k < d->nv; k++)
	{
		union bp_dist_value v = from_sort_key(d->kind, d->v[k].u);

		ok &= d->kind == BP_DIST_FLOAT ? sketch_add_double(d, v.d) :
						 sketch_add_int(d, int_parts_of(d->kind, v));
	}
	p->exact_left += d->nv;
	free(d->v);
	d->v = NULL, d->nv = d->capv = 0, d->nfixed = 0;
	d->sketch = p->sketched = true;
	return ok;
}

/* ---- the histogram ------------------------------------------------------ */

/* floor(log2(x)) for x > 0 */
static int64_t log2_index(long double x)
{
	int e;

	frexpl(x, &e);
	return (int64_t)e - 1;
}

/* The log2 bucket of an integer value, without a long double: the common
 * case (a count, a duration). */
static inline bool int_bucket_add(struct bp_dist *d, struct int_parts x)
{
	if (!x.magnitude) {
		d->h_zero++;
		return true;
	}
	return counts_add(x.negative ? &d->h_neg : &d->h_pos, 63 - x.lead, 4096);
}

static bool bucket_add(const struct bp_dist_pool *p, struct bp_dist *d, long double x)
{
	if (p->buckets == BP_BUCKETS_LINEAR) {
		int64_t i;
		long double q = floorl(x / (long double)p->width);

		if (q < -9e18L || q > 9e18L) {
			d->h_overflow = true;
			return true;
		}
		i = (int64_t)q;
		if (!counts_add(i >= 0 ? &d->h_pos : &d->h_neg, i >= 0 ? i : -i, BP_DIST_MAX_BUCKETS))
			d->h_overflow = true;
		return true;
	}
	if (x == 0 || (d->kind != BP_DIST_FLOAT && x > -1 && x < 1)) {
		d->h_zero++;
		return true;
	}
	return counts_add(x > 0 ? &d->h_pos : &d->h_neg, log2_index(x > 0 ? x : -x), 4096);
}

/* ---- adding ------------------------------------------------------------- */

static bool keep_exact(struct bp_dist_pool *p, struct bp_dist *d, union bp_dist_value v)
{
	if (d->nv == d->capv) {
		size_t cap = d->capv ? d->capv * 2 : 8;
		union bp_dist_value *grown = realloc(d->v, cap * sizeof(*grown));

		if (!grown)
			return false;
		d->v = grown, d->capv = cap;
	}
	d->v[d->nv++].u = sort_key(d->kind, v);
	if (p->exact_left)
		p->exact_left--;
	d->nfixed = 0;	/* the ranks found are no longer in place */
	return true;
}

/* A double's exact value, or its sketch bucket, after its statistics and
 * histogram (integers: bp_dist_add_many(), the same decisions). */
static bool keep_or_sketch(struct bp_dist_pool *p, struct bp_dist *d, union bp_dist_value v)
{
	bool ok = true;

	if (!d->sketch && (p->exact_left || d->nv < BP_DIST_EXACT_SMALL))
		return keep_exact(p, d, v);
	if (!d->sketch && !to_sketch(p, d))
		ok = false;	/* the value is still sketched */
	return sketch_add_double(d, v.d) && ok;
}

bool bp_dist_add(struct bp_dist_pool *p, struct bp_dist *d, union bp_dist_value v)
{
	bool ok;

	if (d->kind != BP_DIST_FLOAT)	/* exact in 128 bits, no long double */
		return bp_dist_add_many(p, d, &v, 1);
	d->count++;
	if (isnan(v.d)) {
		d->nan++;
		return true;
	}
	if (d->count - d->nan == 1 || v.d < d->min.d)
		d->min = v;
	if (d->count - d->nan == 1 || v.d > d->max.d)
		d->max = v;
	d->sum += v.d;
	ok = bucket_add(p, d, v.d);
	return keep_or_sketch(p, d, v) && ok;
}

/*
 * The exact statistics of n > 0 integers at once, in one loop without a
 * branch a value: signed values compared as unsigned ones with the sign
 * bit flipped (as sort_key() orders them), and summed as unsigned ones
 * less 2^64 for each negative one.
 */
static void int_stats_many(struct bp_dist *d, const union bp_dist_value *v, size_t n)
{
	uint64_t flip = d->kind == BP_DIST_SIGNED ? UINT64_C(1) << 63 : 0;
	uint64_t lo = (d->count ? d->min.u : v[0].u) ^ flip;
	uint64_t hi = (d->count ? d->max.u : v[0].u) ^ flip, negative = 0;
	unsigned __int128 sum = 0;

	for (size_t k = 0; k < n; k++) {
		uint64_t x = v[k].u ^ flip;

		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
		sum += v[k].u;
		negative += v[k].u >> 63;
	}
	d->count += n;
	d->min.u = lo ^ flip, d->max.u = hi ^ flip;
	if (flip)
		sum -= (unsigned __int128)negative << 64;
	d->isum += (__int128)sum;	/* modulo 2^128, as the sum itself wraps */
}

/* One integer's histogram bucket. */
static inline bool int_bucket(const struct bp_dist_pool *p, struct bp_dist *d,
			      union bp_dist_value v, struct int_parts x)
{
	return p->buckets == BP_BUCKETS_LOG2 ? int_bucket_add(d, x) :
					      bucket_add(p, d, bp_dist_ld(d->kind, v));
}

/*
 * The statistics of the batch first, then value by value the bucket and
 * the exact value while the budget lasts (it may run out in between),
 * then the sketch: keep_or_sketch()'s decisions, taken once per batch
 * where they no longer change.  bp_dist_add() of an integer comes here.
 */
bool bp_dist_add_many(struct bp_dist_pool *p, struct bp_dist *d, const union bp_dist_value *v,
		      size_t n)
{
	bool ok = true;
	size_t k = 0;

	if (!n)
		return true;
	if (d->kind == BP_DIST_FLOAT) {
		for (; k < n; k++)
			ok &= bp_dist_add(p, d, v[k]);
		return ok;
	}
	int_stats_many(d, v, n);
	for (; k < n && !d->sketch && (p->exact_left || d->nv < BP_DIST_EXACT_SMALL); k++) {
		ok &= int_bucket(p, d, v[k], int_parts_of(d->kind, v[k]));
		ok &= keep_exact(p, d, v[k]);
	}
	if (k < n && !d->sketch && !to_sketch(p, d))
		ok = false;	/* the values are still sketched */
	for (; k < n; k++) {
		struct int_parts x = int_parts_of(d->kind, v[k]);

		ok &= int_bucket(p, d, v[k], x);
		ok &= sketch_add_int(d, x);
	}
	return ok;
}

/* ---- queries ------------------------------------------------------------ */

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = ((const union bp_dist_value *)a)->u, y = ((const union bp_dist_value *)b)->u;

	return (x > y) - (x < y);
}

static void swap_keys(union bp_dist_value *a, ptrdiff_t i, ptrdiff_t j)
{
	uint64_t x = a[i].u;

	a[i].u = a[j].u, a[j].u = x;
}

/*
 * Put the key of rank k (0-based) of a[lo .. hi] in place, smaller or
 * equal keys before it and greater or equal after (Hoare's selection,
 * median of three): linear on average, where sorting every value cost a
 * third of a hist run.  Past a depth that only adversarial input reaches,
 * the rest is sorted.
 */
static void select_rank(union bp_dist_value *a, ptrdiff_t lo, ptrdiff_t hi, ptrdiff_t k)
{
	for (int depth = 0; hi - lo > 16; depth++) {
		ptrdiff_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
		uint64_t pivot;

		if (depth > 64) {
			qsort(a + lo, (size_t)(hi - lo + 1), sizeof(*a), cmp_key);
			return;
		}
		if (a[mid].u < a[lo].u)
			swap_keys(a, mid, lo);
		if (a[hi].u < a[lo].u)
			swap_keys(a, hi, lo);
		if (a[hi].u < a[mid].u)
			swap_keys(a, hi, mid);
		pivot = a[mid].u;
		while (i <= j) {
			while (a[i].u < pivot)
				i++;
			while (a[j].u > pivot)
				j--;
			if (i <= j)
				swap_keys(a, i++, j--);
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;	/* between the two halves: equal to the pivot */
	}
	for (ptrdiff_t i = lo + 1; i <= hi; i++)	/* a few left: insertion */
		for (ptrdiff_t j = i; j > lo && a[j - 1].u > a[j].u; j--)
			swap_keys(a, j, j - 1);
}

/* The key of rank k, selected within the ranks already in place around it. */
static uint64_t key_at_rank(struct bp_dist *d, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)d->nv - 1;
	unsigned at = 0;

	for (; at < d->nfixed && d->fixed[at] <= k; at++) {
		if (d->fixed[at] == k)
			return d->v[k].u;
		lo = (ptrdiff_t)d->fixed[at] + 1;
	}
	if (at < d->nfixed)
		hi = (ptrdiff_t)d->fixed[at] - 1;
	select_rank(d->v, lo, hi, (ptrdiff_t)k);
	if (d->nfixed < BP_DIST_FIXED) {	/* keep the list sorted */
		memmove(&d->fixed[at + 1], &d->fixed[at], (d->nfixed - at) * sizeof(d->fixed[0]));
		d->fixed[at] = k;
		d->nfixed++;
	}
	return d->v[k].u;
}

void bp_dist_finish(struct bp_dist *d)
{
	(void)d;	/* the quantiles select what they need when asked */
}

long double bp_dist_mean(const struct bp_dist *d)
{
	uint64_t n = d->count - d->nan;

	if (!n)
		return 0;
	if (d->kind == BP_DIST_FLOAT)
		return d->sum / (long double)n;
	return (long double)d->isum / (long double)n;
}

/* The sketch's value at rank r (1-based), clamped to [min, max]. */
static long double sketch_rank(const struct bp_dist *d, uint64_t r)
{
	long double v = 0;
	long double lo = bp_dist_ld(d->kind, d->min), hi = bp_dist_ld(d->kind, d->max);
	int64_t a, b;
	bool found = false;

	sketch_tables();	/* made by the pool's init; asked again, cheaply */
	if (counts_span(&d->sk_neg, &a, &b))	/* the most negative first */
		for (int64_t i = b; i >= a && !found; i--) {
			uint64_t c = counts_at(&d->sk_neg, i);

			if (r <= c)
				v = -sketch_value(i), found = true;
			r -= found ? 0 : c;
		}
	if (!found && r <= d->sk_zero)
		v = 0, found = true;
	else if (!found)
		r -= d->sk_zero;
	if (!found && counts_span(&d->sk_pos, &a, &b))
		for (int64_t i = a; i <= b && !found; i++) {
			uint64_t c = counts_at(&d->sk_pos, i);

			if (r <= c)
				v = sketch_value(i), found = true;
			r -= found ? 0 : c;
		}
	if (!found)
		v = hi;
	return v < lo ? lo : v > hi ? hi : v;
}

long double bp_dist_quantile(struct bp_dist *d, double q)
{
	uint64_t n = d->count - d->nan, r;
	long double x;

	if (!n)
		return 0;
	x = (long double)q * (long double)n;
	r = (uint64_t)ceill(x - x * 1e-12L);	/* 0.9 * 100 is 90, not a hair above */
	r = r < 1 ? 1 : r > n ? n : r;
	if (d->sketch)
		return sketch_rank(d, r);
	return bp_dist_ld(d->kind, from_sort_key(d->kind, key_at_rank(d, r - 1)));
}

/* ---- the histogram, bucket by bucket ------------------------------------- */

static void log2_buckets(const struct bp_dist *d, void (*fn)(void *, const struct bp_bucket *),
			 void *arg)
{
	int64_t a, b;
	bool ints = d->kind != BP_DIST_FLOAT;

	if (counts_span(&d->h_neg, &a, &b)) {
		if (ints && d->h_zero)
			a = 0;	/* down to (-2, -1], next to the zero bucket */
		for (int64_t i = b; i >= a; i--) {
			struct bp_bucket k = { -ldexpl(1, (int)i + 1), -ldexpl(1, (int)i),
					       counts_at(&d->h_neg, i) };
			fn(arg, &k);
		}
	}
	if (d->h_zero) {
		int64_t lo = 0;
		struct bp_bucket k = { 0, 1, d->h_zero };

		if (ints && d->h_neg.n && counts_span(&d->h_neg, &a, &b))
			k.lo = -1;	/* (-1, 1): the integer 0 */
		if (!ints && counts_span(&d->h_pos, &lo, &b))
			k.hi = ldexpl(1, (int)lo);
		fn(arg, &k);
	}
	if (counts_span(&d->h_pos, &a, &b)) {
		if (ints && d->h_zero && a > 0)
			a = 0;	/* show [1, 2) ... up to the first count */
		for (int64_t i = a; i <= b; i++) {
			struct bp_bucket k = { ldexpl(1, (int)i), ldexpl(1, (int)i + 1),
					       counts_at(&d->h_pos, i) };
			fn(arg, &k);
		}
	}
}

static void linear_buckets(const struct bp_dist_pool *p, const struct bp_dist *d,
			   void (*fn)(void *, const struct bp_bucket *), void *arg)
{
	int64_t a = 0, b = -1, lo, hi;
	long double w = (long double)p->width;

	/* negative indexes are kept as -i in h_neg */
	if (counts_span(&d->h_neg, &lo, &hi))
		a = -hi, b = -lo;
	if (counts_span(&d->h_pos, &lo, &hi)) {
		if (b < a)
			a = lo;
		b = hi;
	}
	for (int64_t i = a; i <= b; i++) {
		struct bp_bucket k = { (long double)i * w, (long double)(i + 1) * w,
				       i >= 0 ? counts_at(&d->h_pos, i) : counts_at(&d->h_neg, -i) };
		fn(arg, &k);
	}
}

void bp_dist_buckets(const struct bp_dist_pool *p, const struct bp_dist *d,
		     void (*fn)(void *arg, const struct bp_bucket *b), void *arg)
{
	if (p->buckets == BP_BUCKETS_LINEAR)
		linear_buckets(p, d, fn, arg);
	else
		log2_buckets(d, fn, arg);
}
