/*
 * output/ctf.h - the CTF exporter's two halves (docs/exporters.md, "CTF"):
 * ctf_meta.c writes the metadata (TSDL: the trace, its environment and
 * clock, the stream class, one event class per site), ctf.c the streams
 * (one per thread, packets of events).  Both follow the shape LTTng-UST
 * 2.12's traces have, so that Trace Compass opens the export as an
 * LTTng-UST trace and babeltrace2 takes it through every component.
 */
#ifndef BP_OUTPUT_CTF_H
#define BP_OUTPUT_CTF_H

#include "output/frame.h"
#include "output/names.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CTF_PROCNAME_LEN 16		/* LTTng-UST's procname context: char[16] */
#define CTF_CPU_UNKNOWN 0xffffffffu	/* cpu_id of a packet whose CPU is not known */

struct ctf_class {
	uint32_t site_id;
	const struct bp_trace_layout *lay;	/* NULL: msg only */
	uint8_t kind[BP_PLAN_MAX_ARGS];		/* enum ctf_kind of each field */
};

struct ctf {
	struct bp_export *fx;		/* fx->fd: the directory */
	unsigned char uuid[16];
	struct ctf_class *cls;
	size_t ncls;			/* one per site; id ncls is the fallback */
	struct bp_field_value val[BP_PLAN_MAX_ARGS];
	char sym[BP_PLAN_MAX_ARGS][BP_OUT_SYMBOL_MAX];	/* %pS texts of the record */
};

/* How an event writes field k of lay. */
enum ctf_kind {
	CTF_INTEGER,	/* its size, in the writer's byte order */
	CTF_DOUBLE,	/* 8 bytes */
	CTF_STRING,	/* bytes and a NUL: %s, %c (its one byte) and %pS (the symbol) */
};
enum ctf_kind ctf_kind(const struct bp_trace_layout *lay, unsigned k);

/* The metadata file, from the trace's header and site table (x->cls and
 * x->ncls set): 0 or a BP_TRACE_E* code. */
int ctf_write_metadata(struct ctf *x);

#endif /* BP_OUTPUT_CTF_H */
