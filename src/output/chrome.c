/*
 * A trace file as Chrome's Trace Event Format, JSON object form
 * (docs/exporters.md), for Perfetto UI and chrome://tracing:
 *
 *   {"displayTimeUnit":"ns","otherData":{...},"traceEvents":[
 *   {"ph":"M","cat":"__metadata","name":"process_name","pid":P,"tid":P,"args":{"name":"comm"}},
 *   {"ph":"M","cat":"__metadata","name":"thread_name","pid":P,"tid":T,"args":{"name":"worker"}},
 *   {"ph":"i","s":"t","name":"func","cat":"a.c","ts":12.345,"pid":P,"tid":T,
 *    "args":{"msg":"x=1 y=2","x":1,"y":2,"cpu":1,"line":42,"site":7}},
 *   ...]}
 *
 * One instant event per record, named after its site (output/names.h),
 * of the site's file as category, ts in microseconds with the nanoseconds
 * as three decimals; the message and the typed arguments (the site
 * layout's fields, docs/fields.md) in args, then the record's cpu, line
 * and site unless an argument has that name.  A thread_name event the first time a thread appears and
 * whenever its name changes; a "records lost" instant event (args.lost)
 * before a record that follows lost records.  Written as read, through
 * the frame's buffer (output/frame.h), 64 KiB at a time.  Strings are escaped for
 * JSON; bytes that are not UTF-8 become the code point of the same value
 * (\u0080 to \u00ff), so any message gives valid JSON.  An argument has
 * one JSON type in every record: integers are numbers, their exact digits
 * even beyond 2^53 (JavaScript readers round those, Python and
 * trace_processor do not), pointers "0x..." strings (%pS: the symbol),
 * doubles numbers (only the non-finite ones, which JSON cannot write, as
 * "nan", "inf", "-inf").
 *
 * The kernel's events of a record --kernel trace are not events here but
 * the traced threads' running slices: from a sched_switch to a traced
 * thread (one that wrote records) to the next switch away from it on
 * that CPU, a complete event ("ph":"X", name "running", cat "sched", args
 * cpu) on the thread; a slice still open at the end, or across events
 * the kernel lost on its CPU, is left out.
 */
#include "output/frame.h"
#include "output/json.h"
#include "output/names.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define FLUSH_AT (64u << 10)	/* bytes written to the output at a time */

struct cx {
	struct bp_out_buf *out;	/* the frame's */
	int64_t pid;
	bool started;		/* an event is written */
	uint64_t async_ids;	/* keyed spans written as async events */
	int32_t *traced;	/* the tids of the program's rings, sorted */
	size_t ntraced;
	struct running { uint64_t ns; int32_t tid; } *cpu;	/* tid 0: none */
	size_t ncpu;
};

static int by_tid(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

static bool is_traced(const struct cx *x, int32_t tid)
{
	return tid > 0 && x->ntraced && bsearch(&tid, x->traced, x->ntraced, sizeof(tid), by_tid);
}

/* The traced threads: those of the program's rings. */
static int traced_threads(struct cx *x, struct bp_trace *t)
{
	size_t n = bp_trace_nrings(t);

	if (!(x->traced = calloc(n ? n : 1, sizeof(*x->traced))))
		return BP_TRACE_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct bp_trace_ring *r = bp_trace_ring_at(t, i);

		if (r && r->tid > 0)
			x->traced[x->ntraced++] = r->tid;
	}
	qsort(x->traced, x->ntraced, sizeof(*x->traced), by_tid);
	return 0;
}

static void json_str(struct bp_out_buf *out, const char *str, size_t n)
{
	bp_json_buf_str(out, str, n);
}

static void json_cstr(struct bp_out_buf *out, const char *s)
{
	json_str(out, s ? s : "", s ? strlen(s) : 0);
}

static void ts_us(struct bp_out_buf *out, uint64_t ns)
{
	char frac[4] = { '.', (char)('0' + ns / 100 % 10), (char)('0' + ns / 10 % 10),
			 (char)('0' + ns % 10) };

	bp_out_u64(out, ns / 1000);
	bp_out_put(out, frac, sizeof(frac));
}

/* A metadata event; the first one of the array has no comma before it. */
static void meta(struct cx *x, const char *what, int64_t tid, const char *name)
{
	struct bp_out_buf *out = x->out;

	bp_out_puts(out, x->started ? ",\n{" : "\n{");
	x->started = true;
	bp_out_puts(out, "\"ph\":\"M\",\"cat\":\"__metadata\",\"name\":\"");
	bp_out_puts(out, what);
	bp_out_puts(out, "\",\"pid\":");
	bp_out_i64(out, x->pid);
	bp_out_puts(out, ",\"tid\":");
	bp_out_i64(out, tid);
	bp_out_puts(out, ",\"args\":{\"name\":");
	json_cstr(out, name);
	bp_out_puts(out, "}}");
}

/* A finite double, exact (17 digits), always with a '.' or an exponent so
 * that JSON readers take it for a real, never an integer. */
static void json_double(struct bp_out_buf *out, double d)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%.17g", d);

	if (n > 0 && (size_t)n < sizeof(tmp) - 2 && !strpbrk(tmp, ".e"))
		tmp[n++] = '.', tmp[n++] = '0';
	bp_out_put(out, tmp, n > 0 ? (size_t)n : 0);
}

/* ,"name":value for typed argument k. */
static void json_arg(struct bp_export *fx, const struct bp_trace_layout *lay, unsigned k,
		     const struct bp_field_value *v)
{
	struct bp_out_buf *out = &fx->out;
	char c = (char)v->v.u, alias[BP_OUT_FIELD_NAME_MAX], sym[BP_OUT_SYMBOL_MAX], letter;

	/* [A-Za-z_][A-Za-z0-9_]*: no escaping */
	bp_out_puts(out, ",\"");
	bp_out_puts(out, bp_out_field_name(lay, k, alias));
	bp_out_puts(out, "\":");
	switch (lay->fields[k].type) {
	case BP_FIELD_SIGNED:	/* always a number: exact digits, whatever JavaScript rounds */
		bp_out_i64(out, v->v.i);
		break;
	case BP_FIELD_UNSIGNED:
		bp_out_u64(out, v->v.u);
		break;
	case BP_FIELD_POINTER:
		if ((letter = bp_out_symbol_letter(lay, k)))	/* %pS: as report prints it */
			json_str(out, sym, bp_out_symbol(fx->t, letter, v->v.u, sym, sizeof(sym)));
		else
			bp_out_putf(out, "\"0x%llx\"", (unsigned long long)v->v.u);
		break;
	case BP_FIELD_FLOAT:
		if (isfinite(v->v.d))
			json_double(out, v->v.d);
		else
			bp_out_puts(out, isnan(v->v.d) ? "\"nan\"" : v->v.d > 0 ? "\"inf\"" : "\"-inf\"");
		break;
	case BP_FIELD_STRING:
		json_str(out, v->s, v->len);
		break;
	default:	/* BP_FIELD_CHAR */
		json_str(out, &c, 1);
		break;
	}
}

/* The "args" object of a record. */
static void record_args(struct bp_export *fx, const struct bp_trace_event *e)
{
	const struct bp_trace_site *site = e->site;
	struct bp_field_value v[BP_PLAN_MAX_ARGS];
	const struct bp_trace_layout *lay;
	unsigned n = bp_out_record_args(fx->t, e, &lay, v);
	struct bp_out_buf *out = &fx->out;

	bp_out_puts(out, ",\"args\":{\"msg\":");
	json_str(out, e->message, e->message_len);
	for (unsigned k = 0; k < n; k++)
		json_arg(fx, lay, k, &v[k]);
	if (!n)
		lay = NULL;
	if (!bp_out_arg_named(lay, "cpu")) {
		bp_out_puts(out, ",\"cpu\":");
		bp_out_i64(out, e->cpu);
	}
	if (!bp_out_arg_named(lay, "line")) {
		bp_out_puts(out, ",\"line\":");
		bp_out_u64(out, site ? site->line : 0u);
	}
	if (!bp_out_arg_named(lay, "site")) {
		bp_out_puts(out, ",\"site\":");
		bp_out_u64(out, e->site_id);
	}
	bp_out_puts(out, "}}");
}

/* ,{"ph":"i","s":"t","name":NAME,"cat":CAT,"ts":...,"pid":P,"tid":T  (no args yet) */
static void instant(struct cx *x, const struct bp_trace_event *e, const char *name,
		    const char *cat)
{
	struct bp_out_buf *out = x->out;

	bp_out_puts(out, ",\n{\"ph\":\"i\",\"s\":\"t\",\"name\":");
	json_cstr(out, name);
	bp_out_puts(out, ",\"cat\":");
	json_cstr(out, cat);
	bp_out_puts(out, ",\"ts\":");
	ts_us(out, e->ns);
	bp_out_puts(out, ",\"pid\":");
	bp_out_i64(out, x->pid);
	bp_out_puts(out, ",\"tid\":");
	bp_out_i64(out, e->tid);
}

static int chrome_begin(struct bp_export *fx)
{
	struct cx *x = fx->own;
	struct bp_out_buf *out = &fx->out;

	x->out = out;
	x->pid = fx->info->pid;
	bp_out_puts(out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tracer\":\"bprint\",\"clock\":");
	json_cstr(out, fx->info->clock_name);
	bp_out_puts(out, ",\"cmdline\":");
	json_cstr(out, fx->info->cmdline);
	bp_out_puts(out, "},\"traceEvents\":[");
	meta(x, "process_name", x->pid, fx->info->comm);
	return bp_trace_max_site_id(fx->t) >= BP_TRACE_KERNEL_SITE_BASE ? traced_threads(x, fx->t) : 0;
}

/* Integer field name of a kernel event's values, or -1. */
static int64_t kernel_int(const struct bp_trace_layout *lay, const struct bp_field_value *v,
			  unsigned n, const char *name)
{
	for (unsigned k = 0; k < n; k++)
		if (!strcmp(lay->fields[k].name, name))
			return (int64_t)v[k].v.u;
	return -1;
}

/* A kernel event: a sched_switch ends the running slice of the thread it
 * switches away from, and starts one of the thread it switches to. */
static int kernel_event(struct bp_export *fx, struct cx *x, const struct bp_trace_event *e,
			uint64_t lost)
{
	struct bp_field_value v[BP_PLAN_MAX_ARGS];
	const struct bp_trace_layout *lay;
	unsigned n;
	struct running *run;
	int64_t prev, next;

	if (e->cpu < 0 || e->cpu >= 4096 || !e->site || !e->site->func ||
	    strcmp(e->site->func, "sched_switch") ||
	    !(n = bp_out_record_args(fx->t, e, &lay, v)))
		return 0;
	if ((size_t)e->cpu >= x->ncpu) {
		struct running *g = realloc(x->cpu, ((size_t)e->cpu + 1) * sizeof(*g));

		if (!g)
			return BP_TRACE_ENOMEM;
		memset(g + x->ncpu, 0, ((size_t)e->cpu + 1 - x->ncpu) * sizeof(*g));
		x->cpu = g;
		x->ncpu = (size_t)e->cpu + 1;
	}
	run = &x->cpu[e->cpu];
	prev = kernel_int(lay, v, n, "prev_pid");
	next = kernel_int(lay, v, n, "next_pid");
	if (lost)
		run->tid = 0;
	if (run->tid && run->tid == prev) {
		bp_out_puts(x->out, ",\n{\"ph\":\"X\",\"name\":\"running\",\"cat\":\"sched\",\"ts\":");
		ts_us(x->out, run->ns);
		bp_out_puts(x->out, ",\"dur\":");
		ts_us(x->out, e->ns - run->ns);
		bp_out_puts(x->out, ",\"pid\":");
		bp_out_i64(x->out, x->pid);
		bp_out_puts(x->out, ",\"tid\":");
		bp_out_i64(x->out, run->tid);
		bp_out_puts(x->out, ",\"args\":{\"cpu\":");
		bp_out_i64(x->out, e->cpu);
		bp_out_puts(x->out, "}}");
		fx->st.kernel++;
	}
	run->tid = is_traced(x, (int32_t)next) ? (int32_t)next : 0;
	run->ns = e->ns;
	return x->out->len >= FLUSH_AT ? bp_export_write_out(fx) : 0;
}

static int chrome_record(struct bp_export *fx, const struct bp_trace_event *e,
			 const struct bp_export_rec *r)
{
	struct cx *x = fx->own;
	const struct bp_trace_site *site = e->site;

	if (x->traced && bp_trace_event_kernel(fx->t) != BP_TRACE_FROM_PROGRAM)
		return kernel_event(fx, x, e, r->lost);
	/* a thread's name at its first event here, and whenever it changes */
	if (!r->th->lane || r->renamed) {
		r->th->lane = x;
		meta(x, "thread_name", e->tid, r->th->comm[0] ? r->th->comm : "<...>");
	}
	if (r->lost) {
		instant(x, e, "records lost", "bprint");
		bp_out_puts(x->out, ",\"args\":{\"lost\":");
		bp_out_u64(x->out, r->lost);
		bp_out_puts(x->out, "}}");
	}
	instant(x, e, bp_out_event_name(&fx->names, e->site ? e->site_id : 0),
		site && site->file && site->file[0] ? site->file : "bprint");
	record_args(fx, e);
	return x->out->len >= FLUSH_AT ? bp_export_write_out(fx) : 0;
}

/* ,"args":{"to_tid":T,FIELD:VALUE,...}} of a span: the fields of the
 * record that closed it (the key among them). */
static void span_args(struct bp_export *fx, const struct bp_export_span *sp)
{
	struct bp_out_buf *out = &fx->out;

	bp_out_puts(out, ",\"args\":{\"to_tid\":");
	bp_out_i64(out, sp->to_tid);
	for (unsigned k = 0; k < sp->nvals; k++)
		if (strcmp(sp->lay->fields[k].name, "to_tid"))
			json_arg(fx, sp->lay, k, &sp->vals[k]);
	bp_out_puts(out, "}}");
}

/* ,{"ph":PH,"name":NAME,"cat":"span","ts":NS,"pid":P,"tid":T */
static void span_event(struct cx *x, struct bp_export *fx, const char *ph, uint32_t site,
		       uint64_t ns, int32_t tid)
{
	struct bp_out_buf *out = x->out;

	bp_out_puts(out, ",\n{\"ph\":\"");
	bp_out_puts(out, ph);
	bp_out_puts(out, "\",\"name\":");
	json_cstr(out, bp_out_event_name(&fx->names, site));
	bp_out_puts(out, ",\"cat\":\"span\",\"ts\":");
	ts_us(out, ns);
	bp_out_puts(out, ",\"pid\":");
	bp_out_i64(out, x->pid);
	bp_out_puts(out, ",\"tid\":");
	bp_out_i64(out, tid);
}

/*
 * A span.  Paired within its thread (no key), spans nest: a complete event
 * ("ph":"X") on the thread, lasting until the to-record.  Paired by a key,
 * spans of one thread may overlap without nesting, which complete events
 * must not (Perfetto's importer moves them to an overflow track, older
 * viewers drop them): an async pair ("b" on the from-record's thread, "e"
 * on the to-record's) with an id of its own, each span on its own row.
 * The args (on "X" and "b") say the to-record's thread and fields.
 */
static int chrome_span(struct bp_export *fx, const struct bp_export_span *sp)
{
	struct cx *x = fx->own;
	struct bp_out_buf *out = x->out;

	if (sp->nests) {
		span_event(x, fx, "X", sp->site, sp->from_ns, sp->from_tid);
		bp_out_puts(out, ",\"dur\":");
		ts_us(out, sp->to_ns - sp->from_ns);
		span_args(fx, sp);
	} else {
		uint64_t id = ++x->async_ids;

		span_event(x, fx, "b", sp->site, sp->from_ns, sp->from_tid);
		bp_out_puts(out, ",\"id\":\"0x");
		bp_out_putf(out, "%llx", (unsigned long long)id);
		bp_out_puts(out, "\"");
		span_args(fx, sp);
		span_event(x, fx, "e", sp->site, sp->to_ns, sp->to_tid);
		bp_out_puts(out, ",\"id\":\"0x");
		bp_out_putf(out, "%llx", (unsigned long long)id);
		bp_out_puts(out, "\"}");
	}
	return x->out->len >= FLUSH_AT ? bp_export_write_out(fx) : 0;
}

static int chrome_end(struct bp_export *fx, int rc)
{
	struct cx *x = fx->own;

	free(x->traced);
	free(x->cpu);
	if (rc == 0)
		bp_out_puts(&fx->out, "\n]}\n");
	return rc;
}

const struct bp_exporter bp_exporter_chrome = {
	.name = "chrome",
	.help = "Trace Event Format JSON for Perfetto UI and\n"
		"chrome://tracing: instant events named after\n"
		"their site, message and arguments in args",
	.size = sizeof(struct cx),
	.begin = chrome_begin,
	.record = chrome_record,
	.end = chrome_end,
	.span = chrome_span,
	.suffix = "",
	.noun = "a Chrome JSON trace",
};
