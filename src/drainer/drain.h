/*
 * drainer/drain.h - the drainer: one live trace file into one stream file.
 * Its public part (open, start, pass, finish, counts, a chunk of another
 * copier's) is in <bprint/record.h>; here are what only the library and
 * the library uses: the full result with its error, resuming a killed
 * recorder's stream.
 *
 * How the drainer copies, counts and finishes is said in the public
 * header; in the library's terms: the consumer's progress is the rings'
 * consumed_seq, lost records are counted from the pages' first_rec, and
 * the accounts chunk sits right after the stream's header.
 *
 * Which live files to drain, into which stream, and when a file is
 * finished (its process has exited) is the caller's business: `bprint
 * record` supervises its child in tools/bprint/supervise.c.
 */
#ifndef BP_FILE_DRAIN_H
#define BP_FILE_DRAIN_H

#include <bprint/record.h>

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct bp_drain_result {
	unsigned files;			/* stream files written */
	uint64_t rings;
	uint64_t pages;			/* pages copied */
	uint64_t bytes;			/* bytes written to the stream files */
	uint64_t written;		/* sum of the rings' final counters */
	uint64_t discarded;
	uint64_t dropped;
	uint64_t lost_records;		/* stored records the drainer never copied */
	uint64_t lost_pages;
	uint64_t memory_rings;		/* rings the live file was too full for */
	uint64_t memory_records;	/* their records: in no file */
	uint64_t missing_sites;		/* sites the live file was too full for */
	uint64_t copied;		/* records in the stream files' pages chunks */
	uint64_t not_copied;		/* stored, never lost by overwriting, yet not
					 * copied: the stream's writes stopped */
	unsigned truncated;		/* stream files whose writes stopped (disk full) */
	uint32_t stop_reason;		/* the first one's BP_FILE_STOP_* and errno */
	int stop_errno;
	char error[256];		/* a one-line reason when a call returns -1 */
};

/*
 * Resume a stream whose drainer was killed (`bprint recover`): out_path
 * is the stream it wrote, not closed, of the same process as the live
 * file (whose process is gone).  The chunks it holds stay as they are;
 * what follows its last whole chunk is cut off, and the drain goes on
 * there, its chunks numbered on.  carry[] says, per ring of the stream
 * (as a reader of it counts them), what it holds: a ring of the live
 * file with the same index goes on from there (its pages holding only
 * records below bound are not copied again; records between bound and
 * the first page still in the ring are counted lost), and a ring the
 * live file no longer has is in the end chunk with these counts.  0, or
 * -1 with the result's error set.
 */
struct bp_drain_carry {
	uint64_t ring_index;
	int32_t tid;
	uint32_t level;
	uint64_t written, discarded, dropped;
	uint64_t lost_records;		/* the drainer's losses, as far as known */
	uint64_t copied;		/* records in its pages chunks */
	uint64_t bound;			/* the index after its last record copied */
};
int bp_drain_resume(struct bp_drain_file *f, const char *out_path, unsigned batch_pages,
		    const struct bp_drain_carry *carry, size_t ncarry);
/* The window writer of bp_drain_write_window() (<bprint/record.h>), with
 * the library's full result: 0 with *res set, or -1 with res->error. */
int bp_drain_window_result(struct bp_drain_file *f, const char *path,
			   const struct bp_drain_window_ring *rings, size_t nrings,
			   struct bp_drain_result *res);

/* The file's counters (set in full by bp_drain_finish()) and error. */
const struct bp_drain_result *bp_drain_result(const struct bp_drain_file *f);

#endif /* BP_FILE_DRAIN_H */
