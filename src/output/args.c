/*
 * The typed arguments of a record (output/args.h).  The plan
 * (bp_format_compile()) says how each value is stored; the decoder's specs,
 * walked in the same order, say what it is (signedness, length, base).  The
 * two are zipped once per site; reading a block is then a loop over the
 * descriptors with the bounded readers of format/block.h.
 */
#include "output/args.h"

#include "format/block.h"
#include "format/emit.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Roles of a value in its conversion, for the names. */
enum { ROLE_CONV, ROLE_WIDTH, ROLE_PRECISION };

/* An identifier leaves room for the longest suffix. */
#define IDENT_MAX (BP_ARG_NAME_MAX - sizeof("_precision") + 1)

struct arg_draft {
	uint8_t role;
	uint8_t group;			/* index of the conversion's own value */
	char ident[IDENT_MAX];		/* "" if none */
};

/* Identifiers no exporter can take as a field name (C and CTF's TSDL). */
static bool reserved(const char *s)
{
	static const char *const words[] = {
		"msg", "align", "callsite", "char", "clock", "const", "double", "enum", "env",
		"event", "float", "floating_point", "int", "integer", "long", "short", "signed",
		"stream", "string", "struct", "trace", "typealias", "typedef", "unsigned",
		"variant", "void", "_Bool", "_Complex", "_Imaginary",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(s, words[i]))
			return true;
	/* argN is the fallback's own pattern */
	return !strncmp(s, "arg", 3) && s[3] >= '0' && s[3] <= '9';
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/*
 * The name written before a conversion starting at conv, in the literal
 * text [lo, conv): "name=" or "name:" or "name: ".  "" if none.
 */
static void ident_before(const char *lo, const char *conv, char *out)
{
	const char *end = conv, *p;
	size_t n;

	out[0] = '\0';
	if (end > lo && end[-1] == ' ' && end - 1 > lo && end[-2] == ':')
		end--;
	if (end <= lo || (end[-1] != '=' && end[-1] != ':'))
		return;
	end--;
	for (p = end; p > lo && ident_char(p[-1]); p--)
		;
	n = (size_t)(end - p);
	if (n == 0 || n >= IDENT_MAX || (*p >= '0' && *p <= '9'))
		return;
	memcpy(out, p, n);
	out[n] = '\0';
	if (reserved(out))
		out[0] = '\0';
}

/* What the value of a token is; false for a token that stores no value. */
static bool describe(const struct bp_printf_spec *spec, uint8_t slot, struct bp_arg_desc *d)
{
	static const uint8_t int_size[] = {
		[BP_LEN_NONE] = 4, [BP_LEN_HH] = 1, [BP_LEN_H] = 2, [BP_LEN_L] = 8,
		[BP_LEN_LL] = 8, [BP_LEN_J] = 8, [BP_LEN_Z] = 8, [BP_LEN_T] = 8,
	};

	*d = (struct bp_arg_desc){ .slot = slot, .conv = spec->conv, .base = 10 };
	switch (spec->type) {
	case BP_FMT_WIDTH:
	case BP_FMT_PRECISION:
		d->type = BP_ARGT_INT, d->size = 4, d->conv = '*';
		return true;
	case BP_FMT_INT:
		d->type = spec->flags & BP_FLAG_SIGNED ? BP_ARGT_INT : BP_ARGT_UINT;
		d->size = spec->length < sizeof(int_size) ? int_size[spec->length] : 8;
		d->base = spec->base;
		return true;
	case BP_FMT_CHAR:
		d->type = BP_ARGT_CHAR, d->size = 1;
		return true;
	case BP_FMT_STR:
		d->type = BP_ARGT_STR;
		return true;
	case BP_FMT_PTR:
		d->type = BP_ARGT_PTR, d->size = 8, d->base = 16;
		return true;
	case BP_FMT_FLOAT:
		d->type = BP_ARGT_DOUBLE, d->size = 8;
		return true;
	default:
		return false;
	}
}

/* Final names: the identifier if it is unique, else argN; '*' values after
 * their conversion ("x_width"); any clash left becomes argN. */
static void name_all(struct bp_arg_layout *lay, const struct arg_draft *dr)
{
	for (unsigned i = 0; i < lay->n; i++) {
		const struct arg_draft *g = &dr[dr[i].group];
		bool unique = g->ident[0] != '\0';
		char base[IDENT_MAX];

		for (unsigned j = 0; j < lay->n && unique; j++)
			if (j != dr[i].group && dr[j].role == ROLE_CONV &&
			    !strcmp(dr[j].ident, g->ident))
				unique = false;
		if (unique)
			snprintf(base, sizeof(base), "%s", g->ident);
		else
			snprintf(base, sizeof(base), "arg%u", (unsigned)dr[i].group);
		snprintf(lay->d[i].name, sizeof(lay->d[i].name), "%s%s", base,
			 dr[i].role == ROLE_WIDTH ? "_width" :
			 dr[i].role == ROLE_PRECISION ? "_precision" : "");
	}
	for (unsigned i = 0; i < lay->n; i++)
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(lay->d[i].name, lay->d[j].name)) {
				snprintf(lay->d[i].name, sizeof(lay->d[i].name), "arg%u", i);
				break;
			}
}

/* The descriptor and draft of one token's value; false if it stores none. */
static bool add_value(struct bp_arg_layout *lay, struct arg_draft *dr,
		      const struct bp_printf_spec *spec, const struct bp_arg_plan *plan,
		      unsigned *slot)
{
	struct bp_arg_desc d;

	if (*slot >= plan->nargs || !describe(spec, plan->slot[*slot].kind, &d)) {
		*slot += spec->type == BP_FMT_NRCHARS;	/* %n: a slot, no value */
		return false;
	}
	(*slot)++;
	dr[lay->n] = (struct arg_draft){
		.role = spec->type == BP_FMT_WIDTH ? ROLE_WIDTH :
			spec->type == BP_FMT_PRECISION ? ROLE_PRECISION : ROLE_CONV,
		.group = (uint8_t)lay->n,
	};
	lay->d[lay->n++] = d;
	return true;
}

int bp_args_compile(const char *fmt, struct bp_arg_layout *lay)
{
	struct bp_arg_plan plan;
	struct arg_draft dr[BP_PLAN_MAX_ARGS];
	struct bp_printf_spec spec = { 0 };
	const char *lit = NULL;		/* the literal token just before, if any */
	const char *conv = fmt, *conv_lit = fmt;
	unsigned slot = 0, first = 0;
	bool inside = false;		/* after a '*': the conversion goes on */

	*lay = (struct bp_arg_layout){ 0 };
	if (!fmt || bp_format_compile(fmt, &plan) != 0)
		return -1;
	for (;;) {
		const char *at = fmt;

		fmt += bp_format_decode(fmt, &spec);
		if (spec.type == BP_FMT_NONE)
			break;
		if (spec.type == BP_FMT_LITERAL) {
			lit = at;
			continue;
		}
		if (!inside) {
			conv = at, conv_lit = lit ? lit : at, first = lay->n;
		}
		lit = NULL;
		inside = spec.type == BP_FMT_WIDTH || spec.type == BP_FMT_PRECISION;
		if (spec.type == BP_FMT_PRECISION)
			spec.precision = 0;	/* a value comes at run time, as in the plan */
		if (!add_value(lay, dr, &spec, &plan, &slot) || inside)
			continue;
		/* the conversion's own value: its '*' values, listed before, join it */
		ident_before(conv_lit, conv, dr[lay->n - 1].ident);
		for (unsigned k = first; k < lay->n; k++)
			dr[k].group = (uint8_t)(lay->n - 1);
	}
	if (slot != plan.nargs)
		return -1;	/* the two walks disagree: never expected */
	name_all(lay, dr);
	return 0;
}

/* One value from the block; false if the block does not hold it. */
static bool read_value(const struct bp_arg_desc *d, struct bp_block_in *b, struct bp_arg_value *v)
{
	static const uint8_t length_of_size[] = {
		[1] = BP_LEN_HH, [2] = BP_LEN_H, [4] = BP_LEN_NONE, [8] = BP_LEN_LL,
	};
	const unsigned char *p;
	uint64_t raw = 0;
	long double ld = 0;
	bool negative;

	*v = (struct bp_arg_value){ 0 };
	switch (d->slot) {
	case BP_ARG_STR:
	case BP_ARG_STR_STAR:
		return (v->s = block_get_string(b, &v->len)) != NULL;
	case BP_ARG_CHAR:
		if (!(p = block_get(b, 1, 1)))
			return false;
		v->v.u = *p;
		return true;
	case BP_ARG_DOUBLE:
		if (!(p = block_get(b, 8, 4)))
			return false;
		memcpy(&v->v.d, p, 8);
		return true;
	case BP_ARG_LDOUBLE:
		if (!(p = block_get(b, BP_LDOUBLE_BYTES, 4)))
			return false;
		memcpy(&ld, p, BP_LDOUBLE_BYTES < sizeof(ld) ? BP_LDOUBLE_BYTES : sizeof(ld));
		v->v.d = (double)ld;
		return true;
	case BP_ARG_INT32: {
		uint32_t w;

		if (!(p = block_get(b, 4, 4)))
			return false;
		memcpy(&w, p, 4);
		raw = (uint64_t)(int64_t)(int32_t)w;	/* an int, as passed */
		break;
	}
	default:	/* the 64-bit slots, %p */
		if (!(p = block_get(b, 8, 4)))
			return false;
		memcpy(&raw, p, 8);
		break;
	}
	if (d->type == BP_ARGT_PTR) {
		v->v.u = raw;
	} else {
		struct bp_printf_spec spec = {
			.flags = d->type == BP_ARGT_INT ? BP_FLAG_SIGNED : 0,
			.length = length_of_size[d->size],
		};
		uint64_t mag = bp_int_reduce(raw, spec, &negative);

		v->v.u = negative ? (uint64_t)0 - mag : mag;
	}
	return true;
}

int bp_args_decode(const struct bp_arg_layout *lay, const uint32_t *block, size_t words,
		   struct bp_arg_value *out)
{
	struct bp_block_in b = { .base = (const unsigned char *)block, .len = words * 4 };

	if (!block)
		b.len = 0;
	for (unsigned i = 0; i < lay->n; i++)
		if (!read_value(&lay->d[i], &b, &out[i]))
			return -1;
	if ((b.pos + 3) / 4 != words)
		return -1;	/* more words than the format packs */
	return (int)lay->n;
}

/* The cache: open addressing on the site id, at most half full. */
struct bp_args_entry {
	uint32_t id;
	bool used, ok;
	struct bp_arg_layout *lay;
};

static struct bp_args_entry *cache_find(struct bp_args_entry *slots, size_t cap, uint32_t id)
{
	size_t i = (id * 2654435761u) & (cap - 1);

	while (slots[i].used && slots[i].id != id)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static bool cache_grow(struct bp_args_cache *c)
{
	size_t cap = c->cap ? c->cap * 2 : 64;
	struct bp_args_entry *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return false;
	for (size_t i = 0; i < c->cap; i++)
		if (c->slots[i].used)
			*cache_find(slots, cap, c->slots[i].id) = c->slots[i];
	free(c->slots);
	c->slots = slots;
	c->cap = cap;
	return true;
}

const struct bp_arg_layout *bp_args_cache_get(struct bp_args_cache *c, uint32_t id,
					      const char *fmt)
{
	struct bp_args_entry *e;

	if (c->cap && (e = cache_find(c->slots, c->cap, id))->used)
		return e->ok ? e->lay : NULL;
	if ((c->used + 1) * 2 > c->cap && !cache_grow(c))
		return NULL;
	e = cache_find(c->slots, c->cap, id);
	*e = (struct bp_args_entry){ .id = id, .used = true };
	if (fmt && (e->lay = malloc(sizeof(*e->lay))) != NULL)
		e->ok = bp_args_compile(fmt, e->lay) == 0;
	c->used++;
	return e->ok ? e->lay : NULL;
}

void bp_args_cache_free(struct bp_args_cache *c)
{
	for (size_t i = 0; i < c->cap; i++)
		free(c->slots[i].lay);
	free(c->slots);
	*c = (struct bp_args_cache){ 0 };
}
