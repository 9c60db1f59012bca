/*
 * A call site's layout (site_layout.h, docs/fields.md).  One walk of the
 * decoder's tokens gives the fields: each value conversion and each '*'
 * width or precision, in the order the argument plan stores them, zipped
 * with the plan's slots (which say how the block holds each one); the
 * names come from the literal text between conversions, by the rule of
 * docs/fields.md.  Reading a block is then a loop over the fields with the
 * bounded readers of format/block.h; reading some of its fields (the
 * analysis commands, per record) scans its strings and reads each wanted
 * field at its place, worked out once per layout from the strings' ends.
 */
#include "reader/site_layout.h"

#include "reader/reader.h"
#include "format/block.h"
#include "format/emit.h"

#include <bprint.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a '*' value is to its conversion. */
enum star_role { STAR_NONE, STAR_WIDTH, STAR_PRECISION };

/* The walk: the layout being filled, and the names as offsets into a
 * growing text (pointers are set once it stops moving). */
struct walk {
	struct bp_site_layout *l;
	const char *fmt;
	unsigned nslot;			/* plan slots consumed */
	unsigned nconv;			/* value conversions named so far */
	unsigned first;			/* the fields of the conversion being read start here */
	uint8_t role[BP_PLAN_MAX_ARGS];	/* enum star_role of each field */
	uint32_t word_off, word_len;	/* the last word since the previous conversion */
	uint32_t conv_off;		/* where the conversion being read starts */
	bool in_star;			/* after a '*': the conversion goes on */
	char *text;			/* the names, NUL-separated */
	size_t len, cap;
	uint32_t name_at[BP_PLAN_MAX_ARGS];
	bool oom, bad;
};

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* The last word of the literal text [off, off + len) of the format, if any. */
static void scan_words(struct walk *w, uint32_t off, uint32_t len)
{
	const char *s = w->fmt + off;

	for (uint32_t i = 0; i < len;) {
		uint32_t start = i;

		if (!word_char(s[i])) {
			i++;
			continue;
		}
		while (i < len && word_char(s[i]))
			i++;
		if (s[start] < '0' || s[start] > '9') {
			w->word_off = off + start;
			w->word_len = i - start;
		}
	}
}

/* "arg" then decimal digits, as the fallback names are; with a suffix too. */
static bool arg_form(const char *s, size_t n)
{
	size_t i = 3;

	if (n < 4 || memcmp(s, "arg", 3) || s[3] < '0' || s[3] > '9')
		return false;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	return i == n || (n - i == 6 && !memcmp(s + i, "_width", 6)) ||
	       (n - i == 10 && !memcmp(s + i, "_precision", 10));
}

static const char *name_of(const struct walk *w, unsigned field)
{
	return w->text + w->name_at[field];
}

/* Is base + suffix the name of one of the first n fields? */
static bool taken(const struct walk *w, unsigned n, const char *base, size_t blen,
		  const char *suffix)
{
	size_t slen = strlen(suffix);

	for (unsigned k = 0; k < n; k++) {
		const char *name = name_of(w, k);

		if (strlen(name) == blen + slen && !memcmp(name, base, blen) &&
		    !memcmp(name + blen, suffix, slen))
			return true;
	}
	return false;
}

/* Room for one more name of up to n bytes and its NUL. */
static bool reserve(struct walk *w, size_t n)
{
	size_t cap = w->cap ? w->cap : 256;
	char *p;

	if (w->len + n + 1 <= w->cap)
		return true;
	while (cap < w->len + n + 1)
		cap *= 2;
	if (!(p = realloc(w->text, cap))) {
		w->oom = true;
		return false;
	}
	w->text = p;
	w->cap = cap;
	return true;
}

/*
 * Field i is named base + suffix (base not inside w->text), then '_' is
 * appended while an earlier field has the name: the rule's choices never
 * clash (docs/fields.md); only the '*' values of a conversion that stores
 * no value ("%*%") can, and i earlier names take at most i rounds.
 */
static void set_name(struct walk *w, unsigned i, const char *base, size_t blen,
		     const char *suffix)
{
	size_t slen = strlen(suffix), n = blen + slen;
	char *p;

	if (!reserve(w, n + i)) {
		w->name_at[i] = 0;
		return;
	}
	p = w->text + w->len;
	memcpy(p, base, blen);
	memcpy(p + blen, suffix, slen);
	p[n] = '\0';
	while (taken(w, i, p, n, ""))
		p[n++] = '_', p[n] = '\0';
	w->name_at[i] = (uint32_t)w->len;
	w->len += n + 1;
}

static const char *suffix_of(uint8_t role)
{
	return role == STAR_WIDTH ? "_width" : role == STAR_PRECISION ? "_precision" : "";
}

/* Name the conversion whose own value is field v, its '*' values being the
 * fields w->first .. v - 1: after its word, unless there is none, it has
 * the fallback's form, or it (or a name it gives a '*' value) is taken. */
static void name_conversion(struct walk *w, unsigned v)
{
	const char *word = w->fmt + w->word_off;
	size_t wl = w->word_len;
	char fallback[16];
	bool use = wl && !arg_form(word, wl) && !taken(w, w->first, word, wl, "");

	for (unsigned k = w->first; k < v && use; k++)
		use = !taken(w, w->first, word, wl, suffix_of(w->role[k]));
	if (!use) {
		snprintf(fallback, sizeof(fallback), "arg%u", w->nconv);
		word = fallback;
		wl = strlen(fallback);
	}
	for (unsigned k = w->first; k < v; k++)
		set_name(w, k, word, wl, suffix_of(w->role[k]));
	set_name(w, v, word, wl, "");
}

/* '*' values whose conversion stores no value ("%*%", "%*n"): "starK",
 * K their field index. */
static void name_orphans(struct walk *w)
{
	char name[16];

	for (unsigned k = w->first; k < w->l->pub.nfields; k++) {
		snprintf(name, sizeof(name), "star%u", k);
		set_name(w, k, name, strlen(name), "");
	}
}

/* The field of one token's value, with the plan's next slot; false (and
 * w->bad) if the plan has no slot left for it. */
static bool add_field(struct walk *w, const struct bp_printf_spec *spec)
{
	static const uint8_t int_size[] = {
		[BP_LEN_NONE] = 4, [BP_LEN_HH] = 1, [BP_LEN_H] = 2, [BP_LEN_L] = 8,
		[BP_LEN_LL] = 8, [BP_LEN_J] = 8, [BP_LEN_Z] = 8, [BP_LEN_T] = 8,
	};
	struct bp_site_layout *l = w->l;
	unsigned i = l->pub.nfields;
	struct bp_trace_field *f = &l->field[i];
	uint8_t kind;

	if (w->nslot >= l->plan.nargs || (kind = l->plan.slot[w->nslot].kind) == BP_ARG_SKIP) {
		w->bad = true;
		return false;
	}
	w->nslot++;
	*f = (struct bp_trace_field){ .conv = spec->conv, .conversion = w->nconv };
	w->role[i] = STAR_NONE;
	switch (spec->type) {
	case BP_FMT_WIDTH:
	case BP_FMT_PRECISION:
		f->type = BP_FIELD_SIGNED, f->size = 4, f->base = 10, f->conv = '*';
		w->role[i] = spec->type == BP_FMT_WIDTH ? STAR_WIDTH : STAR_PRECISION;
		break;
	case BP_FMT_INT:
		f->type = spec->flags & BP_FLAG_SIGNED ? BP_FIELD_SIGNED : BP_FIELD_UNSIGNED;
		f->size = spec->length < sizeof(int_size) ? int_size[spec->length] : 8;
		f->base = spec->base;
		break;
	case BP_FMT_CHAR:
		f->type = BP_FIELD_CHAR, f->size = 1;
		break;
	case BP_FMT_STR:
		f->type = BP_FIELD_STRING;
		break;
	case BP_FMT_PTR:
		f->type = BP_FIELD_POINTER, f->size = 8, f->base = 16;
		break;
	default:	/* BP_FMT_FLOAT */
		f->type = BP_FIELD_FLOAT, f->size = 8;
		break;
	}
	l->slot[i] = kind;
	l->pub.nfields++;
	return true;
}

/* The fields w->first .. nfields - 1 belong to the conversion ending at end. */
static void set_text(struct walk *w, uint32_t end)
{
	for (unsigned k = w->first; k < w->l->pub.nfields; k++) {
		w->l->text[k].offset = w->conv_off;
		w->l->text[k].len = end - w->conv_off;
	}
}

/* A conversion ends: the next one's fields start here, its words anew. */
static void conversion_done(struct walk *w)
{
	w->first = w->l->pub.nfields;
	w->word_len = 0;
}

/* One token: its fields and names.  *skip_letter: a %pS took the letter
 * that starts the next literal. */
static void take_token(struct walk *w, struct bp_printf_spec *spec, uint32_t off, uint32_t len,
		       bool *skip_letter)
{
	struct bp_site_layout *l = w->l;
	bool fields = l->has_plan && !w->bad;

	if (spec->type != BP_FMT_LITERAL && !w->in_star)
		w->conv_off = off;
	w->in_star = spec->type == BP_FMT_WIDTH || spec->type == BP_FMT_PRECISION;
	switch (spec->type) {
	case BP_FMT_LITERAL:
		if (*skip_letter)
			off++, len--;
		scan_words(w, off, len);
		break;
	case BP_FMT_PERCENT:	/* literal text '%', but it ends a '*' run */
		set_text(w, off + len);
		if (w->first < l->pub.nfields)
			name_orphans(w);
		w->first = l->pub.nfields;
		break;
	case BP_FMT_WIDTH:
	case BP_FMT_PRECISION:
		if (fields)
			add_field(w, spec);
		if (spec->type == BP_FMT_PRECISION)
			spec->precision = 0;	/* a value comes at run time, as in the plan */
		return;
	case BP_FMT_NRCHARS:
		if (fields && (w->nslot >= l->plan.nargs || l->plan.slot[w->nslot++].kind != BP_ARG_SKIP))
			w->bad = true;
		/* fall through */
	case BP_FMT_INVALID:
	case BP_FMT_NONE:
		set_text(w, off + len);
		name_orphans(w);
		conversion_done(w);
		break;
	default: {	/* a value conversion */
		char next = w->fmt[off + len];

		*skip_letter = spec->type == BP_FMT_PTR && (next == 'S' || next == 's');
		if (*skip_letter)
			l->pub.flags |= BP_LAYOUT_SYMBOLS;
		if (fields && add_field(w, spec)) {
			l->symbol[l->pub.nfields - 1] = *skip_letter ? next : 0;
			name_conversion(w, l->pub.nfields - 1);
			set_text(w, off + len + *skip_letter);
		}
		w->nconv++;
		conversion_done(w);
		return;
	}
	}
	*skip_letter = false;
}

/* Decode the format once: with a plan, the fields and their names. */
static bool walk_format(struct walk *w)
{
	struct bp_printf_spec spec = { 0 };
	bool skip_letter = false;

	for (uint32_t off = 0;;) {
		uint32_t used = (uint32_t)bp_format_decode(w->fmt + off, &spec);

		take_token(w, &spec, off, used, &skip_letter);
		if (spec.type == BP_FMT_NONE || w->oom)
			break;
		off += used;
	}
	return !w->oom;
}

static void make_places(struct bp_site_layout *l);

struct bp_site_layout *bp_site_layout_new(uint32_t site_id, uint32_t kind, const char *fmt)
{
	struct bp_site_layout *l = calloc(1, sizeof(*l));
	struct walk w = { .l = l, .fmt = fmt };

	if (!l)
		return NULL;
	l->pub.site_id = site_id;
	l->pub.fields = l->field;
	l->format = fmt;
	if (kind == BPRINT__SITE_PUTS) {
		l->puts = l->has_plan = true;
		make_places(l);		/* none: the block is empty */
		return l;
	}
	l->has_plan = bp_format_compile(fmt, &l->plan) == 0;
	if (!(l->pf = bp_format_parse(fmt)) || !walk_format(&w)) {
		free(w.text);
		bp_site_layout_free(l);
		return NULL;
	}
	if (w.bad || w.nslot != l->plan.nargs) {
		l->has_plan = false;	/* the two walks disagree: never expected */
		l->pub.nfields = 0;
	}
	l->names = w.text;
	for (unsigned i = 0; i < l->pub.nfields; i++)
		l->field[i].name = w.text + w.name_at[i];
	make_places(l);
	return l;
}

void bp_site_layout_free(struct bp_site_layout *l)
{
	if (!l)
		return;
	bp_format_parsed_free(l->pf);
	free(l->names);
	free(l);
}

static bool is_string(uint8_t slot)
{
	return slot == BP_ARG_STR || slot == BP_ARG_STR_STAR;
}

/* The bytes a slot other than a string takes in the block, and their
 * alignment (by enum bp_arg_kind; 0 for a string). */
static const uint8_t slot_bytes[] = {
	[BP_ARG_INT32] = 4, [BP_ARG_CHAR] = 1, [BP_ARG_LONG] = 8, [BP_ARG_LLONG] = 8,
	[BP_ARG_INTMAX] = 8, [BP_ARG_SIZE] = 8, [BP_ARG_PTRDIFF] = 8, [BP_ARG_PTR] = 8,
	[BP_ARG_DOUBLE] = 8, [BP_ARG_LDOUBLE] = BP_LDOUBLE_BYTES,
};
_Static_assert(sizeof(slot_bytes) == BP_ARG_LDOUBLE + 1, "a size for every stored slot");

static size_t slot_align(uint8_t slot)
{
	return slot == BP_ARG_CHAR ? 1 : 4;
}

double bp_field_ldouble_at(const unsigned char *p)
{
	long double ld = 0;

	memcpy(&ld, p, BP_LDOUBLE_BYTES < sizeof(ld) ? BP_LDOUBLE_BYTES : sizeof(ld));
	return (double)ld;
}

/* One value from the block (v NULL: walked over); false if the block does
 * not hold it. */
static inline bool read_value(uint8_t slot, const struct bp_field_place *place,
			      struct bp_block_in *b, struct bp_field_value *v)
{
	const unsigned char *p;
	const char *s;
	size_t len;

	if (is_string(slot)) {
		if (!(s = block_get_string(b, &len)))
			return false;
		if (v)
			v->v.u = 0, v->s = s, v->len = len;
		return true;
	}
	if (!(p = block_get(b, slot_bytes[slot], slot_align(slot))))
		return false;
	if (v)
		bp_field_value_at(slot, place, p, v);
	return true;
}

/* Where a place is, given the end of the last string before it (0: none). */
static inline size_t place_at(const struct bp_field_place *p, size_t string_end)
{
	size_t x = string_end + p->pre;

	return p->aligned ? ((x + 3) & ~(size_t)3) + p->off : x;
}

/* The places of l's fields and of its block's end, for decode_some. */
static void make_places(struct bp_site_layout *l)
{
	struct bp_field_place at = { 0 };

	for (unsigned i = 0; i < l->pub.nfields; i++) {
		const struct bp_trace_field *f = &l->field[i];
		uint8_t slot = l->slot[i];

		l->field_mask |= UINT32_C(1) << i;
		if (is_string(slot)) {
			l->place[i] = at;
			l->string_mask |= UINT32_C(1) << i;
			at = (struct bp_field_place){ 0 };
			continue;
		}
		if (slot_align(slot) == 4) {	/* align(align(x + pre) + off) */
			at.off = at.aligned ? (uint16_t)((at.off + 3u) & ~3u) : 0;
			at.aligned = true;
		}
		l->place[i] = at;
		l->place[i].bytes = slot_bytes[slot];
		if ((f->type == BP_FIELD_SIGNED || f->type == BP_FIELD_UNSIGNED) &&
		    (f->size == 1 || f->size == 2 || f->size == 4)) {
			l->place[i].drop = (uint8_t)(64 - 8 * f->size);
			l->place[i].sign = f->type == BP_FIELD_SIGNED;
		}
		if (at.aligned)
			at.off = (uint16_t)(at.off + slot_bytes[slot]);
		else
			at.pre = (uint16_t)(at.pre + slot_bytes[slot]);
	}
	l->place[l->pub.nfields] = at;
	for (unsigned i = 0; i <= l->pub.nfields; i++)
		l->place[i].at = (uint16_t)place_at(&l->place[i], 0);
	l->fixed_words = (uint32_t)(l->place[l->pub.nfields].at + 3u) / 4u;
	l->one_string = l->has_plan && l->string_mask &&
			!(l->string_mask & (l->string_mask - 1));
}

int bp_site_layout_decode(const struct bp_site_layout *l, const uint32_t *block, size_t words,
			  struct bp_field_value *out, size_t n)
{
	struct bp_block_in b = { .base = (const unsigned char *)block, .len = block ? words * 4 : 0 };

	if (!l->has_plan)
		return -1;
	for (unsigned i = 0; i < l->pub.nfields; i++)
		if (!read_value(l->slot[i], &l->place[i], &b, i < n ? &out[i] : NULL))
			return -1;
	if ((b.pos + 3) / 4 != words)
		return -1;	/* more words than the format packs */
	return (int)l->pub.nfields;
}

/*
 * A site of one string (most are: "cmd %s argc %d ..."): the string's
 * length first (stepped over, not copied), then the end's check, and only
 * then the wanted values, each at its place without a check of its own: a
 * block whose end is right holds every field, as places only grow.  The
 * same return as the loop below; a refused block gets no value written.
 */
int bp_site_layout_decode_one_string(const struct bp_site_layout *l, const uint32_t *block,
				     size_t words, uint32_t wanted, struct bp_field_value *out,
				     size_t n)
{
	const unsigned char *base = (const unsigned char *)block;
	unsigned si = (unsigned)__builtin_ctz(l->string_mask);
	size_t at = l->place[si].at, len, string_end;
	uint32_t before, after;

	wanted &= l->field_mask;
	if (n < 32)
		wanted &= (UINT32_C(1) << n) - 1;
	before = wanted & ((UINT32_C(1) << si) - 1), after = wanted >> si >> 1;
	if (!block_string_len(base, base ? words * 4 : 0, at, &len))
		return -1;
	string_end = at + len + 1;
	if ((place_at(&l->place[l->pub.nfields], string_end) + 3) / 4 != words)
		return -1;
	for (; before; before &= before - 1) {
		unsigned i = (unsigned)__builtin_ctz(before);

		bp_field_value_at(l->slot[i], &l->place[i], base + l->place[i].at, &out[i]);
	}
	if (wanted >> si & 1)
		out[si].v.u = 0, out[si].s = (const char *)base + at, out[si].len = len;
	for (; after; after &= after - 1) {
		unsigned i = si + 1 + (unsigned)__builtin_ctz(after);

		bp_field_value_at(l->slot[i], &l->place[i],
				  base + place_at(&l->place[i], string_end), &out[i]);
	}
	return (int)l->pub.nfields;
}

/*
 * One pass in field order over the strings (all: their NULs place the
 * rest) and the wanted values: a field's place is counted from the end of
 * the last string before it, which is the last string scanned.  A value
 * is read only if it lies inside the block; one that does not puts the
 * block's end past its last word, so the end's check then says -1, as it
 * does for every block that decode() refuses.
 */
int bp_site_layout_decode_strings(const struct bp_site_layout *l, const uint32_t *block,
				  size_t words, uint32_t wanted, struct bp_field_value *out, size_t n)
{
	struct bp_block_in b = { .base = (const unsigned char *)block, .len = block ? words * 4 : 0 };
	size_t string_end = 0, at;
	uint32_t todo;

	if (!l->has_plan)
		return -1;
	wanted &= l->field_mask;
	if (n < 32)
		wanted &= (UINT32_C(1) << n) - 1;
	for (todo = wanted | l->string_mask; todo; todo &= todo - 1) {
		unsigned i = (unsigned)__builtin_ctz(todo);
		const struct bp_field_place *p = &l->place[i];
		size_t len;

		at = place_at(p, string_end);
		if (!p->bytes) {	/* a string */
			if (!block_string_len(b.base, b.len, at, &len))
				return -1;
			string_end = at + len + 1;
			if (wanted >> i & 1)
				out[i].v.u = 0, out[i].s = (const char *)b.base + at, out[i].len = len;
		} else if (at + p->bytes <= b.len) {
			bp_field_value_at(l->slot[i], p, b.base + at, &out[i]);
		}
	}
	/* the last field ends in the last word: every field is inside the block */
	at = place_at(&l->place[l->pub.nfields], string_end);
	if ((at + 3) / 4 != words)
		return -1;
	return (int)l->pub.nfields;
}

/* ---- the public side (<bprint/reader.h>, "Fields by name") ---- */

const struct bp_trace_layout *bp_trace_layout(struct bp_trace *t, uint32_t site_id)
{
	const struct bp_site_layout *l = bp_trace_site_layout(t, site_id);

	return l && l->has_plan ? &l->pub : NULL;
}

const char *bp_trace_field_type_name(const struct bp_trace_field *f)
{
	static const char *const ints[2][9] = {
		{ [1] = "int8", [2] = "int16", [4] = "int32", [8] = "int64" },
		{ [1] = "uint8", [2] = "uint16", [4] = "uint32", [8] = "uint64" },
	};

	switch (f->type) {
	case BP_FIELD_SIGNED:
	case BP_FIELD_UNSIGNED:
		return f->size < 9 && ints[f->type == BP_FIELD_UNSIGNED][f->size]
			? ints[f->type == BP_FIELD_UNSIGNED][f->size] : "integer";
	case BP_FIELD_FLOAT: return "double";
	case BP_FIELD_STRING: return "string";
	case BP_FIELD_CHAR: return "char";
	case BP_FIELD_POINTER: return "pointer";
	default: return "?";
	}
}

int bp_trace_field_index(const struct bp_trace_layout *lay, const char *name)
{
	unsigned long n = 0;
	const char *p;

	if (!lay || !name)
		return -1;
	for (uint32_t i = 0; i < lay->nfields; i++)
		if (!strcmp(lay->fields[i].name, name))
			return (int)i;
	if (strncmp(name, "arg", 3) || name[3] < '0' || name[3] > '9' ||
	    (name[3] == '0' && name[4]))
		return -1;
	for (p = name + 3; *p >= '0' && *p <= '9' && n <= UINT32_MAX; p++)
		n = n * 10 + (unsigned long)(*p - '0');
	if (*p || n > UINT32_MAX)
		return -1;
	for (uint32_t i = 0; i < lay->nfields; i++)
		if (lay->fields[i].conv != '*' && lay->fields[i].conversion == n)
			return (int)i;
	return -1;
}

const char *bp_trace_field_text(const struct bp_trace_layout *lay, size_t k, size_t *len)
{
	const struct bp_site_layout *l;

	if (!lay || k >= lay->nfields)
		return NULL;
	l = bp_site_layout_of(lay);
	*len = l->text[k].len;
	return l->format + l->text[k].offset;
}

int bp_trace_event_fields(struct bp_trace *t, const struct bp_trace_event *ev,
			  struct bp_field_value *vals, size_t nvals)
{
	const struct bp_site_layout *l;

	if (!ev || ev->text || !(l = bp_trace_site_layout(t, ev->site_id)))
		return -1;
	return bp_site_layout_decode(l, ev->block, ev->block_words, vals, nvals);
}
