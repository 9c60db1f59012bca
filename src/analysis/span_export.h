/*
 * analysis/span_export.h - `bprint export --span FROM,TO[,KEY...]`: records
 * paired into spans as `bprint latency` pairs them (analysis/spans.h), each
 * drawn in the export as a slice (output/export.h, bp_export_span()), so
 * that Perfetto's and Chrome's duration tools work on a bprint trace.
 *
 *	bp_span_export_add()      one --span rule (bprint/export.h)
 *	bp_span_export_check()    its sites and key fields exist in the trace
 *	bp_span_export_observe()  the export's observer (struct bp_export_opts)
 *
 * A FROM record opens a span under its key (the KEY fields' values, or its
 * thread without KEY), a TO record closes the latest open one of its key;
 * a span paired within its thread nests, and may be drawn on the thread's
 * own track.
 */
#ifndef BP_ANALYSIS_SPAN_EXPORT_H
#define BP_ANALYSIS_SPAN_EXPORT_H

#include "analysis/spans.h"
#include "output/export.h"

#include <bprint/query.h>

#include <stddef.h>

#define BP_SPAN_EXPORT_MAX_KEYS 8

/* bp_span_export_new(), _free(), _add(), _check(), _unmatched(): public
 * (bprint/export.h). */

/* struct bp_export_opts's observe (arg: the struct bp_span_export). */
int bp_span_export_observe(void *arg, struct bp_trace *t, const struct bp_trace_event *e,
			   struct bp_export *x);

#endif /* BP_ANALYSIS_SPAN_EXPORT_H */
