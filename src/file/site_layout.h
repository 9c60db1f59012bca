/*
 * file/site_layout.h - one call site's layout, the reader's one record of
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
	/* for bp_site_layout_decode_some(): the fields before the first string
	 * sit at the same offsets in every block */
	uint8_t nfixed;			/* fields before the first string */
	uint16_t fixed_end;		/* the byte after them */
	uint16_t offset[BP_PLAN_MAX_ARGS];	/* of each of the first nfixed fields */
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

/*
 * The same checks of the block, and the same return, but only the fields
 * whose bit is set in wanted (bit i: field i, i < n) are written to out:
 * those before the first string are read at their offsets, the others
 * walked over.  What an analysis command uses per record (the -v, -k and
 * --where fields of `bprint hist`).
 */
int bp_site_layout_decode_some(const struct bp_site_layout *l, const uint32_t *block,
			       size_t words, uint32_t wanted, struct bp_field_value *out, size_t n);

/* The site layout that pub belongs to (pub from bp_trace_layout()). */
static inline const struct bp_site_layout *bp_site_layout_of(const struct bp_trace_layout *pub)
{
	return (const struct bp_site_layout *)(const void *)pub;
}

#endif /* BP_FILE_SITE_LAYOUT_H */
