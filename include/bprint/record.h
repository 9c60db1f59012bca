/*
 * bprint/record.h - a running process's trace copied out of its live
 * file into a stream file, as `bprint snapshot PID` does (docs/attach.md):
 * every record its rings hold now, from each ring's oldest page, without
 * consuming any (the process keeps them all, and no other reader loses
 * any), the stream closed and its counts ending with the last record
 * copied (a cut: what the process writes after it is not missing).
 *
 * Finding a process's live file, and the permission to open it (the
 * kernel's ptrace access rule), are the caller's; read-only is enough.
 *
 * And the streams of a recorder that was killed finished from the live
 * files it left, as `bprint recover` does (docs/file-format.md, "A
 * recorder killed").  (The recorder itself, `bprint record`, is not API
 * yet.)
 */
#ifndef BPRINT_RECORD_H
#define BPRINT_RECORD_H

#include <bprint/reader.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a copy wrote. */
struct bp_record_counts {
	uint32_t size;			/* the caller's sizeof(struct bp_record_counts) */
	uint32_t reserved;
	uint64_t rings;			/* rings copied */
	uint64_t copied;		/* records in the stream */
	uint64_t lost_records;		/* recycled by the rings before the copy */
	uint64_t discarded;		/* dropped by the rings (the rings' counts) */
	uint64_t bytes;			/* the stream's size */
	uint64_t not_copied;		/* recover: stored, not lost, yet not copied
					 * (the stream's writes stopped) */
};
#define BP_RECORD_COUNTS_INIT { .size = sizeof(struct bp_record_counts) }

#define BP_RECORD_E_NOT_READY	(-30)	/* not a complete live trace file yet (its
					 * process is starting), or not one at all */

/*
 * Copy the live trace file open at fd (not closed; name for messages)
 * into a new stream file at out_path (0600; an earlier file there is
 * replaced, by the rules of every output of bprint's, docs/file-format.md
 * "Opening files").  0 with *counts (may be NULL) filled, or
 * BP_RECORD_E_NOT_READY, BP_TRACE_ENOMEM, BP_TRACE_EINVAL (counts
 * without its size), BP_TRACE_EIO with a one-line reason in err.
 */
BP_API int bp_trace_snapshot(int fd, const char *name, const char *out_path,
			     struct bp_record_counts *counts, char *err, size_t errlen);

/* What a live trace file's header says. */
struct bp_record_live {
	uint32_t size;			/* the caller's sizeof(struct bp_record_live) */
	int32_t pid;			/* the process that wrote it */
	uint64_t start_realtime_ns;	/* when it started: with pid, names a process */
	uint64_t mtime_ns;		/* when the file last changed */
};
#define BP_RECORD_LIVE_INIT { .size = sizeof(struct bp_record_live) }

/* 1 and *out if path is a live trace file whose header is complete, 0
 * if it is not (yet), BP_TRACE_ENOMEM, BP_TRACE_EINVAL without out's size. */
BP_API int bp_trace_live_probe(const char *path, struct bp_record_live *out);

/*
 * Finish the stream out_path of a recorder that was killed, from the live
 * file it left at live_path (whose process is gone), then remove the live
 * file.  BP_RECORD_RESUME: out_path is the stream it wrote, of the same
 * process, not closed: what it holds stays, and each ring goes on after
 * its last record there (the records between are counted lost); without
 * it, the stream is made anew from the whole live file.  0 with *counts
 * (may be NULL) filled; BP_RECORD_E_NOT_READY for a live_path that is no
 * live trace file; BP_TRACE_EFORMAT for a stream that cannot be read,
 * BP_TRACE_EIO, BP_TRACE_ENOMEM, with a one-line reason in err.
 */
#define BP_RECORD_RESUME 1u
BP_API int bp_trace_recover(const char *live_path, const char *out_path, unsigned flags,
			    struct bp_record_counts *counts, char *err, size_t errlen);

#if !defined(__cplusplus) && UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(struct bp_record_counts) == 56, "bp_record_counts is 56 bytes");
_Static_assert(sizeof(struct bp_record_live) == 24, "bp_record_live is 24 bytes");
#endif

#ifdef __cplusplus
}
#endif

#endif /* BPRINT_RECORD_H */
