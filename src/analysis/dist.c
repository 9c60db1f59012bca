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
#include <stdlib.h>
#include <string.h>

void bp_dist_pool_init(struct bp_dist_pool *p, enum bp_bucket_kind buckets, double width)
{
	*p = (struct bp_dist_pool){
		.exact_left = BP_DIST_EXACT_VALUES,
		.buckets = buckets,
		.width = width > 0 ? width : 1,
	};
}

void bp_dist_init(struct bp_dist *d, enum bp_dist_kind kind)
{
	*d = (struct bp_dist){ .kind = kind };
}

void bp_dist_free(struct bp_dist *d)
{
	free(d->v);
	free(d->sk_pos.c);
	free(d->sk_neg.c);
	free(d->h_pos.c);
	free(d->h_neg.c);
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

/* a < b in the distribution's own type */
static bool less(enum bp_dist_kind kind, union bp_dist_value a, union bp_dist_value b)
{
	switch (kind) {
	case BP_DIST_SIGNED:
		return a.i < b.i;
	case BP_DIST_UNSIGNED:
		return a.u < b.u;
	default:
		return a.d < b.d;
	}
}

/* ---- counts over an index range ----------------------------------------- */

/* Count one at index i, growing the range; false if it would pass max
 * entries or memory ran out. */
static bool counts_add(struct bp_counts *c, int64_t i, size_t max)
{
	if (c->n == 0 || i < c->lo || i >= c->lo + (int64_t)c->n) {
		int64_t lo = c->n && c->lo < i ? c->lo : i;
		int64_t hi = c->n && c->lo + (int64_t)c->n > i + 1 ? c->lo + (int64_t)c->n : i + 1;
		size_t n = (size_t)(hi - lo), extra;
		uint64_t *grown;

		if (n > max)
			return false;
		/* room beyond what is needed now, in the direction it grew */
		extra = n / 2 < max - n ? n / 2 : max - n;
		if (c->n && i < c->lo)
			lo -= (int64_t)extra;
		n += extra;
		if (!(grown = calloc(n, sizeof(*grown))))
			return false;
		if (c->n)
			memcpy(grown + (c->lo - lo), c->c, c->n * sizeof(*grown));
		free(c->c);
		c->c = grown, c->lo = lo, c->n = n;
	}
	c->c[i - c->lo]++;
	return true;
}

/* The lowest and highest indexes with a count, false if none. */
static bool counts_span(const struct bp_counts *c, int64_t *lo, int64_t *hi)
{
	size_t a = 0, b = c->n;

	while (a < b && !c->c[a])
		a++;
	while (b > a && !c->c[b - 1])
		b--;
	if (a == b)
		return false;
	*lo = c->lo + (int64_t)a, *hi = c->lo + (int64_t)b - 1;
	return true;
}

static uint64_t counts_at(const struct bp_counts *c, int64_t i)
{
	return i >= c->lo && i < c->lo + (int64_t)c->n ? c->c[i - c->lo] : 0;
}

/* ---- the sketch --------------------------------------------------------- */

static long double log_gamma(void)
{
	return logl((1 + (long double)BP_DIST_ALPHA) / (1 - (long double)BP_DIST_ALPHA));
}

/* The sketch bucket of x > 0: gamma^(i-1) < x <= gamma^i. */
static int64_t sketch_index(long double x, long double lg)
{
	return (int64_t)ceill(logl(x) / lg);
}

/* The value that stands for bucket i: within alpha of all of it. */
static long double sketch_value(int64_t i, long double lg)
{
	long double gamma = expl(lg);

	return 2 * expl((long double)i * lg) / (gamma + 1);
}

static bool sketch_add(struct bp_dist *d, long double x)
{
	static const size_t max = 1u << 20;
	long double lg = log_gamma();

	if (x == 0) {
		d->sk_zero++;
		return true;
	}
	if (x > 0)
		return counts_add(&d->sk_pos, sketch_index(x, lg), max);
	return counts_add(&d->sk_neg, sketch_index(-x, lg), max);
}

/* Move the exact values into the sketch. */
static bool to_sketch(struct bp_dist_pool *p, struct bp_dist *d)
{
	bool ok = true;

	for (size_t k = 0; k < d->nv; k++)
		ok &= sketch_add(d, bp_dist_ld(d->kind, d->v[k]));
	p->exact_left += d->nv;
	free(d->v);
	d->v = NULL, d->nv = d->capv = 0;
	d->sketch = p->sketched = true;
	return ok;
}

/* ---- the histogram ------------------------------------------------------ */

/* floor(log2(x)) for x >= 1 or x > 0 */
static int64_t log2_index(long double x)
{
	int e;

	frexpl(x, &e);
	return (int64_t)e - 1;
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
	d->v[d->nv++] = v;
	if (p->exact_left)
		p->exact_left--;
	d->sorted = false;
	return true;
}

bool bp_dist_add(struct bp_dist_pool *p, struct bp_dist *d, union bp_dist_value v)
{
	long double x = bp_dist_ld(d->kind, v);
	bool ok;

	d->count++;
	if (d->kind == BP_DIST_FLOAT && isnan(v.d)) {
		d->nan++;
		return true;
	}
	if (d->count - d->nan == 1 || less(d->kind, v, d->min))
		d->min = v;
	if (d->count - d->nan == 1 || less(d->kind, d->max, v))
		d->max = v;
	d->sum += x;
	if (d->kind == BP_DIST_SIGNED)
		d->isum += v.i;
	else if (d->kind == BP_DIST_UNSIGNED)
		d->isum += (__int128)v.u;
	ok = bucket_add(p, d, x);
	if (!d->sketch && (p->exact_left || d->nv < BP_DIST_EXACT_SMALL))
		return keep_exact(p, d, v) && ok;
	if (!d->sketch && !to_sketch(p, d))
		ok = false;
	return sketch_add(d, x) && ok;
}

/* ---- queries ------------------------------------------------------------ */

static int cmp_signed(const void *a, const void *b)
{
	int64_t x = ((const union bp_dist_value *)a)->i, y = ((const union bp_dist_value *)b)->i;

	return (x > y) - (x < y);
}

static int cmp_unsigned(const void *a, const void *b)
{
	uint64_t x = ((const union bp_dist_value *)a)->u, y = ((const union bp_dist_value *)b)->u;

	return (x > y) - (x < y);
}

static int cmp_float(const void *a, const void *b)
{
	double x = ((const union bp_dist_value *)a)->d, y = ((const union bp_dist_value *)b)->d;

	return (x > y) - (x < y);
}

void bp_dist_finish(struct bp_dist *d)
{
	int (*const cmp[])(const void *, const void *) = {
		[BP_DIST_SIGNED] = cmp_signed,
		[BP_DIST_UNSIGNED] = cmp_unsigned,
		[BP_DIST_FLOAT] = cmp_float,
	};

	if (!d->sorted && d->nv)
		qsort(d->v, d->nv, sizeof(*d->v), cmp[d->kind]);
	d->sorted = true;
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
	long double lg = log_gamma(), v = 0;
	long double lo = bp_dist_ld(d->kind, d->min), hi = bp_dist_ld(d->kind, d->max);
	int64_t a, b;
	bool found = false;

	if (counts_span(&d->sk_neg, &a, &b))	/* the most negative first */
		for (int64_t i = b; i >= a && !found; i--) {
			uint64_t c = counts_at(&d->sk_neg, i);

			if (r <= c)
				v = -sketch_value(i, lg), found = true;
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
				v = sketch_value(i, lg), found = true;
			r -= found ? 0 : c;
		}
	if (!found)
		v = hi;
	return v < lo ? lo : v > hi ? hi : v;
}

long double bp_dist_quantile(const struct bp_dist *d, double q)
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
	return bp_dist_ld(d->kind, d->v[r - 1]);
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
