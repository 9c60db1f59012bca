/*
 * Keys, groups and spans (analysis/groups.h, analysis/spans.h) against
 * simple references: a table that inserts and removes random keys must
 * find exactly what a linear list finds; random opens and closes over a
 * few keys must pair as one list per key pairs them under each rule (the
 * newest, the oldest, all of them), count the unmatched exactly (asked
 * whether a key is open before a close, or another key), and keep the N
 * longest spans that sorting all of them gives.  Built again with 40 keys
 * and room for 2 idle ones (spans_test_idle): keys forgotten and made
 * again, the groups never more than the keys open and the idle room.
 * And the idle room shrinks while keys never come back, and grows again
 * when they do.
 */
#define CHECK_KEEP_GOING 20
#include "check.h"

#include "analysis/spans.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

/* A key of a random shape: a number, a negative number, a string. */
static void make_key(struct bp_key *k, unsigned id)
{
	struct bp_field_value v = { 0 };
	char s[16];

	bp_key_reset(k);
	v.v.u = id % 7;
	CHECK(bp_key_add_field(k, BP_FIELD_UNSIGNED, &v));
	snprintf(s, sizeof(s), "k%u", id);
	v.s = s, v.len = strlen(s);
	CHECK(bp_key_add_field(k, BP_FIELD_STRING, &v));
	v.v.i = -(int64_t)id;
	CHECK(bp_key_add_field(k, BP_FIELD_SIGNED, &v));
}

static void test_groups(void)
{
	enum { N = 3000 };
	static bool in[N];
	struct bp_groups g;
	struct bp_key k = { 0 };
	size_t count = 0;

	bp_groups_init(&g, sizeof(unsigned));
	for (int step = 0; step < 200000; step++) {
		unsigned id = (unsigned)(next() % N);
		struct bp_group *gr;

		make_key(&k, id);
		gr = bp_groups_find(&g, k.b, k.len);
		CHECK_MSG((gr != NULL) == in[id], "step %d key %u: found %d, in %d", step, id,
			  gr != NULL, in[id]);
		if (gr) {
			CHECK(*(unsigned *)gr->data == id);
			if (next() % 2) {
				bp_groups_remove(&g, gr, NULL);
				in[id] = false, count--;
			}
		} else {
			CHECK(gr = bp_groups_get(&g, k.b, k.len));
			CHECK(*(unsigned *)gr->data == 0);
			*(unsigned *)gr->data = id;
			in[id] = true, count++;
		}
		CHECK_EQ(g.n, count);
	}
	for (size_t i = 0; i < g.n; i++)
		CHECK(g.list[i]->pos == i);
	bp_groups_free(&g, NULL);
	bp_key_free(&k);
}

static void test_keys(void)
{
	struct bp_key a = { 0 }, b = { 0 };
	struct bp_field_value v = { 0 };
	char buf[64];
	char c = 'x';
	long double x;

	/* 5 as %d and as %u is one key; a %c and a one-byte %s are one key */
	v.v.i = 5;
	bp_key_add_field(&a, BP_FIELD_SIGNED, &v);
	v.v.u = 5;
	bp_key_add_field(&b, BP_FIELD_UNSIGNED, &v);
	v.v.u = (unsigned char)c;
	bp_key_add_field(&a, BP_FIELD_CHAR, &v);
	v.s = &c, v.len = 1;
	bp_key_add_field(&b, BP_FIELD_STRING, &v);
	CHECK(a.len == b.len && !memcmp(a.b, b.b, a.len));
	CHECK_EQ(bp_key_items(a.b, a.len), 2);
	bp_key_item_text(a.b, a.len, 0, buf, sizeof(buf));
	CHECK_STREQ(buf, "5");
	bp_key_item_text(a.b, a.len, 1, buf, sizeof(buf));
	CHECK_STREQ(buf, "x");
	CHECK(bp_key_item_number(a.b, a.len, 0, &x) && x == 5);
	CHECK(!bp_key_item_number(a.b, a.len, 1, &x));
	/* -0.0 and 0.0 are one key */
	bp_key_reset(&a), bp_key_reset(&b);
	v.v.d = -0.0;
	bp_key_add_field(&a, BP_FIELD_FLOAT, &v);
	v.v.d = 0.0;
	bp_key_add_field(&b, BP_FIELD_FLOAT, &v);
	CHECK(a.len == b.len && !memcmp(a.b, b.b, a.len));
	bp_key_free(&a), bp_key_free(&b);
}

/* The reference: per key a list of open times, [lo, hi) open, unmatched
 * counted. */
#ifndef SPANS_TEST_KEYS
#define SPANS_TEST_KEYS 5
#endif
enum { KEYS = SPANS_TEST_KEYS, STEPS = 100000, TOP = 25 };

/* The keys with a span open now. */
static size_t keys_open(const size_t *lo, const size_t *hi)
{
	size_t n = 0;

	for (unsigned id = 0; id < KEYS; id++)
		n += lo[id] != hi[id];
	return n;
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y) - (x > y);
}

/* The --by bytes of the span opened at ns, into by: their length, from 0
 * to past what an open span keeps in place. */
#define BY_MAX 70
static size_t by_of(uint64_t ns, unsigned char *by)
{
	size_t n = (size_t)(ns % BY_MAX);

	for (size_t i = 0; i < n; i++)
		by[i] = (unsigned char)(ns * 31 + i);
	return n;
}

/* One span closed: as the reference pairs it. */
static void check_closed(const struct bp_span *sp, uint64_t from_ns, uint64_t to_ns,
			 const struct bp_key *k)
{
	unsigned char by[BY_MAX];

	CHECK_MSG(sp->from.ns == from_ns, "closed the span of %llu, want %llu",
		  (unsigned long long)sp->from.ns, (unsigned long long)from_ns);
	CHECK(sp->to.ns == to_ns && sp->bylen == by_of(sp->from.ns, by) &&
	      !memcmp(sp->by, by, sp->bylen));
	CHECK(sp->keylen == k->len && !memcmp(sp->key, k->b, k->len));
}

static void test_spans(enum bp_pair pair)
{
	static uint64_t opened[KEYS][STEPS], durations[STEPS];
	size_t lo[KEYS] = { 0 }, hi[KEYS] = { 0 }, ndur = 0;
	uint64_t unmatched = 0, open_left = 0;
	struct bp_spans s;
	struct bp_top top;
	struct bp_key k = { 0 };
	unsigned char by[BY_MAX];

	bp_spans_init(&s);
	s.pair = pair;
	bp_top_init(&top, TOP);
	for (uint64_t ns = 1; ns <= STEPS; ns++) {
		unsigned id = (unsigned)(next() % KEYS);
		struct bp_span_end end = { .ns = ns * 10 + next() % 10, .tid = (int32_t)id };
		struct bp_span sp;

		/* memory: the keys with open spans, and at most so many idle ones */
		if (ns % 997 == 0)
			CHECK_MSG(s.open.n <= keys_open(lo, hi) + BP_SPANS_IDLE_MAX,
				  "%zu groups, %zu keys open", s.open.n, keys_open(lo, hi));
		/* as latency asks before a close: is a key open?  Its own, or
		 * another's (the close must not take the group asked about) */
		if (next() % 2) {
			unsigned other = next() % 4 ? id : (unsigned)(next() % KEYS);

			make_key(&k, other);
			CHECK(bp_spans_is_open(&s, k.b, k.len) == (lo[other] != hi[other]));
		}
		make_key(&k, id);
		/* opens outnumber closes 3 to 2 under ALL_BEFORE, which closes many */
		if (next() % 5 < (pair == BP_PAIR_ALL_BEFORE ? 3u : 2u) + (ns & 1)) {
			opened[id][hi[id]++] = end.ns;
			CHECK(bp_spans_open(&s, k.b, k.len, &end, by, by_of(end.ns, by)));
			continue;
		}
		if (lo[id] == hi[id]) {
			unmatched++;
			CHECK_EQ(bp_spans_close(&s, k.b, k.len, &end, &sp), 0);
			CHECK(!bp_spans_is_open(&s, k.b, k.len));
			continue;
		}
		do {
			uint64_t from = pair == BP_PAIR_LATEST ? opened[id][--hi[id]] : opened[id][lo[id]++];

			CHECK_EQ(bp_spans_close(&s, k.b, k.len, &end, &sp), 1);
			check_closed(&sp, from, end.ns, &k);
			durations[ndur++] = sp.to.ns - sp.from.ns;
			CHECK(bp_top_offer(&top, &sp));
			CHECK_EQ(bp_spans_is_open(&s, k.b, k.len), lo[id] != hi[id]);
		} while (pair == BP_PAIR_ALL_BEFORE && lo[id] != hi[id]);
	}
	for (unsigned id = 0; id < KEYS; id++)
		open_left += hi[id] - lo[id];
	CHECK_MSG(s.open.n <= keys_open(lo, hi) + BP_SPANS_IDLE_MAX, "%zu groups, %zu keys open",
		  s.open.n, keys_open(lo, hi));
	CHECK_EQ(s.unmatched_closes, unmatched);
	CHECK_EQ(s.nopen, open_left);
	CHECK_EQ(bp_spans_count_open(&s, 0), open_left);
	qsort(durations, ndur, sizeof(durations[0]), cmp_desc);
	bp_top_sort(&top);
	CHECK_EQ(top.n, TOP);
	for (size_t i = 0; i < top.n; i++)
		CHECK_MSG(top.v[i].to.ns - top.v[i].from.ns == durations[i], "top %zu: %llu, want %llu",
			  i, (unsigned long long)(top.v[i].to.ns - top.v[i].from.ns),
			  (unsigned long long)durations[i]);
	bp_top_free(&top);
	bp_spans_fini(&s);
	bp_key_free(&k);
}

/* The idle queue's length follows the keys: spans of keys never seen
 * again leave at most BP_SPANS_IDLE_MIN idle groups most of the time
 * (the whole queue only while it is tried again); keys that come back
 * after many others keep theirs, the queue grown back to its whole. */
static void test_idle_adapts(void)
{
	enum { NEW_KEYS = 300000, BACK = BP_SPANS_IDLE_MAX / 2 > 0 ? BP_SPANS_IDLE_MAX / 2 : 1 };
	struct bp_spans s;
	struct bp_key k = { 0 };
	unsigned over = 0, made = 0;

	bp_spans_init(&s);
	for (unsigned i = 0; i < NEW_KEYS; i++) {
		struct bp_span_end end = { .ns = i };
		struct bp_span sp;

		make_key(&k, 1000000 + i);
		CHECK(bp_spans_open(&s, k.b, k.len, &end, NULL, 0));
		CHECK_EQ(bp_spans_close(&s, k.b, k.len, &end, &sp), 1);
		CHECK(s.open.n <= BP_SPANS_IDLE_MAX);
		over += i >= NEW_KEYS / 4 && s.open.n > 2 * BP_SPANS_IDLE_MIN;
	}
	CHECK_MSG(over < NEW_KEYS / 4, "%u of %u steps with more than %d idle keys", over,
		  NEW_KEYS - NEW_KEYS / 4, 2 * BP_SPANS_IDLE_MIN);
	/* then BACK keys in turn, each back after BACK others: the queue grows
	 * again, and every key finds its group (none made) after a while */
	for (unsigned i = 0; i < NEW_KEYS; i++) {
		struct bp_span_end end = { .ns = i };
		struct bp_span sp;

		make_key(&k, i % BACK);
		if (i >= NEW_KEYS / 2)
			made += !bp_groups_find(&s.open, k.b, k.len);
		CHECK(bp_spans_open(&s, k.b, k.len, &end, NULL, 0));
		CHECK_EQ(bp_spans_close(&s, k.b, k.len, &end, &sp), 1);
	}
	CHECK_MSG(!made, "%u groups made again in the second half", made);
	CHECK_EQ(s.idle_cap, (size_t)BP_SPANS_IDLE_MAX);
	bp_spans_fini(&s);
	bp_key_free(&k);
}

int main(void)
{
	test_keys();
	test_groups();
	test_spans(BP_PAIR_LATEST);
	test_spans(BP_PAIR_FIFO);
	test_spans(BP_PAIR_ALL_BEFORE);
	test_idle_adapts();
	return check_summary("spans_test");
}
