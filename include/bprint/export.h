/*
 * bprint/export.h - a trace file in other tools' formats (docs/exporters.md),
 * chosen by name, as `bprint export` writes them:
 *
 *	trace-cmd  trace-cmd's trace.dat (trace-cmd report, KernelShark)
 *	chrome     Chrome's Trace Event Format, JSON (Perfetto UI, chrome://tracing)
 *	perfetto   Perfetto's protobuf trace (Perfetto UI, trace_processor)
 *	ctf        CTF 1.8, a directory (babeltrace2, Trace Compass)
 *
 *	bp_export_format_info()  what a format is: its flags and names
 *	bp_export_open()         its output: a file, or ctf's directory
 *	bp_export_run()          read the trace to its end, writing the format
 *	bp_span_export_*()       --span: records paired into slices
 *
 * The structs the caller allocates begin with their size (set it: the
 * *_INIT macros), as bprint/reader.h's do; a size below the first
 * version's gets BP_TRACE_EINVAL.
 */
#ifndef BPRINT_EXPORT_H
#define BPRINT_EXPORT_H

#include <bprint/reader.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a format is (bp_export_format_info()'s flags). */
#define BP_EXPORT_F_DIRECTORY	1u	/* writes a directory: give it a path */
#define BP_EXPORT_F_BINARY	2u	/* bytes, not text: not for a terminal */
#define BP_EXPORT_F_SPANS	4u	/* draws spans as slices (bp_export_options.spans) */

struct bp_export_format_info {
	uint32_t size;			/* the caller's sizeof(struct bp_export_format_info) */
	uint32_t flags;			/* BP_EXPORT_F_* */
	const char *name;		/* "trace-cmd", "chrome", "perfetto", "ctf" */
	const char *suffix;		/* the output name its readers want (".dat"
					 * for KernelShark), "" if any */
	const char *noun;		/* for messages: "a trace.dat", "a Perfetto
					 * trace", "a Chrome JSON trace", "a CTF trace" */
	const char *help;		/* what it is for: lines of at most 50
					 * characters, as bprint export --help shows */
};
#define BP_EXPORT_FORMAT_INFO_INIT { .size = sizeof(struct bp_export_format_info) }

/* 0 and *out for a format's name, -1 for a name that is none,
 * BP_TRACE_EINVAL without out's size. */
BP_API int bp_export_format_info(const char *name, struct bp_export_format_info *out);

/* The formats' names in order, i from 0; NULL past the last. */
BP_API const char *bp_export_format_at(size_t i);

/*
 * The output of format name at path, as every output of bprint's is
 * opened (docs/file-format.md, "Opening files": never through a symbolic
 * link, never another user's): a file made or truncated, or for a
 * BP_EXPORT_F_DIRECTORY format a directory made or reused, an earlier
 * export's files in it removed.  Its fd, or -1 with errno (and *why, if
 * not NULL, a reason strerror() lacks, or NULL).
 */
BP_API int bp_export_open(const char *name, const char *path, const char **why);

/* --span: spans drawn from pairs of records, paired as `bprint latency`
 * pairs them.  A FROM record opens a span under its key (the KEY fields'
 * values, or its thread without KEY), a TO record closes the latest open
 * one of its key. */
struct bp_span_export;
BP_API struct bp_span_export *bp_span_export_new(void);
BP_API void bp_span_export_free(struct bp_span_export *se);
/* One rule "FROM,TO[,KEY...]" (FROM and TO site ids or patterns, KEY field
 * names): 0, or -1 with a one-line reason in err. */
BP_API int bp_span_export_add(struct bp_span_export *se, const char *spec, char *err,
			      size_t errlen);
/* Every FROM and TO names a site of t, and every KEY is a field of some
 * FROM site and of some TO site: 0, or -1 with a reason. */
BP_API int bp_span_export_check(struct bp_span_export *se, struct bp_trace *t, char *err,
				size_t errlen);
/* Spans opened and never closed, and closes without an open, over all
 * rules (after the export). */
BP_API void bp_span_export_unmatched(const struct bp_span_export *se, uint64_t *opens,
				     uint64_t *closes);

struct bp_export_options {
	uint32_t size;			/* the caller's sizeof(struct bp_export_options) */
	uint32_t reserved;
	/* if set, asked of every record: one it refuses is left out, and the
	 * records lost before it are shown before the next record of its
	 * ring that is exported */
	bool (*chosen)(void *arg, struct bp_trace *t, const struct bp_trace_event *e);
	void *arg;
	struct bp_span_export *spans;	/* NULL: none (a format without
					 * BP_EXPORT_F_SPANS draws none) */
};
#define BP_EXPORT_OPTIONS_INIT { .size = sizeof(struct bp_export_options) }

/* What an export wrote. */
struct bp_export_counts {
	uint32_t size;			/* the caller's sizeof(struct bp_export_counts) */
	uint32_t threads;		/* distinct thread ids */
	uint64_t records;		/* records exported */
	uint64_t site_events;		/* trace-cmd: as their site's event (fields, message) */
	uint64_t print;			/* trace-cmd: as print events (text) */
	uint64_t truncated;		/* trace-cmd: messages cut to fit a page */
	uint64_t kernel;		/* kernel events written as the kernel's own */
	uint64_t lost;			/* records known lost before exported ones */
	uint64_t pages;			/* trace-cmd: data pages */
	uint64_t spans;			/* spans drawn */
	uint32_t cpus;			/* trace-cmd: CPU blocks */
	uint32_t reserved;
};
#define BP_EXPORT_COUNTS_INIT { .size = sizeof(struct bp_export_counts) }

/*
 * Export t, from its current position to its end (open it fresh), in
 * format name to fd (bp_export_open()'s, or a pipe for a format without
 * BP_EXPORT_F_DIRECTORY); fd is not closed.  opts and counts may be NULL.
 * Returns 0, or a negative BP_TRACE_E* code with a one-line reason in err:
 * BP_TRACE_EIO when writing failed ("write error: ..."), BP_TRACE_EFORMAT
 * for a name that is no format, the reader's code when reading failed.
 * Damage the reader skipped is not an error here (bp_trace_problems()).
 */
BP_API int bp_export_run(struct bp_trace *t, const char *name, int fd,
			 const struct bp_export_options *opts, struct bp_export_counts *counts,
			 char *err, size_t errlen);

#if !defined(__cplusplus) && UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(struct bp_export_format_info) == 40, "bp_export_format_info is 40 bytes");
_Static_assert(sizeof(struct bp_export_options) == 32, "bp_export_options is 32 bytes");
_Static_assert(sizeof(struct bp_export_counts) == 80, "bp_export_counts is 80 bytes");
#endif

#ifdef __cplusplus
}
#endif

#endif /* BPRINT_EXPORT_H */
