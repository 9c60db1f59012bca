/*
 * output/tracedat.h - the trace.dat exporter's two halves
 * (docs/exporters.md, "trace.dat"): tracedat_events.c declares what the
 * file's events and symbols are (the kernel's page layout, the ftrace
 * print event, one event per call site with its fields, the synthetic
 * kallsyms), tracedat.c writes the records as those events into per-CPU
 * page streams and the file around them.
 */
#ifndef BP_OUTPUT_TRACEDAT_H
#define BP_OUTPUT_TRACEDAT_H

#include "output/frame.h"
#include "output/kpages.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TD_ID_PRINT	5u		/* ftrace's print event: ip, the text */
#define TD_ID_SITE0	1000u		/* a call site's event: from here on (above the
					 * kernel's IDs), one per site in order */
#define TD_ID_MAX	0xffffu		/* common_type is 16 bits */

/* How a site event holds a field. */
enum td_kind {
	TD_NUMBER,	/* an integer of its size, a '*' value */
	TD_POINTER,	/* void *: trace-cmd prints 0x... */
	TD_CHAR,	/* char[2]: the byte and a NUL, which trace-cmd prints as text */
	TD_TEXT,	/* __data_loc char[]: a string, a double's digits, %pS's symbol */
};

/* A call site's event: its id, and where each field sits in the record. */
struct td_event {
	uint16_t id;
	uint16_t fixed;			/* bytes before the text: header, fields, locations */
	uint16_t msg_loc;		/* offset of msg's __data_loc word */
	const struct bp_trace_layout *lay;
	struct {
		uint8_t kind;		/* enum td_kind */
		uint16_t offset;
	} field[BP_PLAN_MAX_ARGS];
};

/* Per site id: the ip of its print events, its own event (NULL: none),
 * or for a kernel event's site: whether the file declares the kernel's
 * own format of it (its events are written as the kernel wrote them). */
struct td_site {
	uint64_t ip;
	struct td_event *ev;
	bool kernel;
};

struct ex {
	struct bp_export *fx;
	struct bp_kspool spool;
	struct bp_kstream **cpu;	/* by recorded CPU */
	size_t ncpu;
	struct bp_kstream **lanes;	/* threads' lanes (fx->thr's lane) */
	size_t nlanes;
	struct td_site *sites;		/* by site id */
	size_t nsites;
	struct td_event *events;	/* one per site that has a layout */
	size_t nevents;
	uint64_t unknown_ip;
	unsigned first_site_id;		/* the event ID of the first site event */
	struct bp_out_buf kallsyms;	/* the kallsyms section */
	struct bp_out_buf formats;	/* the event systems section */
	unsigned char payload[BP_KPAGE];
	char text[BP_PLAN_MAX_ARGS][BP_OUT_SYMBOL_MAX];	/* a record's doubles and symbols */
};

/* The sites' addresses and kallsyms, their events, the kernel's event
 * formats and the event systems section (x->sites, x->events,
 * x->kallsyms, x->formats): 0 or BP_TRACE_ENOMEM. */
int td_declare(struct ex *x);

/* The header_page, header_event and ftrace sections. */
void td_put_page_formats(struct bp_out_buf *h);

#endif /* BP_OUTPUT_TRACEDAT_H */
