/*
 * output/args.h - the typed arguments of a record, for the exporters that
 * carry arguments as fields (CTF, Perfetto, Chrome JSON), read from the
 * site's format and the record's raw argument block (docs/binary-layout.md),
 * never from the formatted text.
 *
 *	bp_args_compile()   a format -> its argument layout: one descriptor
 *	                    per value the block holds (kind, size, base, name),
 *	                    from the argument plan and the decoder's specs
 *	bp_args_decode()    a layout + a block -> the values, bounded by the
 *	                    block's words (the file is untrusted)
 *	bp_args_cache_get() the layout of a site, compiled once per site id
 *
 * A '*' width or precision is an argument too (a signed 32-bit integer
 * named after its conversion, e.g. "arg1_width"); %n stores nothing and is
 * not one.  Integers come back reduced as printf reduces them ("%hhd" of
 * 300 is 44), a %c as its byte, a long double as the nearest double.
 */
#ifndef BP_OUTPUT_ARGS_H
#define BP_OUTPUT_ARGS_H

#include "bprint/format.h"

#include <stddef.h>
#include <stdint.h>

/* What a value is. */
enum bp_arg_type {
	BP_ARGT_INT = 1,	/* signed integer of `size` bytes: .v.i */
	BP_ARGT_UINT,		/* unsigned integer of `size` bytes: .v.u */
	BP_ARGT_CHAR,		/* %c: one byte, .v.u */
	BP_ARGT_DOUBLE,		/* %f %e %g %a, also with L: .v.d */
	BP_ARGT_STR,		/* %s: .s, .len (bytes, no NUL inside) */
	BP_ARGT_PTR,		/* %p: the address, .v.u, never followed */
};

#define BP_ARG_NAME_MAX 32	/* with the NUL */

struct bp_arg_desc {
	uint8_t type;		/* enum bp_arg_type */
	uint8_t size;		/* integers: 1, 2, 4 or 8 bytes; CHAR 1; PTR 8 */
	uint8_t base;		/* integers: 10, 16 or 8 (from d/u, x/X, o); PTR 16 */
	uint8_t slot;		/* enum bp_arg_kind: how the block stores it */
	char conv;		/* the conversion character ('d', 'x', ...; '*') */
	char name[BP_ARG_NAME_MAX];	/* unique in the layout, [A-Za-z_][A-Za-z0-9_]* */
};

struct bp_arg_layout {
	unsigned n;		/* descriptors */
	struct bp_arg_desc d[BP_PLAN_MAX_ARGS];
};

struct bp_arg_value {
	union {
		int64_t i;
		uint64_t u;
		double d;
	} v;
	const char *s;		/* BP_ARGT_STR: points into the block */
	size_t len;
};

/*
 * Fill *lay for fmt.  Names: the identifier written just before the
 * conversion as "name=%d" or "name: %d" when it is unique in the format
 * (and not "msg"), otherwise "argN" with N the value's position.
 * Returns 0, or -1 if the format does not compile into a plan (more than
 * BP_PLAN_MAX_ARGS slots; such calls are recorded as text).
 */
int bp_args_compile(const char *fmt, struct bp_arg_layout *lay);

/*
 * Read the values of a block packed for lay's format into out[0 .. lay->n).
 * Returns lay->n, or -1 if the block does not hold them: a slot past
 * block + words, a string without its NUL inside the block, or bytes left
 * over beyond the final padding.  Never reads outside block[0 .. words).
 */
int bp_args_decode(const struct bp_arg_layout *lay, const uint32_t *block, size_t words,
		   struct bp_arg_value *out);

/*
 * A caller's cache of layouts, keyed by site id (open addressing, grows).
 * Zero-initialise it; free it with bp_args_cache_free().
 */
struct bp_args_cache {
	struct bp_args_entry *slots;
	size_t cap, used;
};

/*
 * The layout of site `id` with format fmt (compiled on first use), or NULL
 * if fmt is NULL, the format does not compile, or memory ran out.
 */
const struct bp_arg_layout *bp_args_cache_get(struct bp_args_cache *c, uint32_t id,
					      const char *fmt);
void bp_args_cache_free(struct bp_args_cache *c);

#endif /* BP_OUTPUT_ARGS_H */
