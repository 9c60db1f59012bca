/*
 * output/frame.h - the one frame every exporter runs in (docs/exporters.md,
 * "The frame").  An exporter is three operations:
 *
 *	begin   before the first record: headers, interned names, metadata
 *	record  one record, with what the frame knows of it (its thread,
 *	        whether the thread is new or renamed, records lost before it)
 *	end     after the last record (rc 0: write the trailer) or on an
 *	        error (rc < 0: free only); returns rc or a new error
 *
 * run by bp_export() (export.h) in one loop over bp_trace_next(), with one
 * common state, struct bp_export: the trace and its header, the sites'
 * event names, the output fd and its byte buffer, the threads seen, the
 * records lost per ring, the counts of struct bp_export_stats, a random
 * seed, the first error.  The exporter's own
 * state is x->own (ops->size bytes, zeroed); the site layouts are the
 * reader's (bp_trace_layout()).
 *
 *	          bp_export()
 *	              |  begin(x)
 *	              v
 *	   +--> bp_trace_next() --(none left)--> end(x, 0) --> flush x->out
 *	   |          |
 *	   |   thread, lost    (the frame: bp_out_threads, bp_out_lost)
 *	   |          |
 *	   +---- record(x, e, r)  --(error)--> end(x, rc)
 */
#ifndef BP_OUTPUT_FRAME_H
#define BP_OUTPUT_FRAME_H

#include "output/buf.h"
#include "output/export.h"
#include "output/lost.h"
#include "output/names.h"
#include "output/threads.h"

#include "reader/reader.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_export {
	struct bp_trace *t;
	const struct bp_trace_info *info;	/* info->clock: the clock, an enum */
	int fd;				/* the output: a file, or ctf's directory */
	struct bp_out_buf out;		/* bytes for fd (bp_export_write_out()) */
	struct bp_out_names names;	/* the sites' event names */
	struct bp_out_threads thr;
	struct bp_out_lost lost;
	struct bp_export_stats st;	/* records, lost and threads kept by the frame */
	uint64_t seed;			/* random for each export, or BPRINT_EXPORT_SEED */
	int err;			/* errno of the first write error */
	char *errmsg;
	size_t errlen;
	void *own;			/* the exporter's state */
	const struct bp_exporter *ops;	/* the format's */
};

/* What the frame knows of the record in hand. */
struct bp_export_rec {
	struct bp_out_thread *th;	/* its thread; th->comm is its name now */
	bool fresh;			/* the thread's first record */
	bool renamed;			/* th->comm was another name before it (for a
					 * fresh thread: not "") */
	uint64_t lost;			/* records of its ring lost just before it */
};

struct bp_exporter {
	const char *name;		/* as bprint export --format takes it */
	const char *help;		/* what it is for, lines of at most 50
					 * characters, for export --help */
	size_t size;			/* of the exporter's state */
	int (*begin)(struct bp_export *x);
	int (*record)(struct bp_export *x, const struct bp_trace_event *e,
		      const struct bp_export_rec *r);
	int (*end)(struct bp_export *x, int rc);
	/* optional: a span as a slice (export.h, bp_export_span()) */
	int (*span)(struct bp_export *x, const struct bp_export_span *s);
	/* what it is (bprint/export.h, bp_export_format_info()) */
	unsigned flags;			/* BP_EXPORT_F_DIRECTORY, _BINARY (_SPANS: span) */
	const char *suffix;		/* the output name its readers want, "" if any */
	const char *noun;		/* "a trace.dat", for messages */
};

/* Write n bytes to fd (all of them, EINTR retried): 0, or BP_TRACE_EIO
 * with x->err set. */
int bp_export_write(struct bp_export *x, int fd, const void *p, size_t n);

/* Write x->out to x->fd and empty it: 0, BP_TRACE_ENOMEM if it ran out
 * of memory, or BP_TRACE_EIO. */
int bp_export_write_out(struct bp_export *x);

/* The reason of a failure, if none was given yet (or rc is a write error,
 * which wins): returns rc. */
int bp_export_fail(struct bp_export *x, int rc, const char *fmt, ...) BP_PRINTF(3, 4);

#endif /* BP_OUTPUT_FRAME_H */
