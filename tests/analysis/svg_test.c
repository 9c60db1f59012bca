/*
 * Plots as SVG (analysis/svg.h): writes the plots of known distributions
 * into DIR (argv[1]) for check_svg.py, which parses them with an XML
 * parser and counts their bars, series and labels, the scale of the
 * histogram's y axis, the percentile lines and their marks.  The expected
 * figures go into DIR/expect.txt, one line a file:
 *   NAME BARS SERIES LEGEND-ENTRIES LOG-Y PERCENTILE-LINES [MARK=VALUE...]
 */
#include "check.h"

#include "analysis/aggregate.h"

#include <string.h>

static FILE *expect;

static void plot(const char *dir, const char *name, struct bp_agg *a, size_t bars, size_t series,
		 bool logy, const char *marks)
{
	char path[4096];
	FILE *out;

	snprintf(path, sizeof(path), "%s/%s.svg", dir, name);
	CHECK(out = fopen(path, "w"));
	bp_agg_finish(a);
	CHECK(bp_agg_svg(a, out, "a <test> & \"plot\""));
	CHECK(fclose(out) == 0);
	fprintf(expect, "%s %zu %zu %zu %d %zu %s\n", name, bars, series, series > 1 ? series : 0,
		logy, series, marks);
}

static void add(struct bp_agg *a, const char *key, uint64_t v)
{
	struct bp_key k = { 0 };
	struct bp_field_value f = { .s = key, .len = strlen(key) };

	CHECK(bp_key_add_field(&k, BP_FIELD_STRING, &f));
	CHECK(bp_agg_add_inline(a, k.b, k.len, (union bp_dist_value){ .u = v }));
	bp_key_free(&k);
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "cmd" };
	char path[4096];
	struct bp_agg a;

	CHECK(argc == 2);
	snprintf(path, sizeof(path), "%s/expect.txt", argv[1]);
	CHECK(expect = fopen(path, "w"));

	/* one group, log2: values 1..1000 fill the buckets [1,2) .. [512,1024): 10 bars
	 * of 1 to 489, a log y axis; the curve reaches p99.9 (1 - 1/1000) */
	bp_agg_init(&a, BP_DIST_UNSIGNED, BP_BUCKETS_LOG2, 0);
	a.key_names = names, a.nkeys = 1, a.value_name = "dur_us";
	for (uint64_t v = 1; v <= 1000; v++)
		add(&a, "GET", v);
	plot(argv[1], "one", &a, 10, 1, true, "p50=500 p99=990 p99.9=999");
	bp_agg_fini(&a);

	/* three groups, durations: step outlines and a legend, no bars; the
	 * first drawn (equal counts: by key) is DEL, 2000, 5000, ... 2999000 ns */
	bp_agg_init(&a, BP_DIST_UNSIGNED, BP_BUCKETS_LOG2, 0);
	a.key_names = names, a.nkeys = 1, a.value_name = "latency", a.time_ns = true;
	for (uint64_t v = 1; v <= 3000; v++)
		add(&a, v % 3 == 0 ? "GET" : v % 3 == 1 ? "SET <x>" : "DEL", v * 1000);
	plot(argv[1], "three", &a, 0, 3, true, "p50=1499000ns p99=2969000ns");
	bp_agg_fini(&a);

	/* one group, linear buckets of 10 over 0..99: 10 bars of 10, a linear y */
	bp_agg_init(&a, BP_DIST_UNSIGNED, BP_BUCKETS_LINEAR, 10);
	a.key_names = names, a.nkeys = 1, a.value_name = "x";
	for (uint64_t v = 0; v < 100; v++)
		add(&a, "all", v);
	plot(argv[1], "linear", &a, 10, 1, false, "p50=49 p99=98");
	bp_agg_fini(&a);

	/* values 50000 .. 250000 on a linear axis: labels 50k .. 250k, not 50000
	 * beside 250k; buckets of 500, 500, 500, 500 and 1: a log y axis */
	bp_agg_init(&a, BP_DIST_UNSIGNED, BP_BUCKETS_LINEAR, 50000);
	a.key_names = names, a.nkeys = 1, a.value_name = "bytes";
	for (uint64_t v = 50000; v <= 250000; v += 100)
		add(&a, "all", v);
	plot(argv[1], "wide", &a, 5, 1, true, "p50=150000 p99=248000");
	bp_agg_fini(&a);

	CHECK(fclose(expect) == 0);
	return check_summary("svg_test");
}
