/*
 * bprint latency: spans between two call sites, as the kernel's synthetic
 * events pair two events.  A record of a --from site opens a span; a
 * record of a --to site closes an open span with the same key (the -k
 * fields' values, which both sites must have, or the thread when there is
 * no -k): the most recent one (--pair latest: spans nest, as calls do),
 * the oldest (fifo: a pipelined client's answers in the order asked), or
 * all of them (all-before).  A record whose site is chosen by both closes
 * what is open, then opens the next span.
 *
 * The durations (ns) go into one distribution per value of the --by
 * fields, each of the from-record (from.FIELD, or FIELD) or of the
 * to-record (to.FIELD), as a synthetic event carries fields of both ends;
 * --where chooses the spans by their from-record and --where-to by their
 * to-record.  Opens never closed and closes without an open are counted
 * and shown; --top N lists the longest spans.
 */
#include "analyze.h"
#include "latency_sched.h"

#include <stdlib.h>
#include <string.h>

#define SPAN_CHOSEN 1u	/* its from-record satisfies --where */

/* A --by field: of the from-record (from.FIELD, or a bare FIELD) or of
 * the to-record (to.FIELD). */
struct by_field {
	const char *name;		/* FIELD */
	bool to;
	int pos;			/* its place in the binding's fields */
};

/* The binding's roles (bprint/analysis.h): a --from site (with --where), a
 * --to site (with --where-to); its fields, the -k fields first, then the
 * --by fields, each of its end's sites only. */
enum { ROLE_FROM, ROLE_TO };

/* A site's part in the pairing: its plan, and which ends it is. */
struct site_role {
	const struct bp_bind_site *s;
	const struct bp_field_value *vals;	/* its record's fields, decoded */
	bool from, to;
};

struct latency {
	struct analyze_opts o;
	struct bp_sites *from, *to;
	enum bp_pair pair;		/* --pair */
	struct by_field by[ANALYZE_MAX_KEYS];
	const char *by_names[ANALYZE_MAX_KEYS];	/* as given: the groups' key names */
	size_t nby;
	bool by_to;			/* some --by field is the to-record's */
	char *where_to_text;		/* every --where-to's terms, joined */
	struct bp_where *where_to;
	size_t top;
	struct bp_spans *spans;		/* the pairing (bprint/spans.h) */
	struct bp_agg *agg;
	struct bp_bind *bind;		/* the sites' roles and fields */
	struct bp_key key, bykey;	/* the pairing key; the --by values at the open */
	struct bp_key group;		/* the --by values in order, at the close */
	struct bp_field_value vals[BP_PLAN_MAX_ARGS];	/* a layout's fields, at most */
	const char *top_names[ANALYZE_MAX_KEYS];
	char what[512];
	bool reads;			/* -k, --by, --where or --where-to: a record
					 * without its fields pairs with nothing */
	bool sched;			/* --sched */
	struct latency_sched *ls;	/* its split (latency_sched.h) */
};

static void latency_help(void)
{
	printf("Usage: %s latency --from SITE --to SITE [OPTION]... FILE|PID\n"
	       "Pair the records of two call sites into spans and aggregate their durations\n"
	       "(ns): count, min, mean, percentiles (p50, p90, p99, p99.9 unless\n"
	       "--percentiles), max, sum and a histogram.\n"
	       "\n"
	       "  -F, --from=SITE       a record of SITE opens a span (an id or a pattern as\n"
	       "                        report's --site takes; repeatable)\n"
	       "  -T, --to=SITE         a record of SITE closes an open span of its key\n"
	       "  -k, --key=FIELD       pair by FIELD's value, which both sites must have\n"
	       "                        (repeatable); without -k, spans pair within a thread\n"
	       "      --pair=RULE       which open span of its key a to-record closes: latest\n"
	       "                        (the default: spans nest), fifo (the oldest: answers\n"
	       "                        in the order asked), all-before (every one open)\n"
	       "  -b, --by=FIELD        one distribution per value of FIELD: from.FIELD (or\n"
	       "                        FIELD) of the from-record, to.FIELD of the to-record\n"
	       "                        (repeatable: a tuple)\n"
	       "  -w, --where=EXPR      only spans whose from-record satisfies EXPR (as hist's;\n"
	       "                        repeated, every one must hold)\n"
	       "      --where-to=EXPR   only spans whose to-record satisfies EXPR (repeatable)\n"
	       "  -n, --top=N           list the N longest spans\n"
	       "  -t, --tid=TID         only records of thread TID (repeatable)\n"
	       "      --buckets=KIND    log2 (default) or linear:WIDTH (ns)\n"
	       ANALYZE_GROUP_HELP
	       "      --json            one JSON document\n"
	       "      --csv             the groups as CSV, with a header line\n"
	       "      --svg=OUT         also write the plots to OUT as SVG: the histogram, the\n"
	       "                        percentiles (p50 .. p99.99 on a 1/(1-p) scale) and,\n"
	       "                        with --every, p50 and p99 over time\n"
	       "      --sched           split each span's time into running, runnable and\n"
	       "                        blocked by the scheduler's events (a record --kernel\n"
	       "                        trace) of the thread that ends it; for the --top\n"
	       "                        spans, who ran instead and who woke it; with --svg,\n"
	       "                        a bar a group of its spans' mean parts\n"
	       "  -f, --follow          a live FILE (or PID): redraw every second until\n"
	       "                        interrupted or the process ends\n"
	       "  -h, --help            show this help\n"
	       "\n"
	       "A client that pipelines (reads 16 commands at once, then answers each) opens\n"
	       "16 spans of one key before the first answer: fifo pairs the first answer with\n"
	       "the first command; latest with the 16th; all-before closes all 16 at once.\n"
	       "Each group says whether its percentiles are exact or within 1%% (see hist).\n"
	       "\n"
	       EXIT_STATUS_HELP,
	       prog);
}

static int parse_pair(struct latency *l, const char *arg)
{
	static const char *const rules[] = { [BP_PAIR_LATEST] = "latest", [BP_PAIR_FIFO] = "fifo",
					     [BP_PAIR_ALL_BEFORE] = "all-before" };

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (!strcmp(arg, rules[i])) {
			l->pair = (enum bp_pair)i;
			return 0;
		}
	return usage_error("latency", "--pair: expected latest, fifo or all-before, not '%s'", arg);
}

/* --by [from.|to.]FIELD */
static int parse_by(struct latency *l, const char *arg)
{
	struct by_field *b = &l->by[l->nby];

	if (l->nby == ANALYZE_MAX_KEYS)
		return usage_error("latency", "--by: at most %d fields", ANALYZE_MAX_KEYS);
	*b = (struct by_field){ .name = arg };
	if (!strncmp(arg, "from.", 5))
		b->name = arg + 5;
	else if (!strncmp(arg, "to.", 3))
		b->name = arg + 3, b->to = true;
	if (!*b->name)
		return usage_error("latency", "--by: expected FIELD, from.FIELD or to.FIELD, not '%s'",
				   arg);
	l->by_names[l->nby++] = arg;
	l->by_to |= b->to;
	return 0;
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
		{ "pair", required_argument, NULL, 'R' },
		{ "sched", no_argument, NULL, 'H' },
		ANALYZE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
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
		case 'b': rc = parse_by(l, optarg); break;
		case 'R': rc = parse_pair(l, optarg); break;
		case 'H': l->sched = true; break;
		case 'n': rc = parse_top(l, optarg); break;
		case 'W':
			rc = where_option("latency", "--where-to", &l->where_to,
					  &l->where_to_text, optarg);
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
	if (l->sched && l->o.follow)
		return usage_error("latency", "--sched: not with --follow (yet)");
	return analyze_finish_args(&l->o, argc, argv);
}

/* Every -k field (and --by) named exists where it must. */
static int latency_check(void *ctx, struct bp_trace *t, const char *path)
{
	struct latency *l = ctx;
	struct bp_sites *ends[2] = { l->from, l->to };
	const char *end_name[2] = { "--from", "--to" };
	char err[256];

	for (int e = 0; e < 2; e++) {
		const char *pat = bp_sites_unmatched(ends[e], t);

		if (pat && !l->o.follow) {
			return sub_error("latency", "%s %s: no such site in %s (see '%s formats')",
			       end_name[e], pat, path, prog);
		}
		if (pat)
			continue;
		for (size_t i = 0; i < l->o.nkeys; i++)
			if (!bp_bind_field_type(l->bind, t, e, i, ~0u))
				return sub_error("latency", "-k %s: no %s site has this field (both "
						 "ends need the key; see '%s formats')", l->o.keys[i],
						 end_name[e], prog);
	}
	for (size_t i = 0; i < l->nby; i++) {
		struct bp_sites *end = l->by[i].to ? l->to : l->from;

		if (!bp_sites_unmatched(end, t) &&
		    !bp_bind_field_type(l->bind, t, l->by[i].to, (size_t)l->by[i].pos, ~0u))
			return sub_error("latency", "--by %s: no %s site has this field", l->by_names[i],
					 l->by[i].to ? "--to" : "--from");
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

/* Append the value of --by field b as plan s (of b's end) has it. */
static bool add_by(struct bp_key *k, const struct bp_bind_site *s, const struct by_field *b,
		   const struct bp_field_value *vals)
{
	int16_t idx = s->index[b->pos];

	return idx >= 0 ? bp_key_add_field(k, s->lay->fields[idx].type, &vals[idx])
			: bp_key_add_none(k);
}

/*
 * The group of a span closed at the to-record of role r: the --by values
 * in their order, those of the from-record as the open kept them, those
 * of the to-record from l->vals.  Without a to.FIELD, what the open kept.
 */
static bool group_of(struct latency *l, const struct site_role *r, struct bp_span *sp)
{
	size_t pos = 0;

	if (!l->by_to)
		return true;
	bp_key_reset(&l->group);
	for (size_t i = 0; i < l->nby; i++) {
		size_t n = l->by[i].to ? 0 : bp_key_item_size(sp->by, sp->bylen, pos);

		if (l->by[i].to ? !add_by(&l->group, r->s, &l->by[i], r->vals) :
				  !bp_key_append(&l->group, sp->by + pos, n))
			return false;
		pos += n;
	}
	sp->by = l->group.b, sp->bylen = l->group.len;
	return true;
}

/* A span closed at a record of role r: into its group and the top list. */
static bool closed(struct latency *l, const struct site_role *r, struct bp_span *sp)
{
	return group_of(l, r, sp) && !bp_agg_add_span(l->agg, sp) &&
	       (!l->ls || latency_sched_span(l->ls, sp));
}

/* The pairing key of a record: its -k values, or its thread. */
static bool key_of(struct latency *l, const struct site_role *r, const struct bp_bind_rec *e)
{
	bp_key_reset(&l->key);
	if (!l->o.nkeys)
		return bp_key_add_uint(&l->key, (uint64_t)(uint32_t)e->tid);
	return analyze_key(&l->key, r->s, l->o.nkeys, r->vals);
}

/* Open a span at e; it is only counted when it closes if --where holds. */
static bool open_span(struct latency *l, const struct site_role *r, struct bp_trace *t, int n,
		      const struct bp_bind_rec *e)
{
	bool chosen = !l->o.where || bp_bind_role_holds(l->bind, t, r->s, ROLE_FROM, r->vals, n);
	struct bp_span_end from = { e->ns, e->tid, e->site_id, chosen ? SPAN_CHOSEN : 0 };

	bp_key_reset(&l->bykey);
	for (size_t i = 0; i < l->nby; i++)
		if (!l->by[i].to && !add_by(&l->bykey, r->s, &l->by[i], r->vals))
			return false;
	return bp_spans_open(l->spans, l->key.b, l->key.len, &from, l->bykey.b, l->bykey.len);
}

/* The to-record e (of n fields decoded) closes what the pairing rule
 * says; a site that also opens counts no close without an open. */
static int close_spans(struct latency *l, const struct site_role *r, struct bp_trace *t, int n,
		       const struct bp_bind_rec *e)
{
	struct bp_span_end to = { e->ns, e->tid, e->site_id, 0 };
	bool chosen_to = !l->where_to || bp_bind_role_holds(l->bind, t, r->s, ROLE_TO, r->vals, n);
	int c;

	if (r->from && !bp_spans_is_open(l->spans, l->key.b, l->key.len))
		return EXIT_OK;
	do {
		struct bp_span sp;

		if ((c = bp_spans_close(l->spans, l->key.b, l->key.len, &to, &sp)) < 0)
			return EXIT_IO;
		if (c == 1 && sp.from.flags & SPAN_CHOSEN && chosen_to && !closed(l, r, &sp))
			return EXIT_IO;
	} while (c == 1 && l->pair == BP_PAIR_ALL_BEFORE &&
		 bp_spans_is_open(l->spans, l->key.b, l->key.len));
	return EXIT_OK;
}

/* A record of a chosen site (r->s), its fields decoded if l->reads (n:
 * bp_bind_decode()'s, < 0 then skips it). */
static int latency_fields(struct latency *l, struct bp_trace *t, struct site_role *r,
			  const struct bp_bind_rec *e)
{
	int n = l->reads ? e->n : 0;

	if (n < 0)
		return EXIT_OK;
	r->from = r->s->roles & 1u << ROLE_FROM;
	r->to = r->s->roles & 1u << ROLE_TO;
	if (!key_of(l, r, e))
		return out_of_memory();
	if (r->to && close_spans(l, r, t, n, e) != EXIT_OK)
		return out_of_memory();
	if (r->from && !open_span(l, r, t, n, e))
		return out_of_memory();
	return EXIT_OK;
}

static int latency_record(void *ctx, struct bp_trace *t, const struct bp_trace_event *e)
{
	struct latency *l = ctx;
	struct site_role role = { .vals = l->vals };
	struct bp_bind_rec r = { .tid = e->tid, .site_id = e->site_id, .ns = e->ns };

	if (l->ls && !latency_sched_event(l->ls, t, e))
		return out_of_memory();
	/* (the fields decoded if -k, --by, --where or --where-to asks) */
	if (!(role.s = bp_bind_site(l->bind, t, e->site_id)))
		return EXIT_OK;
	if (l->reads)
		r.n = bp_bind_decode(role.s, e, l->vals, BP_PLAN_MAX_ARGS);
	return latency_fields(l, t, &role, &r);
}

/* Records bp_bind_next() read (no --tid, no --sched: every record of a
 * chosen site), their fields decoded. */
static int latency_bound(void *ctx, struct bp_trace *t, const struct bp_bind_rec *r, int n)
{
	for (int i = 0; i < n; i++) {
		struct site_role role = { .s = r[i].s, .vals = r[i].vals };
		int rc = latency_fields(ctx, t, &role, &r[i]);

		if (rc != EXIT_OK)
			return rc;
	}
	return EXIT_OK;
}

static void describe(struct latency *l)
{
	size_t len = (size_t)snprintf(l->what, sizeof(l->what), "latency");

	for (size_t i = 0; i < l->nby && len < sizeof(l->what); i++)
		len += (size_t)snprintf(l->what + len, sizeof(l->what) - len, "%s%s",
					i ? ", " : " by ", l->by_names[i]);
	for (size_t i = 0; i < l->o.nkeys && len < sizeof(l->what); i++)
		len += (size_t)snprintf(l->what + len, sizeof(l->what) - len, "%s%s",
					i ? ", " : ", paired by ", l->o.keys[i]);
	if (!l->o.nkeys && len < sizeof(l->what))
		len += (size_t)snprintf(l->what + len, sizeof(l->what) - len, ", paired by thread");
	if (l->pair != BP_PAIR_LATEST && len < sizeof(l->what))
		len += (size_t)snprintf(l->what + len, sizeof(l->what) - len, " (%s)",
					l->pair == BP_PAIR_FIFO ? "fifo" : "all-before");
	if (l->o.where_expr && len < sizeof(l->what))
		len += (size_t)snprintf(l->what + len, sizeof(l->what) - len, " where %s",
					l->o.where_expr);
}

static bool latency_render(void *ctx, struct bp_trace *t, bool final)
{
	struct latency *l = ctx;

	bp_agg_set_what(l->agg, l->what);
	bp_agg_set_lost(l->agg, trace_lost(t),
			final && !follow_writer_at_work(t) ? 0 : trace_not_yet(t));
	bp_agg_set_unmatched(l->agg, bp_spans_count_open(l->spans, SPAN_CHOSEN),
			     bp_spans_unmatched_closes(l->spans));
	bp_agg_finish(l->agg);
	if (l->ls && final)
		return latency_sched_output(l->ls, &l->o, l->agg, trace_lost(t), l->what);
	return analyze_output(&l->o, l->agg, l->what, final);
}

/* The binding: the ends as roles with their --where, the -k fields
 * (which both must have), then each --by field (which its end's sites
 * may lack).  -1 to go on, or an exit code. */
static int bind_ends(struct latency *l)
{
	bool ok = bp_bind_role(l->bind, l->from, l->o.where) == ROLE_FROM &&
		  bp_bind_role(l->bind, l->to, l->where_to) == ROLE_TO;

	for (size_t i = 0; i < l->o.nkeys && ok; i++)
		ok = bp_bind_field(l->bind, l->o.keys[i], 0) >= 0;
	for (size_t i = 0; i < l->nby && ok; i++)
		ok = (l->by[i].pos = bp_bind_field(l->bind, l->by[i].name,
						   BP_BIND_OPTIONAL |
						   BP_BIND_FOR_ROLE(l->by[i].to ? ROLE_TO : ROLE_FROM))) >= 0;
	l->reads = l->o.nkeys || l->nby || l->o.where || l->where_to;
	return ok ? -1 : out_of_memory();
}

/* The aggregate, the pairing and --sched's split: false if memory ran out. */
static bool latency_init(struct latency *l)
{
	static const char *const tid_name[] = { "tid" };

	if (!(l->agg = analyze_agg_new(&l->o, BP_DIST_UNSIGNED)) ||
	    !(l->spans = bp_spans_new(l->pair)))
		return false;
	memcpy(l->top_names, l->o.keys, l->o.nkeys * sizeof(l->top_names[0]));
	if (bp_agg_set_spans(l->agg, l->top, l->o.nkeys ? l->top_names : tid_name,
			     l->o.nkeys ? l->o.nkeys : 1))
		return false;
	bp_agg_set_names(l->agg, l->by_names, l->nby, "latency");
	describe(l);
	if (l->sched &&
	    !(l->ls = latency_sched_new(l->o.buckets, l->o.width, l->by_names, l->nby, l->top)))
		return false;
	return true;
}

int cmd_latency(int argc, char **argv)
{
	struct analyze_ops ops = { latency_record, latency_render, .args_time = true };
	struct latency l = { .o = { .sub = "latency", .interval = 100 } };
	int rc;

	l.from = bp_sites_new();
	l.to = bp_sites_new();
	l.bind = bp_bind_new(0);
	if (!l.from || !l.to || !l.bind)
		rc = out_of_memory();
	else if ((rc = parse_latency_args(argc, argv, &l)) < 0 && (rc = bind_ends(&l)) < 0) {
		ops.args_only = !l.sched;	/* a span needs its ends' time, thread and site;
						 * --sched, every kernel event's all */
		if (!l.sched)
			ops.bind = l.bind, ops.bound = latency_bound;
		rc = !latency_init(&l) ? out_of_memory() : analyze_run(&l.o, &ops, latency_check, &l);
		latency_sched_free(l.ls);
		bp_agg_free(l.agg);
		bp_spans_free(l.spans);
	}
	bp_sites_free(l.from);
	bp_sites_free(l.to);
	bp_where_free(l.where_to);
	free(l.where_to_text);
	analyze_free(&l.o);
	bp_key_free(&l.key);
	bp_key_free(&l.bykey);
	bp_key_free(&l.group);
	bp_bind_free(l.bind);
	return rc;
}
