/*
 * A trace file as Chrome's Trace Event Format, JSON object form
 * (docs/exporters.md), for Perfetto UI and chrome://tracing:
 *
 *   {"displayTimeUnit":"ns","otherData":{...},"traceEvents":[
 *   {"ph":"M","name":"process_name","pid":P,"tid":P,"args":{"name":"comm"}},
 *   {"ph":"M","name":"thread_name","pid":P,"tid":T,"args":{"name":"worker"}},
 *   {"ph":"i","s":"t","name":"message","cat":"bprint","ts":12.345,"pid":P,
 *    "tid":T,"args":{"func":"f","file":"a.c","line":42,"cpu":1,"site":7}},
 *   ...]}
 *
 * One instant event per record, ts in microseconds with the nanoseconds as
 * three decimals; a thread_name event the first time a thread appears and
 * whenever its name changes; a "lost" instant event before a record that
 * follows lost records.  Written as read: memory is one entry per thread
 * and per ring.  Strings are escaped for JSON; bytes that are not UTF-8
 * become the code point of the same value (\u0080 to \u00ff), so any
 * message gives valid JSON.
 */
#include "output/export.h"
#include "output/lost.h"
#include "output/threads.h"

#include "file/reader.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct cx {
	FILE *out;
	struct bp_out_threads thr;
	struct bp_out_lost lost;
	int64_t pid;
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

static void meta(struct cx *x, const char *what, int64_t tid, const char *name)
{
	fprintf(x->out, ",\n{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%lld,\"tid\":%lld,\"args\":{\"name\":",
		what, (long long)x->pid, (long long)tid);
	json_cstr(x->out, name);
	fputs("}}", x->out);
}

static int one_record(struct cx *x, const struct bp_trace_event *e, struct bp_export_stats *st)
{
	const struct bprint_site *site = e->ev.site;
	FILE *out = x->out;
	bool fresh;
	struct bp_out_thread *th = bp_out_thread_get(&x->thr, e->ev.tid, &fresh);
	uint64_t lost = bp_out_lost_before(&x->lost, e);
	char comm[17];
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
		fprintf(out, ",\n{\"ph\":\"i\",\"s\":\"t\",\"name\":\"%llu records lost\","
			"\"cat\":\"lost\",\"ts\":", (unsigned long long)lost);
		ts_us(out, e->ev.ns);
		fprintf(out, ",\"pid\":%lld,\"tid\":%d,\"args\":{\"lost\":%llu}}",
			(long long)x->pid, e->ev.tid, (unsigned long long)lost);
		st->lost += lost;
	}
	fputs(",\n{\"ph\":\"i\",\"s\":\"t\",\"name\":", out);
	json_str(out, e->ev.message, e->ev.message_len);
	fputs(",\"cat\":\"bprint\",\"ts\":", out);
	ts_us(out, e->ev.ns);
	fprintf(out, ",\"pid\":%lld,\"tid\":%d,\"args\":{\"func\":", (long long)x->pid, e->ev.tid);
	json_cstr(out, site && site->func ? site->func : "?");
	fputs(",\"file\":", out);
	json_cstr(out, site ? site->file : "");
	fprintf(out, ",\"line\":%u,\"cpu\":%d,\"site\":%u}}", site ? site->line : 0u, e->ev.cpu,
		e->site_id);
	st->records++;
	return ferror(out) ? BP_TRACE_EIO : 0;
}

int bp_export_chrome(struct bp_trace *t, FILE *out, struct bp_export_stats *st,
		     char *err, size_t errlen)
{
	const struct bp_trace_info *info = bp_trace_info(t);
	struct bp_export_stats s = { 0 };
	struct cx x = { .out = out, .pid = info->pid };
	struct bp_trace_event e;
	int rc;

	if (errlen)
		err[0] = '\0';
	fprintf(out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tracer\":\"bprint\",\"clock\":");
	json_cstr(out, info->clock_name);
	fputs(",\"cmdline\":", out);
	json_cstr(out, info->cmdline);
	fprintf(out, "},\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%lld,"
		"\"tid\":%lld,\"args\":{\"name\":", (long long)x.pid, (long long)x.pid);
	json_cstr(out, info->comm);
	fputs("}}", out);
	while ((rc = bp_trace_next(t, &e, 0)) == 1)
		if ((rc = one_record(&x, &e, &s)) < 0)
			break;
	if (rc == 0) {
		fputs("\n]}\n", out);
		if (fflush(out) != 0 || ferror(out))
			rc = BP_TRACE_EIO;
	}
	if (rc < 0 && errlen)
		bp_snprintf(err, errlen, "%s", rc == BP_TRACE_EIO && ferror(out)
			    ? "write error" : rc == BP_TRACE_ENOMEM ? "out of memory"
			    : "reading the trace failed");
	if (rc == BP_TRACE_EIO && ferror(out) && errno && errlen)
		bp_snprintf(err, errlen, "write error: %s", strerror(errno));
	s.threads = (uint32_t)x.thr.n;
	if (st)
		*st = s;
	bp_out_threads_free(&x.thr);
	bp_out_lost_free(&x.lost);
	return rc;
}
