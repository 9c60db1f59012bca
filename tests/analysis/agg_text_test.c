/*
 * The text rendering of hist and latency says what the JSON says
 * (analysis/aggregate.h): the same percentiles, whether a group's values
 * are kept exactly or sketched.  A sketched percentile of an integer field
 * is an integer in every output, so that `p90 1` in JSON does not read
 * `p90 0.9905` in text.  The reference is the JSON rendering of the same
 * aggregate; the integers are known here too.
 */
#include "check.h"

#include "analysis/aggregate.h"

#include <stdint.h>
#include <string.h>

/* The whole of a rendering, from a temporary file. */
enum form { TEXT, JSON, CSV };

static char *render(const struct bp_agg *a, enum form form)
{
	FILE *f = tmpfile();
	char *buf;
	long n;

	CHECK(f);
	CHECK(form == JSON ? bp_agg_json(a, f) : form == CSV ? bp_agg_csv(a, f) : bp_agg_text(a, f, false));
	CHECK((n = ftell(f)) > 0);
	CHECK(buf = calloc(1, (size_t)n + 1));
	rewind(f);
	CHECK(fread(buf, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	return buf;
}

/* The token after "NAME" in text ("  p50 X") or JSON ("\"p50\":X"). */
static void value_of(const char *doc, const char *pattern, char *out, size_t size)
{
	const char *p = strstr(doc, pattern);
	size_t n;

	CHECK_MSG(p, "no '%s' in:\n%s", pattern, doc);
	p += strlen(pattern);
	n = strcspn(p, " ,}\n");
	CHECK(n > 0 && n < size);
	memcpy(out, p, n);
	out[n] = '\0';
}

static void same_quantiles(bool sketch, const char *want[4])
{
	static const char *const text_names[] = { "  p50 ", "  p90 ", "  p99 ", "  p99.9 " };
	static const char *const json_names[] = { "\"p50\":", "\"p90\":", "\"p99\":",
						  "\"p999\":" };
	static const unsigned char no_key[1];	/* no -k: one group, an empty key */
	struct bp_agg a;
	char *text, *json, *csv;

	bp_agg_init(&a, BP_DIST_UNSIGNED, BP_BUCKETS_LOG2, 0);
	a.what = "hist of dur_us";
	a.value_name = "dur_us";
	if (sketch)
		a.pool.exact_left = 0;	/* the budget spent: the group is sketched */
	/* 400 values 0, 550 values 1, 49 values 2 and a 3: p50 and p90 are 1,
	 * p99 and p99.9 are 2 (the sketch's estimates of 1 and 2 are not
	 * integers; min 0 and max 3 do not clamp them) */
	for (int i = 0; i < 1000; i++) {
		uint64_t v = i < 400 ? 0 : i < 950 ? 1 : i < 999 ? 2 : 3;

		CHECK(bp_agg_add_inline(&a, no_key, 0, (union bp_dist_value){ .u = v }));
	}
	bp_agg_finish(&a);
	CHECK(a.groups.n == 1);
	CHECK(((struct bp_dist *)a.sorted[0]->data)->sketch == sketch);
	text = render(&a, TEXT);
	json = render(&a, JSON);
	csv = render(&a, CSV);
	CHECK_MSG(strstr(text, sketch ? "  [percentiles within 1%]\n" : "  [exact]\n"), "%s", text);
	CHECK_MSG(strstr(json, sketch ? "\"exact\":false" : "\"exact\":true"), "%s", json);
	CHECK_MSG(strstr(csv, ",max,sum,exact\n") && strstr(csv, sketch ? ",false\n" : ",true\n"), "%s", csv);
	for (int q = 0; q < 4; q++) {
		char t[64], j[64];

		value_of(text, text_names[q], t, sizeof(t));
		value_of(json, json_names[q], j, sizeof(j));
		CHECK_MSG(!strcmp(t, j), "%s: text%s%s, JSON %s%s (sketched: %d)", json_names[q],
			  text_names[q], t, json_names[q], j, sketch);
		CHECK_STREQ(j, want[q]);
	}
	free(text);
	free(json);
	free(csv);
	bp_agg_fini(&a);
}

/* No group at all (hist or latency where nothing matched): finished and
 * rendered without copying from a NULL list (UBSan's nonnull check). */
static void no_group(void)
{
	struct bp_agg a;
	char *text;

	bp_agg_init(&a, BP_DIST_UNSIGNED, BP_BUCKETS_LOG2, 0);
	a.what = "hist of dur_us";
	a.value_name = "dur_us";
	bp_agg_finish(&a);
	CHECK(a.groups.n == 0);
	text = render(&a, false);
	CHECK(text != NULL);
	free(text);
	bp_agg_fini(&a);
}

int main(void)
{
	static const char *want[4] = { "1", "1", "2", "2" };

	same_quantiles(false, want);
	same_quantiles(true, want);
	no_group();
	return check_summary("agg_text_test");
}
