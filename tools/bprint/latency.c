/*
 * bprint latency: spans between two call sites, as the kernel's synthetic
 * events pair two events.  A record of a --from site opens a span; a
 * record of a --to site closes the most recent open span with the same
 * key: the -k fields' values, which both sites must have, or the thread
 * when there is no -k (spans of one thread may then nest).  A record whose
 * site is chosen by both closes the open span, then opens the next one.
 *
 * The durations (ns) go into one distribution per value of --by, a field
 * of the from-record; --where chooses the spans by their from-record and
 * --where-to by their to-record.  Opens never closed and closes without an
 * open are counted and shown; --top N lists the longest spans.
 */
#include "analyze.h"
#include "latency_sched.h"

#include "file/array.h"
#include "file/site_layout.h"

#include <stdlib.h>
#include <string.h>

#define SPAN_CHOSEN 1u	/* its from-record satisfies --where */

/* A site's part in the pairing, looked up once. */
struct site_role {
	uint8_t state;			/* 0 not looked at, 1 none, 2 has a role */
	bool from, to;
	int16_t kidx[ANALYZE_MAX_KEYS];	/* the -k fields */
	int16_t by;			/* the --by field (from sites), -1 */
	const struct bp_trace_layout *lay;	/* NULL: its records have no fields */
	uint32_t wanted;		/* the fields to decode: those, and --where's or
					 * --where-to's (a layout has at most 32) */
};

struct latency {
	struct analyze_opts o;
	struct bp_sites *from, *to;
	const char *by;
	const char *where_to_expr;
	struct bp_where *where_to;
	size_t top;
	struct bp_spans spans;
	struct bp_agg agg;
	struct site_role *roles;
	size_t nroles;
	struct bp_key key, bykey;
	struct bp_field_value vals[BP_PLAN_MAX_ARGS];	/* a layout's fields, at most */
	const char *top_names[ANALYZE_MAX_KEYS];
	char what[512];
	bool sched;			/* --sched */
	struct latency_sched *ls;	/* its split (latency_sched.h) */
};

static void latency_help(void)
{
	printf("Usage: %s latency --from SITE --to SITE [OPTION]... FILE|PID\n"
	       "Pair the records of two call sites into spans and aggregate their durations\n"
	       "(ns): count, min, mean, p50, p90, p99, p99.9, max, sum and a histogram.\n"
	       "\n"
	       "  -F, --from=SITE       a record of SITE opens a span (an id or a pattern as\n"
	       "                        report's --site takes; repeatable)\n"
	       "  -T, --to=SITE         a record of SITE closes the latest open span of its key\n"
	       "  -k, --key=FIELD       pair by FIELD's value, which both sites must have\n"
	       "                        (repeatable); without -k, spans pair within a thread\n"
	       "  -b, --by=FIELD        one distribution per value of FIELD of the from-record\n"
	       "  -w, --where=EXPR      only spans whose from-record satisfies EXPR (as hist's)\n"
	       "      --where-to=EXPR   only spans whose to-record satisfies EXPR\n"
	       "  -n, --top=N           list the N longest spans\n"
	       "  -t, --tid=TID         only records of thread TID (repeatable)\n"
	       "      --buckets=KIND    log2 (default) or linear:WIDTH (ns)\n"
	       "      --json            one JSON document\n"
	       "      --csv             the groups as CSV, with a header line\n"
	       "      --svg=OUT         also write the histogram to OUT as SVG\n"
	       "      --sched           split each span's time into running, runnable and\n"
	       "                        blocked by the scheduler's events (a record --kernel\n"
	       "                        trace) of the thread that ends it; for the --top\n"
	       "                        spans, who ran instead and who woke it\n"
	       "  -f, --follow          a live FILE (or PID): redraw every second until\n"
	       "                        interrupted or the process ends\n"
	       "  -h, --help            show this help\n"
	       "\n"
	       EXIT_STATUS_HELP,
	       prog);
}

static int parse_top(struct latency *l, const char *arg)
{
	char *end;
	long n = strtol(arg, &end, 10);

	if (end == arg || *end || n < 0 || n > 100000)
		return usage_error("latency", "--top: expected 0 to 100000, not '%s'", arg);
	l->top = (size_t)n;
	return 0;
}

static int parse_latency_args(int argc, char **argv, struct latency *l)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "by", required_argument, NULL, 'b' },
		{ "top", required_argument, NULL, 'n' },
		{ "where-to", required_argument, NULL, 'W' },
		{ "sched", no_argument, NULL, 'S' },
		ANALYZE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	int c, rc = EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":F:T:b:n:k:t:w:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'F':
		case 'T':
			if (bp_sites_add(c == 'F' ? l->from : l->to, optarg))
				rc = usage_error("latency", "--%s: expected an id or a pattern",
						 c == 'F' ? "from" : "to");
			break;
		case 'b': l->by = optarg; break;
		case 'S': l->sched = true; break;
		case 'n': rc = parse_top(l, optarg); break;
		case 'W':
			bp_where_free(l->where_to);
			l->where_to_expr = optarg;
			if (!(l->where_to = bp_where_new(optarg, err, sizeof(err))))
				rc = usage_error("latency", "--where-to: %s", err);
			break;
		ANALYZE_OPTIONS: rc = analyze_option(&l->o, c, optarg); break;
		case 'h': latency_help(); return finish_output();
		case ':': rc = usage_error("latency", "option '%s' needs an argument", argv[optind - 1]); break;
		default: rc = usage_error("latency", "unknown option '%s'", argv[optind - 1]); break;
		}
		if (rc)
			return rc;
	}
	if (!bp_sites_count(l->from) || !bp_sites_count(l->to))
		return usage_error("latency", "--from SITE and --to SITE are both needed");
	if (l->sched && (l->o.svg || l->o.follow))
		return usage_error("latency", "--sched: not with --svg or --follow (yet)");
	return analyze_finish_args(&l->o, argc, argv);
}

/* Every -k field (and --by) named exists where it must. */
static int latency_check(void *ctx, struct bp_trace *t, const char *path)
{
	struct latency *l = ctx;
	struct bp_sites *ends[2] = { l->from, l->to };
	const char *end_name[2] = { "--from", "--to" };
	char err[256];
	uint8_t type;

	for (int e = 0; e < 2; e++) {
		const char *pat = bp_sites_unmatched(ends[e], t);

		if (pat && !l->o.follow) {
			return sub_error("latency", "%s %s: no such site in %s (see '%s formats')",
			       end_name[e], pat, path, prog);
		}
		if (pat)
			continue;
		for (size_t i = 0; i < l->o.nkeys; i++)
			if (!analyze_field_exists(t, ends[e], l->o.keys[i], false, &type))
				return sub_error("latency", "-k %s: no %s site has this field (both "
						 "ends need the key; see '%s formats')", l->o.keys[i],
						 end_name[e], prog);
	}
	if (l->by && !bp_sites_unmatched(l->from, t) &&
	    !analyze_field_exists(t, l->from, l->by, false, &type)) {
		return sub_error("latency", "--by %s: no --from site has this field", l->by);
	}
	if (l->o.where && !bp_sites_unmatched(l->from, t) &&
	    bp_where_check(l->o.where, t, l->from, err, sizeof(err))) {
		return sub_error("latency", "--where: %s", err);
	}
	if (l->where_to && !bp_sites_unmatched(l->to, t) &&
	    bp_where_check(l->where_to, t, l->to, err, sizeof(err))) {
		return sub_error("latency", "--where-to: %s", err);
	}
	return EXIT_OK;
}

/* The role of site id, looked up once; NULL if it has none. */
static const struct site_role *role_of(struct latency *l, struct bp_trace *t, uint32_t id)
{
	struct site_role *r;

	if (id >= l->nroles) {
		struct site_role *grown = bp_array_grow(l->roles, &l->nroles, (size_t)id + 1,
							sizeof(*grown));

		if (!grown)
			return NULL;
		l->roles = grown;
	}
	r = &l->roles[id];
	if (r->state)
		return r->state == 2 ? r : NULL;
	r->state = 1;
	r->by = -1;
	r->from = bp_sites_match(l->from, t, id);
	r->to = bp_sites_match(l->to, t, id);
	if (!r->from && !r->to)
		return NULL;
	r->lay = bp_trace_layout(t, id);
	if (l->o.nkeys && !analyze_bind(t, id, l->o.keys, l->o.nkeys, r->kidx, &r->lay))
		return NULL;	/* without the key it pairs with nothing */
	if (r->from && l->by && r->lay)
		r->by = (int16_t)bp_trace_field_index(r->lay, l->by);
	for (size_t i = 0; i < l->o.nkeys; i++)
		r->wanted |= UINT32_C(1) << r->kidx[i];
	if (r->by >= 0)
		r->wanted |= UINT32_C(1) << r->by;
	if (r->from && l->o.where)
		r->wanted |= (uint32_t)bp_where_fields(l->o.where, t, id);
	if (r->to && l->where_to)
		r->wanted |= (uint32_t)bp_where_fields(l->where_to, t, id);
	r->state = 2;
	return r;
}

/* The record's fields that r's role reads, decoded into l->vals (the
 * others left as they were); -1 if it has none. */
static int fields_of(struct latency *l, const struct site_role *r, const struct bp_trace_event *e)
{
	if (e->text || !r->lay)
		return -1;
	return bp_site_layout_decode_some(bp_site_layout_of(r->lay), e->block, e->block_words,
					  r->wanted, l->vals, BP_PLAN_MAX_ARGS);
}

/* A span closed: into its group and the top list. */
static bool closed(struct latency *l, const struct bp_span *sp)
{
	union bp_dist_value d = { .u = sp->to.ns >= sp->from.ns ? sp->to.ns - sp->from.ns : 0 };

	return bp_agg_add(&l->agg, sp->by, sp->bylen, d) && bp_top_offer(&l->agg.top, sp) &&
	       (!l->ls || latency_sched_span(l->ls, sp));
}

/* The pairing key of a record: its -k values, or its thread. */
static bool key_of(struct latency *l, const struct site_role *r, const struct bp_trace_event *e)
{
	bp_key_reset(&l->key);
	if (!l->o.nkeys)
		return bp_key_add_uint(&l->key, (uint64_t)(uint32_t)e->ev.tid);
	return analyze_key(&l->key, r->lay, r->kidx, l->o.nkeys, l->vals);
}

/* Open a span at e; it is only counted when it closes if --where holds. */
static bool open_span(struct latency *l, const struct site_role *r, struct bp_trace *t, int n,
		      const struct bp_trace_event *e)
{
	bool chosen = !l->o.where ||
		      bp_where_match_fields(l->o.where, t, e->site_id, l->vals, (size_t)n);
	struct bp_span_end from = { e->ev.ns, e->ev.tid, e->site_id, chosen ? SPAN_CHOSEN : 0 };

	bp_key_reset(&l->bykey);
	if (l->by) {
		if (r->by >= 0 && !bp_key_add_field(&l->bykey, r->lay->fields[r->by].type, &l->vals[r->by]))
			return false;
		if (r->by < 0 && !bp_key_add_none(&l->bykey))
			return false;
	}
	return bp_spans_open(&l->spans, l->key.b, l->key.len, &from, l->bykey.b, l->bykey.len);
}

static int latency_record(void *ctx, struct bp_trace *t, const struct bp_trace_event *e)
{
	struct latency *l = ctx;
	const struct site_role *r;
	int n = 0;

	if (l->ls && !latency_sched_event(l->ls, t, e))
		return out_of_memory();
	if (!(r = role_of(l, t, e->site_id)))
		return EXIT_OK;
	if ((l->o.nkeys || l->by || l->o.where || l->where_to) && (n = fields_of(l, r, e)) < 0)
		return EXIT_OK;
	if (!key_of(l, r, e))
		return out_of_memory();
	if (r->to) {
		struct bp_span_end to = { e->ev.ns, e->ev.tid, e->site_id, 0 };
		struct bp_span sp;
		bool was_open = bp_spans_is_open(&l->spans, l->key.b, l->key.len);
		int c = was_open || !r->from ? bp_spans_close(&l->spans, l->key.b, l->key.len, &to, &sp) : 0;

		if (c < 0)
			return out_of_memory();
		if (c == 1 && sp.from.flags & SPAN_CHOSEN &&
		    (!l->where_to || bp_where_match_fields(l->where_to, t, e->site_id, l->vals, (size_t)n)) &&
		    !closed(l, &sp))
			return out_of_memory();
	}
	if (r->from && !open_span(l, r, t, n, e))
		return out_of_memory();
	return EXIT_OK;
}

static void describe(struct latency *l)
{
	size_t len = (size_t)snprintf(l->what, sizeof(l->what), "latency");

	if (l->by && len < sizeof(l->what))
		len += (size_t)snprintf(l->what + len, sizeof(l->what) - len, " by %s", l->by);
	for (size_t i = 0; i < l->o.nkeys && len < sizeof(l->what); i++)
		len += (size_t)snprintf(l->what + len, sizeof(l->what) - len, "%s%s",
					i ? ", " : ", paired by ", l->o.keys[i]);
	if (!l->o.nkeys && len < sizeof(l->what))
		len += (size_t)snprintf(l->what + len, sizeof(l->what) - len, ", paired by thread");
	if (l->o.where_expr && len < sizeof(l->what))
		len += (size_t)snprintf(l->what + len, sizeof(l->what) - len, " where %s",
					l->o.where_expr);
}

static bool latency_render(void *ctx, struct bp_trace *t, bool final)
{
	struct latency *l = ctx;

	l->agg.what = l->what;
	l->agg.lost = trace_lost(t);
	l->agg.not_yet = final ? 0 : trace_not_yet(t);
	l->agg.unmatched_opens = bp_spans_count_open(&l->spans, SPAN_CHOSEN);
	l->agg.unmatched_closes = l->spans.unmatched_closes;
	bp_agg_finish(&l->agg);
	if (l->ls && final)
		return latency_sched_output(l->ls, &l->o, &l->agg, l->what);
	return analyze_output(&l->o, &l->agg, l->what, final);
}

static void latency_init(struct latency *l)
{
	static const char *const tid_name[] = { "tid" };

	bp_agg_init(&l->agg, BP_DIST_UNSIGNED, l->o.buckets, l->o.width);
	bp_spans_init(&l->spans);
	bp_top_init(&l->agg.top, l->top);
	l->agg.spans = l->agg.time_ns = true;
	l->agg.value_name = "latency";
	l->agg.key_names = &l->by;
	l->agg.nkeys = l->by ? 1 : 0;
	memcpy(l->top_names, l->o.keys, l->o.nkeys * sizeof(l->top_names[0]));
	l->agg.top_key_names = l->o.nkeys ? l->top_names : tid_name;
	l->agg.ntop_keys = l->o.nkeys ? l->o.nkeys : 1;
	describe(l);
	if (l->sched)
		l->ls = latency_sched_new(&l->agg, l->top);
}

int cmd_latency(int argc, char **argv)
{
	static const struct analyze_ops ops = { latency_record, latency_render, .args_only = false };
	struct latency l = { .o = { .sub = "latency", .interval = 100 } };
	int rc;

	l.from = bp_sites_new();
	l.to = bp_sites_new();
	if (!l.from || !l.to)
		rc = out_of_memory();
	else if ((rc = parse_latency_args(argc, argv, &l)) < 0) {
		latency_init(&l);
		rc = l.sched && !l.ls ? out_of_memory() : analyze_run(&l.o, &ops, latency_check, &l);
		latency_sched_free(l.ls);
		bp_agg_free(&l.agg);
		bp_spans_free(&l.spans);
	}
	bp_sites_free(l.from);
	bp_sites_free(l.to);
	bp_where_free(l.where_to);
	analyze_free(&l.o);
	bp_key_free(&l.key);
	bp_key_free(&l.bykey);
	free(l.roles);
	return rc;
}
