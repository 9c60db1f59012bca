/*
 * bind_test: the analysis binding (bprint/analysis.h) on a live trace of
 * its own (BPRINT_FILE, set by the test): a site of every field type
 * decoded into typed values, a site without a field asked for (required:
 * not chosen; optional: index -1), a number asked for that is a string,
 * --where's fields decoded though not asked for, site sets, roles (a
 * field and a --where of one role), a site filed
 * after the plans were made, an id not in the site table, and damaged
 * blocks (cut short, a word too many, a string without its NUL).
 */
#include "check.h"

#include <bprint.h>
#include <bprint/analysis.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

#define ALL_FMT "all i=%hd u=%u x=%llx f=%f s=%s c=%c p=%p"

/* The record of the site whose format begins with prefix, copied with
 * its block into blk (the reader moves on). */
static void next_of(struct bp_trace *t, const char *prefix, struct bp_trace_event *e,
		    uint32_t *blk, size_t cap)
{
	CHECK_EQ(bp_trace_next(t, e, BP_TRACE_NEXT_NO_MESSAGE), 1);
	CHECK(e->site != NULL && e->site->format != NULL);
	CHECK_MSG(!strncmp(e->site->format, prefix, strlen(prefix)), "site %u: \"%s\"",
		  e->site_id, e->site->format);
	CHECK(!e->text && e->block_words <= cap);
	memcpy(blk, e->block, e->block_words * sizeof(*blk));
	e->block = blk;
}

static const char *const all_names[] = { "i", "u", "x", "f", "s", "c", "p" };

/* Every field type, decoded, typed as the layout says. */
static void test_all_types(struct bp_trace *t, const struct bp_trace_event *all)
{
	struct bp_bind *b = bp_bind_new(0);
	struct bp_field_value v[BP_PLAN_MAX_ARGS];
	const struct bp_bind_site *s;
	static const uint8_t types[] = { BP_FIELD_SIGNED, BP_FIELD_UNSIGNED, BP_FIELD_UNSIGNED,
					 BP_FIELD_FLOAT, BP_FIELD_STRING, BP_FIELD_CHAR,
					 BP_FIELD_POINTER };

	CHECK(b != NULL);
	for (size_t j = 0; j < 7; j++)
		CHECK_EQ(bp_bind_field(b, all_names[j], 0), (int)j);
	CHECK(bp_bind_site(b, t, all->site_id) != NULL);
	s = bp_bind_site(b, t, all->site_id);	/* kept: the same plan */
	CHECK(s == bp_bind_site(b, t, all->site_id));
	CHECK_EQ(s->size, sizeof(*s));
	CHECK_EQ(s->site_id, all->site_id);
	CHECK(s->lay != NULL);
	CHECK_EQ(s->wanted, UINT64_C(0x7f));
	for (size_t j = 0; j < 7; j++) {
		CHECK_EQ(s->index[j], (int16_t)j);
		CHECK_EQ(s->lay->fields[s->index[j]].type, types[j]);
	}
	memset(v, 0xa5, sizeof(v));
	CHECK_EQ(bp_bind_decode(s, all, v, BP_PLAN_MAX_ARGS), 7);
	CHECK_EQ(v[0].v.i, -5);			/* %hd of -5 */
	CHECK_EQ(v[1].v.u, 4000000000u);
	CHECK_EQ(v[2].v.u, UINT64_C(0xabcdef0123));
	CHECK(v[3].v.d == 2.5);
	CHECK_EQ(v[4].len, 3u);
	CHECK(!memcmp(v[4].s, "str", 3));
	CHECK_EQ(v[5].v.u, (uint64_t)'q');
	CHECK_EQ(v[6].v.u, (uint64_t)0x1234);
	CHECK_EQ(bp_bind_chosen(b, NULL), 1u);
	CHECK_EQ(bp_bind_where_holds(b, t, s, v, 7), 1);	/* no --where */
	bp_bind_free(b);
}

/* A site without a field: required, not chosen; optional, index -1. */
static void test_without(struct bp_trace *t, const struct bp_trace_event *all,
			 const struct bp_trace_event *other)
{
	struct bp_bind *req = bp_bind_new(0), *opt = bp_bind_new(0), *num = bp_bind_new(0);
	struct bp_field_value v[BP_PLAN_MAX_ARGS];
	const struct bp_bind_site *s;
	uint32_t first = 0;

	CHECK(req && opt && num);
	CHECK_EQ(bp_bind_field(req, "i", 0), 0);
	CHECK_EQ(bp_bind_field(req, "s", 0), 1);
	CHECK_EQ(bp_bind_field(opt, "i", 0), 0);
	CHECK_EQ(bp_bind_field(opt, "s", BP_BIND_OPTIONAL), 1);
	CHECK_EQ(bp_bind_field(num, "s", BP_BIND_NUMBER), 0);

	CHECK(bp_bind_site(req, t, other->site_id) == NULL);
	CHECK(bp_bind_site(req, t, all->site_id) != NULL);
	CHECK_EQ(bp_bind_chosen(req, &first), 1u);
	CHECK_EQ(first, all->site_id);

	CHECK((s = bp_bind_site(opt, t, other->site_id)) != NULL);
	CHECK_EQ(s->index[0], 0);
	CHECK_EQ(s->index[1], -1);
	CHECK_EQ(s->wanted, UINT64_C(1));
	CHECK_EQ(bp_bind_decode(s, other, v, BP_PLAN_MAX_ARGS), 2);	/* i, n */
	CHECK_EQ(v[0].v.i, 77);

	CHECK(bp_bind_site(num, t, all->site_id) == NULL);	/* s is a string */
	CHECK_EQ(bp_bind_field_type(num, t, -1, 0, BP_BIND_NUMERIC), 0u);
	CHECK_EQ(bp_bind_field_type(num, t, -1, 0, ~0u), (unsigned)BP_FIELD_STRING);
	CHECK_EQ(bp_bind_field_type(req, t, -1, 0, ~0u), (unsigned)BP_FIELD_SIGNED);
	CHECK_EQ(bp_bind_field_type(req, t, -1, 5, ~0u), 0u);	/* no such field asked */
	bp_bind_free(req);
	bp_bind_free(opt);
	bp_bind_free(num);
}

/* --where: its fields decoded though not asked for; site sets. */
static void test_where_and_sites(struct bp_trace *t, const struct bp_trace_event *all,
				 const struct bp_trace_event *other)
{
	struct bp_bind *b = bp_bind_new(0);
	struct bp_sites *sel = bp_sites_new();
	struct bp_where *w1, *w2;
	struct bp_field_value v[BP_PLAN_MAX_ARGS];
	const struct bp_bind_site *s;
	char err[256];
	int n;

	CHECK(b && sel);
	CHECK((w1 = bp_where_new("u>1000", err, sizeof(err))) != NULL);
	CHECK((w2 = bp_where_new("s~st*", err, sizeof(err))) != NULL);
	CHECK_EQ(bp_bind_field(b, "c", 0), 0);
	CHECK_EQ(bp_bind_where(b, w1), 0);
	CHECK_EQ(bp_bind_where(b, w2), 0);
	CHECK_EQ(bp_sites_add(sel, "fmt:all*"), 0);
	CHECK_EQ(bp_bind_sites(b, sel), 0);
	CHECK(bp_bind_site(b, t, other->site_id) == NULL);	/* not in the set */
	CHECK((s = bp_bind_site(b, t, all->site_id)) != NULL);
	CHECK_EQ(s->wanted, (UINT64_C(1) << 5) | (UINT64_C(1) << 1) | (UINT64_C(1) << 4));
	memset(v, 0, sizeof(v));
	CHECK_EQ((n = bp_bind_decode(s, all, v, BP_PLAN_MAX_ARGS)), 7);
	CHECK_EQ(v[1].v.u, 4000000000u);
	CHECK_EQ(v[0].v.i, 0);			/* not wanted: left as it was */
	CHECK_EQ(bp_bind_where_holds(b, t, s, v, n), 1);
	v[1].v.u = 5;
	CHECK_EQ(bp_bind_where_holds(b, t, s, v, n), 0);
	CHECK_EQ(bp_bind_where_holds(b, t, s, v, -1), 0);
	bp_bind_free(b);
	bp_where_free(w1);
	bp_where_free(w2);
	bp_sites_free(sel);
}

/* Roles (latency's ends): a site chosen by some role, a field of one role
 * looked up in its sites only, each role's --where on its own. */
static void test_roles(struct bp_trace *t, const struct bp_trace_event *all,
		       const struct bp_trace_event *other)
{
	struct bp_bind *b = bp_bind_new(0);
	struct bp_sites *from = bp_sites_new(), *to = bp_sites_new(), *none = bp_sites_new();
	struct bp_field_value v[BP_PLAN_MAX_ARGS];
	const struct bp_bind_site *s;
	struct bp_where *w;
	char err[256];
	int n;

	CHECK(b && from && to && none);
	CHECK((w = bp_where_new("n==2", err, sizeof(err))) != NULL);
	CHECK_EQ(bp_sites_add(from, "fmt:all*"), 0);
	CHECK_EQ(bp_sites_add(to, "fmt:other*"), 0);
	CHECK_EQ(bp_sites_add(to, "fmt:all*"), 0);
	CHECK_EQ(bp_sites_add(none, "fmt:nothing*"), 0);
	CHECK_EQ(bp_bind_role(b, from, NULL), 0);
	CHECK_EQ(bp_bind_role(b, to, w), 1);
	CHECK_EQ(bp_bind_field(b, "i", 0), 0);
	CHECK_EQ(bp_bind_field(b, "s", BP_BIND_FOR_ROLE(0)), 1);	/* required of from */
	CHECK_EQ(bp_bind_field(b, "n", BP_BIND_OPTIONAL | BP_BIND_FOR_ROLE(1)), 2);
	CHECK((s = bp_bind_site(b, t, all->site_id)) != NULL);
	CHECK_EQ(s->roles, 3u);
	CHECK_EQ(s->index[1], 4);
	CHECK_EQ(s->index[2], -1);			/* "all" has no n */
	CHECK((s = bp_bind_site(b, t, other->site_id)) != NULL);
	CHECK_EQ(s->roles, 2u);
	CHECK_EQ(s->index[1], -1);			/* s is asked of from only */
	CHECK_EQ(s->index[2], 1);
	CHECK_EQ(s->wanted, UINT64_C(3));
	CHECK_EQ((n = bp_bind_decode(s, other, v, BP_PLAN_MAX_ARGS)), 2);
	CHECK_EQ(bp_bind_role_holds(b, t, s, 0, v, n), 1);	/* no --where */
	CHECK_EQ(bp_bind_role_holds(b, t, s, 1, v, n), 0);	/* n is 1 */
	v[1].v.i = 2;
	CHECK_EQ(bp_bind_role_holds(b, t, s, 1, v, n), 1);
	CHECK_EQ(bp_bind_field_type(b, t, 0, 2, ~0u), 0u);	/* no from site has n */
	CHECK_EQ(bp_bind_field_type(b, t, 1, 2, ~0u), (unsigned)BP_FIELD_SIGNED);
	/* s, of from only: "all" is a to site too, and has it as a from site */
	CHECK_EQ(bp_bind_field_type(b, t, 1, 1, ~0u), (unsigned)BP_FIELD_STRING);
	CHECK_EQ(bp_bind_field_type(b, t, 0, 1, ~0u), (unsigned)BP_FIELD_STRING);
	bp_bind_free(b);
	/* a binding whose one role takes no site chooses none */
	CHECK((b = bp_bind_new(0)) != NULL);
	CHECK_EQ(bp_bind_role(b, none, NULL), 0);
	CHECK(bp_bind_site(b, t, all->site_id) == NULL);
	bp_bind_free(b);
	bp_where_free(w);
	bp_sites_free(from);
	bp_sites_free(to);
	bp_sites_free(none);
}

/* Damaged blocks: never a value, always -1. */
static void test_damaged(struct bp_trace *t, const struct bp_trace_event *all)
{
	struct bp_bind *b = bp_bind_new(BP_BIND_EVERY_FIELD), *some = bp_bind_new(0);
	struct bp_field_value v[BP_PLAN_MAX_ARGS];
	const struct bp_bind_site *s, *s1;
	struct bp_trace_event d = *all;
	uint32_t blk[64];

	CHECK(b && some);
	CHECK_EQ(bp_bind_field(some, "i", 0), 0);
	CHECK((s = bp_bind_site(b, t, all->site_id)) != NULL);
	CHECK((s1 = bp_bind_site(some, t, all->site_id)) != NULL);
	CHECK_EQ(s->wanted, UINT64_C(0x7f));
	CHECK_EQ(bp_bind_decode(s, all, v, BP_PLAN_MAX_ARGS), 7);
	CHECK(all->block_words + 1 <= sizeof(blk) / sizeof(blk[0]));
	memcpy(blk, all->block, all->block_words * sizeof(blk[0]));
	d.block = blk;
	d.block_words = all->block_words - 1;		/* cut short */
	CHECK_EQ(bp_bind_decode(s, &d, v, BP_PLAN_MAX_ARGS), -1);
	CHECK_EQ(bp_bind_decode(s1, &d, v, BP_PLAN_MAX_ARGS), -1);
	blk[all->block_words] = 0;
	d.block_words = all->block_words + 1;		/* a word too many */
	CHECK_EQ(bp_bind_decode(s, &d, v, BP_PLAN_MAX_ARGS), -1);
	CHECK_EQ(bp_bind_decode(s1, &d, v, BP_PLAN_MAX_ARGS), -1);
	/* the string's NUL gone: every byte from "str" to the block's end set */
	d.block_words = all->block_words;
	for (size_t i = 0; i + 3 <= all->block_words * 4; i++)
		if (!memcmp((char *)blk + i, "str", 4)) {
			memset((char *)blk + i, 'z', all->block_words * 4 - i);
			break;
		}
	CHECK_EQ(bp_bind_decode(s, &d, v, BP_PLAN_MAX_ARGS), -1);
	CHECK_EQ(bp_bind_decode(s1, &d, v, BP_PLAN_MAX_ARGS), -1);
	d = *all;
	d.text = 1;					/* a record that carries text */
	CHECK_EQ(bp_bind_decode(s, &d, v, BP_PLAN_MAX_ARGS), -1);
	bp_bind_free(b);
	bp_bind_free(some);
}

int main(void)
{
	const char *path = getenv("BPRINT_FILE");
	struct bp_trace_event all = BP_TRACE_EVENT_INIT, other = BP_TRACE_EVENT_INIT;
	struct bp_trace_event late = BP_TRACE_EVENT_INIT;
	uint32_t all_blk[64], other_blk[64], late_blk[64];
	struct bp_bind *b, *fo;
	const struct bp_bind_site *s;
	char late_fmt[32], err[256];
	struct bp_trace *t;
	int rc;

	CHECK(path != NULL);
	trace_printk(ALL_FMT, (short)-5, 4000000000u, 0xabcdef0123ull, 2.5, "str", 'q',
		     (void *)0x1234);
	trace_printk("other i=%d n=%d", 77, 1);
	if (!(t = bp_trace_open(path, 0, err, sizeof(err), &rc)))
		FAIL("%s: %s", path, err);
	next_of(t, "all", &all, all_blk, 64);
	next_of(t, "other", &other, other_blk, 64);

	test_all_types(t, &all);
	test_without(t, &all, &other);
	test_where_and_sites(t, &all, &other);
	test_damaged(t, &all);
	test_roles(t, &all, &other);

	/* a site filed after the plans were made: planned at its first record */
	b = bp_bind_new(0);
	fo = bp_bind_new(BP_BIND_FIELDS_ONLY);
	CHECK(b && fo);
	CHECK_EQ(bp_bind_field(b, "i", 0), 0);
	CHECK(bp_bind_site(b, t, all.site_id) != NULL);
	CHECK(bp_bind_site(b, t, other.site_id) != NULL);
	CHECK_EQ(bp_bind_chosen(b, NULL), 2u);
	/* an id not in the table: no fields, so not chosen when one is asked
	 * for, nor FIELDS_ONLY; chosen (without a layout) otherwise */
	CHECK(bp_bind_site(b, t, bp_trace_max_site_id(t) + 1000) == NULL);
	CHECK(bp_bind_site(fo, t, bp_trace_max_site_id(t) + 1000) == NULL);
	{
		struct bp_bind *any = bp_bind_new(0);

		CHECK(any != NULL);
		CHECK((s = bp_bind_site(any, t, bp_trace_max_site_id(t) + 1000)) != NULL);
		CHECK(s->lay == NULL);
		CHECK_EQ(bp_bind_decode(s, &all, NULL, 0), -1);
		CHECK_EQ(bp_bind_chosen(any, NULL), 0u);	/* not kept */
		bp_bind_free(any);
	}
	strcpy(late_fmt, "late i=%d");
	trace_printk(late_fmt, -42);			/* a derived site, filed now */
	next_of(t, "late", &late, late_blk, 64);
	CHECK(late.site_id != all.site_id && late.site_id != other.site_id);
	CHECK((s = bp_bind_site(b, t, late.site_id)) != NULL);
	CHECK(s->lay != NULL);
	{
		struct bp_field_value v[BP_PLAN_MAX_ARGS];

		CHECK_EQ(bp_bind_decode(s, &late, v, BP_PLAN_MAX_ARGS), 1);
		CHECK_EQ(v[s->index[0]].v.i, -42);
	}
	CHECK_EQ(bp_bind_chosen(b, NULL), 3u);
	CHECK(bp_bind_site(fo, t, late.site_id) != NULL);
	CHECK_EQ(bp_trace_next(t, &late, 0), 0);
	bp_bind_free(b);
	bp_bind_free(fo);
	bp_trace_close(t);
	printf("ok: every field type, a site without the field, a late site, damaged blocks\n");
	return 0;
}
