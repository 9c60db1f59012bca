/*
 * A program of its own on the shared reading library and the public
 * headers alone (bprint/aggregate.h, spans.h): every call it makes must
 * be exported, and the answer is known.  100 values 0..99 and two of
 * 1000 of key cmd=GET, and a span of 250 ns under the same key: 103
 * values summing to 7200; the text rendering says so.
 */
#define _POSIX_C_SOURCE 200809L	/* open_memstream */

#include <bprint/aggregate.h>
#include <bprint/spans.h>

#include "check.h"

int main(void)
{
	struct bp_agg *a = bp_agg_new(BP_DIST_UNSIGNED, BP_BUCKETS_LOG2, 0);
	struct bp_spans *s = bp_spans_new(BP_PAIR_FIFO);
	struct bp_key k = BP_KEY_INIT;
	struct bp_span sp;
	struct bp_span_end from = { 100, 1, 1, 0 }, to = { 350, 1, 2, 0 };
	struct bp_field_value get = { .s = "GET", .len = 3 };
	static const char *const names[] = { "cmd" };
	struct bp_agg_item items[2];
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	CHECK(a && s && out);
	CHECK(bp_key_add_field(&k, BP_FIELD_STRING, &get));
	bp_agg_set_names(a, names, 1, "dur");
	for (uint64_t i = 0; i < 100; i++)
		CHECK(bp_agg_add(a, k.b, k.len, (union bp_dist_value){ .u = i }, i) == 0);
	items[0] = (struct bp_agg_item){ k.b, k.len, { .u = 1000 }, 0 };
	items[1] = items[0];
	CHECK(bp_agg_add_many(a, items, 2) == 0);
	CHECK(bp_spans_open(s, k.b, k.len, &from, k.b, k.len));
	CHECK(bp_spans_close(s, k.b, k.len, &to, &sp) == 1);
	CHECK(bp_agg_add_span(a, &sp) == 0);
	bp_agg_finish(a);
	CHECK(bp_agg_text(a, out, false));
	CHECK(fclose(out) == 0);
	CHECK_MSG(strstr(text, "# values: 103 records in 1 group") &&
		  strstr(text, "cmd=GET: count 103  min 0") && strstr(text, "max 1000  sum 7200"),
		  "%s", text);
	free(text);
	bp_agg_free(a);
	bp_spans_free(s);
	bp_key_free(&k);
	puts("agg_api_shared: ok");
	return 0;
}
