/*
 * Grouped distributions (analysis/aggregate.h): adding, and putting the
 * groups in order; their renderings are analysis/render.c.
 */
#include "analysis/aggregate.h"

#include <stdlib.h>
#include <string.h>

void bp_agg_init(struct bp_agg *a, enum bp_dist_kind kind, enum bp_bucket_kind buckets,
		 double width)
{
	*a = (struct bp_agg){ .kind = kind };
	bp_dist_pool_init(&a->pool, buckets, width);
	bp_groups_init(&a->groups, sizeof(struct bp_dist));
}

static void dist_free(void *d)
{
	bp_dist_free(d);
}

void bp_agg_free(struct bp_agg *a)
{
	memset(a->lane, 0, sizeof(a->lane));
	bp_groups_free(&a->groups, dist_free);
	bp_top_free(&a->top);
	free(a->sorted);
	a->sorted = NULL;
}

/* A lane's waiting values into its group's distribution. */
static bool flush(struct bp_agg *a, struct bp_agg_lane *l)
{
	unsigned n = l->n;

	l->n = 0;
	return !n || bp_dist_add_many(&a->pool, l->g->data, l->v, n);
}

/* The lane of key's group, made the current one: a lane's if it has the
 * key, else the group looked up into the next lane in turn, whose values
 * go in first (*ok false if that failed).  NULL if memory ran out. */
static struct bp_agg_lane *lane_of(struct bp_agg *a, const unsigned char *key, size_t keylen,
				   bool *ok)
{
	struct bp_agg_lane *l;
	struct bp_group *g;

	for (unsigned i = 0; i < BP_AGG_LANES; i++) {
		g = a->lane[i].g;
		if (g && g->keylen == keylen && bp_key_equal(g->key, key, keylen)) {
			a->cur = i;
			return &a->lane[i];
		}
	}
	if (!(g = bp_groups_get(&a->groups, key, keylen)))
		return NULL;
	a->cur = a->evict;
	a->evict = (a->evict + 1) % BP_AGG_LANES;
	l = &a->lane[a->cur];
	if (l->g)
		*ok = flush(a, l);
	l->g = g;
	return l;
}

bool bp_agg_add_slow(struct bp_agg *a, const unsigned char *key, size_t keylen,
		     union bp_dist_value v)
{
	struct bp_agg_lane *l = &a->lane[a->cur];
	struct bp_dist *d;
	bool ok = true;

	if (!l->g || l->g->keylen != keylen || !bp_key_equal(l->g->key, key, keylen))
		l = lane_of(a, key, keylen, &ok);
	if (!l)
		return false;
	d = l->g->data;
	if (!d->count && !d->v && !d->sketch)	/* new, or only values waiting: its kind */
		d->kind = a->kind;
	a->records++;
	if (a->counts_only) {	/* no values to keep */
		d->count++;
		return ok;
	}
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

static int most_first(const void *p, const void *q)
{
	const struct bp_group *x = *(const struct bp_group *const *)p;
	const struct bp_group *y = *(const struct bp_group *const *)q;
	uint64_t cx = ((const struct bp_dist *)x->data)->count;
	uint64_t cy = ((const struct bp_dist *)y->data)->count;

	return cx != cy ? (cx < cy ? 1 : -1) : key_cmp(x, y);
}

void bp_agg_finish(struct bp_agg *a)
{
	struct bp_group **s;

	/* what memory lacks for is counted in the statistics only (dist.h) */
	for (unsigned i = 0; i < BP_AGG_LANES; i++)
		(void)flush(a, &a->lane[i]);
	s = realloc(a->sorted, (a->groups.n ? a->groups.n : 1) * sizeof(*s));
	if (!s)
		return;
	a->sorted = s;
	memcpy(s, a->groups.list, a->groups.n * sizeof(*s));
	qsort(s, a->groups.n, sizeof(*s), most_first);
	for (size_t i = 0; i < a->groups.n; i++)
		bp_dist_finish(s[i]->data);
	bp_top_sort(&a->top);
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

