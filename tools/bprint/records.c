/*
 * report --json and --csv: one record a line, with its typed fields by
 * name (the site layout of bprint/reader.h), whatever its message holds.
 *
 *   --json  JSON Lines: {"ns":..,"tid":..,"comm":"..","cpu":..,"site":..,
 *           "func":"..","message":"..","fields":{NAME:VALUE,..},
 *           "lost_before":..}; integers as JSON integers, %f as numbers
 *           (NaN and infinities as null), %s and %c as strings, %p as a
 *           "0x..." string, %pS and %ps as the symbol the message shows
 *   --csv   RFC 4180: ns,tid,comm,cpu,site,func,message,lost_before, then one column
 *           per field name of the chosen sites (the union, in the order of
 *           the site table), empty where a record's site lacks it
 */
#include "bprint_cmd.h"

#include "output/json.h"
#include "output/names.h"

#include <stdlib.h>
#include <string.h>

/* Field k of lay, a %pS or %ps: the symbol report prints into sym, its
 * length; 0 if the field is no such pointer. */
static size_t symbol_of(struct bp_trace *t, const struct bp_trace_layout *lay, unsigned k,
			const struct bp_field_value *v, char *sym, size_t size)
{
	char letter = lay->fields[k].type == BP_FIELD_POINTER ? bp_out_symbol_letter(lay, k) : 0;

	return letter ? bp_out_symbol(t, letter, v->v.u, sym, size) : 0;
}

static void csv_bytes(FILE *out, const char *s, size_t n)
{
	bool quote = false;

	for (size_t i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
	if (!quote) {
		fwrite(s, 1, n, out);
		return;
	}
	fputc('"', out);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			fputc('"', out);
		fputc(s[i], out);
	}
	fputc('"', out);
}

/*
 * Field k of lay, with value v, as --json (json) or --csv writes it: the
 * same text either way but for the quoting of strings (a %s, a %c, a
 * pointer's "0x..." or symbol) and a floating-point number's digits.
 */
static void put_value(FILE *out, struct bp_trace *t, const struct bp_trace_layout *lay,
		      unsigned k, const struct bp_field_value *v, bool json)
{
	void (*text)(FILE *, const char *, size_t) = json ? bp_json_str : csv_bytes;
	char c, buf[BP_OUT_SYMBOL_MAX];
	size_t n;

	switch (lay->fields[k].type) {
	case BP_FIELD_SIGNED:
		fprintf(out, "%lld", (long long)v->v.i);
		break;
	case BP_FIELD_UNSIGNED:
		fprintf(out, "%llu", (unsigned long long)v->v.u);
		break;
	case BP_FIELD_FLOAT:
		if (json)
			bp_json_double(out, v->v.d);
		else
			fprintf(out, "%.17g", v->v.d);
		break;
	case BP_FIELD_STRING:
		text(out, v->s, v->len);
		break;
	case BP_FIELD_CHAR:
		c = (char)v->v.u;
		text(out, &c, 1);
		break;
	default:
		if (!(n = symbol_of(t, lay, k, v, buf, sizeof(buf))))
			n = (size_t)snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v->v.u);
		text(out, buf, n < sizeof(buf) ? n : sizeof(buf) - 1);
	}
}

/* A layout's fields, at most (a plan's arguments), decoded for the record
 * being printed. */
static struct bp_field_value vals[BP_PLAN_MAX_ARGS];

/* The fields of e, decoded into vals; n < 0 if it has none. */
static int decode(struct bp_trace *t, const struct bp_trace_event *e,
		  const struct bp_trace_layout **lay)
{
	if (!(*lay = bp_trace_layout(t, e->site_id)))
		return -1;
	return bp_trace_event_fields(t, e, vals, BP_PLAN_MAX_ARGS);
}

bool print_event_json(struct bp_trace *t, struct bp_trace_event *e)
{
	const struct bp_trace_site *ts = e->tsite;
	const struct bp_trace_layout *lay;
	int n = decode(t, e, &lay);
	FILE *out = stdout;

	bp_trace_message(t, e);
	fprintf(out, "{\"ns\":%llu,\"tid\":%d,\"comm\":", (unsigned long long)e->ev.ns, e->ev.tid);
	bp_json_str(out, e->ev.comm, strnlen(e->ev.comm, 16));
	fprintf(out, ",\"cpu\":%d,\"site\":%u,\"func\":", e->ev.cpu, e->site_id);
	if (ts && ts->site.func)
		bp_json_cstr(out, ts->site.func);
	else
		fputs("null", out);
	fputs(",\"message\":", out);
	bp_json_str(out, e->ev.message, e->ev.message_len);
	fputs(",\"fields\":{", out);
	for (int i = 0; i < n; i++) {
		fputs(i ? "," : "", out);
		bp_json_cstr(out, lay->fields[i].name);
		fputc(':', out);
		put_value(out, t, lay, (unsigned)i, &vals[i], true);
	}
	fprintf(out, "},\"lost_before\":%llu}\n", (unsigned long long)e->lost_before);
	return !ferror(out);
}

/* ---- CSV ---------------------------------------------------------------- */

/* The columns: field names of the chosen sites, each once. */
static char **columns;
static size_t ncolumns;

static bool add_column(const char *name)
{
	char **grown;

	for (size_t i = 0; i < ncolumns; i++)
		if (!strcmp(columns[i], name))
			return true;
	if (!(grown = realloc(columns, (ncolumns + 1) * sizeof(*grown))) ||
	    !(grown[ncolumns] = strdup(name)))
		return false;
	columns = grown;
	ncolumns++;
	return true;
}

bool print_csv_header(struct bp_trace *t, struct filter *f)
{
	static const char *const fixed[] = {
		"ns", "tid", "comm", "cpu", "site", "func", "message", "lost_before",
	};

	for (size_t i = 0, n = bp_trace_nsites(t); i < n; i++) {
		const struct bp_trace_site *s = bp_trace_site_at(t, i);
		const struct bp_trace_layout *lay;

		if (!s || (f->sites && !bp_sites_match(f->sites, t, s->site.id)) ||
		    !(lay = bp_trace_layout(t, s->site.id)))
			continue;
		for (uint32_t k = 0; k < lay->nfields; k++)
			if (!add_column(lay->fields[k].name))
				return false;
	}
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		fprintf(stdout, "%s%s", i ? "," : "", fixed[i]);
	for (size_t i = 0; i < ncolumns; i++) {
		fputc(',', stdout);
		csv_bytes(stdout, columns[i], strlen(columns[i]));
	}
	fputc('\n', stdout);
	return !ferror(stdout);
}

bool print_event_csv(struct bp_trace *t, struct bp_trace_event *e)
{
	const struct bp_trace_site *ts = e->tsite;
	const struct bp_trace_layout *lay;
	int n = decode(t, e, &lay);
	FILE *out = stdout;

	bp_trace_message(t, e);
	fprintf(out, "%llu,%d,", (unsigned long long)e->ev.ns, e->ev.tid);
	csv_bytes(out, e->ev.comm, strnlen(e->ev.comm, 16));
	fprintf(out, ",%d,%u,", e->ev.cpu, e->site_id);
	if (ts && ts->site.func)
		csv_bytes(out, ts->site.func, strlen(ts->site.func));
	fputc(',', out);
	csv_bytes(out, e->ev.message, e->ev.message_len);
	fprintf(out, ",%llu", (unsigned long long)e->lost_before);
	for (size_t c = 0; c < ncolumns; c++) {
		int k = n < 0 ? -1 : bp_trace_field_index(lay, columns[c]);

		fputc(',', out);
		if (k >= 0 && k < n && !strcmp(lay->fields[k].name, columns[c]))
			put_value(out, t, lay, (unsigned)k, &vals[k], false);
	}
	fputc('\n', out);
	return !ferror(out);
}

void records_free(void)
{
	for (size_t i = 0; i < ncolumns; i++)
		free(columns[i]);
	free(columns);
	columns = NULL, ncolumns = 0;
}
