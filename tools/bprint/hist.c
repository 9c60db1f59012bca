/*
 * bprint hist: the kernel's hist trigger (hist:keys=...:vals=...) for a
 * trace file.  For every distinct key, the tuple of the -k fields' values
 * (one group without -k), the distribution of the -v field over the chosen
 * records: count, min, mean, percentiles, max, sum and a histogram; without
 * -v, the records per key.
 *
 * Records are chosen by site (-s), thread (-t), --where, and by having the
 * fields: a record of a site that lacks a -k or -v field is not counted.
 * Arguments are decoded from each record's block, never from its text.
 */
#include "analyze.h"

#include "file/array.h"
#include "file/site_layout.h"

#include <stdlib.h>
#include <string.h>

/* A site, looked at once: counted or not, and where its fields are. */
struct site_bind {
	enum { SITE_UNSEEN, SITE_SKIPPED, SITE_COUNTED } state;
	const struct bp_trace_layout *lay;
	int16_t idx[ANALYZE_MAX_KEYS + 1];	/* the -k fields, then -v */
	int16_t value;			/* -v's field, and its type */
	uint8_t value_type;
	uint32_t wanted;		/* the fields to decode: those, and --where's
					 * (a layout has at most 32: BP_PLAN_MAX_ARGS) */
};

struct hist {
	struct analyze_opts o;
	struct bp_sites *sites;
	const char *value;		/* -v, or NULL */
	struct bp_agg agg;
	bool kind_set;
	struct site_bind *bind;		/* per site id */
	size_t nbind;
	struct bp_key key;
	struct bp_field_value vals[BP_PLAN_MAX_ARGS];	/* a layout's fields, at most */
	char what[512];
};

static void hist_help(void)
{
	printf("Usage: %s hist [OPTION]... FILE|PID\n"
	       "Aggregate the values of a field of trace FILE's records, per key: count, min,\n"
	       "mean, percentiles (p50, p90, p99, p99.9 unless --percentiles), max, sum and a\n"
	       "histogram (the kernel's hist trigger).  Without -v, count the records per key.\n"
	       "\n"
	       "  -s, --site=SITE       only records of SITE: an id or a pattern (as report's;\n"
	       "                        repeatable); default: every site with the fields\n"
	       "  -v, --value=FIELD     the field to aggregate (a number: see 'bprint formats')\n"
	       "  -k, --key=FIELD       group by FIELD's value (repeatable: a tuple)\n"
	       "  -t, --tid=TID         only records of thread TID (repeatable)\n"
	       "  -w, --where=EXPR      only records whose fields satisfy EXPR: FIELD OP VALUE\n"
	       "                        terms joined by ',', OP one of == != < <= > >= ~;\n"
	       "                        repeated, every one must hold\n"
	       "      --buckets=KIND    log2 (default) or linear:WIDTH\n"
	       ANALYZE_GROUP_HELP
	       "      --json            one JSON document\n"
	       "      --csv             the groups as CSV, with a header line\n"
	       "      --svg=OUT         also write the plots to OUT as SVG: the histogram, the\n"
	       "                        percentiles (p50 .. p99.99 on a 1/(1-p) scale) and,\n"
	       "                        with --every, p50 and p99 over time\n"
	       "  -f, --follow          a live FILE (or PID): redraw every second until\n"
	       "                        interrupted or the process ends\n"
	       "  -h, --help            show this help\n"
	       "\n"
	       "Percentiles are exact up to %u values in all; past that, within 1%% (see\n"
	       "bprint(1)): each group says which, [exact] or [percentiles within 1%%] (JSON\n"
	       "and CSV: exact true or false).\n"
	       "\n"
	       EXIT_STATUS_HELP,
	       prog, BP_DIST_EXACT_VALUES);
}

static int parse_hist_args(int argc, char **argv, struct hist *h)
{
	static const struct option opts[] = {
		{ "site", required_argument, NULL, 's' },
		{ "value", required_argument, NULL, 'v' },
		ANALYZE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	int c, rc = EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:v:k:t:w:fh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (bp_sites_add(h->sites, optarg))
				rc = usage_error("hist", "--site: expected an id or a pattern");
			break;
		case 'v':
			h->value = optarg;
			break;
		ANALYZE_OPTIONS: rc = analyze_option(&h->o, c, optarg); break;
		case 'h': hist_help(); return finish_output();
		case ':': rc = usage_error("hist", "option '%s' needs an argument", argv[optind - 1]); break;
		default: rc = usage_error("hist", "unknown option '%s'", argv[optind - 1]); break;
		}
		if (rc)
			return rc;
	}
	if (!h->value && h->o.sort.by != BP_ORDER_COUNT && h->o.sort.by != BP_ORDER_KEY)
		return usage_error("hist", "--sort: without -v, groups have a count only (count or key)");
	return analyze_finish_args(&h->o, argc, argv);
}

/* The value field's type over the chosen sites decides the distribution's:
 * floating point if any site's is, else signed if any is, else unsigned. */
static enum bp_dist_kind value_kind(struct hist *h, struct bp_trace *t)
{
	bool any_float = false, any_signed = false;

	for (size_t i = 0, n = bp_trace_nsites(t); i < n; i++) {
		const struct bp_trace_site *s = bp_trace_site_at(t, i);
		const struct bp_trace_layout *lay;
		int k;

		if (!s || !bp_sites_match(h->sites, t, s->site.id) ||
		    !(lay = bp_trace_layout(t, s->site.id)) ||
		    (k = bp_trace_field_index(lay, h->value)) < 0)
			continue;
		any_float |= lay->fields[k].type == BP_FIELD_FLOAT;
		any_signed |= lay->fields[k].type == BP_FIELD_SIGNED;
	}
	return any_float ? BP_DIST_FLOAT : any_signed ? BP_DIST_SIGNED : BP_DIST_UNSIGNED;
}

/* The distribution's kind, from the chosen sites (once: at the check, or
 * when following, at the first site counted or the first drawing). */
static void set_kind(struct hist *h, struct bp_trace *t)
{
	bp_agg_init(&h->agg, h->value ? value_kind(h, t) : BP_DIST_UNSIGNED, h->o.buckets,
		    h->o.width);
	h->agg.counts_only = !h->value;
	analyze_agg_setup(&h->o, &h->agg);
	h->kind_set = true;
}

/* The header's words: "hist of dur_us by cmd, site 4 (a.c:35 worker)", or
 * "..., 3 sites": the sites whose records were counted (those chosen that
 * have the fields), so that a key found in several formats says so. */
static void describe(struct hist *h, const struct bp_trace *t)
{
	size_t len = (size_t)snprintf(h->what, sizeof(h->what), "hist of %s",
				      h->value ? h->value : "records");
	size_t nsites = 0, one = 0;

	for (size_t i = 0; i < h->o.nkeys && len < sizeof(h->what); i++)
		len += (size_t)snprintf(h->what + len, sizeof(h->what) - len, "%s%s",
					i ? ", " : " by ", h->o.keys[i]);
	if (h->o.where_expr && len < sizeof(h->what))
		len += (size_t)snprintf(h->what + len, sizeof(h->what) - len, " where %s",
					h->o.where_expr);
	for (size_t id = 0; id < h->nbind; id++)
		if (h->bind[id].state == SITE_COUNTED)
			nsites++, one = id;
	if (nsites == 1 && t && len < sizeof(h->what)) {
		const struct bp_trace_site *s = bp_trace_site(t, (uint32_t)one);

		const char *base = s && s->site.file ? strrchr(s->site.file, '/') : NULL;

		if (s)
			len += (size_t)snprintf(h->what + len, sizeof(h->what) - len,
						", site %zu (%s:%u %s)", one,
						base ? base + 1 : s->site.file ? s->site.file : "?",
						s->site.line, s->site.func ? s->site.func : "?");
	} else if (nsites > 1 && len < sizeof(h->what)) {
		len += (size_t)snprintf(h->what + len, sizeof(h->what) - len, ", %zu sites",
					nsites);
	}
	(void)len;
}

/* Before reading: every field named exists in a chosen site, -v is a number. */
static int hist_check(void *ctx, struct bp_trace *t, const char *path)
{
	struct hist *h = ctx;
	const char *pat = bp_sites_unmatched(h->sites, t);
	char err[256];
	uint8_t type;

	if (pat && !h->o.follow)
		return sub_error("hist", "--site %s: no such site in %s (see '%s formats')", pat,
				   path, prog);
	if (h->o.follow && (pat || bp_trace_nsites(t) == 0)) {
		errmsg(path, "waiting for the call sites to appear");
		return EXIT_OK;	/* the distribution's kind is set at the first record */
	}
	for (size_t i = 0; i < h->o.nkeys; i++)
		if (!analyze_field_exists(t, h->sites, h->o.keys[i], false, &type))
			return sub_error("hist", "-k %s: no chosen call site has this field (see "
					   "'%s formats')", h->o.keys[i], prog);
	if (h->value) {
		if (!analyze_field_exists(t, h->sites, h->value, true, &type))
			return sub_error("hist", "-v %s: no chosen call site has this field (see "
					   "'%s formats')", h->value, prog);
		if (type == BP_FIELD_STRING || type == BP_FIELD_CHAR)
			return sub_error("hist", "-v %s: the field is %s, not a number", h->value,
					   analyze_type_word(type));
	}
	if (h->o.where && bp_where_check(h->o.where, t, h->sites, err, sizeof(err)))
		return sub_error("hist", "--where: %s", err);
	set_kind(h, t);
	return EXIT_OK;
}

/* Site id, looked at on its first record: counted (its bind), or NULL. */
static const struct site_bind *site_counted(struct hist *h, struct bp_trace *t, uint32_t id)
{
	const char *names[ANALYZE_MAX_KEYS + 1];
	size_t n = h->o.nkeys;
	struct site_bind *b;

	if (id < h->nbind && h->bind[id].state == SITE_COUNTED)
		return &h->bind[id];
	if (id >= h->nbind) {
		struct site_bind *grown = bp_array_grow(h->bind, &h->nbind, (size_t)id + 1,
							sizeof(*grown));

		if (!grown)
			return NULL;
		h->bind = grown;
	}
	b = &h->bind[id];
	if (b->state == SITE_SKIPPED)
		return NULL;
	memcpy(names, h->o.keys, n * sizeof(names[0]));
	if (h->value)
		names[n++] = h->value;
	b->state = SITE_SKIPPED;
	if (!bp_sites_match(h->sites, t, id) || !analyze_bind(t, id, names, n, b->idx, &b->lay))
		return NULL;
	if (h->value) {
		b->value = b->idx[h->o.nkeys];
		b->value_type = b->lay->fields[b->value].type;
		if (b->value_type == BP_FIELD_STRING || b->value_type == BP_FIELD_CHAR)
			return NULL;
	}
	/* --where's fields too (a site that lacks one never matches) */
	b->wanted = h->o.where ? (uint32_t)bp_where_fields(h->o.where, t, id) : 0;
	for (size_t i = 0; i < n; i++)
		b->wanted |= UINT32_C(1) << b->idx[i];
	b->state = SITE_COUNTED;
	if (!h->kind_set)	/* following: the first site counted, before its value */
		set_kind(h, t);
	return b;
}

/* A field's value as the distribution's kind. */
static union bp_dist_value as_kind(enum bp_dist_kind kind, uint8_t type,
				   const struct bp_field_value *v)
{
	union bp_dist_value d;

	if (kind == BP_DIST_FLOAT)
		d.d = type == BP_FIELD_FLOAT ? v->v.d : type == BP_FIELD_SIGNED ? (double)v->v.i :
										   (double)v->v.u;
	else if (kind == BP_DIST_SIGNED)
		d.i = type == BP_FIELD_SIGNED ? v->v.i :
		      v->v.u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v->v.u;
	else
		d.u = v->v.u;
	return d;
}

static int hist_record(void *ctx, struct bp_trace *t, const struct bp_trace_event *e)
{
	struct hist *h = ctx;
	const struct site_bind *b = site_counted(h, t, e->site_id);
	union bp_dist_value v = { 0 };
	int n;

	if (!b || e->text ||
	    (n = bp_site_layout_decode_some(bp_site_layout_of(b->lay), e->block, e->block_words,
					    b->wanted, h->vals, BP_PLAN_MAX_ARGS)) < 0)
		return EXIT_OK;
	if (h->o.where && !bp_where_match_fields(h->o.where, t, e->site_id, h->vals, (size_t)n))
		return EXIT_OK;
	bp_key_reset(&h->key);
	if (h->o.nkeys && !analyze_key(&h->key, b->lay, b->idx, h->o.nkeys, h->vals))
		return out_of_memory();
	if (h->value)
		v = as_kind(h->agg.kind, b->value_type, &h->vals[b->value]);
	if (!bp_agg_add(&h->agg, h->key.b, h->key.len, v) ||
	    (h->o.every_ns && !analyze_series_add(&h->o, e->ev.ns, h->key.b, h->key.len, v)))
		return out_of_memory();
	return EXIT_OK;
}

static bool hist_render(void *ctx, struct bp_trace *t, bool final)
{
	struct hist *h = ctx;

	if (!h->kind_set)	/* following, nothing counted yet */
		set_kind(h, t);
	h->agg.key_names = h->o.keys;
	h->agg.nkeys = h->o.nkeys;
	h->agg.value_name = h->value;
	h->agg.counts_only = !h->value;
	describe(h, t);
	h->agg.what = h->what;
	h->agg.lost = trace_lost(t);
	h->agg.not_yet = final && !follow_writer_at_work(t) ? 0 : trace_not_yet(t);
	bp_agg_finish(&h->agg);
	return analyze_output(&h->o, &h->agg, h->what, final);
}

int cmd_hist(int argc, char **argv)
{
	struct hist h = { .o = { .sub = "hist", .interval = 100 } };
	struct analyze_ops ops = { hist_record, hist_render, .args_only = true };
	int rc;

	if (!(h.sites = bp_sites_new()))
		return out_of_memory();
	if ((rc = parse_hist_args(argc, argv, &h)) < 0) {
		ops.args_only = !h.o.every_ns;	/* --every needs each record's time */
		rc = analyze_run(&h.o, &ops, hist_check, &h);
	}
	if (h.kind_set)
		bp_agg_free(&h.agg);
	bp_sites_free(h.sites);
	analyze_free(&h.o);
	bp_key_free(&h.key);
	free(h.bind);
	return rc;
}
