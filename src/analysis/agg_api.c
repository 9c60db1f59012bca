/*
 * The aggregate's API (bprint/aggregate.h) over its struct
 * (analysis/aggregate.h): the handle, what it shows, and the adds.
 *
 * bp_agg_add() is one call a record: the in-line lanes of
 * bp_agg_add_inline() run inside it, so a caller outside the library
 * pays the call and nothing else; bp_agg_add_many() runs the same loop
 * over a batch.  docs/performance.md has the measurement.
 */
#include "analysis/aggregate.h"
#include "analysis/svg.h"

#include <stdlib.h>
#include <string.h>

struct bp_agg *bp_agg_new(enum bp_dist_kind kind, enum bp_bucket_kind buckets, double width)
{
	struct bp_agg *a = malloc(sizeof(*a));

	if (a)
		bp_agg_init(a, kind, buckets, width);
	return a;
}

void bp_agg_free(struct bp_agg *a)
{
	if (a) {
		bp_agg_fini(a);
		free(a);
	}
}

enum bp_dist_kind bp_agg_kind(const struct bp_agg *a)
{
	return a->kind;
}

int bp_agg_set_percentiles(struct bp_agg *a, const char *list, char *err, size_t size)
{
	struct bp_quantiles qs;

	if (!bp_quantiles_parse(&qs, list, err, size))
		return -1;
	if (a) {
		a->quantiles = qs;
		if (a->series)
			a->series->quantiles = qs;
	}
	return 0;
}

void bp_agg_set_sort(struct bp_agg *a, const struct bp_agg_sort *s)
{
	a->sort = *s;
}

void bp_agg_set_limit(struct bp_agg *a, size_t limit)
{
	a->limit = limit;
}

int bp_agg_set_every(struct bp_agg *a, uint64_t every_ns)
{
	struct bp_agg *s;

	if (a->own_series) {
		bp_agg_fini(a->series);
		free(a->series);
	}
	a->series = NULL, a->own_series = false, a->every_ns = 0;
	if (!every_ns)
		return 0;
	if (!(s = bp_agg_new(a->kind, a->pool.buckets, a->pool.width)))
		return -1;
	s->quantiles = a->quantiles;
	s->sort.by = BP_ORDER_KEY;	/* window by window */
	s->counts_only = a->counts_only;
	a->series = s, a->own_series = true, a->every_ns = every_ns;
	return 0;
}

void bp_agg_set_live(struct bp_agg *a, bool live)
{
	a->series_last = live;
}

void bp_agg_set_names(struct bp_agg *a, const char *const *key_names, size_t nkeys,
		      const char *value_name)
{
	a->key_names = key_names;
	a->nkeys = nkeys;
	a->value_name = value_name;
}

void bp_agg_set_what(struct bp_agg *a, const char *what)
{
	a->what = what;
}

void bp_agg_set_counts_only(struct bp_agg *a, bool counts_only)
{
	a->counts_only = counts_only;
	if (a->series)
		a->series->counts_only = counts_only;
}

void bp_agg_set_time_ns(struct bp_agg *a, bool time_ns)
{
	a->time_ns = time_ns;
}

void bp_agg_set_lost(struct bp_agg *a, uint64_t lost, uint64_t not_yet)
{
	a->lost = lost;
	a->not_yet = not_yet;
}

int bp_agg_set_spans(struct bp_agg *a, size_t top, const char *const *key_names, size_t nkeys)
{
	bp_top_free(&a->top);
	bp_top_init(&a->top, top);
	a->spans = a->time_ns = true;
	a->top_key_names = key_names;
	a->ntop_keys = nkeys;
	return 0;
}

void bp_agg_set_unmatched(struct bp_agg *a, uint64_t opens, uint64_t closes)
{
	a->unmatched_opens = opens;
	a->unmatched_closes = closes;
}

/* The value into key's group, and with --every into its window's. */
static inline bool add(struct bp_agg *a, const unsigned char *key, size_t keylen,
		       union bp_dist_value v, uint64_t ns)
{
	if (!bp_agg_add_inline(a, key, keylen, v))
		return false;
	return !a->every_ns ||
	       (bp_agg_window_key(&a->window_key, a->every_ns, ns, key, keylen) &&
		bp_agg_add_inline(a->series, a->window_key.b, a->window_key.len, v));
}

static __attribute__((noinline)) int add_rest(struct bp_agg *a, const unsigned char *key,
					      size_t keylen, union bp_dist_value v, uint64_t ns)
{
	if (!a->every_ns && !a->counts_only)	/* the lanes were looked at */
		return bp_agg_add_slow(a, key, keylen, v) ? 0 : -1;
	return add(a, key, keylen, v, ns) ? 0 : -1;
}

/* The lanes looked at here, in a function that needs no stack frame
 * (everything else is add_rest()'s): a call from the command costs little
 * more than the in-line add did in it. */
int bp_agg_add(struct bp_agg *a, const unsigned char *key, size_t keylen, union bp_dist_value v,
	       uint64_t ns)
{
	if (__builtin_expect(!a->every_ns && !a->counts_only, 1) && bp_agg_lane_put(a, key, keylen, v))
		return 0;
	return add_rest(a, key, keylen, v, ns);
}

int bp_agg_add_many(struct bp_agg *a, const struct bp_agg_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!add(a, items[i].key, items[i].keylen, items[i].v, items[i].ns))
			return -1;
	return 0;
}

int bp_agg_add_span(struct bp_agg *a, const struct bp_span *sp)
{
	union bp_dist_value d = { .u = sp->to.ns >= sp->from.ns ? sp->to.ns - sp->from.ns : 0 };

	/* (no --top: no call) */
	return add(a, sp->by, sp->bylen, d, sp->to.ns) && (!a->top.max || bp_top_offer(&a->top, sp))
	       ? 0 : -1;
}

bool bp_agg_group(const struct bp_agg *a, size_t i, const unsigned char **key, size_t *keylen)
{
	if (i >= bp_agg_shown(a) || !a->sorted)
		return false;
	*key = a->sorted[i]->key;
	*keylen = a->sorted[i]->keylen;
	return true;
}

uint64_t bp_agg_group_mean(const struct bp_agg *a, const unsigned char *key, size_t keylen,
			   long double *mean)
{
	const struct bp_group *g = bp_groups_find(&a->groups, key, keylen);
	const struct bp_dist *d = g ? g->data : NULL;

	*mean = d ? bp_dist_mean(d) : 0;
	return d ? d->count : 0;
}

bool bp_agg_svg_parts(const struct bp_agg *total, const struct bp_agg *const *parts,
		      const char *const *part_names, size_t nparts, FILE *out, const char *title,
		      const char *xlabel)
{
	size_t n = bp_agg_shown(total) < BP_SVG_MAX_SERIES ? bp_agg_shown(total) : BP_SVG_MAX_SERIES;
	struct bp_svg_bar bars[BP_SVG_MAX_SERIES];
	char names[BP_SVG_MAX_SERIES][128];

	if (nparts > BP_SVG_MAX_PARTS)
		nparts = BP_SVG_MAX_PARTS;
	for (size_t i = 0; i < n; i++) {
		const unsigned char *key;
		size_t len;
		FILE *mem = fmemopen(names[i], sizeof(names[i]), "w");

		snprintf(names[i], sizeof(names[i]), "group %zu", i + 1);
		(void)bp_agg_group(total, i, &key, &len);
		if (mem) {
			bp_agg_key_text(total, key, len, mem);
			fclose(mem);
			names[i][sizeof(names[i]) - 1] = '\0';
		}
		bars[i] = (struct bp_svg_bar){ .name = names[i] };
		for (size_t p = 0; p < nparts; p++)
			(void)bp_agg_group_mean(parts[p], key, len, &bars[i].part[p]);
	}
	return bp_svg_stacked(out, title, xlabel, total->time_ns, part_names, nparts, bars, n);
}
