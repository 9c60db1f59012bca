/*
 * The renderings of an aggregate (analysis/aggregate.h): text with bars,
 * JSON and CSV (the SVG's is plot.c).
 *
 * Every rendering says how many records the file lacks: an aggregate must
 * never hide a loss.  Integer values stay integers in every output (a
 * sketched percentile of integers is rounded to one); durations read as
 * 1.23ms in text and as exact nanoseconds in JSON and CSV.
 */
#include "analysis/aggregate.h"

#include "output/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- numbers as text ---------------------------------------------------- */

static void i128_text(char *buf, size_t size, __int128 v)
{
	char tmp[48];
	size_t n = sizeof(tmp);
	unsigned __int128 m = v < 0 ? (unsigned __int128)0 - (unsigned __int128)v :
				      (unsigned __int128)v;

	tmp[--n] = '\0';
	do {
		tmp[--n] = (char)('0' + (int)(m % 10));
		m /= 10;
	} while (m);
	if (v < 0)
		tmp[--n] = '-';
	snprintf(buf, size, "%s", tmp + n);
}

/* A duration in ns, readable: 950ns, 1.23us, 45.6ms, 2.5s. */
static void duration_text(char *buf, size_t size, long double ns)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	size_t k = 0;

	while (k < 3 && fabsl(ns) >= 1000)
		ns /= 1000, k++;
	snprintf(buf, size, k ? "%.3Lg%s" : "%.0Lf%s", ns, unit[k]);
}

/* A value of the distribution's kind (min, max, a quantile, the mean). */
static void value_text(const struct bp_agg *a, char *buf, size_t size, long double v, bool exact)
{
	if (a->time_ns)
		duration_text(buf, size, v);
	else if (a->kind == BP_DIST_FLOAT || !exact)
		snprintf(buf, size, "%.6Lg", v);
	else
		snprintf(buf, size, "%.0Lf", roundl(v));
}

static void sum_text(const struct bp_agg *a, const struct bp_dist *d, char *buf, size_t size)
{
	if (a->time_ns)
		duration_text(buf, size, (long double)d->isum);
	else if (a->kind == BP_DIST_FLOAT)
		snprintf(buf, size, "%.6Lg", d->sum);
	else
		i128_text(buf, size, d->isum);
}

/* JSON and CSV: integers exact, doubles as JSON numbers. */
static void value_json(const struct bp_agg *a, FILE *out, long double v)
{
	if (a->kind == BP_DIST_FLOAT) {
		bp_json_double(out, (double)v);
	} else {
		char buf[64];

		snprintf(buf, sizeof(buf), "%.0Lf", roundl(v));
		fputs(buf, out);
	}
}

static void sum_json(const struct bp_agg *a, const struct bp_dist *d, FILE *out)
{
	char buf[64];

	if (a->kind == BP_DIST_FLOAT) {
		bp_json_double(out, (double)d->sum);
		return;
	}
	i128_text(buf, sizeof(buf), d->isum);
	fputs(buf, out);
}

/* ---- text --------------------------------------------------------------- */

void bp_agg_key_text(const struct bp_agg *a, const unsigned char *key, size_t len, FILE *out)
{
	char item[256];

	if (!a->nkeys) {
		fputs("all", out);
		return;
	}
	for (size_t i = 0; i < a->nkeys; i++) {
		bp_key_item_text(key, len, i, item, sizeof(item));
		fprintf(out, "%s%s=%s", i ? " " : "", a->key_names[i], item);
	}
}

static void key_text(const struct bp_agg *a, const struct bp_group *g, FILE *out)
{
	bp_agg_key_text(a, g->key, g->keylen, out);
}

/* ---- --every's windows -------------------------------------------------- */

#define WINDOW_ITEM 9	/* a series key's first item: 'u', the window's index */

uint64_t bp_agg_window_of(const struct bp_group *g, const unsigned char **key, size_t *len)
{
	uint64_t w = 0;

	if (g->keylen >= WINDOW_ITEM)
		memcpy(&w, g->key + 1, 8);
	*key = g->key + (g->keylen >= WINDOW_ITEM ? WINDOW_ITEM : g->keylen);
	*len = g->keylen - (size_t)(*key - g->key);
	return w;
}

/* What a group's percentiles are, as text says it. */
static const char *exactness(const struct bp_dist *d)
{
	return d->sketch ? "  [percentiles within 1%]" : "  [exact]";	/* BP_DIST_ALPHA < 1 % */
}

static double rate_of(const struct bp_agg *a, const struct bp_dist *d)
{
	return (double)d->count * 1e9 / (double)a->every_ns;
}

static void window_text(const struct bp_agg *a, const struct bp_group *g, FILE *out)
{
	const struct bp_agg *s = a->series;
	struct bp_dist *d = g->data;
	const unsigned char *key;
	size_t len;
	uint64_t w = bp_agg_window_of(g, &key, &len);
	char buf[64];

	bp_agg_seconds(buf, sizeof(buf), w * a->every_ns, false);
	fprintf(out, "%18s  ", buf);
	bp_agg_key_text(a, key, len, out);
	fprintf(out, "  count %llu  rate %.6g/s", (unsigned long long)d->count, rate_of(a, d));
	if (!a->counts_only && d->count > d->nan) {
		for (size_t q = 0; q < s->quantiles.n; q++) {
			value_text(a, buf, sizeof(buf), bp_dist_quantile(d, s->quantiles.v[q].q), true);
			fprintf(out, "  %s %s", s->quantiles.v[q].text, buf);
		}
		value_text(a, buf, sizeof(buf), bp_dist_ld(d->kind, d->max), true);
		fprintf(out, "  max %s%s", buf, exactness(d));
	}
	fputc('\n', out);
}

/* The windows (or the last one only), after the groups. */
static void series_text(const struct bp_agg *a, FILE *out)
{
	const struct bp_agg *s = a->series;
	const unsigned char *key;
	size_t len, first = 0;
	char every[32];

	if (!s || !s->sorted || !s->groups.n)
		return;
	duration_text(every, sizeof(every), (long double)a->every_ns);
	if (a->series_last) {
		uint64_t last = bp_agg_window_of(s->sorted[s->groups.n - 1], &key, &len);

		for (first = s->groups.n; first; first--)
			if (bp_agg_window_of(s->sorted[first - 1], &key, &len) != last)
				break;
		fprintf(out, "\n# the last %s window (so far), beside the totals above\n", every);
	} else {
		fprintf(out, "\n# per %s window, by its start (seconds, as 'bprint report' prints "
			     "them)%s\n", every, a->spans ? "; a span is in the window it ends in" : "");
	}
	for (size_t i = first; i < s->groups.n; i++)
		window_text(a, s->sorted[i], out);
}

struct bars {
	const struct bp_agg *a;
	FILE *out;
	uint64_t max;
	bool measure;
};

static void bucket_label(const struct bp_agg *a, char *buf, size_t size, const struct bp_bucket *b)
{
	char lo[32], hi[32];

	value_text(a, lo, sizeof(lo), b->lo, a->pool.buckets == BP_BUCKETS_LOG2 || rintl(b->lo) == b->lo);
	value_text(a, hi, sizeof(hi), b->hi, a->pool.buckets == BP_BUCKETS_LOG2 || rintl(b->hi) == b->hi);
	if (b->lo < 0 && a->pool.buckets == BP_BUCKETS_LOG2)
		snprintf(buf, size, "(%s, %s]", lo, hi);
	else
		snprintf(buf, size, "[%s, %s)", lo, hi);
}

static void bar_line(void *arg, const struct bp_bucket *b)
{
	struct bars *x = arg;
	char label[80];
	int len;

	if (x->measure) {
		if (b->count > x->max)
			x->max = b->count;
		return;
	}
	bucket_label(x->a, label, sizeof(label), b);
	len = x->max ? (int)((b->count * 40 + x->max - 1) / x->max) : 0;
	fprintf(x->out, "  %24s %12llu |%.*s%*s|\n", label, (unsigned long long)b->count, len,
		"########################################", 40 - len, "");
}

static void group_text(const struct bp_agg *a, const struct bp_group *g, FILE *out, bool bars)
{
	struct bp_dist *d = g->data;
	char buf[64];

	key_text(a, g, out);
	fprintf(out, ": count %llu", (unsigned long long)d->count);
	if (a->counts_only || d->count == d->nan) {
		fputc('\n', out);
		return;
	}
	value_text(a, buf, sizeof(buf), bp_dist_ld(d->kind, d->min), true);
	fprintf(out, "  min %s", buf);
	value_text(a, buf, sizeof(buf), bp_dist_mean(d), false);
	fprintf(out, "  mean %s", buf);
	for (size_t q = 0; q < a->quantiles.n; q++) {
		/* a sketched percentile of integers rounded, as in JSON and CSV */
		value_text(a, buf, sizeof(buf), bp_dist_quantile(d, a->quantiles.v[q].q), true);
		fprintf(out, "  %s %s", a->quantiles.v[q].text, buf);
	}
	value_text(a, buf, sizeof(buf), bp_dist_ld(d->kind, d->max), true);
	fprintf(out, "  max %s", buf);
	sum_text(a, d, buf, sizeof(buf));
	fprintf(out, "  sum %s", buf);
	if (d->nan)
		fprintf(out, "  (%llu NaN)", (unsigned long long)d->nan);
	fputs(exactness(d), out);
	fputc('\n', out);
	if (bars) {
		struct bars x = { .a = a, .out = out, .measure = true };

		bp_dist_buckets(&a->pool, d, bar_line, &x);
		x.measure = false;
		bp_dist_buckets(&a->pool, d, bar_line, &x);
		if (d->h_overflow)
			fprintf(out, "  (more than %u buckets: some values are not in the bars)\n",
				BP_DIST_MAX_BUCKETS);
	}
}

static void top_text(const struct bp_agg *a, FILE *out)
{
	if (!a->top.n)
		return;
	fprintf(out, "\n# the %zu longest span%s (from and to as 'bprint report' prints them)\n",
		a->top.n, a->top.n == 1 ? "" : "s");
	for (size_t i = 0; i < a->top.n; i++) {
		const struct bp_top_entry *e = &a->top.v[i];
		char d[32], from[32], to[32], item[256];

		duration_text(d, sizeof(d), (long double)(e->to.ns - e->from.ns));
		bp_agg_seconds(from, sizeof(from), e->from.ns, false);
		bp_agg_seconds(to, sizeof(to), e->to.ns, false);
		fprintf(out, "%10s  tid %d", d, e->from.tid);
		if (e->to.tid != e->from.tid)
			fprintf(out, "->%d", e->to.tid);
		fprintf(out, "  %s -> %s", from, to);
		for (size_t k = 0; k < a->ntop_keys; k++) {
			bp_key_item_text(e->key, e->keylen, k, item, sizeof(item));
			fprintf(out, "  %s=%s", a->top_key_names[k], item);
		}
		for (size_t k = 0; k < a->nkeys; k++) {	/* the --by value */
			bp_key_item_text(e->key + e->keylen, e->bylen, k, item, sizeof(item));
			fprintf(out, "  %s=%s", a->key_names[k], item);
		}
		fputc('\n', out);
	}
}

bool bp_agg_text(const struct bp_agg *a, FILE *out, bool bars)
{
	const char *unit = a->spans ? "span" : "record";

	uint64_t lost = a->lost - (a->not_yet < a->lost ? a->not_yet : a->lost);

	fprintf(out, "# %s: %llu %s%s in %zu group%s, %llu record%s lost", a->what,
		(unsigned long long)a->records, unit, a->records == 1 ? "" : "s", a->groups.n,
		a->groups.n == 1 ? "" : "s", (unsigned long long)lost, lost == 1 ? "" : "s");
	if (a->not_yet)
		fprintf(out, ", %llu not copied yet", (unsigned long long)a->not_yet);
	fputc('\n', out);
	if (a->spans)
		fprintf(out, "# unmatched: %llu opened and never closed, %llu closed without an open\n",
			(unsigned long long)a->unmatched_opens, (unsigned long long)a->unmatched_closes);
	for (size_t i = 0; i < bp_agg_shown(a) && a->sorted; i++) {
		if (i && bars && !a->counts_only)
			fputc('\n', out);
		group_text(a, a->sorted[i], out, bars && !a->counts_only);
	}
	if (bp_agg_shown(a) < a->groups.n)
		fprintf(out, "# and %zu more group%s (--limit %zu)\n", a->groups.n - bp_agg_shown(a),
			a->groups.n - bp_agg_shown(a) == 1 ? "" : "s", a->limit);
	series_text(a, out);
	top_text(a, out);
	return !ferror(out);
}

/* ---- JSON --------------------------------------------------------------- */

static void key_json(const char *const *names, size_t n, const unsigned char *key, size_t len,
		     FILE *out)
{
	fputc('{', out);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? "," : "", out);
		bp_json_cstr(out, names[i]);
		fputc(':', out);
		bp_key_item_json(key, len, i, out);
	}
	fputc('}', out);
}

struct json_buckets {
	const struct bp_agg *a;
	FILE *out;
	bool first;
};

static void bucket_json(void *arg, const struct bp_bucket *b)
{
	struct json_buckets *x = arg;

	fputs(x->first ? "[" : ",[", x->out);
	bp_json_double(x->out, (double)b->lo);
	fputc(',', x->out);
	bp_json_double(x->out, (double)b->hi);
	fprintf(x->out, ",%llu]", (unsigned long long)b->count);
	x->first = false;
}

static void group_json(const struct bp_agg *a, const struct bp_group *g, FILE *out)
{
	struct bp_dist *d = g->data;
	struct json_buckets jb = { .a = a, .out = out, .first = true };

	fputs("{\"key\":", out);
	key_json(a->key_names, a->nkeys, g->key, g->keylen, out);
	fprintf(out, ",\"count\":%llu", (unsigned long long)d->count);
	if (a->counts_only || d->count == d->nan) {
		fputc('}', out);
		return;
	}
	fputs(",\"min\":", out);
	value_json(a, out, bp_dist_ld(d->kind, d->min));
	fputs(",\"mean\":", out);
	bp_json_double(out, (double)bp_dist_mean(d));
	for (size_t q = 0; q < a->quantiles.n; q++) {
		fprintf(out, ",\"%s\":", a->quantiles.v[q].json);
		value_json(a, out, bp_dist_quantile(d, a->quantiles.v[q].q));
	}
	fputs(",\"max\":", out);
	value_json(a, out, bp_dist_ld(d->kind, d->max));
	fputs(",\"sum\":", out);
	sum_json(a, d, out);
	fprintf(out, ",\"exact\":%s", d->sketch ? "false" : "true");
	fputs(",\"buckets\":[", out);
	bp_dist_buckets(&a->pool, d, bucket_json, &jb);
	fputs("]}", out);
}

static void top_json(const struct bp_agg *a, FILE *out)
{
	fputs(",\"top\":[", out);
	for (size_t i = 0; i < a->top.n; i++) {
		const struct bp_top_entry *e = &a->top.v[i];
		char from[32], to[32];

		bp_agg_seconds(from, sizeof(from), e->from.ns, true);
		bp_agg_seconds(to, sizeof(to), e->to.ns, true);
		fprintf(out, "%s{\"ns\":%llu,\"tid\":%d,\"to_tid\":%d,\"from\":%s,\"to\":%s,\"key\":",
			i ? "," : "", (unsigned long long)(e->to.ns - e->from.ns), e->from.tid,
			e->to.tid, from, to);
		key_json(a->top_key_names, a->ntop_keys, e->key, e->keylen, out);
		if (a->nkeys) {
			fputs(",\"by\":", out);
			key_json(a->key_names, a->nkeys, e->key + e->keylen, e->bylen, out);
		}
		fputc('}', out);
	}
	fputc(']', out);
}

static void series_json(const struct bp_agg *a, FILE *out)
{
	const struct bp_agg *s = a->series;

	fprintf(out, ",\"every_ns\":%llu,\"windows\":[", (unsigned long long)a->every_ns);
	for (size_t i = 0; i < s->groups.n && s->sorted; i++) {
		struct bp_dist *d = s->sorted[i]->data;
		const unsigned char *key;
		size_t len;
		char start[32];

		bp_agg_seconds(start, sizeof(start), bp_agg_window_of(s->sorted[i], &key, &len) * a->every_ns,
			       true);
		fprintf(out, "%s{\"start\":%s,\"key\":", i ? "," : "", start);
		key_json(a->key_names, a->nkeys, key, len, out);
		fprintf(out, ",\"count\":%llu,\"rate\":", (unsigned long long)d->count);
		bp_json_double(out, rate_of(a, d));
		if (!a->counts_only && d->count > d->nan) {
			for (size_t q = 0; q < s->quantiles.n; q++) {
				fprintf(out, ",\"%s\":", s->quantiles.v[q].json);
				value_json(a, out, bp_dist_quantile(d, s->quantiles.v[q].q));
			}
			fputs(",\"max\":", out);
			value_json(a, out, bp_dist_ld(d->kind, d->max));
			fprintf(out, ",\"exact\":%s", d->sketch ? "false" : "true");
		}
		fputc('}', out);
	}
	fputc(']', out);
}

bool bp_agg_json(const struct bp_agg *a, FILE *out)
{
	uint64_t not_yet = a->not_yet < a->lost ? a->not_yet : a->lost;

	fputs("{\"groups\":[", out);
	for (size_t i = 0; i < bp_agg_shown(a) && a->sorted; i++) {
		fputs(i ? "," : "", out);
		group_json(a, a->sorted[i], out);
	}
	fputc(']', out);
	if (bp_agg_shown(a) < a->groups.n)
		fprintf(out, ",\"omitted\":%zu", a->groups.n - bp_agg_shown(a));
	if (a->spans) {
		fprintf(out, ",\"unmatched\":{\"opens\":%llu,\"closes\":%llu}",
			(unsigned long long)a->unmatched_opens, (unsigned long long)a->unmatched_closes);
		top_json(a, out);
	}
	if (a->series)
		series_json(a, out);
	if (not_yet)	/* a recorder still at work may copy them yet */
		fprintf(out, ",\"not_copied_yet\":%llu", (unsigned long long)not_yet);
	fprintf(out, ",\"lost\":%llu}\n", (unsigned long long)(a->lost - not_yet));
	return !ferror(out);
}

/* ---- CSV ---------------------------------------------------------------- */

/* A CSV field (RFC 4180): quoted when it holds a comma, quote or newline. */
static void csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_value(const struct bp_agg *a, FILE *out, long double v)
{
	char buf[64];

	if (a->kind == BP_DIST_FLOAT)
		snprintf(buf, sizeof(buf), "%.17Lg", v);
	else
		snprintf(buf, sizeof(buf), "%.0Lf", roundl(v));
	fputs(buf, out);
}

static void group_csv(const struct bp_agg *a, const struct bp_group *g, FILE *out)
{
	struct bp_dist *d = g->data;
	char item[4096];

	for (size_t i = 0; i < a->nkeys; i++) {
		bp_key_item_text(g->key, g->keylen, i, item, sizeof(item));
		csv_field(out, item);
		fputc(',', out);
	}
	fprintf(out, "%llu", (unsigned long long)d->count);
	if (a->counts_only) {
		fputc('\n', out);
		return;
	}
	if (d->count == d->nan) {
		for (size_t i = 0; i < a->quantiles.n + 5; i++)	/* min mean ... max sum exact */
			fputc(',', out);
		fputc('\n', out);
		return;
	}
	fputc(',', out);
	csv_value(a, out, bp_dist_ld(d->kind, d->min));
	fprintf(out, ",%.17Lg", bp_dist_mean(d));
	for (size_t q = 0; q < a->quantiles.n; q++) {
		fputc(',', out);
		csv_value(a, out, bp_dist_quantile(d, a->quantiles.v[q].q));
	}
	fputc(',', out);
	csv_value(a, out, bp_dist_ld(d->kind, d->max));
	fputc(',', out);
	if (a->kind == BP_DIST_FLOAT) {
		fprintf(out, "%.17Lg", d->sum);
	} else {
		i128_text(item, sizeof(item), d->isum);
		fputs(item, out);
	}
	fputs(d->sketch ? ",false\n" : ",true\n", out);
}

/* --every as CSV: a row a window and group. */
static bool series_csv(const struct bp_agg *a, FILE *out)
{
	const struct bp_agg *s = a->series;

	fputs("start", out);
	for (size_t i = 0; i < a->nkeys; i++) {
		fputc(',', out);
		csv_field(out, a->key_names[i]);
	}
	fputs(",count,rate", out);
	for (size_t q = 0; !a->counts_only && q < s->quantiles.n; q++)
		fprintf(out, ",%s", s->quantiles.v[q].json);
	fputs(a->counts_only ? "\n" : ",max,exact\n", out);
	for (size_t i = 0; i < s->groups.n && s->sorted; i++) {
		struct bp_dist *d = s->sorted[i]->data;
		const unsigned char *key;
		size_t len;
		char item[4096];

		bp_agg_seconds(item, sizeof(item), bp_agg_window_of(s->sorted[i], &key, &len) * a->every_ns,
			       true);
		fputs(item, out);
		for (size_t k = 0; k < a->nkeys; k++) {
			bp_key_item_text(key, len, k, item, sizeof(item));
			fputc(',', out);
			csv_field(out, item);
		}
		fprintf(out, ",%llu,%.17g", (unsigned long long)d->count, rate_of(a, d));
		for (size_t q = 0; !a->counts_only && q < s->quantiles.n; q++) {
			fputc(',', out);
			if (d->count > d->nan)
				csv_value(a, out, bp_dist_quantile(d, s->quantiles.v[q].q));
		}
		if (!a->counts_only && d->count > d->nan) {
			fputc(',', out);
			csv_value(a, out, bp_dist_ld(d->kind, d->max));
			fputs(d->sketch ? ",false" : ",true", out);
		} else if (!a->counts_only) {
			fputs(",,", out);
		}
		fputc('\n', out);
	}
	return !ferror(out);
}

bool bp_agg_csv(const struct bp_agg *a, FILE *out)
{
	if (a->series)
		return series_csv(a, out);
	for (size_t i = 0; i < a->nkeys; i++) {
		csv_field(out, a->key_names[i]);
		fputc(',', out);
	}
	fputs("count", out);
	if (!a->counts_only) {
		fputs(",min,mean", out);
		for (size_t q = 0; q < a->quantiles.n; q++)
			fprintf(out, ",%s", a->quantiles.v[q].json);
		fputs(",max,sum,exact", out);
	}
	fputc('\n', out);
	for (size_t i = 0; i < bp_agg_shown(a) && a->sorted; i++)
		group_csv(a, a->sorted[i], out);
	return !ferror(out);
}
