/*
 * latency --sched (latency_sched.h).  Every span the total counts is
 * split at once, when it closes, by the state changes of the thread that
 * closes it (bprint/spans.h's bp_sched keeps them); the parts go into three more
 * aggregates keyed as the total is, and the longest spans keep their
 * whole split for the list at the end.
 */
#include "latency_sched.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { PART_RUNNING, PART_RUNNABLE, PART_BLOCKED, NPARTS };

static const char *const part_names[NPARTS] = { "running", "runnable", "blocked" };

struct top_span {
	uint64_t from, to;
	int32_t tid;
	struct bp_sched_split split;
};

struct latency_sched {
	struct bp_sched *sched;
	struct bp_agg *part[NPARTS];
	char what[NPARTS][96];
	uint64_t unknown_ns, unknown_spans;
	struct top_span *top;		/* longest first */
	size_t ntop, maxtop;
};

struct latency_sched *latency_sched_new(enum bp_bucket_kind buckets, double width,
					const char *const *key_names, size_t nkeys, size_t top)
{
	struct latency_sched *ls = calloc(1, sizeof(*ls));

	if (!ls || !(ls->sched = bp_sched_new()) ||
	    (top && !(ls->top = calloc(top, sizeof(*ls->top))))) {
		latency_sched_free(ls);
		return NULL;
	}
	ls->maxtop = top;
	for (int p = 0; p < NPARTS; p++) {
		struct bp_agg *a = ls->part[p] = bp_agg_new(BP_DIST_UNSIGNED, buckets, width);

		if (!a) {
			latency_sched_free(ls);
			return NULL;
		}
		bp_agg_set_time_ns(a, true);
		bp_agg_set_names(a, key_names, nkeys, part_names[p]);
		snprintf(ls->what[p], sizeof(ls->what[p]), "%s, of the same spans (the thread that "
			 "ends each)", part_names[p]);
		bp_agg_set_what(a, ls->what[p]);
	}
	return ls;
}

void latency_sched_free(struct latency_sched *ls)
{
	if (!ls)
		return;
	for (int p = 0; p < NPARTS; p++)
		bp_agg_free(ls->part[p]);
	bp_sched_free(ls->sched);
	free(ls->top);
	free(ls);
}

bool latency_sched_event(struct latency_sched *ls, struct bp_trace *t,
			 const struct bp_trace_event *e)
{
	return bp_sched_event(ls->sched, t, e);
}

static void keep_top(struct latency_sched *ls, const struct bp_span *sp,
		     const struct bp_sched_split *split)
{
	uint64_t d = sp->to.ns - sp->from.ns;
	size_t i = ls->ntop;

	if (!ls->maxtop || (ls->ntop == ls->maxtop &&
			    d <= ls->top[ls->ntop - 1].to - ls->top[ls->ntop - 1].from))
		return;
	if (i == ls->maxtop)
		i--;
	else
		ls->ntop++;
	for (; i > 0 && ls->top[i - 1].to - ls->top[i - 1].from < d; i--)
		ls->top[i] = ls->top[i - 1];
	ls->top[i] = (struct top_span){ sp->from.ns, sp->to.ns, sp->to.tid, *split };
}

bool latency_sched_span(struct latency_sched *ls, const struct bp_span *sp)
{
	struct bp_sched_split s = BP_SCHED_SPLIT_INIT;
	uint64_t v[NPARTS];

	if (sp->to.ns < sp->from.ns)
		return true;
	bp_sched_split(ls->sched, sp->to.tid, sp->from.ns, sp->to.ns, &s);
	v[PART_RUNNING] = s.running;
	v[PART_RUNNABLE] = s.runnable;
	v[PART_BLOCKED] = s.blocked;
	for (int p = 0; p < NPARTS; p++)
		if (bp_agg_add(ls->part[p], sp->by, sp->bylen, (union bp_dist_value){ .u = v[p] },
			       sp->to.ns))
			return false;
	if (s.unknown) {
		ls->unknown_ns += s.unknown;
		ls->unknown_spans++;
	}
	keep_top(ls, sp, &s);
	return true;
}

/* ---- output ------------------------------------------------------------- */

static void ms(char *buf, size_t size, uint64_t ns)
{
	snprintf(buf, size, "%.3fms", (double)ns / 1e6);
}

static void who_text(const struct latency_sched *ls, FILE *out, const char *label,
		     const int32_t *who, const uint64_t *ns)
{
	char d[32];

	if (!who[0])
		return;
	fprintf(out, " %s", label);
	for (unsigned i = 0; i < BP_SCHED_WHO && who[i]; i++) {
		fprintf(out, "%s%s-%d", i ? ", " : " ", bp_sched_comm(ls->sched, who[i]),
			bp_sched_tid(who[i]));
		if (ns) {
			ms(d, sizeof(d), ns[i]);
			fprintf(out, " %s", d);
		}
	}
	fputc(';', out);
}

static bool text_output(struct latency_sched *ls, struct bp_agg *total)
{
	char a[32], b[32], c[32], d[32], from[32], to[32];
	bool ok = bp_agg_text(total, stdout, true);

	for (int p = 0; p < NPARTS; p++) {
		fputc('\n', stdout);
		ok = bp_agg_text(ls->part[p], stdout, false) && ok;
	}
	if (ls->unknown_spans)
		printf("\n# %llu span%s partly before its thread's first scheduler event or in "
		       "events the kernel lost: %.3fms unknown in all\n", (unsigned long long)ls->unknown_spans,
		       ls->unknown_spans == 1 ? "" : "s", (double)ls->unknown_ns / 1e6);
	if (ls->ntop)
		printf("\n# where the %zu longest spans' time went\n", ls->ntop);
	for (size_t i = 0; i < ls->ntop; i++) {
		const struct top_span *s = &ls->top[i];

		ms(a, sizeof(a), s->to - s->from);
		ms(b, sizeof(b), s->split.running);
		ms(c, sizeof(c), s->split.runnable);
		ms(d, sizeof(d), s->split.blocked);
		bp_agg_seconds(from, sizeof(from), s->from, false);
		bp_agg_seconds(to, sizeof(to), s->to, false);
		printf("%10s  tid %d  %s -> %s  running %s  runnable %s  blocked %s;", a, s->tid, from,
		       to, b, c, d);
		who_text(ls, stdout, "ran instead:", s->split.instead, s->split.instead_ns);
		who_text(ls, stdout, "woken by:", s->split.waker, NULL);
		fputc('\n', stdout);
	}
	return ok;
}

/* An aggregate's JSON document, without its newline, into out. */
static bool agg_json_into(const struct bp_agg *a, FILE *out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	bool ok = mem && bp_agg_json(a, mem);

	if (mem)
		fclose(mem);
	while (ok && len && buf[len - 1] == '\n')
		len--;
	if (ok)
		fwrite(buf, 1, len, out);
	free(buf);
	return ok;
}

static void who_json(const struct latency_sched *ls, const char *name, const int32_t *who,
		     const uint64_t *ns)
{
	printf(",\"%s\":[", name);
	for (unsigned i = 0; i < BP_SCHED_WHO && who[i]; i++) {
		printf("%s{\"tid\":%d,\"comm\":\"", i ? "," : "", bp_sched_tid(who[i]));
		for (const char *c = bp_sched_comm(ls->sched, who[i]); *c; c++)
			printf(*c == '"' || *c == '\\' ? "\\%c" : (unsigned char)*c < 0x20 ? "?" : "%c", *c);
		putchar('"');
		if (ns)
			printf(",\"ns\":%llu", (unsigned long long)ns[i]);
		putchar('}');
	}
	putchar(']');
}

static bool json_output(struct latency_sched *ls, struct bp_agg *total)
{
	bool ok;

	fputs("{\"latency\":", stdout);
	ok = agg_json_into(total, stdout);
	for (int p = 0; p < NPARTS; p++) {
		printf(",\"%s\":", part_names[p]);
		ok = agg_json_into(ls->part[p], stdout) && ok;
	}
	printf(",\"unknown\":{\"spans\":%llu,\"ns\":%llu},\"top\":[",
	       (unsigned long long)ls->unknown_spans, (unsigned long long)ls->unknown_ns);
	for (size_t i = 0; i < ls->ntop; i++) {
		const struct top_span *s = &ls->top[i];

		printf("%s{\"ns\":%llu,\"tid\":%d,\"running\":%llu,\"runnable\":%llu,\"blocked\":%llu,"
		       "\"unknown\":%llu", i ? "," : "", (unsigned long long)(s->to - s->from), s->tid,
		       (unsigned long long)s->split.running, (unsigned long long)s->split.runnable,
		       (unsigned long long)s->split.blocked, (unsigned long long)s->split.unknown);
		who_json(ls, "ran_instead", s->split.instead, s->split.instead_ns);
		who_json(ls, "woken_by", s->split.waker, NULL);
		putchar('}');
	}
	fputs("]}\n", stdout);
	return ok;
}

/* Each aggregate's CSV with a first column naming it; one header. */
static bool csv_output(struct latency_sched *ls, struct bp_agg *total)
{
	const struct bp_agg *all[NPARTS + 1] = { total, ls->part[0], ls->part[1], ls->part[2] };
	const char *names[NPARTS + 1] = { "total", part_names[0], part_names[1], part_names[2] };
	bool ok = true;

	for (int p = 0; p <= NPARTS; p++) {
		char *buf = NULL, *line, *save = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);

		ok = mem && bp_agg_csv(all[p], mem) && ok;
		if (mem)
			fclose(mem);
		for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line && ok;
		     line = strtok_r(NULL, "\n", &save)) {
			if (line == buf && p == 0)
				printf("part,%s\n", line);
			else if (line != buf)
				printf("%s,%s\n", names[p], line);
		}
		free(buf);
	}
	return ok;
}

/* --svg: a bar a group (the total's order), its spans' mean running,
 * runnable and blocked time stacked. */
static bool svg_output(struct latency_sched *ls, const struct bp_agg *total, const char *path,
		       const char *title)
{
	const struct bp_agg *parts[NPARTS] = { ls->part[0], ls->part[1], ls->part[2] };
	FILE *out = fopen(path, "w");
	bool ok;

	if (!out) {
		errmsg(path, "%s", strerror(errno));
		return false;
	}
	ok = bp_agg_svg_parts(total, parts, part_names, NPARTS, out, title, "mean time a span");
	if (fclose(out) != 0 || !ok) {
		errmsg(path, "write error: %s", strerror(errno ? errno : EIO));
		return false;
	}
	return true;
}

bool latency_sched_output(struct latency_sched *ls, const struct analyze_opts *o,
			  struct bp_agg *total, uint64_t lost, const char *title)
{
	bool ok;

	for (int p = 0; p < NPARTS; p++) {
		bp_agg_set_lost(ls->part[p], lost, 0);
		bp_agg_finish(ls->part[p]);
	}
	if (!bp_sched_seen(ls->sched))
		errmsg("latency", "--sched: the trace has no scheduler events (record it with "
				  "'bprint record --kernel')");
	if (o->json)
		ok = json_output(ls, total);
	else if (o->csv)
		ok = csv_output(ls, total);
	else
		ok = text_output(ls, total);
	if (o->svg)
		ok = svg_output(ls, total, o->svg, title) && ok;
	return finish_output() == EXIT_OK && ok;
}
