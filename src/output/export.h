/*
 * output/export.h - a trace file (reader/reader.h) in other tools' formats
 * (docs/exporters.md), through one entry:
 *
 *	trace-cmd  trace-cmd's trace.dat, version 6, which trace-cmd report
 *	           and KernelShark read: every record an event of its call
 *	           site, its arguments as fields and its message, or an
 *	           ftrace print event holding the text bprint formats
 *	chrome     Chrome's Trace Event Format (JSON), which Perfetto UI and
 *	           chrome://tracing open: one instant event per record named
 *	           after its site, the message and the arguments in args
 *	perfetto   Perfetto's protobuf trace: a track per thread, interned
 *	           names per site, the message and the arguments as debug
 *	           annotations
 *	ctf        CTF 1.8, a directory of a metadata file and a stream file
 *	           per thread, for babeltrace2 and Trace Compass
 *
 * Each reads t from its current position to its end with bp_trace_next()
 * (open it fresh), writes as it reads, and keeps memory bounded by the
 * number of call sites, threads, rings and CPUs, not records: the
 * trace.dat exporter keeps each CPU's pages in a scratch file (unlinked at
 * once, in $TMPDIR or /tmp) until the end, because trace.dat puts CPU 0's
 * data before CPU 1's.  The byte formats are written strictly in order,
 * so their fd may be a pipe.  (output/frame.h: how an exporter is built.)
 */
#ifndef BP_OUTPUT_EXPORT_H
#define BP_OUTPUT_EXPORT_H

#include <bprint/export.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_trace;
struct bp_trace_event;

/* The formats, by the names bprint export takes ("trace-cmd", "chrome",
 * "perfetto", "ctf"): each exporter carries its own (frame.h), and
 * frame.c's table is the one list of them. */
/* What an export wrote (any pointer may be NULL). */
struct bp_export_stats {
	uint64_t records;	/* records exported */
	uint64_t site_events;	/* trace.dat: as their site's event (fields, message) */
	uint64_t print;		/* trace.dat: as print events (text) */
	uint64_t truncated;	/* trace.dat: messages cut to fit a page */
	uint64_t kernel;	/* kernel events written as the kernel's own (trace.dat:
				 * under its format; perfetto: ftrace events) */
	uint64_t lost;		/* records known lost before exported ones: the
				 * trace.dat "EVENTS DROPPED" counts, the JSON's
				 * "lost" events */
	uint32_t threads;	/* distinct thread ids */
	uint32_t cpus;		/* trace.dat: CPU blocks */
	uint64_t pages;		/* trace.dat: data pages */
	uint64_t spans;		/* spans drawn (bp_export_span()) */
};

/*
 * Export t in the format named format to fd: the output file (or pipe) for the byte
 * formats, an open directory for ctf (bp_export_ctf_dir()); fd is not
 * closed.  Returns 0, or a negative BP_TRACE_E* code (reader/reader.h) with
 * a one-line reason in err: BP_TRACE_EIO when writing failed ("write
 * error: ..."), the reader's code when reading failed.  Damage the reader
 * skipped is not an error here; see bp_trace_problems().
 */
int bp_export(struct bp_trace *t, const char *format, int fd, struct bp_export_stats *st,
	      char *err, size_t errlen);

/*
 * What else an export does (bp_export_with()).  chosen, if set, is asked
 * of every record before it is exported: a record it refuses is left out,
 * and the records lost before it are shown before the next record of its
 * ring that is exported (or nowhere, if there is none).
 */
struct bp_export;

/* A span to draw as a slice (perfetto, chrome): from one record to a
 * later one, named after the from-record's site. */
struct bp_export_span {
	uint64_t from_ns, to_ns;
	int32_t from_tid, to_tid;
	uint32_t site;			/* the from-record's site id */
	bool nests;			/* paired within its thread: it nests with the
					 * thread's other such spans (its own track) */
	/* the span's arguments: the fields of the record that closed it (the
	 * key among them), lay's fields vals[0 .. nvals); nvals 0: none */
	const struct bp_trace_layout *lay;
	const struct bp_field_value *vals;
	unsigned nvals;
};

struct bp_export_opts {
	bool (*chosen)(void *arg, struct bp_trace *t, const struct bp_trace_event *e);
	void *arg;
	/* if set, shown every record (chosen or not) after it is exported:
	 * it may draw spans with bp_export_span(); 0 or a BP_TRACE_E* code */
	int (*observe)(void *arg, struct bp_trace *t, const struct bp_trace_event *e,
		       struct bp_export *x);
	void *observe_arg;
};

/* Draw s in the export under way (a format without slices draws nothing):
 * 0, or a BP_TRACE_E* code. */
int bp_export_span(struct bp_export *x, const struct bp_export_span *s);

/* Does the format draw spans? */
bool bp_export_has_spans(const char *format);

int bp_export_with(struct bp_trace *t, const char *format, int fd,
		   const struct bp_export_opts *opts, struct bp_export_stats *st, char *err,
		   size_t errlen);

/*
 * The directory of a CTF export: made (the umask's mode) or reused, an
 * earlier export's metadata and stream_* files in it removed, nothing else
 * touched; as every output (docs/file-format.md, "Opening files"), never
 * through a symbolic link and never another user's directory.  Its fd, or
 * -1 with errno set.
 */
int bp_export_ctf_dir(const char *dir);

#endif /* BP_OUTPUT_EXPORT_H */
