/*
 * output/export.h - a trace file (file/reader.h) in other tools' formats
 * (docs/exporters.md).
 *
 *	bp_export_tracedat()  trace-cmd's trace.dat, version 6, which
 *	                      trace-cmd report and KernelShark read: every
 *	                      record an ftrace bprint event (format address and
 *	                      argument block) or, when libtraceevent could not
 *	                      decode its format, an ftrace print event holding
 *	                      the text bprint formats
 *	bp_export_chrome()    Chrome's Trace Event Format (JSON), which
 *	                      Perfetto UI and chrome://tracing open: one instant
 *	                      event per record named after its site, the
 *	                      message and the arguments in args
 *	bp_export_perfetto()  Perfetto's protobuf trace: a track per thread,
 *	                      interned names per site, the message and the
 *	                      arguments as debug annotations
 *
 * All read t from its current position to its end with bp_trace_next()
 * (open it fresh), write as they read, and keep memory bounded by the
 * number of call sites, threads, rings and CPUs, not records: the
 * trace.dat exporter keeps each CPU's pages in a scratch file (unlinked at
 * once, in $TMPDIR or /tmp) until the end, because trace.dat puts CPU 0's
 * data before CPU 1's.  The output is written strictly in order, so fd and
 * out may be pipes.
 *
 * Return 0, or a negative BP_TRACE_E* code (file/reader.h) with a one-line
 * reason in err: BP_TRACE_EIO when writing failed (err says so), the
 * reader's code when reading failed.  Damage the reader skipped is not an
 * error here; see bp_trace_problems().
 */
#ifndef BP_OUTPUT_EXPORT_H
#define BP_OUTPUT_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct bp_trace;

/* What an export wrote (any pointer may be NULL). */
struct bp_export_stats {
	uint64_t records;	/* records exported */
	uint64_t bprint;	/* trace.dat: as bprint events (argument blocks) */
	uint64_t print;		/* trace.dat: as print events (text) */
	uint64_t truncated;	/* trace.dat: messages cut to fit a page */
	uint64_t lost;		/* records known lost before exported ones: the
				 * trace.dat "EVENTS DROPPED" counts, the JSON's
				 * "lost" events */
	uint32_t threads;	/* distinct thread ids */
	uint32_t cpus;		/* trace.dat: CPU blocks */
	uint64_t pages;		/* trace.dat: data pages */
};

int bp_export_tracedat(struct bp_trace *t, int fd, struct bp_export_stats *st,
		       char *err, size_t errlen);

int bp_export_chrome(struct bp_trace *t, FILE *out, struct bp_export_stats *st,
		     char *err, size_t errlen);

int bp_export_perfetto(struct bp_trace *t, FILE *out, struct bp_export_stats *st,
		       char *err, size_t errlen);

/* For the exporters: the one-line reason of rc (< 0) into err, "write
 * error: ..." when out has its error flag set. */
void bp_export_reason(int rc, FILE *out, char *err, size_t errlen);

/*
 * CTF 1.8 (docs/exporters.md, "CTF"): the directory dir (created, or
 * reused: an earlier export's metadata and stream_* files in it are
 * removed) gets `metadata` and one stream file per thread.
 */
int bp_export_ctf(struct bp_trace *t, const char *dir, struct bp_export_stats *st,
		  char *err, size_t errlen);

/*
 * Could libtraceevent 1.7 decode an ftrace bprint event of this format
 * exactly as bprint formats it?  (The exporter's rule; exposed for tests.)
 * No for the flags '-', ' ', '+', the lengths h, hh, j, t, L, the
 * conversions c, n and floating point, %p with a width, precision or flag
 * or followed by a letter or digit, invalid tokens, and control characters
 * other than tab.
 */
int bp_export_decodable(const char *fmt);

#endif /* BP_OUTPUT_EXPORT_H */
