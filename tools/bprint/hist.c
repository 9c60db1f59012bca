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

#include <bprint/analysis.h>

#include <stdlib.h>
#include <string.h>

struct hist {
	struct analyze_opts o;
	struct bp_sites *sites;
	const char *value;		/* -v, or NULL */
	struct bp_agg *agg;		/* made once the value's kind is known */
	enum bp_dist_kind kind;		/* its values' */
	struct bp_bind *bind;		/* -s, --where; the -k fields, then -v */
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
	size_t v = h->o.nkeys;

	return bp_bind_field_type(h->bind, t, -1, v, BP_BIND_TYPE(BP_FIELD_FLOAT)) ? BP_DIST_FLOAT :
	       bp_bind_field_type(h->bind, t, -1, v, BP_BIND_TYPE(BP_FIELD_SIGNED)) ? BP_DIST_SIGNED :
										  BP_DIST_UNSIGNED;
}

/* The distribution's kind, from the chosen sites (once: at the check, or
 * when following, at the first site counted or the first drawing); false
 * if memory ran out. */
static bool set_kind(struct hist *h, struct bp_trace *t)
{
	h->kind = h->value ? value_kind(h, t) : BP_DIST_UNSIGNED;
	if (!(h->agg = analyze_agg_new(&h->o, h->kind)))
		return false;
	bp_agg_set_counts_only(h->agg, !h->value);
	return true;
}

/* The header's words: "hist of dur_us by cmd, site 4 (a.c:35 worker)", or
 * "..., 3 sites": the sites whose records were counted (those chosen that
 * have the fields), so that a key found in several formats says so. */
static void describe(struct hist *h, const struct bp_trace *t)
{
	size_t len = (size_t)snprintf(h->what, sizeof(h->what), "hist of %s",
				      h->value ? h->value : "records");
	uint32_t one = 0;
	size_t nsites = bp_bind_chosen(h->bind, &one);

	for (size_t i = 0; i < h->o.nkeys && len < sizeof(h->what); i++)
		len += (size_t)snprintf(h->what + len, sizeof(h->what) - len, "%s%s",
					i ? ", " : " by ", h->o.keys[i]);
	if (h->o.where_expr && len < sizeof(h->what))
		len += (size_t)snprintf(h->what + len, sizeof(h->what) - len, " where %s",
					h->o.where_expr);
	if (nsites == 1 && t && len < sizeof(h->what)) {
		const struct bp_trace_site *s = bp_trace_site(t, (uint32_t)one);

		const char *base = s && s->file ? strrchr(s->file, '/') : NULL;

		if (s)
			len += (size_t)snprintf(h->what + len, sizeof(h->what) - len,
						", site %u (%s:%u %s)", one,
						base ? base + 1 : s->file ? s->file : "?",
						s->line, s->func ? s->func : "?");
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
	unsigned type;

	if (pat && !h->o.follow)
		return sub_error("hist", "--site %s: no such site in %s (see '%s formats')", pat,
				   path, prog);
	if (h->o.follow && (pat || bp_trace_nsites(t) == 0)) {
		errmsg(path, "waiting for the call sites to appear");
		return EXIT_OK;	/* the distribution's kind is set at the first record */
	}
	for (size_t i = 0; i < h->o.nkeys; i++)
		if (!bp_bind_field_type(h->bind, t, -1, i, ~0u))
			return sub_error("hist", "-k %s: no chosen call site has this field (see "
					   "'%s formats')", h->o.keys[i], prog);
	if (h->value) {
		if (!(type = bp_bind_field_type(h->bind, t, -1, h->o.nkeys, BP_BIND_NUMERIC)) &&
		    !(type = bp_bind_field_type(h->bind, t, -1, h->o.nkeys, ~0u)))
			return sub_error("hist", "-v %s: no chosen call site has this field (see "
					   "'%s formats')", h->value, prog);
		if (type == BP_FIELD_STRING || type == BP_FIELD_CHAR)
			return sub_error("hist", "-v %s: the field is %s, not a number", h->value,
					   analyze_type_word((uint8_t)type));
	}
	if (h->o.where && bp_where_check(h->o.where, t, h->sites, err, sizeof(err)))
		return sub_error("hist", "--where: %s", err);
	return set_kind(h, t) ? EXIT_OK : out_of_memory();
}

/* What the records are chosen by: -s, --where, having the -k fields and a
 * number in -v (after the options): -1 to go on, or an exit code. */
static int bind_fields(struct hist *h)
{
	bool ok = !bp_bind_sites(h->bind, h->sites) &&
		  (!h->o.where || !bp_bind_where(h->bind, h->o.where));

	for (size_t i = 0; i < h->o.nkeys && ok; i++)
		ok = bp_bind_field(h->bind, h->o.keys[i], 0) >= 0;
	if (ok && h->value)
		ok = bp_bind_field(h->bind, h->value, BP_BIND_NUMBER) >= 0;
	return ok ? -1 : out_of_memory();
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

/* A record of chosen site s, its fields vals (n: bp_bind_decode()'s). */
static inline int hist_fields(struct hist *h, struct bp_trace *t, const struct bp_bind_site *s,
			      const struct bp_field_value *vals, int n, uint64_t ns)
{
	union bp_dist_value v = { 0 };

	if (!h->agg && !set_kind(h, t))	/* following: the first site counted */
		return out_of_memory();
	if (n < 0 || (h->o.where && !bp_bind_where_holds(h->bind, t, s, vals, n)))
		return EXIT_OK;
	bp_key_reset(&h->key);
	if (h->o.nkeys && !analyze_key(&h->key, s, h->o.nkeys, vals))
		return out_of_memory();
	if (h->value) {
		int16_t k = s->index[h->o.nkeys];

		v = as_kind(h->kind, s->lay->fields[k].type, &vals[k]);
	}
	if (bp_agg_add(h->agg, h->key.b, h->key.len, v, ns))
		return out_of_memory();
	return EXIT_OK;
}

static int hist_record(void *ctx, struct bp_trace *t, const struct bp_trace_event *e)
{
	struct hist *h = ctx;
	const struct bp_bind_site *s = bp_bind_site(h->bind, t, e->site_id);

	if (!s)
		return EXIT_OK;
	return hist_fields(h, t, s, h->vals, bp_bind_decode(s, e, h->vals, BP_PLAN_MAX_ARGS),
			   e->ns);
}

/* Records bp_bind_next() read and decoded (no --tid: every record). */
static int hist_bound(void *ctx, struct bp_trace *t, const struct bp_bind_rec *r, int n)
{
	for (int i = 0; i < n; i++) {
		int rc = hist_fields(ctx, t, r[i].s, r[i].vals, r[i].n, r[i].ns);

		if (rc != EXIT_OK)
			return rc;
	}
	return EXIT_OK;
}

static bool hist_render(void *ctx, struct bp_trace *t, bool final)
{
	struct hist *h = ctx;

	if (!h->agg && !set_kind(h, t)) {	/* following, nothing counted yet */
		out_of_memory();
		return false;
	}
	bp_agg_set_names(h->agg, h->o.keys, h->o.nkeys, h->value);
	describe(h, t);
	bp_agg_set_what(h->agg, h->what);
	bp_agg_set_lost(h->agg, trace_lost(t),
			final && !follow_writer_at_work(t) ? 0 : trace_not_yet(t));
	bp_agg_finish(h->agg);
	return analyze_output(&h->o, h->agg, h->what, final);
}

int cmd_hist(int argc, char **argv)
{
	struct hist h = { .o = { .sub = "hist", .interval = 100 } };
	struct analyze_ops ops = { hist_record, hist_render, .args_only = true, .bound = hist_bound };
	int rc;

	if (!(h.sites = bp_sites_new()) || !(h.bind = bp_bind_new(BP_BIND_FIELDS_ONLY))) {
		bp_sites_free(h.sites);
		return out_of_memory();
	}
	if ((rc = parse_hist_args(argc, argv, &h)) < 0 && (rc = bind_fields(&h)) < 0) {
		ops.args_time = h.o.every_ns != 0;	/* --every needs each record's time */
		ops.bind = h.bind;
		rc = analyze_run(&h.o, &ops, hist_check, &h);
	}
	bp_agg_free(h.agg);
	bp_sites_free(h.sites);
	analyze_free(&h.o);
	bp_key_free(&h.key);
	bp_bind_free(h.bind);
	return rc;
}
