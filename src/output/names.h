/*
 * output/names.h - what the exporters call a record and carry with it:
 * its site's event name, the same in every export (CTF's event classes,
 * Perfetto's interned names, Chrome's "name"), so that grouping by name
 * groups by call site (never the message: one name per site, not one per
 * record); its typed arguments, the fields of its site's layout
 * (reader/site_layout.h, docs/fields.md) under their names, beside the
 * record's own fields; and a %pS or %ps argument as the symbol `bprint
 * report` prints.
 */
#ifndef BP_OUTPUT_NAMES_H
#define BP_OUTPUT_NAMES_H

#include <bprint/reader.h>

#include <stdbool.h>
#include <stddef.h>

/*
 * The event names of a trace's sites: the site's function; FUNC:LINE
 * when several sites share it; FUNC:LINE#ID if that is taken too.  A site
 * without a function is named by the start of its format (at most 40
 * bytes, up to a control character), else "site_ID".  Names hold at most
 * BP_OUT_EVENT_NAME_MAX - 1 bytes.
 */
#define BP_OUT_EVENT_NAME_MAX 128

struct bp_out_names {
	char **name;			/* by position in the site table */
	size_t n;
	const char **by_id;		/* by site id (NULL: no such site) */
	size_t nid;
};

/* 0, or BP_TRACE_ENOMEM. */
int bp_out_names_make(struct bp_out_names *nm, struct bp_trace *t);
/* The name of site id; "unknown site" for an id the table lacks. */
const char *bp_out_event_name(const struct bp_out_names *nm, uint32_t id);
void bp_out_names_free(struct bp_out_names *nm);

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

/*
 * Field k of lay is a %pS or %ps: its letter ('S' or 's'), else 0.  For
 * one, bp_out_symbol() writes the text `bprint report` prints for the
 * address (without the conversion's padding) into buf, snprintf-style,
 * and returns its length.
 */
char bp_out_symbol_letter(const struct bp_trace_layout *lay, unsigned k);
size_t bp_out_symbol(struct bp_trace *t, char letter, uint64_t address, char *buf, size_t size);
#define BP_OUT_SYMBOL_MAX 256

#endif
