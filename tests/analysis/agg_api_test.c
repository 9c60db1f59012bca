/*
 * The aggregate's and the pairing's API (bprint/aggregate.h, spans.h)
 * against the structs behind them (analysis/aggregate.h, spans.h), as
 * hist and latency used them before the API: the same values through
 * bp_agg_add(), bp_agg_add_many() and bp_agg_add_inline() (with --every's
 * windows made by hand, as the command did) render the same text, JSON
 * and CSV, byte for byte; the same spans paired by bp_spans_new()'s and
 * an embedded struct bp_spans, added by bp_agg_add_span() and by hand
 * (the group, the window, the top list), render the same.  Then each
 * call on its own: the groups shown and their means, the stacked bars
 * against bp_svg_stacked() fed by hand, --percentiles' check, and a
 * bp_sched_split() that writes only as far as the caller's size.
 */
#include "check.h"

#include "analysis/aggregate.h"
#include "analysis/svg.h"

#include <bprint/aggregate.h>
#include <bprint/spans.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum form { TEXT, TEXT_BARS, JSON, CSV, NFORMS };

static char *render(const struct bp_agg *a, enum form form)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f);
	CHECK(form == JSON ? bp_agg_json(a, f) : form == CSV ? bp_agg_csv(a, f) :
	      bp_agg_text(a, f, form == TEXT_BARS));
	CHECK(fclose(f) == 0);
	return buf;
}

static void same_renderings(const struct bp_agg *want, const struct bp_agg *got, const char *what)
{
	for (int f = 0; f < NFORMS; f++) {
		char *w = render(want, (enum form)f), *g = render(got, (enum form)f);

		CHECK_MSG(!strcmp(w, g), "%s, form %d:\n--- want\n%s\n--- got\n%s", what, f, w, g);
		free(w);
		free(g);
	}
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

static const char *const key_names[] = { "cmd", "n" };
static const char *const cmds[] = { "GET", "SET", "DEL", "a-much-longer-command-name" };

/* Record i's key (-k cmd -k n) and value. */
static void record(struct bp_key *k, uint64_t *seed, union bp_dist_value *v, uint64_t *ns,
		   uint64_t i)
{
	uint64_t r = rnd(seed);
	const char *c = cmds[r % 4];
	struct bp_field_value s = { .s = c, .len = strlen(c) };
	struct bp_field_value n = { .v.u = (r >> 8) % 3 };

	bp_key_reset(k);
	CHECK(bp_key_add_field(k, BP_FIELD_STRING, &s));
	CHECK(bp_key_add_field(k, BP_FIELD_UNSIGNED, &n));
	v->u = (r >> 16) % 100000 + (r % 4 == 3 ? 1000000 : 0);
	*ns = i * 1000;
}

/* The reference: the struct, set up and added to as hist did. */
static void ref_init(struct bp_agg *a, struct bp_agg *series, uint64_t every)
{
	char err[64];

	bp_agg_init(a, BP_DIST_UNSIGNED, BP_BUCKETS_LOG2, 0);
	CHECK(bp_quantiles_parse(&a->quantiles, "50,99,99.9", err, sizeof(err)));
	CHECK(bp_agg_sort_parse(&a->sort, "p99"));
	a->limit = 5;
	a->key_names = key_names, a->nkeys = 2;
	a->value_name = "dur_us";
	a->what = "hist of dur_us by cmd, n";
	a->lost = 7;
	if (every) {
		bp_agg_init(series, BP_DIST_UNSIGNED, BP_BUCKETS_LOG2, 0);
		series->quantiles = a->quantiles;
		series->sort.by = BP_ORDER_KEY;
		a->series = series;
		a->every_ns = every;
	}
}

static struct bp_agg *api_new(uint64_t every)
{
	struct bp_agg *a = bp_agg_new(BP_DIST_UNSIGNED, BP_BUCKETS_LOG2, 0);
	struct bp_agg_sort s;
	char err[64];

	CHECK(a);
	CHECK(bp_agg_kind(a) == BP_DIST_UNSIGNED);
	CHECK(bp_agg_set_every(a, every) == 0);
	CHECK(bp_agg_set_percentiles(a, "50,99,99.9", err, sizeof(err)) == 0);
	CHECK(bp_agg_sort_parse(&s, "p99"));
	bp_agg_set_sort(a, &s);
	bp_agg_set_limit(a, 5);
	bp_agg_set_names(a, key_names, 2, "dur_us");
	bp_agg_set_what(a, "hist of dur_us by cmd, n");
	bp_agg_set_lost(a, 7, 0);
	return a;
}

#define BATCH 37	/* not a divisor of anything here */

static void values(uint64_t n, uint64_t every)
{
	struct bp_agg ref, series, *one = api_new(every), *many = api_new(every);
	struct bp_key k = BP_KEY_INIT, w = BP_KEY_INIT, arena[BATCH];
	struct bp_agg_item items[BATCH];
	uint64_t seed = 88172645463325252u;
	size_t nitems = 0;

	memset(arena, 0, sizeof(arena));
	ref_init(&ref, &series, every);
	for (uint64_t i = 0; i < n; i++) {
		union bp_dist_value v;
		uint64_t ns;

		record(&k, &seed, &v, &ns, i);
		CHECK(bp_agg_add_inline(&ref, k.b, k.len, v));
		if (every) {
			CHECK(bp_agg_window_key(&w, every, ns, k.b, k.len));
			CHECK(bp_agg_add_inline(&series, w.b, w.len, v));
		}
		CHECK(bp_agg_add(one, k.b, k.len, v, ns) == 0);
		bp_key_reset(&arena[nitems]);
		CHECK(bp_key_append(&arena[nitems], k.b, k.len));
		items[nitems] = (struct bp_agg_item){ arena[nitems].b, arena[nitems].len, v, ns };
		if (++nitems == BATCH || i + 1 == n) {
			CHECK(bp_agg_add_many(many, items, nitems) == 0);
			nitems = 0;
		}
	}
	bp_agg_finish(&ref);
	bp_agg_finish(one);
	bp_agg_finish(many);
	same_renderings(&ref, one, every ? "bp_agg_add, --every" : "bp_agg_add");
	same_renderings(&ref, many, every ? "bp_agg_add_many, --every" : "bp_agg_add_many");

	/* the groups shown, in order, and their means */
	CHECK(bp_agg_shown(one) == 5 && bp_agg_shown(&ref) == 5);
	for (size_t i = 0; i < 6; i++) {
		const unsigned char *key;
		size_t len;
		long double mean;

		if (i == 5) {
			CHECK(!bp_agg_group(one, i, &key, &len));
			break;
		}
		CHECK(bp_agg_group(one, i, &key, &len));
		CHECK(len == ref.sorted[i]->keylen && !memcmp(key, ref.sorted[i]->key, len));
		CHECK(bp_agg_group_mean(one, key, len, &mean) ==
		      ((struct bp_dist *)ref.sorted[i]->data)->count);
		CHECK(mean == bp_dist_mean(ref.sorted[i]->data));
	}
	{
		long double mean = 1;

		CHECK(bp_agg_group_mean(one, (const unsigned char *)"x", 1, &mean) == 0 && mean == 0);
	}
	if (every)
		bp_agg_fini(&series);
	bp_agg_fini(&ref);
	bp_agg_free(one);
	bp_agg_free(many);
	bp_key_free(&k);
	bp_key_free(&w);
	for (size_t i = 0; i < BATCH; i++)
		bp_key_free(&arena[i]);
}

/* Requests of 5 keys, opened and closed out of order, paired FIFO. */
static void spans(void)
{
	static const char *const top_names[] = { "req" };
	struct bp_spans ref_spans, *api_spans = bp_spans_new(BP_PAIR_FIFO);
	struct bp_agg ref, series, *api = bp_agg_new(BP_DIST_UNSIGNED, BP_BUCKETS_LOG2, 0);
	struct bp_key k = BP_KEY_INIT, by = BP_KEY_INIT, w = BP_KEY_INIT;
	uint64_t seed = 1234567, closed = 0;

	CHECK(api_spans && api);
	bp_spans_init(&ref_spans);
	ref_spans.pair = BP_PAIR_FIFO;
	bp_agg_init(&ref, BP_DIST_UNSIGNED, BP_BUCKETS_LOG2, 0);
	bp_agg_init(&series, BP_DIST_UNSIGNED, BP_BUCKETS_LOG2, 0);
	series.sort.by = BP_ORDER_KEY;
	ref.series = &series, ref.every_ns = 50000;
	bp_top_init(&ref.top, 4);
	ref.spans = ref.time_ns = true;
	ref.value_name = "latency";
	ref.key_names = key_names, ref.nkeys = 1;
	ref.top_key_names = top_names, ref.ntop_keys = 1;
	CHECK(bp_agg_set_every(api, 50000) == 0);
	CHECK(bp_agg_set_spans(api, 4, top_names, 1) == 0);
	bp_agg_set_names(api, key_names, 1, "latency");

	for (uint64_t i = 0; i < 4000; i++) {
		uint64_t r = rnd(&seed);
		struct bp_span_end end = { i * 1000 + r % 900, (int32_t)(r % 5) + 100, (uint32_t)(r & 1), 0 };
		struct bp_field_value cmd = { .s = cmds[r % 3], .len = 3 };

		bp_key_reset(&k);
		CHECK(bp_key_add_uint(&k, r % 5));
		if (r >> 40 & 1) {	/* open, --by cmd */
			bp_key_reset(&by);
			CHECK(bp_key_add_field(&by, BP_FIELD_STRING, &cmd));
			CHECK(bp_spans_open(&ref_spans, k.b, k.len, &end, by.b, by.len));
			CHECK(bp_spans_open(api_spans, k.b, k.len, &end, by.b, by.len));
		} else {
			struct bp_span a, b;
			int ca = bp_spans_close(&ref_spans, k.b, k.len, &end, &a);
			int cb = bp_spans_close(api_spans, k.b, k.len, &end, &b);

			CHECK(ca == cb && ca >= 0);
			if (ca != 1)
				continue;
			CHECK(a.from.ns == b.from.ns && a.to.ns == b.to.ns && a.bylen == b.bylen &&
			      !memcmp(a.by, b.by, a.bylen));
			/* as latency added a span before the API */
			{
				union bp_dist_value d = { .u = a.to.ns >= a.from.ns ? a.to.ns - a.from.ns : 0 };

				CHECK(bp_agg_add_inline(&ref, a.by, a.bylen, d));
				CHECK(bp_agg_window_key(&w, 50000, a.to.ns, a.by, a.bylen));
				CHECK(bp_agg_add_inline(&series, w.b, w.len, d));
				CHECK(bp_top_offer(&ref.top, &a));
			}
			CHECK(bp_agg_add_span(api, &b) == 0);
			closed++;
		}
	}
	CHECK(closed > 100);
	CHECK(bp_spans_unmatched_closes(api_spans) == ref_spans.unmatched_closes);
	CHECK(bp_spans_unmatched_closes(api_spans) > 0);
	CHECK(bp_spans_count_open(api_spans, 0) == bp_spans_count_open(&ref_spans, 0));
	ref.unmatched_opens = bp_spans_count_open(&ref_spans, 0);
	ref.unmatched_closes = ref_spans.unmatched_closes;
	bp_agg_set_unmatched(api, bp_spans_count_open(api_spans, 0),
			     bp_spans_unmatched_closes(api_spans));
	bp_agg_finish(&ref);
	bp_agg_finish(api);
	same_renderings(&ref, api, "spans");

	/* the stacked bars: two "parts", the api aggregate twice, against
	 * bp_svg_stacked() fed by hand */
	{
		static const char *const parts_names[] = { "one", "two" };
		const struct bp_agg *parts[2] = { api, api };
		struct bp_svg_bar bars[BP_SVG_MAX_SERIES];
		char names[BP_SVG_MAX_SERIES][128];
		size_t n = bp_agg_shown(&ref) < BP_SVG_MAX_SERIES ? bp_agg_shown(&ref) : BP_SVG_MAX_SERIES;
		char *want = NULL, *got = NULL;
		size_t wl = 0, gl = 0;
		FILE *wf = open_memstream(&want, &wl), *gf = open_memstream(&got, &gl);

		for (size_t i = 0; i < n; i++) {
			FILE *m = fmemopen(names[i], sizeof(names[i]), "w");

			bp_agg_key_text(&ref, ref.sorted[i]->key, ref.sorted[i]->keylen, m);
			fclose(m);
			bars[i] = (struct bp_svg_bar){ .name = names[i] };
			bars[i].part[0] = bars[i].part[1] = bp_dist_mean(ref.sorted[i]->data);
		}
		CHECK(n >= 3);
		CHECK(bp_svg_stacked(wf, "t", "mean", true, parts_names, 2, bars, n));
		CHECK(bp_agg_svg_parts(api, parts, parts_names, 2, gf, "t", "mean"));
		fclose(wf);
		fclose(gf);
		CHECK_MSG(wl == gl && !memcmp(want, got, wl), "svg parts differ:\n%s\n---\n%s", want, got);
		free(want);
		free(got);
	}
	bp_spans_fini(&ref_spans);
	bp_spans_free(api_spans);
	bp_agg_fini(&series);
	bp_agg_fini(&ref);
	bp_agg_free(api);
	bp_key_free(&k);
	bp_key_free(&by);
	bp_key_free(&w);
}

static void small_calls(void)
{
	struct bp_sched *s = bp_sched_new();
	struct bp_sched_split full = BP_SCHED_SPLIT_INIT, part;
	char err[128], buf[32];

	/* --percentiles: checked without an aggregate */
	CHECK(bp_agg_set_percentiles(NULL, "50,99.99", err, sizeof(err)) == 0);
	CHECK(bp_agg_set_percentiles(NULL, "50,101", err, sizeof(err)) == -1 && strstr(err, "101"));
	CHECK(bp_agg_set_percentiles(NULL, "99.9,999", err, sizeof(err)) == -1);

	/* a split with no scheduler event: all unknown; a caller's smaller
	 * struct is written only as far as its size */
	CHECK(s && !bp_sched_seen(s));
	bp_sched_split(s, 42, 1000, 4000, &full);
	CHECK(full.size == sizeof(full) && full.unknown == 3000 && full.running == 0);
	memset(&part, 0xAB, sizeof(part));
	part.size = (uint32_t)offsetof(struct bp_sched_split, unknown);
	bp_sched_split(s, 42, 1000, 4000, &part);
	CHECK(part.size == offsetof(struct bp_sched_split, unknown) && part.blocked == 0);
	CHECK(part.unknown == 0xABABABABABABABABu);
	CHECK(!strcmp(bp_sched_comm(s, 42), "<...>"));
	CHECK(bp_sched_tid(BP_SCHED_IDLE) == 0 && bp_sched_tid(7) == 7);
	bp_sched_free(s);

	bp_agg_seconds(buf, sizeof(buf), 1500000001, false);
	CHECK(!strcmp(buf, "1.500000"));
	bp_agg_seconds(buf, sizeof(buf), 1500000001, true);
	CHECK(!strcmp(buf, "1.500000001"));
	bp_agg_free(NULL);
	bp_spans_free(NULL);
}

int main(void)
{
	values(20000, 0);
	values(20000, 3000000);
	values(3000000, 0);	/* past the exact budget: sketched alike */
	spans();
	small_calls();
	puts("agg_api_test: ok");
	return 0;
}
