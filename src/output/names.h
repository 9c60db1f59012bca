/*
 * output/names.h - what the exporters that name events (Perfetto, Chrome
 * JSON) call a record and carry with it: its site's function, so that
 * grouping by name groups by call site, or a short form of the format when
 * the site has no function (never the message: one name per site, not one
 * per record); and its typed arguments, the fields of its site's layout
 * (file/site_layout.h, docs/fields.md) under their names, beside the
 * record's own fields.
 */
#ifndef BP_OUTPUT_NAMES_H
#define BP_OUTPUT_NAMES_H

#include <bprint/reader.h>

#include <stdbool.h>
#include <stddef.h>

struct bprint_site;

#define BP_OUT_NAME_MAX 48	/* a short format's bytes, with the NUL */

/* The site's function; else its format cut at BP_OUT_NAME_MAX - 1 bytes
 * or at the first control character; else "trace_printk" (a format that
 * was not a constant); "unknown site" for a NULL site.  buf holds at
 * least BP_OUT_NAME_MAX bytes; the result is buf or a constant string. */
const char *bp_out_site_name(const struct bprint_site *site, char *buf);

/*
 * The typed arguments of e into vals (BP_PLAN_MAX_ARGS entries), *lay set
 * to its site's layout: their number, or 0 when there are none to give (a
 * text record, an unknown site or format, a block that does not hold its
 * format's values).
 */
unsigned bp_out_record_args(struct bp_trace *t, const struct bp_trace_event *e,
			    const struct bp_trace_layout **lay, struct bp_field_value *vals);

/* Whether a field of lay is called name: the record's own fields
 * ("cpu", "line", "site") give way to arguments of the same name. */
bool bp_out_arg_named(const struct bp_trace_layout *lay, const char *name);

/*
 * The name field k of lay goes by in an export: its own, but for a field
 * named "msg" (the exports' name for the message), which goes by its
 * alias argN.  buf holds BP_OUT_FIELD_NAME_MAX bytes; the result is buf
 * or the field's name.
 */
#define BP_OUT_FIELD_NAME_MAX 16
const char *bp_out_field_name(const struct bp_trace_layout *lay, unsigned k, char *buf);

#endif
