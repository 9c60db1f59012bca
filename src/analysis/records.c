/*
 * The record writers of bprint/text.h (bp_trace_records_*), which
 * `bprint report --json` and `--csv` print with: one record a line, with
 * its typed fields by name (the site layout of bprint/reader.h), whatever
 * its message holds.
 *
 *   --json  JSON Lines: {"ns":..,"tid":..,"comm":"..","cpu":..,"site":..,
 *           "func":"..","message":"..","fields":{NAME:VALUE,..},
 *           "lost_before":..}; integers as JSON integers, %f as numbers
 *           that read as floats (3.0, -0.0; NaN and infinities as null),
 *           %s and %c as strings, %p as a "0x..." string, %pS and %ps as
 *           the symbol the message shows (with --date, "date":".." after
 *           ns)
 *   --csv   RFC 4180: ns,tid,comm,cpu,site,func,message,lost_before (with
 *           --date, a date column after ns), then one column
 *           per field name of the chosen sites (the union, in the order of
 *           the site table), empty where a record's site lacks it
 *
 * In analysis/, not output/: the CSV header's columns come from the sites
 * a bp_sites set chooses (analysis/sites.c).
 */
#include <bprint/query.h>
#include <bprint/text.h>

#include "output/buf.h"
#include "output/json.h"
#include "output/names.h"

#include <errno.h>
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

/* v as "0x..." in lower-case hex (what %p prints) into buf (19 bytes at
 * least); its length. */
static size_t hex(char *buf, uint64_t v)
{
	char d[16];
	size_t i = sizeof(d), n = 2;

	do {
		d[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	buf[0] = '0', buf[1] = 'x';
	memcpy(buf + n, d + i, sizeof(d) - i);
	return n + sizeof(d) - i;
}

/* Are the 8 bytes at s free of what makes a CSV value quoted (',', '"',
 * CR, LF)?  A word at a time, by the borrow of a subtraction. */
static inline bool csv_plain8(const char *s)
{
	const uint64_t ones = 0x0101010101010101u, tops = 0x8080808080808080u;
	uint64_t x, comma, quote, cr, lf;

	memcpy(&x, s, 8);
	comma = x ^ (ones * ','), quote = x ^ (ones * '"');
	cr = x ^ (ones * '\r'), lf = x ^ (ones * '\n');
	return !((((comma - ones) & ~comma) | ((quote - ones) & ~quote) | ((cr - ones) & ~cr) |
		  ((lf - ones) & ~lf)) & tops);
}

static bool csv_needs_quotes(const char *s, size_t n)
{
	size_t i = 0;

#if defined(__x86_64__)
	/* 16 bytes at a time with SSE2, which every x86-64 has */
	typedef char bytes16 __attribute__((vector_size(16)));
	bytes16 v;

	for (; i + 16 <= n; i += 16) {
		memcpy(&v, s + i, 16);
		if (__builtin_ia32_pmovmskb128((v == ',') | (v == '"') | (v == '\r') | (v == '\n')))
			return true;
	}
#endif

	for (; i + 8 <= n; i += 8)
		if (!csv_plain8(s + i))
			return true;
	if (i < n && n >= 8)
		return !csv_plain8(s + n - 8);	/* the tail, overlapping */
	for (; i < n; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r')
			return true;
	return false;
}

static void csv_bytes(struct bp_out_buf *out, const char *s, size_t n)
{
	unsigned char *start, *q;

	if (!csv_needs_quotes(s, n)) {
		bp_out_put(out, s, n);
		return;
	}
	if (n > (SIZE_MAX - 2) / 2 || !(start = bp_out_room(out, 2 * n + 2))) {
		out->oom = true;
		return;
	}
	q = start;
	*q++ = '"';
	for (const char *p = s, *end = s + n, *quote; p < end; p = quote + 1) {
		quote = memchr(p, '"', (size_t)(end - p));
		memcpy(q, p, (size_t)((quote ? quote + 1 : end) - p));
		q += (quote ? quote + 1 : end) - p;
		if (!quote)
			break;
		*q++ = '"';	/* a quote doubled */
	}
	*q++ = '"';
	out->len += (size_t)(q - start);
}

/*
 * Field k of lay, with value v, as --json (json) or --csv writes it: the
 * same text either way but for the quoting of strings (a %s, a %c, a
 * pointer's "0x..." or symbol) and a floating-point number's digits.
 */
static void put_value(struct bp_out_buf *out, struct bp_trace *t,
		      const struct bp_trace_layout *lay, unsigned k,
		      const struct bp_field_value *v, bool json)
{
	void (*text)(struct bp_out_buf *, const char *, size_t) =
		json ? bp_json_buf_str : csv_bytes;
	char c, buf[BP_OUT_SYMBOL_MAX];
	size_t n;

	switch (lay->fields[k].type) {
	case BP_FIELD_SIGNED:
		bp_out_i64(out, v->v.i);
		break;
	case BP_FIELD_UNSIGNED:
		bp_out_u64(out, v->v.u);
		break;
	case BP_FIELD_FLOAT:
		if (json)
			bp_json_buf_double(out, v->v.d, true);
		else
			bp_out_putf(out, "%.17g", v->v.d);
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
			n = hex(buf, v->v.u);
		text(out, buf, n < sizeof(buf) ? n : sizeof(buf) - 1);
	}
}

/* A string constant, its length known when compiled. */
#define PUT_LITERAL(out, s) bp_out_put(out, s, sizeof(s) - 1)

/*
 * A record's thread as --json (,"tid":TID,"comm":"...") or --csv
 * (TID,COMM,) writes it: kept from the record before while the thread is
 * the same (records come in runs of one thread's).
 */
struct thread_text {
	struct bp_out_buf text;
	int32_t tid;
	char comm[16];
};

struct site_cache;

struct bp_trace_records {
	struct bp_trace *t;
	unsigned flags;			/* BP_TRACE_RECORDS_* */
	/* A layout's fields, at most (a plan's arguments), decoded for the
	 * record being printed. */
	struct bp_field_value vals[BP_PLAN_MAX_ARGS];
	/* The lines: a record is put together at the end and the caller
	 * takes them whole (bp_trace_records_lines()), so that JSON and CSV
	 * cost no more system calls than the text. */
	struct bp_out_buf line;
	/* put_ns(): the text of the last record's whole seconds */
	uint64_t sec_of;
	struct bp_out_buf sec;
	struct thread_text thread_cache;
	/* per site id, what its records write the same every time */
	struct site_cache **site_caches;
	size_t nsite_caches;
	/* CSV: the columns, field names of the chosen sites, each once */
	char **columns;
	size_t ncolumns;
};

/*
 * A record's time in nanoseconds, in decimal: the digits of its whole
 * seconds are kept from the record before (they seldom change), and only
 * the nine below are worked out; every record's first column.
 */
static void put_ns(struct bp_trace_records *w, struct bp_out_buf *out, uint64_t ns)
{
	static const char digit_pairs[201] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	uint64_t s = ns / 1000000000u;
	uint32_t sub = (uint32_t)(ns % 1000000000u);
	unsigned char *d;

	if (!s) {
		bp_out_u64(out, ns);
		return;
	}
	if (s != w->sec_of) {
		w->sec.len = 0;
		bp_out_u64(&w->sec, s);
		if (w->sec.oom) {
			w->sec.len = 0, w->sec.oom = false, w->sec_of = UINT64_MAX;
			bp_out_u64(out, ns);
			return;
		}
		w->sec_of = s;
	}
	bp_out_put(out, w->sec.p, w->sec.len);
	if (!(d = bp_out_room(out, 9)))
		return;
	for (int i = 7; i > 0; i -= 2, sub /= 100)
		memcpy(d + i, digit_pairs + 2 * (sub % 100), 2);
	d[0] = (unsigned char)('0' + sub);
	out->len += 9;
}

static void put_thread(struct bp_out_buf *out, struct thread_text *c, int32_t tid,
		       const char *comm, bool json)
{
	size_t len = strnlen(comm, 16);

	if (!c->text.len || c->tid != tid || memcmp(c->comm, comm, len) ||
	    (len < 16 && c->comm[len])) {
		c->text.len = 0;
		if (json)
			PUT_LITERAL(&c->text, ",\"tid\":");
		bp_out_i64(&c->text, tid);
		if (json) {
			PUT_LITERAL(&c->text, ",\"comm\":");
			bp_json_buf_str(&c->text, comm, len);
		} else {
			bp_out_byte(&c->text, ',');
			csv_bytes(&c->text, comm, len);
			bp_out_byte(&c->text, ',');
		}
		if (c->text.oom) {
			c->text.len = 0, c->text.oom = false;
			out->oom = true;
			return;
		}
		c->tid = tid;
		memset(c->comm, 0, sizeof(c->comm));
		memcpy(c->comm, comm, len);
	}
	bp_out_put(out, c->text.p, c->text.len);
}

/* The fields of e, decoded into w->vals; n < 0 if it has none. */
static int decode(struct bp_trace_records *w, const struct bp_trace_event *e,
		  const struct bp_trace_layout **lay)
{
	if (!(*lay = bp_trace_layout(w->t, e->site_id)))
		return -1;
	return bp_trace_event_fields(w->t, e, w->vals, BP_PLAN_MAX_ARGS);
}

/*
 * Per site id, what its records write the same every time, worked out at
 * its first record: the JSON text ,"site":ID,"func":"...","message": and
 * each field's "NAME": (one after another, field k ending at name_end[k]);
 * for --csv, ,SITE,FUNC, and the columns its fields fill.
 */
/* A column a site's records fill: its index and the field's. */
struct col_field {
	uint32_t col;
	int16_t k;
};

struct site_cache {
	struct bp_out_buf json;
	size_t head_len;
	int nnames;			/* -1: not made yet */
	uint32_t name_end[BP_PLAN_MAX_ARGS];
	struct bp_out_buf csv;		/* ,SITE,FUNC, */
	int nplan;			/* -1: not made yet */
	struct col_field plan[BP_PLAN_MAX_ARGS];	/* in column order */
};

/* Site site_id's cache, or NULL when memory ran out (then the caller
 * works it out for this record alone). */
static struct site_cache *cache_of(struct bp_trace_records *w, uint32_t site_id)
{
	if (site_id >= w->nsite_caches) {
		size_t n = 2 * w->nsite_caches > (size_t)site_id + 1 ? 2 * w->nsite_caches :
								     (size_t)site_id + 1;
		struct site_cache **grown = realloc(w->site_caches, n * sizeof(*grown));

		if (!grown)
			return NULL;
		memset(grown + w->nsite_caches, 0, (n - w->nsite_caches) * sizeof(*grown));
		w->site_caches = grown, w->nsite_caches = n;
	}
	if (!w->site_caches[site_id] &&
	    (w->site_caches[site_id] = calloc(1, sizeof(struct site_cache))))
		w->site_caches[site_id]->nnames = w->site_caches[site_id]->nplan = -1;
	return w->site_caches[site_id];
}

/* The index of lay's field named exactly name (not an argN alias), or -1. */
static int exact_field(const struct bp_trace_layout *lay, const char *name)
{
	int k = bp_trace_field_index(lay, name);

	return k >= 0 && !strcmp(lay->fields[k].name, name) ? k : -1;
}

/* ,"site":ID,"func":"...","message": of a record of site site_id */
static void json_head(struct bp_out_buf *out, uint32_t site_id, const struct bp_trace_site *ts)
{
	PUT_LITERAL(out, ",\"site\":");
	bp_out_u64(out, site_id);
	PUT_LITERAL(out, ",\"func\":");
	if (ts && ts->func)
		bp_json_buf_str(out, ts->func, strlen(ts->func));
	else
		PUT_LITERAL(out, "null");
	PUT_LITERAL(out, ",\"message\":");
}

static void json_name(struct bp_out_buf *out, const char *name)
{
	bp_json_buf_str(out, name, strlen(name));
	bp_out_byte(out, ':');
}

/* The cache of e's site, its JSON made; NULL if there is none (a site
 * not in the table yet, or no memory). */
static struct site_cache *json_cache(struct bp_trace_records *w, const struct bp_trace_event *e,
				     const struct bp_trace_layout *lay)
{
	struct site_cache *sc = e->site ? cache_of(w, e->site_id) : NULL;

	if (!sc || sc->nnames >= 0)
		return sc;
	json_head(&sc->json, e->site_id, e->site);
	sc->head_len = sc->json.len;
	for (uint32_t k = 0; lay && k < lay->nfields && k < BP_PLAN_MAX_ARGS; k++) {
		json_name(&sc->json, lay->fields[k].name);
		sc->name_end[k] = (uint32_t)sc->json.len;
		sc->nnames = (int)k + 1;
	}
	if (sc->json.oom) {
		bp_out_free(&sc->json);
		return NULL;
	}
	if (sc->nnames < 0)
		sc->nnames = 0;
	return sc;
}

/* The line built ends, with its record whole: 0, or BP_TRACE_ENOMEM
 * (the line is dropped, the lines before it kept). */
static int put_line(struct bp_trace_records *w, size_t start)
{
	bp_out_byte(&w->line, '\n');
	if (w->line.oom) {
		w->line.len = start, w->line.oom = false;
		errno = ENOMEM;
		return BP_TRACE_ENOMEM;
	}
	return 0;
}

/* (json_event and csv_event: not inlined, so that bp_trace_records_event()
 * jumps to one, without a frame of its own: a call per record less) */
static __attribute__((noinline)) int json_event(struct bp_trace_records *w,
						struct bp_trace_event *e, const char *date,
						size_t date_len)
{
	struct bp_trace *t = w->t;
	const struct bp_trace_layout *lay;
	int n = decode(w, e, &lay);
	struct site_cache *sc = json_cache(w, e, lay);
	struct bp_out_buf *out = &w->line;
	size_t start = out->len;

	bp_trace_message(t, e);
	PUT_LITERAL(out, "{\"ns\":");
	put_ns(w, out, e->ns);
	if (date_len) {
		PUT_LITERAL(out, ",\"date\":");
		bp_json_buf_str(out, date, date_len);
	}
	put_thread(out, &w->thread_cache, e->tid, e->comm, true);
	PUT_LITERAL(out, ",\"cpu\":");
	bp_out_i64(out, e->cpu);
	if (sc)
		bp_out_put(out, sc->json.p, sc->head_len);
	else
		json_head(out, e->site_id, e->site);
	bp_json_buf_str(out, e->message, e->message_len);
	PUT_LITERAL(out, ",\"fields\":{");
	for (int i = 0; i < n; i++) {
		if (i)
			bp_out_byte(out, ',');
		if (sc && i < sc->nnames) {
			size_t from = i ? sc->name_end[i - 1] : sc->head_len;

			bp_out_put(out, sc->json.p + from, sc->name_end[i] - from);
		} else {
			json_name(out, lay->fields[i].name);
		}
		put_value(out, t, lay, (unsigned)i, &w->vals[i], true);
	}
	PUT_LITERAL(out, "},\"lost_before\":");
	bp_out_u64(out, e->lost_before);
	bp_out_byte(out, '}');
	return put_line(w, start);
}

/* ---- CSV ---------------------------------------------------------------- */

static bool add_column(struct bp_trace_records *w, const char *name)
{
	char **grown;

	for (size_t i = 0; i < w->ncolumns; i++)
		if (!strcmp(w->columns[i], name))
			return true;
	if (!(grown = realloc(w->columns, (w->ncolumns + 1) * sizeof(*grown))))
		return false;
	w->columns = grown;
	if (!(grown[w->ncolumns] = strdup(name)))
		return false;
	w->ncolumns++;
	return true;
}

/* The columns a record of layout lay fills, (column, field) in column
 * order, into plan; how many. */
static int column_plan(const struct bp_trace_records *w, const struct bp_trace_layout *lay,
		       struct col_field *plan)
{
	int n = 0;

	for (size_t c = 0; c < w->ncolumns && n < BP_PLAN_MAX_ARGS; c++) {
		int k = exact_field(lay, w->columns[c]);

		if (k >= 0)
			plan[n++] = (struct col_field){ (uint32_t)c, (int16_t)k };
	}
	return n;
}

/* n commas: the columns a record leaves empty, at once. */
static void put_commas(struct bp_out_buf *out, size_t n)
{
	static const char commas[64] = ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,";

	for (size_t k; n; n -= k)
		bp_out_put(out, commas, k = n < sizeof(commas) ? n : sizeof(commas));
}

int bp_trace_records_header(struct bp_trace_records *w, struct bp_sites *sel)
{
	static const char *const fixed[] = {
		"ns", "tid", "comm", "cpu", "site", "func", "message", "lost_before",
	};
	struct bp_trace *t = w->t;
	size_t start = w->line.len;

	if (!(w->flags & BP_TRACE_RECORDS_CSV))
		return 0;	/* JSON Lines have none */
	for (size_t i = 0, n = bp_trace_nsites(t); i < n; i++) {
		const struct bp_trace_site *s = bp_trace_site_at(t, i);
		const struct bp_trace_layout *lay;

		if (!s || (sel && !bp_sites_match(sel, t, s->id)) ||
		    !(lay = bp_trace_layout(t, s->id)))
			continue;
		for (uint32_t k = 0; k < lay->nfields; k++)
			if (!add_column(w, lay->fields[k].name)) {
				errno = ENOMEM;
				return BP_TRACE_ENOMEM;
			}
	}
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (i)
			bp_out_byte(&w->line, ',');
		bp_out_puts(&w->line, fixed[i]);
		if (i == 0 && (w->flags & BP_TRACE_RECORDS_DATES))
			PUT_LITERAL(&w->line, ",date");
	}
	for (size_t i = 0; i < w->ncolumns; i++) {
		bp_out_byte(&w->line, ',');
		csv_bytes(&w->line, w->columns[i], strlen(w->columns[i]));
	}
	return put_line(w, start);
}

/* ,SITE,FUNC, of a record of site site_id; false if memory ran out */
static bool csv_site(struct bp_out_buf *out, uint32_t site_id, const struct bp_trace_site *ts)
{
	bp_out_byte(out, ',');
	bp_out_u64(out, site_id);
	bp_out_byte(out, ',');
	if (ts && ts->func)
		csv_bytes(out, ts->func, strlen(ts->func));
	bp_out_byte(out, ',');
	if (out->oom)
		out->len = 0, out->oom = false;
	return out->len > 0;
}

static __attribute__((noinline)) int csv_event(struct bp_trace_records *w,
					       struct bp_trace_event *e, const char *date,
					       size_t date_len)
{
	struct bp_trace *t = w->t;
	const struct bp_trace_layout *lay;
	int n = decode(w, e, &lay);
	struct bp_out_buf *out = &w->line;
	struct site_cache *sc = e->site ? cache_of(w, e->site_id) : NULL;
	size_t done = 0;		/* columns written */
	size_t start = out->len;

	bp_trace_message(t, e);
	put_ns(w, out, e->ns);
	bp_out_byte(out, ',');
	if (w->flags & BP_TRACE_RECORDS_DATES) {
		bp_out_put(out, date, date_len);
		bp_out_byte(out, ',');
	}
	put_thread(out, &w->thread_cache, e->tid, e->comm, false);
	bp_out_i64(out, e->cpu);
	if (sc && (sc->csv.len || csv_site(&sc->csv, e->site_id, e->site)))
		bp_out_put(out, sc->csv.p, sc->csv.len);
	else
		csv_site(out, e->site_id, e->site);
	csv_bytes(out, e->message, e->message_len);
	bp_out_byte(out, ',');
	bp_out_u64(out, e->lost_before);
	if (n >= 0) {
		struct col_field local[BP_PLAN_MAX_ARGS];
		const struct col_field *plan = local;
		int np;

		if (sc && sc->nplan < 0)
			sc->nplan = column_plan(w, lay, sc->plan);
		if (sc)
			plan = sc->plan, np = sc->nplan;
		else
			np = column_plan(w, lay, local);	/* no memory for the cache */
		for (int i = 0; i < np; i++) {
			if (plan[i].k >= n)
				continue;
			put_commas(out, plan[i].col - done + 1);
			put_value(out, t, lay, (unsigned)plan[i].k, &w->vals[plan[i].k], false);
			done = plan[i].col + 1;
		}
	}
	put_commas(out, w->ncolumns - done);
	return put_line(w, start);
}

/* ---- the writer ------------------------------------------------------------ */

struct bp_trace_records *bp_trace_records_new(struct bp_trace *t, unsigned flags)
{
	struct bp_trace_records *w;

	if (!t || !(flags & BP_TRACE_RECORDS_JSON) == !(flags & BP_TRACE_RECORDS_CSV)) {
		errno = EINVAL;
		return NULL;
	}
	if (!(w = calloc(1, sizeof(*w))))
		return NULL;
	w->t = t;
	w->flags = flags;
	w->sec_of = UINT64_MAX;
	return w;
}

int bp_trace_records_event(struct bp_trace_records *w, struct bp_trace_event *e,
			   const char *date, size_t date_len)
{
	if (!date)
		date_len = 0;
	return w->flags & BP_TRACE_RECORDS_JSON ? json_event(w, e, date, date_len)
						: csv_event(w, e, date, date_len);
}

const char *bp_trace_records_lines(const struct bp_trace_records *w, size_t *len)
{
	*len = w->line.len;
	return (const char *)w->line.p;
}

void bp_trace_records_clear(struct bp_trace_records *w)
{
	w->line.len = 0;
}

void bp_trace_records_free(struct bp_trace_records *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->ncolumns; i++)
		free(w->columns[i]);
	free(w->columns);
	for (size_t i = 0; i < w->nsite_caches; i++) {
		if (w->site_caches[i]) {
			bp_out_free(&w->site_caches[i]->json);
			bp_out_free(&w->site_caches[i]->csv);
			free(w->site_caches[i]);
		}
	}
	free(w->site_caches);
	bp_out_free(&w->thread_cache.text);
	bp_out_free(&w->sec);
	bp_out_free(&w->line);
	free(w);
}
