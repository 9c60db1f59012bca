/*
 * Grouped distributions (analysis/aggregate.h): adding, and putting the
 * groups in order; their renderings are analysis/render.c.
 */
#include "analysis/aggregate.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- percentiles and order ---------------------------------------------- */

/* One percentile written as digits with at most one point: its q and
 * names; false if it is not one. */
static bool quantile_of(const char *s, size_t len, struct bp_quantile *out)
{
	size_t digits = strspn(s, "0123456789."), n = 0, points = 0;
	char word[sizeof(out->text) - 1], *end;
	double p;

	for (size_t i = 0; i < len && i < digits; i++)
		points += s[i] == '.';
	if (!len || len >= sizeof(word) || digits < len || points > 1 || s[0] == '.' ||
	    s[len - 1] == '.')
		return false;
	memcpy(word, s, len);
	word[len] = '\0';
	errno = 0;
	p = strtod(word, &end);
	if (*end || errno || !(p > 0 && p <= 100))
		return false;
	out->q = p / 100;
	snprintf(out->text, sizeof(out->text), "p%s", word);
	for (size_t i = 0; i < len; i++)
		if (word[i] != '.')
			out->json[1 + n++] = word[i];
	out->json[0] = 'p';
	out->json[1 + n] = '\0';
	return true;
}

void bp_quantiles_default(struct bp_quantiles *qs)
{
	char err[8];

	(void)bp_quantiles_parse(qs, "50,90,99,99.9", err, sizeof(err));
}

bool bp_quantiles_parse(struct bp_quantiles *qs, const char *list, char *err, size_t size)
{
	struct bp_quantiles got = { .n = 0 };

	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		struct bp_quantile *q = &got.v[got.n];

		if (got.n == BP_AGG_MAX_QUANTILES) {
			snprintf(err, size, "at most %d percentiles", BP_AGG_MAX_QUANTILES);
			return false;
		}
		if (!quantile_of(p, len, q)) {
			snprintf(err, size, "expected percentiles in (0, 100] joined by ',' "
				 "(50,95,99,99.99), not '%.*s'", (int)(len < 40 ? len : 40), p);
			return false;
		}
		for (size_t i = 0; i < got.n; i++)
			if (!strcmp(got.v[i].json, q->json)) {
				snprintf(err, size, "%s and %s: one name in JSON and CSV (%s)",
					 got.v[i].text + 1, q->text + 1, q->json);
				return false;
			}
		got.n++;
		p += len;
		if (!*p)
			break;
	}
	*qs = got;
	return true;
}

bool bp_agg_sort_parse(struct bp_agg_sort *s, const char *field)
{
	static const struct {
		const char *name;
		enum bp_agg_order by;
	} names[] = {
		{ "count", BP_ORDER_COUNT }, { "min", BP_ORDER_MIN }, { "max", BP_ORDER_MAX },
		{ "mean", BP_ORDER_MEAN }, { "sum", BP_ORDER_SUM }, { "key", BP_ORDER_KEY },
	};
	struct bp_quantile q;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(field, names[i].name)) {
			*s = (struct bp_agg_sort){ .by = names[i].by };
			return true;
		}
	if (field[0] != 'p' || !quantile_of(field + 1, strlen(field + 1), &q))
		return false;
	*s = (struct bp_agg_sort){ .by = BP_ORDER_QUANTILE, .q = q.q };
	return true;
}

void bp_agg_init(struct bp_agg *a, enum bp_dist_kind kind, enum bp_bucket_kind buckets,
		 double width)
{
	*a = (struct bp_agg){ .kind = kind, .what = "values" };
	bp_quantiles_default(&a->quantiles);
	bp_dist_pool_init(&a->pool, buckets, width);
	bp_groups_init(&a->groups, sizeof(struct bp_agg_group));
}

static void dist_free(void *d)
{
	bp_dist_free(d);
}

void bp_agg_fini(struct bp_agg *a)
{
	memset(a->lane, 0, sizeof(a->lane));
	a->nlanes = a->misses = 0;
	bp_groups_free(&a->groups, dist_free);
	bp_top_free(&a->top);
	free(a->sorted);
	a->sorted = NULL;
	if (a->own_series) {
		bp_agg_fini(a->series);
		free(a->series);
		a->series = NULL;
		a->own_series = false;
	}
	bp_key_free(&a->window_key);
}

/* A lane's waiting values into its group's distribution. */
static bool flush(struct bp_agg *a, struct bp_agg_lane *l)
{
	unsigned n = l->n;

	l->n = 0;
	return !n || bp_dist_add_many(&a->pool, l->g->data, l->v, n);
}

/* The values waiting in a group without a lane into its distribution. */
static bool flush_group(struct bp_agg *a, struct bp_agg_group *p)
{
	unsigned n = p->n;

	p->n = 0;
	return !n || bp_dist_add_many(&a->pool, &p->d, p->v, n);
}

/* The lane for key, which no lane has: an unused lane, or every
 * BP_AGG_RETRY calls the lane added to least since the last of those (its
 * values go in first: *ok false if that failed), made the current one.
 * NULL if the key gets no lane: *gp is then its group, or NULL if memory
 * ran out. */
static struct bp_agg_lane *lane_for(struct bp_agg *a, const unsigned char *key, size_t keylen,
				    bool *ok, struct bp_group **gp)
{
	struct bp_agg_lane *l;
	struct bp_group *g;

	if (!(*gp = g = bp_groups_get(&a->groups, key, keylen)))
		return NULL;
	if (a->nlanes < BP_AGG_LANES) {
		a->cur = a->nlanes++;
	} else {
		if (++a->misses < BP_AGG_RETRY)
			return NULL;	/* the value waits in the group */
		a->cur = 0;
		for (unsigned i = 1; i < BP_AGG_LANES; i++)
			if (a->lane[i].hits < a->lane[a->cur].hits)
				a->cur = i;
		*ok = flush(a, &a->lane[a->cur]);
		for (unsigned i = 0; i < BP_AGG_LANES; i++)
			a->lane[i].hits = 0;
		a->misses = 0;
	}
	l = &a->lane[a->cur];
	l->g = g;
	return l;
}

bool bp_agg_add_slow(struct bp_agg *a, const unsigned char *key, size_t keylen,
		     union bp_dist_value v)
{
	struct bp_agg_lane *l = &a->lane[a->cur];
	struct bp_group *g = NULL;
	struct bp_agg_group *p;
	bool ok = true;

	/* the lanes were looked at (aggregate.h): the current one has the key,
	 * or none has */
	if (!l->g || l->g->keylen != keylen || !bp_key_equal(l->g->key, key, keylen))
		l = lane_for(a, key, keylen, &ok, &g);
	if (l)
		g = l->g;
	else if (!g)
		return false;
	p = g->data;
	if (!p->d.count && !p->d.v && !p->d.sketch)	/* new, or only values waiting: its kind */
		p->d.kind = a->kind;
	a->records++;
	if (a->counts_only) {	/* no values to keep */
		p->d.count++;
		return ok;
	}
	if (!l) {
		p->v[p->n++] = v;
		return (p->n < BP_AGG_PENDING || flush_group(a, p)) && ok;
	}
	l->hits++;
	l->v[l->n++] = v;
	return (l->n < BP_AGG_BATCH || flush(a, l)) && ok;
}

/* Keys in order: item by item, numbers numerically, before strings. */
static int key_cmp(const struct bp_group *x, const struct bp_group *y)
{
	size_t n = bp_key_items(x->key, x->keylen);

	for (size_t i = 0; i < n; i++) {
		long double a, b;
		bool na = bp_key_item_number(x->key, x->keylen, i, &a);
		bool nb = bp_key_item_number(y->key, y->keylen, i, &b);
		char ta[256], tb[256];
		int c;

		if (na && nb && a != b)
			return a < b ? -1 : 1;
		if (na != nb)
			return na ? -1 : 1;
		if (na)
			continue;
		bp_key_item_text(x->key, x->keylen, i, ta, sizeof(ta));
		bp_key_item_text(y->key, y->keylen, i, tb, sizeof(tb));
		if ((c = strcmp(ta, tb)))
			return c;
	}
	return 0;
}

/* A group and the figure it is sorted by. */
struct ranked {
	struct bp_group *g;
	long double v;
};

static long double figure(const struct bp_agg *a, struct bp_dist *d)
{
	bool none = a->counts_only || d->count == d->nan;

	switch (a->sort.by) {
	case BP_ORDER_MIN:
		return none ? 0 : bp_dist_ld(d->kind, d->min);
	case BP_ORDER_MAX:
		return none ? 0 : bp_dist_ld(d->kind, d->max);
	case BP_ORDER_MEAN:
		return none ? 0 : bp_dist_mean(d);
	case BP_ORDER_SUM:
		return none ? 0 : d->kind == BP_DIST_FLOAT ? d->sum : (long double)d->isum;
	case BP_ORDER_QUANTILE:
		return none ? 0 : bp_dist_quantile(d, a->sort.q);
	default:
		return (long double)d->count;
	}
}

/* Largest figure first (none for the key), then most records, then key. */
static int ranked_cmp(const void *p, const void *q)
{
	const struct ranked *x = p, *y = q;
	uint64_t cx = ((const struct bp_dist *)x->g->data)->count;
	uint64_t cy = ((const struct bp_dist *)y->g->data)->count;

	if (x->v != y->v)
		return x->v < y->v ? 1 : -1;
	return cx != cy ? (cx < cy ? 1 : -1) : key_cmp(x->g, y->g);
}

static int key_first(const void *p, const void *q)
{
	const struct ranked *x = p, *y = q;

	return key_cmp(x->g, y->g);
}

void bp_agg_finish(struct bp_agg *a)
{
	size_t n = a->groups.n;
	struct bp_group **s;
	struct ranked *r;

	/* what memory lacks for is counted in the statistics only (dist.h) */
	for (unsigned i = 0; i < BP_AGG_LANES; i++)
		(void)flush(a, &a->lane[i]);
	for (size_t i = 0; i < n; i++)
		(void)flush_group(a, a->groups.list[i]->data);
	s = realloc(a->sorted, (n ? n : 1) * sizeof(*s));
	if (!s)
		return;
	a->sorted = s;
	if (n)	/* no group: the list may be NULL, which memcpy may not read */
		memcpy(s, a->groups.list, n * sizeof(*s));
	for (size_t i = 0; i < n; i++)
		bp_dist_finish(s[i]->data);
	if (n && (r = malloc(n * sizeof(*r)))) {
		for (size_t i = 0; i < n; i++) {
			long double v = a->sort.by == BP_ORDER_KEY ? 0 : figure(a, s[i]->data);

			r[i] = (struct ranked){ s[i], v == v ? v : -HUGE_VALL };	/* NaN last */
		}
		qsort(r, n, sizeof(*r), a->sort.by == BP_ORDER_KEY ? key_first : ranked_cmp);
		for (size_t i = 0; i < n; i++)
			s[i] = r[i].g;
		free(r);
	}
	bp_top_sort(&a->top);
	if (a->series)
		bp_agg_finish(a->series);
}

bool bp_agg_window_key(struct bp_key *w, uint64_t every_ns, uint64_t ns, const unsigned char *key,
		       size_t keylen)
{
	bp_key_reset(w);
	return bp_key_add_uint(w, ns / every_ns) && bp_key_append(w, key, keylen);
}

size_t bp_agg_shown(const struct bp_agg *a)
{
	return a->limit && a->limit < a->groups.n ? a->limit : a->groups.n;
}

void bp_agg_seconds(char *buf, size_t size, uint64_t ns, bool nine)
{
	if (nine)
		snprintf(buf, size, "%llu.%09llu", (unsigned long long)(ns / 1000000000u),
			 (unsigned long long)(ns % 1000000000u));
	else
		snprintf(buf, size, "%llu.%06llu", (unsigned long long)(ns / 1000000000u),
			 (unsigned long long)(ns % 1000000000u / 1000u));
}

