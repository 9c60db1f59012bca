/*
 * The --where evaluator (bprint/query.h).
 *
 * Parsing turns the text into terms, each with its value read every way it
 * can be read (an integer, a double, and always its text).  Binding a term
 * to a site looks its field up in the site's layout once and picks the
 * comparison the field's type calls for; the bindings are kept per site id,
 * so a record costs a table lookup, the decode of its block and one
 * comparison per term.
 */
#include <bprint/query.h>

#include "analysis/say.h"
#include "file/array.h"

#include "analysis/glob.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_GLOB };

static const char *const op_names[] = { "==", "!=", "<", "<=", ">", ">=", "~" };

struct term {
	char *field;
	enum op op;
	char *text;			/* the value, unquoted and unescaped */
	size_t len;
	bool quoted;
	bool is_int;			/* an integer: -mag if neg, else mag */
	bool neg;
	uint64_t mag;
	bool is_num;			/* a number (integer or not): d */
	double d;
};

/* How one term compares on one site. */
enum how { HOW_NONE, HOW_SIGNED, HOW_UNSIGNED, HOW_FLOAT, HOW_BYTES, HOW_CHAR };

struct bind {
	int16_t field;			/* index in the site's fields */
	uint8_t how;			/* enum how; HOW_NONE: the site never matches */
	uint8_t type;			/* the field's (enum bp_field_type) */
};

struct site_binds {
	bool none;			/* some term cannot apply: never a match */
	struct bind b[];
};

struct bp_where {
	struct term *terms;
	size_t n;
	/* per site id: NULL until bound */
	struct site_binds **by_id;
	size_t nby_id;
	const struct bp_trace *bound_to;
	/* fields decoded for bp_where_match() */
	struct bp_field_value vals[BP_PLAN_MAX_ARGS];	/* a layout's fields, at most */
};

/* ---- parsing ------------------------------------------------------------ */

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static bool ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool ident_char(char c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

static const char *parse_op(const char *p, enum op *op)
{
	static const struct { const char *s; enum op op; } ops[] = {
		{ "==", OP_EQ }, { "!=", OP_NE }, { "<=", OP_LE }, { ">=", OP_GE },
		{ "<", OP_LT }, { ">", OP_GT }, { "~", OP_GLOB }, { "=", OP_EQ },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].s);

		if (!strncmp(p, ops[i].s, n)) {
			*op = ops[i].op;
			return p + n;
		}
	}
	return NULL;
}

/* A quoted value at p (its quote): unescaped into out (room for strlen(p)
 * bytes); returns the byte after the closing quote, or NULL. */
static const char *parse_quoted(const char *p, char *out, size_t *len)
{
	char q = *p++;

	*len = 0;
	for (; *p && *p != q; p++) {
		char c = *p;

		if (c == '\\' && p[1]) {
			c = *++p;
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
		}
		out[(*len)++] = c;
	}
	return *p == q ? p + 1 : NULL;
}

/* The numeric readings of a value's text. */
static void read_number(struct term *t)
{
	const char *s = t->text;
	char *end;
	bool neg = *s == '-';
	const char *digits = neg || *s == '+' ? s + 1 : s;
	int base = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') ? 16 : 10;

	if (t->quoted || !t->len || strlen(s) != t->len)
		return;
	if ((*digits >= '0' && *digits <= '9')) {
		errno = 0;
		t->mag = strtoull(digits, &end, base);
		if (!*end && !errno && end != digits && (!neg || t->mag <= (uint64_t)INT64_MAX + 1)) {
			t->is_int = t->is_num = true;
			t->neg = neg && t->mag;
			t->d = neg ? -(double)t->mag : (double)t->mag;
			return;
		}
	}
	errno = 0;
	t->d = strtod(s, &end);
	t->is_num = !*end && end != s && !isnan(t->d);
}

/* One term at p; returns the byte after it (',' or the end) or NULL. */
static const char *parse_term(const char *p, struct term *t, char *err, size_t errlen)
{
	const char *start = skip_space(p), *q = start, *v;
	size_t n;

	while (ident_char(*q))
		q++;
	if (q == start || !ident_start(*start)) {
		bp_say(err, errlen, "expected a field name at '%s'", start);
		return NULL;
	}
	if (!(t->field = strndup(start, (size_t)(q - start))))
		return bp_say(err, errlen, "out of memory"), NULL;
	q = skip_space(q);
	if (!(v = parse_op(q, &t->op))) {
		bp_say(err, errlen, "%s: expected one of == != < <= > >= ~ at '%s'", t->field, q);
		return NULL;
	}
	v = skip_space(v);
	if (*v && strchr("=<>!~", *v)) {
		bp_say(err, errlen, "%s: '%.2s' is not an operator (== != < <= > >= ~)", t->field, q);
		return NULL;
	}
	n = strlen(v);
	if (!(t->text = malloc(n + 1)))
		return bp_say(err, errlen, "out of memory"), NULL;
	if (*v == '"' || *v == '\'') {
		t->quoted = true;
		if (!(q = parse_quoted(v, t->text, &t->len))) {
			bp_say(err, errlen, "%s: the value's quote is not closed", t->field);
			return NULL;
		}
		q = skip_space(q);
		if (*q && *q != ',') {
			bp_say(err, errlen, "%s: expected ',' after the quoted value at '%s'", t->field, q);
			return NULL;
		}
	} else {
		for (q = v; *q && *q != ','; q++)
			;
		t->len = (size_t)(q - v);
		while (t->len && (v[t->len - 1] == ' ' || v[t->len - 1] == '\t'))
			t->len--;
		memcpy(t->text, v, t->len);
		if (!t->len) {
			bp_say(err, errlen, "%s%s: expected a value", t->field, op_names[t->op]);
			return NULL;
		}
	}
	t->text[t->len] = '\0';
	read_number(t);
	return q;
}

static void free_terms(struct bp_where *w)
{
	for (size_t i = 0; i < w->n; i++) {
		free(w->terms[i].field);
		free(w->terms[i].text);
	}
	free(w->terms);
}

static void forget_sites(struct bp_where *w)
{
	for (size_t i = 0; i < w->nby_id; i++)
		free(w->by_id[i]);
	free(w->by_id);
	w->by_id = NULL, w->nby_id = 0;
}

void bp_where_free(struct bp_where *w)
{
	if (!w)
		return;
	free_terms(w);
	forget_sites(w);
	free(w);
}

struct bp_where *bp_where_new(const char *expr, char *err, size_t errlen)
{
	struct bp_where *w = calloc(1, sizeof(*w));
	const char *p = expr;

	if (!w || !expr) {
		bp_say(err, errlen, w ? "no expression" : "out of memory");
		free(w);
		return NULL;
	}
	for (;;) {
		struct term *grown = realloc(w->terms, (w->n + 1) * sizeof(*grown));

		if (!grown) {
			bp_say(err, errlen, "out of memory");
			goto bad;
		}
		w->terms = grown;
		w->terms[w->n] = (struct term){ 0 };
		p = parse_term(p, &w->terms[w->n++], err, errlen);
		if (!p)
			goto bad;
		if (!*p)
			return w;
		p++;	/* the ',' */
	}
bad:
	bp_where_free(w);
	return NULL;
}

/* ---- binding a term to a site's fields ------------------------------------ */

/* The comparison of term t on field f, HOW_NONE if it cannot compare. */
static enum how how_for(const struct term *t, const struct bp_trace_field *f)
{
	switch (f->type) {
	case BP_FIELD_SIGNED:
	case BP_FIELD_UNSIGNED:
	case BP_FIELD_POINTER:
		if (t->op == OP_GLOB || !t->is_num)
			return HOW_NONE;
		if (!t->is_int)
			return HOW_FLOAT;
		return f->type == BP_FIELD_SIGNED ? HOW_SIGNED : HOW_UNSIGNED;
	case BP_FIELD_FLOAT:
		return t->op == OP_GLOB || !t->is_num ? HOW_NONE : HOW_FLOAT;
	case BP_FIELD_STRING:
		return HOW_BYTES;
	case BP_FIELD_CHAR:
		return HOW_CHAR;
	default:
		return HOW_NONE;
	}
}

static struct site_binds *bind_site(const struct bp_where *w, struct bp_trace *t, uint32_t id)
{
	const struct bp_trace_layout *lay = bp_trace_layout(t, id);
	struct site_binds *sb = calloc(1, sizeof(*sb) + w->n * sizeof(sb->b[0]));

	if (!sb)
		return NULL;
	sb->none = !lay;
	for (size_t i = 0; i < w->n && !sb->none; i++) {
		int k = bp_trace_field_index(lay, w->terms[i].field);

		sb->b[i].field = (int16_t)k;
		sb->b[i].how = (uint8_t)(k < 0 ? HOW_NONE : how_for(&w->terms[i], &lay->fields[k]));
		sb->b[i].type = k < 0 ? 0 : lay->fields[k].type;
		sb->none = sb->b[i].how == HOW_NONE;
	}
	return sb;
}

/* The bindings of site id, made on first use; NULL if memory ran out. */
static const struct site_binds *binds_of(struct bp_where *w, struct bp_trace *t, uint32_t id)
{
	if (w->bound_to != t) {
		forget_sites(w);
		w->bound_to = t;
	}
	if (id >= w->nby_id) {
		struct site_binds **grown = bp_array_grow(w->by_id, &w->nby_id, (size_t)id + 1,
							  sizeof(*grown));

		if (!grown)
			return NULL;
		w->by_id = grown;
	}
	if (!w->by_id[id])
		w->by_id[id] = bind_site(w, t, id);
	return w->by_id[id];
}

static const char *type_word(uint8_t type)
{
	switch (type) {
	case BP_FIELD_STRING:
		return "a string";
	case BP_FIELD_CHAR:
		return "a character";
	default:
		return "a number";
	}
}

int bp_where_check(struct bp_where *w, struct bp_trace *t, struct bp_sites *sel, char *err,
		   size_t errlen)
{
	for (size_t i = 0; i < w->n; i++) {
		const struct term *tm = &w->terms[i];
		const struct bp_trace_field *seen = NULL;
		bool usable = false;

		for (size_t k = 0, n = bp_trace_nsites(t); k < n && !usable; k++) {
			const struct bp_trace_site *s = bp_trace_site_at(t, k);
			const struct bp_trace_layout *lay;
			int f;

			if (!s || (sel && !bp_sites_match(sel, t, s->id)))
				continue;
			if (!(lay = bp_trace_layout(t, s->id)) ||
			    (f = bp_trace_field_index(lay, tm->field)) < 0)
				continue;
			seen = &lay->fields[f];
			usable = how_for(tm, seen) != HOW_NONE;
		}
		if (usable)
			continue;
		if (!seen)
			return bp_say(err, errlen, "no field '%s' in the %s (see 'bprint formats')",
				    tm->field, sel && bp_sites_count(sel) ? "chosen call sites" :
				    "trace's call sites");
		if (tm->op == OP_GLOB)
			return bp_say(err, errlen, "%s~%s: '~' compares strings, and %s is %s", tm->field,
				    tm->text, tm->field, type_word(seen->type));
		return bp_say(err, errlen, "%s%s%s: %s is %s, and '%s' is not", tm->field,
			    op_names[tm->op], tm->text, tm->field, type_word(seen->type), tm->text);
	}
	return 0;
}

/* ---- evaluating --------------------------------------------------------- */

static bool holds(enum op op, int cmp)
{
	switch (op) {
	case OP_EQ:
		return cmp == 0;
	case OP_NE:
		return cmp != 0;
	case OP_LT:
		return cmp < 0;
	case OP_LE:
		return cmp <= 0;
	case OP_GT:
		return cmp > 0;
	default:
		return cmp >= 0;
	}
}

static int cmp_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c ? (c > 0) - (c < 0) : (alen > blen) - (alen < blen);
}

static bool term_holds(const struct term *tm, enum how how, const struct bp_field_value *v)
{
	int cmp;

	switch (how) {
	case HOW_SIGNED:
		if (!tm->neg)
			cmp = v->v.i < 0 || (uint64_t)v->v.i < tm->mag ? -1 : (uint64_t)v->v.i > tm->mag;
		else	/* -mag, mag up to 2^63 */
			cmp = v->v.i >= 0 ? 1 : (uint64_t)0 - (uint64_t)v->v.i > tm->mag ? -1 :
			      (uint64_t)0 - (uint64_t)v->v.i < tm->mag;
		return holds(tm->op, cmp);
	case HOW_UNSIGNED:
		cmp = tm->neg ? 1 : (v->v.u > tm->mag) - (v->v.u < tm->mag);
		return holds(tm->op, cmp);
	case HOW_CHAR: {
		char c = (char)v->v.u;

		if (tm->op == OP_GLOB)
			return bp_glob_match(tm->text, tm->len, &c, 1);
		return holds(tm->op, cmp_bytes(&c, 1, tm->text, tm->len));
	}
	default:
		if (tm->op == OP_GLOB)
			return bp_glob_match(tm->text, tm->len, v->s, v->len);
		return holds(tm->op, cmp_bytes(v->s, v->len, tm->text, tm->len));
	}
}

/* Integers and pointers against a number with a fraction: as long doubles. */
static bool holds_float_of(const struct term *tm, uint8_t type, const struct bp_field_value *v)
{
	long double x = type == BP_FIELD_SIGNED ? (long double)v->v.i :
			type == BP_FIELD_FLOAT ? (long double)v->v.d : (long double)v->v.u;
	long double y = tm->d;

	if (type == BP_FIELD_FLOAT && isnan(v->v.d))
		return false;
	return holds(tm->op, (x > y) - (x < y));
}

uint64_t bp_where_fields(struct bp_where *w, struct bp_trace *t, uint32_t site_id)
{
	const struct site_binds *sb = binds_of(w, t, site_id);
	uint64_t mask = 0;

	if (!sb || sb->none)
		return 0;
	for (size_t i = 0; i < w->n; i++)
		if (sb->b[i].field >= 0 && sb->b[i].field < 64)
			mask |= UINT64_C(1) << sb->b[i].field;
	return mask;
}

int bp_where_match_fields(struct bp_where *w, struct bp_trace *t, uint32_t site_id,
			  const struct bp_field_value *vals, size_t n)
{
	const struct site_binds *sb = binds_of(w, t, site_id);

	if (!sb || sb->none)	/* (none, too, for a site without a layout) */
		return 0;
	for (size_t i = 0; i < w->n; i++) {
		const struct bind *b = &sb->b[i];
		const struct bp_field_value *v;

		if ((size_t)b->field >= n)
			return 0;
		v = &vals[b->field];
		if (b->how == HOW_FLOAT) {
			if (!holds_float_of(&w->terms[i], b->type, v))
				return 0;
		} else if (!term_holds(&w->terms[i], (enum how)b->how, v)) {
			return 0;
		}
	}
	return 1;
}

int bp_where_match(struct bp_where *w, struct bp_trace *t, const struct bp_trace_event *ev)
{
	const struct site_binds *sb = binds_of(w, t, ev->site_id);
	const struct bp_trace_layout *lay;
	int n;

	if (!sb || sb->none || !(lay = bp_trace_layout(t, ev->site_id)))
		return 0;
	n = bp_trace_event_fields(t, ev, w->vals, BP_PLAN_MAX_ARGS);
	return n >= 0 && bp_where_match_fields(w, t, ev->site_id, w->vals, (size_t)n);
}
