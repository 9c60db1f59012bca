/*
 * The SVG of an aggregate (analysis/aggregate.h): what analysis/svg.h
 * draws, gathered from the groups drawn (the first BP_SVG_MAX_SERIES
 * shown): each group's buckets, its percentile curve, and with --every
 * its p50 and p99 window by window.
 *
 * A percentile curve is the group's quantiles at PCT_POINTS steps of
 * log10(1 / (1 - q)) from q = 0 up to 1 - 1/n (no more ranks than values
 * tell apart; at most p99.9999), plus p50, p99, p99.9 and p99.99
 * themselves, where a mark goes, and the max at its end: the tail is all
 * there.
 */
#include "analysis/aggregate.h"

#include "analysis/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PCT_POINTS 100

/* What one group drawn needs, allocated. */
struct drawn {
	char name[256];
	struct bp_bucket *b;
	size_t n, cap;
	struct bp_svg_point *pct;
	size_t npct;
	struct bp_svg_point *p50, *p99;
	size_t ntime;
	bool failed;
};

static void collect_bucket(void *arg, const struct bp_bucket *b)
{
	struct drawn *c = arg;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct bp_bucket *grown = realloc(c->b, cap * sizeof(*grown));

		if (!grown) {
			c->failed = true;
			return;
		}
		c->b = grown, c->cap = cap;
	}
	c->b[c->n++] = *b;
}

static int by_q(const void *p, const void *q)
{
	const struct bp_svg_point *x = p, *y = q;

	return (x->x > y->x) - (x->x < y->x);
}

/* d's percentile curve into c->pct. */
static bool curve(struct drawn *c, struct bp_dist *d)
{
	static const double marks[] = { 0.5, 0.99, 0.999, 0.9999 };
	uint64_t n = d->count - d->nan;
	double top = n > 1 ? log10((double)n) : 0;
	size_t k = 0;

	if (!n)
		return true;
	top = top > 6 ? 6 : top;
	if (!(c->pct = malloc((PCT_POINTS + 2 + 4) * sizeof(*c->pct))))
		return false;
	for (size_t i = 0; i <= PCT_POINTS; i++) {
		double q = 1 - pow(10, -top * (double)i / PCT_POINTS);

		c->pct[k++] = (struct bp_svg_point){ q > 0 ? q : 0, 0 };
	}
	for (size_t m = 0; m < sizeof(marks) / sizeof(marks[0]); m++)
		if (marks[m] <= c->pct[PCT_POINTS].x + 1e-12)
			c->pct[k++] = (struct bp_svg_point){ marks[m], 0 };
	qsort(c->pct, k, sizeof(*c->pct), by_q);
	for (size_t i = 0; i < k; i++)
		c->pct[i].y = bp_dist_quantile(d, c->pct[i].x > 0 ? c->pct[i].x : 1e-300);
	c->pct[k] = (struct bp_svg_point){ c->pct[k - 1].x, bp_dist_ld(d->kind, d->max) };
	c->npct = k + 1;
	return true;
}

/* The windows of group key (of a->series, window by window) into c. */
static bool over_time(struct drawn *c, const struct bp_agg *a, const struct bp_group *g,
		      uint64_t first)
{
	const struct bp_agg *s = a->series;
	size_t cap = 0;

	for (size_t i = 0; i < s->groups.n && s->sorted; i++) {
		const unsigned char *key;
		size_t len;
		uint64_t w = bp_agg_window_of(s->sorted[i], &key, &len);
		struct bp_dist *d = s->sorted[i]->data;
		double x = (double)((w - first) * a->every_ns) / 1e9;

		if (len != g->keylen || !bp_key_equal(key, g->key, len) || d->count == d->nan)
			continue;
		if (c->ntime == cap) {
			struct bp_svg_point *p50, *p99;

			cap = cap ? 2 * cap : 64;
			p50 = realloc(c->p50, cap * sizeof(*p50));
			if (p50)
				c->p50 = p50;
			p99 = p50 ? realloc(c->p99, cap * sizeof(*p99)) : NULL;
			if (!p99)
				return false;
			c->p99 = p99;
		}
		c->p50[c->ntime] = (struct bp_svg_point){ x, bp_dist_quantile(d, 0.5) };
		c->p99[c->ntime++] = (struct bp_svg_point){ x, bp_dist_quantile(d, 0.99) };
	}
	return true;
}

/* Group g into c: its name, buckets, curve and windows. */
static bool gather(struct drawn *c, const struct bp_agg *a, const struct bp_group *g,
		   uint64_t first)
{
	FILE *mem = fmemopen(c->name, sizeof(c->name), "w");

	if (mem) {
		bp_agg_key_text(a, g->key, g->keylen, mem);
		fclose(mem);
		c->name[sizeof(c->name) - 1] = '\0';
	}
	bp_dist_buckets(&a->pool, g->data, collect_bucket, c);
	if (c->failed)
		return false;
	if (a->counts_only)
		return true;
	return curve(c, g->data) && (!a->series || over_time(c, a, g, first));
}

bool bp_agg_svg(const struct bp_agg *a, FILE *out, const char *title)
{
	size_t ns = bp_agg_shown(a) < BP_SVG_MAX_SERIES ? bp_agg_shown(a) : BP_SVG_MAX_SERIES;
	struct bp_svg_series s[BP_SVG_MAX_SERIES];
	struct drawn *c = calloc(ns ? ns : 1, sizeof(*c));
	char xlabel[128], origin[32] = "";
	uint64_t first = 0;
	struct bp_svg_plot p = {
		.title = title, .xlabel = xlabel, .ylabel = a->spans ? "spans" : "records",
		.logx = a->pool.buckets == BP_BUCKETS_LOG2, .time_ns = a->time_ns,
		.omitted = a->groups.n - ns, .time_origin = origin,
	};
	bool ok = c != NULL;

	snprintf(xlabel, sizeof(xlabel), "%s", a->value_name ? a->value_name : "value");
	if (a->series && a->series->groups.n && a->series->sorted) {
		const unsigned char *key;
		size_t len;

		first = bp_agg_window_of(a->series->sorted[0], &key, &len);
		bp_agg_seconds(origin, sizeof(origin), first * a->every_ns, false);
	}
	for (size_t i = 0; ok && i < ns; i++) {
		snprintf(c[i].name, sizeof(c[i].name), "group %zu", i + 1);
		ok = gather(&c[i], a, a->sorted[i], first);
		s[i] = (struct bp_svg_series){ .name = c[i].name, .b = c[i].b, .n = c[i].n,
					       .pct = c[i].pct, .npct = c[i].npct, .p50 = c[i].p50,
					       .p99 = c[i].p99, .ntime = c[i].ntime };
	}
	ok = ok && bp_svg_histogram(out, &p, s, ns);
	for (size_t i = 0; c && i < ns; i++) {
		free(c[i].b);
		free(c[i].pct);
		free(c[i].p50);
		free(c[i].p99);
	}
	free(c);
	return ok;
}
