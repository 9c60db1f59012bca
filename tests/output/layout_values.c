/*
 * Fields by name end to end (<bprint/reader.h>, docs/fields.md): this
 * program runs itself with BPRINT_FILE set ("layout_values write"), so that
 * its trace_printk() calls take the paths a real program takes (the call
 * site's fast paths for scalars, %s and %c, and va_list), then reads the
 * trace with the public reader and checks, for every record in order, the
 * site's fields (names, types) and their values exactly: the extremes of
 * every integer length, doubles bit for bit (a NaN's payload, -0.0, the
 * smallest subnormal), strings with quotes, newlines and UTF-8, %c of
 * every kind of byte; a trace_puts() site has no fields, a format made at
 * run time is a site of its own with its fields, a format of more
 * conversions than a plan holds has no layout and its records (text) no
 * values.
 *
 *   layout_values DIR
 */
#define CHECK_KEEP_GOING 1000
#include "check.h"

#include <bprint.h>
#include <bprint/reader.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* the non-constant format is deliberate */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"



static double bits(uint64_t u)
{
	double d;

	memcpy(&d, &u, 8);
	return d;
}

static const char quoted[] = "he said \"hi\"\n\tand \\left";
static const char utf8[] = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";

/* ---- the traced side ---- */

/* More conversions than a plan holds: recorded as text */
#define MANY "%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d"

static void write_records(const char *dynamic)
{
	trace_printk("min=%lld max=%llu", (long long)INT64_MIN, (unsigned long long)UINT64_MAX);
	/* ints for %hh and %h, as C passes them; 300 to see the reduction */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
	trace_printk("i8=%hhd u8=%hhu i16=%hd u16=%hu wrap=%hhd", -128, 255, -32768, 65535, 300);
#pragma GCC diagnostic pop
	trace_printk("int=%d uint=%u hex=%x oct=%o", INT32_MIN, UINT32_MAX, 0xdeadbeefu, 0777u);
	trace_printk("long=%ld size=%zu ptrdiff=%td intmax=%jd", (long)INT64_MIN, (size_t)SIZE_MAX,
		     (ptrdiff_t)-1, (intmax_t)INT64_MAX);
	trace_printk("d=%f e=%e g=%g a=%a", 0.1, -0.0, DBL_TRUE_MIN, DBL_MAX);
	trace_printk("nan=%f inf=%f ld=%Lf", bits(0x7ff8000000000123ull), -INFINITY,
		     (long double)1 / 3);
	trace_printk("s=%s utf=%s empty=%s", quoted, utf8, "");
	trace_printk("prec=%.3s star=%.*s", "abcdef", 2, "xyz");
	trace_printk("c=%c nul=%c hi=%c nl=%c", 'A', 0, 0xff, '\n');
	trace_printk("p=%p null=%p", (void *)(uintptr_t)0x7f00deadbeefull, (void *)0);
	trace_printk("w=%*d", -12, 34);
	trace_printk("cmd %s argc %d dur_us %lld", "GET", 2, 123456789012LL);
	trace_puts("a trace_puts text");
	trace_printk(dynamic, 5);
	trace_printk(MANY, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
		     22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33);
}

/* ---- the reading side ---- */

/* One expected field: name, type, and the value. */
struct field {
	const char *name;
	uint8_t type;
	int64_t i;
	uint64_t u;
	double d;
	const char *s;
	size_t len;	/* STRING: its bytes (a NUL inside is not possible) */
};

#define I(n, v) { n, BP_FIELD_SIGNED, .i = (v) }
#define U(n, v) { n, BP_FIELD_UNSIGNED, .u = (v) }
#define D(n, v) { n, BP_FIELD_FLOAT, .d = (v) }
#define S(n, v) { n, BP_FIELD_STRING, .s = (v), .len = sizeof(v) - 1 }
#define C(n, v) { n, BP_FIELD_CHAR, .u = (v) }
#define P(n, v) { n, BP_FIELD_POINTER, .u = (v) }

struct record {
	const char *format;
	int nfields;		/* -1: no layout (a text record) */
	struct field f[6];
};

static struct record want[15];

static void expect(void)
{
	const struct record r[] = {
		{ "min=%lld max=%llu", 2, { I("min", INT64_MIN), U("max", UINT64_MAX) } },
		{ "i8=%hhd u8=%hhu i16=%hd u16=%hu wrap=%hhd", 5,
		  { I("i8", -128), U("u8", 255), I("i16", -32768), U("u16", 65535),
		    I("wrap", 44) } },
		{ "int=%d uint=%u hex=%x oct=%o", 4,
		  { I("int", INT32_MIN), U("uint", UINT32_MAX), U("hex", 0xdeadbeef),
		    U("oct", 0777) } },
		{ "long=%ld size=%zu ptrdiff=%td intmax=%jd", 4,
		  { I("long", INT64_MIN), U("size", SIZE_MAX), I("ptrdiff", -1),
		    I("intmax", INT64_MAX) } },
		{ "d=%f e=%e g=%g a=%a", 4,
		  { D("d", 0.1), D("e", -0.0), D("g", DBL_TRUE_MIN), D("a", DBL_MAX) } },
		{ "nan=%f inf=%f ld=%Lf", 3,
		  { D("nan", bits(0x7ff8000000000123ull)), D("inf", -INFINITY),
		    D("ld", (double)((long double)1 / 3)) } },
		{ "s=%s utf=%s empty=%s", 3, { S("s", quoted), S("utf", utf8), S("empty", "") } },
		{ "prec=%.3s star=%.*s", 3,
		  { S("prec", "abc"), I("star_precision", 2), S("star", "xy") } },
		{ "c=%c nul=%c hi=%c nl=%c", 4,
		  { C("c", 'A'), C("nul", 0), C("hi", 0xff), C("nl", '\n') } },
		{ "p=%p null=%p", 2, { P("p", 0x7f00deadbeefull), P("null", 0) } },
		{ "w=%*d", 2, { I("w_width", -12), I("w", 34) } },
		{ "cmd %s argc %d dur_us %lld", 3,
		  { S("cmd", "GET"), I("argc", 2), I("dur_us", 123456789012LL) } },
		{ "a trace_puts text", 0, { { 0 } } },
		/* a format made at run time: a site of its own, derived */
		{ "dynamic %d", 1, { I("dynamic", 5) } },
		{ MANY, -1, { { 0 } } },
	};

	memcpy(want, r, sizeof(r));
}

static void check_value(const struct record *w, const struct bp_trace_field *f,
			const struct field *e, const struct bp_field_value *v)
{
	CHECK_MSG(!strcmp(f->name, e->name) && f->type == e->type, "\"%s\": field %s type %u, want %s %u",
	      w->format, f->name, f->type, e->name, e->type);
	switch (e->type) {
	case BP_FIELD_SIGNED:
		CHECK_MSG(v->v.i == e->i, "\"%s\" %s: %lld, want %lld", w->format, e->name,
		      (long long)v->v.i, (long long)e->i);
		break;
	case BP_FIELD_FLOAT:
		CHECK_MSG(!memcmp(&v->v.d, &e->d, 8), "\"%s\" %s: %a, want %a (bit for bit)", w->format,
		      e->name, v->v.d, e->d);
		break;
	case BP_FIELD_STRING:
		CHECK_MSG(v->len == e->len && !memcmp(v->s, e->s, e->len), "\"%s\" %s: \"%.*s\"",
		      w->format, e->name, (int)v->len, v->s);
		break;
	default:
		CHECK_MSG(v->v.u == e->u, "\"%s\" %s: %llu, want %llu", w->format, e->name,
		      (unsigned long long)v->v.u, (unsigned long long)e->u);
	}
}

static void check_record(struct bp_trace *t, const struct bp_trace_event *ev,
			 const struct record *w)
{
	const struct bp_trace_layout *lay = bp_trace_layout(t, ev->site_id);
	struct bp_field_value v[BP_PLAN_MAX_ARGS];
	int n = bp_trace_event_fields(t, ev, v, BP_PLAN_MAX_ARGS);

	CHECK_MSG(ev->site && ev->site->format && !strcmp(ev->site->format, w->format),
	      "record of \"%s\": site \"%s\"", w->format,
	      ev->site && ev->site->format ? ev->site->format : "(none)");
	if (w->nfields < 0) {
		CHECK_MSG(ev->text && !lay && n == -1, "\"%s\": text %d, layout %p, %d values", w->format,
		      ev->text, (const void *)lay, n);
		return;
	}
	if (!lay || n != w->nfields || (int)lay->nfields != w->nfields) {
		CHECK_MSG(0, "\"%s\": layout %p, %d values, want %d", w->format, (const void *)lay, n,
		      w->nfields);
		return;
	}
	CHECK_MSG(lay->site_id == ev->site_id, "\"%s\": layout of site %u", w->format, lay->site_id);
	for (int k = 0; k < n; k++) {
		check_value(w, &lay->fields[k], &w->f[k], &v[k]);
		CHECK_MSG(bp_trace_field_index(lay, w->f[k].name) == k, "\"%s\": index of %s", w->format,
		      w->f[k].name);
	}
	CHECK_MSG(bp_trace_layout(t, ev->site_id) == lay, "\"%s\": the layout is made once", w->format);
}

static int read_back(const char *path)
{
	struct bp_trace_event ev = BP_TRACE_EVENT_INIT;
	char err[256];
	size_t k = 0;
	struct bp_trace *t = bp_trace_open(path, 0, err, sizeof(err), NULL);

	if (!t) {
		printf("FAIL: open %s: %s\n", path, err);
		return 1;
	}
	expect();
	CHECK_MSG(bp_trace_layout(t, 0) == NULL && bp_trace_layout(t, 1u << 30) == NULL,
	      "a layout for an id not in the table");
	while (bp_trace_next(t, &ev, 0) == 1) {
		if (k < sizeof(want) / sizeof(want[0]))
			check_record(t, &ev, &want[k]);
		k++;
	}
	CHECK_MSG(k == sizeof(want) / sizeof(want[0]), "%zu records, want %zu", k,
	      sizeof(want) / sizeof(want[0]));
	bp_trace_close(t);
	return 0;
}

int main(int argc, char **argv)
{
	char path[4096];
	pid_t pid;
	int st;

	if (argc == 3 && !strcmp(argv[1], "write")) {
		write_records(argv[2]);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: layout_values DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/values.dat", argv[1]);
	unlink(path);
	if ((pid = fork()) == 0) {
		setenv("BPRINT_FILE", path, 1);
		execl("/proc/self/exe", argv[0], "write", "dynamic %d", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("FAIL: the traced run failed\n");
		return 1;
	}
	if (read_back(path))
		return 1;
	if (!check_failures)
		printf("layout values: all passed\n");
	return check_summary("layout_values");
}
