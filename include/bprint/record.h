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
 * (The recorder's other parts, `bprint record` and `recover`, are not API
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

#if !defined(__cplusplus) && UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(struct bp_record_counts) == 48, "bp_record_counts is 48 bytes");
#endif

#ifdef __cplusplus
}
#endif

#endif /* BPRINT_RECORD_H */
