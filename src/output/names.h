/*
 * output/names.h - what the exporters that name events (Perfetto, Chrome
 * JSON) call a record: its site's function, so that grouping by name
 * groups by call site, or a short form of the format when the site has no
 * function.  Never the message: one name per site, not one per record.
 */
#ifndef BP_OUTPUT_NAMES_H
#define BP_OUTPUT_NAMES_H

#include <stddef.h>

struct bprint_site;

#define BP_OUT_NAME_MAX 48	/* a short format's bytes, with the NUL */

/* The site's function; else its format cut at BP_OUT_NAME_MAX - 1 bytes
 * or at the first control character; else "trace_printk" (a format that
 * was not a constant); "unknown site" for a NULL site.  buf holds at
 * least BP_OUT_NAME_MAX bytes; the result is buf or a constant string. */
const char *bp_out_site_name(const struct bprint_site *site, char *buf);

#endif
