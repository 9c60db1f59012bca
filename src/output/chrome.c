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
 * layout's fields, docs/fields.md) in args, then the record's cpu, line and site unless an argument has
 * that name.  A thread_name event the first time a thread appears and
 * whenever its name changes; a "records lost" instant event (args.lost)
 * before a record that follows lost records.  Written as read: memory is
 * one entry per thread, per ring and per site.  Strings are escaped for
 * JSON; bytes that are not UTF-8 become the code point of the same value
 * (\u0080 to \u00ff), so any message gives valid JSON.  Integers beyond
 * 2^53 (which JavaScript would round) are written as strings, pointers as
 * "0x..." strings, non-finite doubles as "nan" or "inf".
 */
#include "output/export.h"
#include "output/lost.h"
#include "output/names.h"
#include "output/threads.h"

#include "file/reader.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct cx {
	FILE *out;
	struct bp_out_threads thr;
	struct bp_out_lost lost;
	struct bp_trace *t;
	int64_t pid;
	bool started;		/* an event is written */
};

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1fu;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0fu;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07u;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;	/* overlong, out of range, surrogate */
	return len;
}

static void json_str(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	putc('"', out);
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len;

		if (c == '"' || c == '\\') {
			putc('\\', out);
			putc(c, out);
			i++;
		} else if (c == '\n') {
			fputs("\\n", out);
			i++;
		} else if (c == '\t') {
			fputs("\\t", out);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(out, "\\u%04x", c);
			i++;
		} else if ((len = utf8_len(s + i, n - i)) > 0) {
			fwrite(s + i, 1, len, out);
			i += len;
		} else {
			fprintf(out, "\\u%04x", c);	/* not UTF-8: the byte's value */
			i++;
		}
	}
	putc('"', out);
}

static void json_cstr(FILE *out, const char *s)
{
	json_str(out, s ? s : "", s ? strlen(s) : 0);
}

static void ts_us(FILE *out, uint64_t ns)
{
	fprintf(out, "%llu.%03u", (unsigned long long)(ns / 1000), (unsigned)(ns % 1000));
}

/* A metadata event; the first one of the array has no comma before it. */
static void meta(struct cx *x, const char *what, int64_t tid, const char *name)
{
	fprintf(x->out, "%s\n{", x->started ? "," : "");
	x->started = true;
	fprintf(x->out, "\"ph\":\"M\",\"cat\":\"__metadata\",\"name\":\"%s\",\"pid\":%lld,"
		"\"tid\":%lld,\"args\":{\"name\":",
		what, (long long)x->pid, (long long)tid);
	json_cstr(x->out, name);
	fputs("}}", x->out);
}

/* ,"name":value for typed argument k. */
static void json_arg(FILE *out, const struct bp_trace_layout *lay, unsigned k,
		     const struct bp_field_value *v)
{
	const uint64_t exact = 1ull << 53;	/* JavaScript's integers */
	char c = (char)v->v.u, alias[BP_OUT_FIELD_NAME_MAX];

	/* [A-Za-z_][A-Za-z0-9_]*: no escaping */
	fprintf(out, ",\"%s\":", bp_out_field_name(lay, k, alias));
	switch (lay->fields[k].type) {
	case BP_FIELD_SIGNED:
		fprintf(out, v->v.i > -(int64_t)exact && v->v.i < (int64_t)exact ? "%lld" : "\"%lld\"",
			(long long)v->v.i);
		break;
	case BP_FIELD_UNSIGNED:
		fprintf(out, v->v.u < exact ? "%llu" : "\"%llu\"", (unsigned long long)v->v.u);
		break;
	case BP_FIELD_POINTER:
		fprintf(out, "\"0x%llx\"", (unsigned long long)v->v.u);
		break;
	case BP_FIELD_FLOAT:
		if (isfinite(v->v.d))
			fprintf(out, "%.17g", v->v.d);
		else
			fputs(isnan(v->v.d) ? "\"nan\"" : v->v.d > 0 ? "\"inf\"" : "\"-inf\"", out);
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
static void record_args(struct cx *x, const struct bp_trace_event *e)
{
	const struct bprint_site *site = e->ev.site;
	struct bp_field_value v[BP_PLAN_MAX_ARGS];
	const struct bp_trace_layout *lay;
	unsigned n = bp_out_record_args(x->t, e, &lay, v);
	FILE *out = x->out;

	fputs(",\"args\":{\"msg\":", out);
	json_str(out, e->ev.message, e->ev.message_len);
	for (unsigned k = 0; k < n; k++)
		json_arg(out, lay, k, &v[k]);
	if (!n)
		lay = NULL;
	if (!bp_out_arg_named(lay, "cpu"))
		fprintf(out, ",\"cpu\":%d", e->ev.cpu);
	if (!bp_out_arg_named(lay, "line"))
		fprintf(out, ",\"line\":%u", site ? site->line : 0u);
	if (!bp_out_arg_named(lay, "site"))
		fprintf(out, ",\"site\":%u", e->site_id);
	fputs("}}", out);
}

/* ,{"ph":"i","s":"t","name":NAME,"cat":CAT,"ts":...,"pid":P,"tid":T  (no args yet) */
static void instant(struct cx *x, const struct bp_trace_event *e, const char *name,
		    const char *cat)
{
	fputs(",\n{\"ph\":\"i\",\"s\":\"t\",\"name\":", x->out);
	json_cstr(x->out, name);
	fputs(",\"cat\":", x->out);
	json_cstr(x->out, cat);
	fputs(",\"ts\":", x->out);
	ts_us(x->out, e->ev.ns);
	fprintf(x->out, ",\"pid\":%lld,\"tid\":%d", (long long)x->pid, e->ev.tid);
}

static int one_record(struct cx *x, const struct bp_trace_event *e, struct bp_export_stats *st)
{
	const struct bprint_site *site = e->ev.site;
	bool fresh;
	struct bp_out_thread *th = bp_out_thread_get(&x->thr, e->ev.tid, &fresh);
	uint64_t lost = bp_out_lost_before(&x->lost, e);
	char comm[17], name[BP_OUT_NAME_MAX];
	size_t n = e->ev.comm ? strnlen(e->ev.comm, 16) : 0;

	if (!th)
		return BP_TRACE_ENOMEM;
	memcpy(comm, e->ev.comm ? e->ev.comm : "", n);
	comm[n] = '\0';
	if (fresh || strcmp(th->comm, comm)) {
		memcpy(th->comm, comm, n + 1);
		meta(x, "thread_name", e->ev.tid, comm[0] ? comm : "<...>");
	}
	if (lost) {
		instant(x, e, "records lost", "bprint");
		fprintf(x->out, ",\"args\":{\"lost\":%llu}}", (unsigned long long)lost);
		st->lost += lost;
	}
	instant(x, e, bp_out_site_name(site, name), site && site->file && site->file[0]
		? site->file : "bprint");
	record_args(x, e);
	st->records++;
	return ferror(x->out) ? BP_TRACE_EIO : 0;
}

int bp_export_chrome(struct bp_trace *t, FILE *out, struct bp_export_stats *st,
		     char *err, size_t errlen)
{
	const struct bp_trace_info *info = bp_trace_info(t);
	struct bp_export_stats s = { 0 };
	struct cx x = { .out = out, .t = t, .pid = info->pid };
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	int rc;

	if (errlen)
		err[0] = '\0';
	fprintf(out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tracer\":\"bprint\",\"clock\":");
	json_cstr(out, info->clock_name);
	fputs(",\"cmdline\":", out);
	json_cstr(out, info->cmdline);
	fputs("},\"traceEvents\":[", out);
	meta(&x, "process_name", x.pid, info->comm);
	while ((rc = bp_trace_next(t, &e, 0)) == 1)
		if ((rc = one_record(&x, &e, &s)) < 0)
			break;
	if (rc == 0) {
		fputs("\n]}\n", out);
		if (fflush(out) != 0 || ferror(out))
			rc = BP_TRACE_EIO;
	}
	bp_export_reason(rc, out, err, errlen);
	s.threads = (uint32_t)x.thr.n;
	if (st)
		*st = s;
	bp_out_threads_free(&x.thr);
	bp_out_lost_free(&x.lost);
	return rc;
}
