/*
 * reader/site_layout.h - one call site's layout, the reader's one record of
 * what a site's format means (docs/fields.md): the format decoded once
 * (for messages), its argument plan, its fields by name and type (the
 * public bp_trace_layout of <bprint/reader.h>), which fields are symbols
 * (%pS, %ps), and each field's conversion text (for `bprint formats`).
 *
 * The reader makes a site's layout on first use and frees it at close;
 * everything that reads a record's values goes through it: report's
 * messages, every exporter, `bprint formats`, the analysis commands.
 * Nothing else decodes a format at read time.
 *
 *	bp_site_layout_new()     a format -> its layout (once per site)
 *	bp_site_layout_decode()  a layout + a block -> the values, bounded by
 *	                         the block's words (the file is untrusted)
 *	bp_site_layout_decode_some()  the same checks, some of the values
 */
#ifndef BP_FILE_SITE_LAYOUT_H
#define BP_FILE_SITE_LAYOUT_H

#include <bprint/format.h>
#include <bprint/reader.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Where a field starts in every block of its site, a string's length being
 * the only unknown: x, the end of the last string field before it (or 0,
 * the block's start, if there is none), plus pre bytes; then, if a
 * word-aligned slot came between, aligned up to a word, plus off bytes.
 * And how to read it there, worked out once: its slot's bytes, and for an
 * integer the high bits its conversion drops ("%hhd": 56), sign-extended
 * or not.
 */
struct bp_field_place {
	bool aligned;
	uint8_t bytes;			/* 0 for a string */
	uint8_t drop;
	bool sign;
	uint16_t pre, off;
	uint16_t at;			/* place_at(this, 0): where it is in every block of
					 * a site without strings */
};

struct bp_site_layout {
	struct bp_trace_layout pub;	/* first: what bp_trace_layout() hands out */
	bool has_plan;			/* the format compiled into a plan (else its
					 * calls were recorded as text: pub is empty) */
	bool puts;			/* a trace_puts() site: the "format" is text */
	const char *format;		/* the site's, owned by the reader's site table */
	struct bp_parsed_format *pf;	/* for messages; NULL if out of memory or puts */
	struct bp_arg_plan plan;
	uint8_t slot[BP_PLAN_MAX_ARGS];	/* per field: how the block stores it
					 * (enum bp_arg_kind) */
	char symbol[BP_PLAN_MAX_ARGS];	/* per field: 'S' or 's' for %pS / %ps, else 0 */
	struct {
		uint32_t offset, len;
	} text[BP_PLAN_MAX_ARGS];	/* per field: its conversion's characters in the
					 * format ("%-*.*x", "%pS"), for `bprint formats` */
	struct bp_trace_field field[BP_PLAN_MAX_ARGS];
	char *names;			/* the fields' names, one allocation */
	/* for bp_site_layout_decode_some(): where each field starts, and
	 * [nfields] where the block ends, from the end of the last string before it */
	struct bp_field_place place[BP_PLAN_MAX_ARGS + 1];
	uint32_t string_mask;		/* bit i: field i is a string */
	uint32_t field_mask;		/* bit i: i < nfields */
	uint32_t fixed_words;		/* no strings: the words of every block */
	bool one_string;		/* exactly one field is a string (and a plan) */
};

/*
 * The layout of a site of kind `kind` (enum bprint__site_kind) and format
 * fmt (not NULL; kept by reference); NULL when out of memory.
 */
struct bp_site_layout *bp_site_layout_new(uint32_t site_id, uint32_t kind, const char *fmt);
void bp_site_layout_free(struct bp_site_layout *l);

/*
 * The values of a block packed for l's format into out[0 .. min(n, nfields)).
 * Returns nfields, or -1 if the block does not hold them: no plan, a slot
 * past block + words, a string without its NUL inside the block, or words
 * left over beyond the last value's padding.  Never reads outside
 * block[0 .. words).
 */
int bp_site_layout_decode(const struct bp_site_layout *l, const uint32_t *block, size_t words,
			  struct bp_field_value *out, size_t n);

/* A long double slot's value, as a double (out of line: rare). */
double bp_field_ldouble_at(const unsigned char *p);

/* The value of a field (not a string) of slot slot (enum bp_arg_kind),
 * read as place says, from its slot's bytes p. */
static inline void bp_field_value_at(uint8_t slot, const struct bp_field_place *place,
				     const unsigned char *p, struct bp_field_value *v)
{
	uint64_t raw;

	v->s = NULL;
	v->len = 0;
	switch (slot) {
	case BP_ARG_CHAR:
		v->v.u = *p;
		return;
	case BP_ARG_DOUBLE:
		__builtin_memcpy(&v->v.d, p, 8);
		return;
	case BP_ARG_LDOUBLE:
		v->v.d = bp_field_ldouble_at(p);
		return;
	case BP_ARG_INT32: {
		uint32_t word;

		__builtin_memcpy(&word, p, 4);
		raw = (uint64_t)(int64_t)(int32_t)word;	/* an int, as passed */
		break;
	}
	default:	/* the 64-bit slots, %p */
		__builtin_memcpy(&raw, p, 8);
		break;
	}
	/* as printf reduces it to its conversion's length ("%hhd" of 300 is 44) */
	raw <<= place->drop;
	v->v.u = place->sign ? (uint64_t)((int64_t)raw >> place->drop) : raw >> place->drop;
}

/* bp_site_layout_decode_some() of a site with one string (out of line). */
int bp_site_layout_decode_one_string(const struct bp_site_layout *l, const uint32_t *block,
				     size_t words, uint32_t wanted, struct bp_field_value *out,
				     size_t n);

/* bp_site_layout_decode_some() of a site with strings (out of line). */
int bp_site_layout_decode_strings(const struct bp_site_layout *l, const uint32_t *block,
				  size_t words, uint32_t wanted, struct bp_field_value *out,
				  size_t n);

/*
 * The same checks of the block, and the same return, but only the fields
 * whose bit is set in wanted (bit i: field i, i < n) are written to out:
 * the strings are scanned, each field is read where its place says, none
 * walked over.  What an analysis command uses per record (the -v, -k and
 * --where fields of `bprint hist`), and the reader's check of every
 * record (wanted 0).  In line: a site without strings has every field at
 * one place in every block, and its blocks one size, so that its check
 * is a compare and each value one read.
 */
static inline int bp_site_layout_decode_some(const struct bp_site_layout *l,
					     const uint32_t *block, size_t words, uint32_t wanted,
					     struct bp_field_value *out, size_t n)
{
	if (l->one_string)
		return bp_site_layout_decode_one_string(l, block, words, wanted, out, n);
	if (l->string_mask || !l->has_plan)
		return bp_site_layout_decode_strings(l, block, words, wanted, out, n);
	if (words != l->fixed_words || (words && !block))
		return -1;
	wanted &= l->field_mask;
	if (n < 32)
		wanted &= (UINT32_C(1) << n) - 1;
	for (; wanted; wanted &= wanted - 1) {
		unsigned i = (unsigned)__builtin_ctz(wanted);

		bp_field_value_at(l->slot[i], &l->place[i],
				  (const unsigned char *)block + l->place[i].at, &out[i]);
	}
	return (int)l->pub.nfields;
}

/* The site layout that pub belongs to (pub from bp_trace_layout()). */
static inline const struct bp_site_layout *bp_site_layout_of(const struct bp_trace_layout *pub)
{
	return (const struct bp_site_layout *)(const void *)pub;
}

#endif /* BP_FILE_SITE_LAYOUT_H */
