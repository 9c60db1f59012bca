/*
 * drainer/drain.h - the drainer: one live trace file into one stream file.
 * Its public part (open, start, pass, finish, counts, a chunk of another
 * copier's) is in <bprint/record.h>; here are what only the library and
 * the trigger's watch use: the full result with its error, resuming a
 * killed recorder's stream, watching pages and writing windows.
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
/*
 * Watching instead of copying (bprint record --trigger, docs/attach.md,
 * "Triggers"): no stream file is started; each page a pass copies out of
 * a ring (in the order of the ring's pages, from its oldest on, as
 * BP_DRAIN_RUNNING copies) is handed to fn, which keeps what it wants.
 * p->page is the drainer's copy, valid during the call; p->ring numbers
 * the rings in the order the drain found them (0, 1, ...; a ring chunk
 * the process reused for a new thread gets a new number).  Pages are
 * copied whatever the ring's mode (a discard ring is consumed as with a
 * stream).  Set before the first pass.
 */
struct bp_drain_page {
	size_t ring;
	uint64_t seq;			/* the page's sequence number in its ring */
	const void *page;		/* page_size bytes: its header, then its records */
	uint32_t page_size;
	bool partial;			/* the writer's current page: its records so far
					 * (the same seq comes again, complete, later) */
};
typedef void (*bp_drain_page_fn)(void *arg, const struct bp_drain_page *p);
void bp_drain_watch(struct bp_drain_file *f, bp_drain_page_fn fn, void *arg);

/*
 * A pass (bp_drain_pass()), then every ring's current page, partial, to
 * the watcher: what the rings hold up to now.  The pages copied, or -1.
 */
long bp_drain_pass_heads(struct bp_drain_file *f);

/* The live file's calibration in force now (raw timestamps to ns), as
 * the 32 bytes of a struct bp_clock_calib (src/trace/clock.h). */
void bp_drain_calibration(const struct bp_drain_file *f, void *calib);

/*
 * Write pages a watcher kept as a complete stream file at path (header,
 * libraries, sites, a pages chunk per ring, the end chunk with each
 * ring's counts): a window of the trace (bprint record --trigger).  Per
 * ring: the drain's ring number, its pages in order, and expect_rec, the
 * stored-record index the first page's first record should have (the one
 * after the last record kept before it; UINT64_MAX: unknown): records
 * missing between it and the pages, or between the pages, are counted as
 * overwritten, in place.  The window's record indexes count from its
 * first record (from expect_rec, when known), so that the records before
 * it are not counted as missing; its counts end with its last record (a
 * cut, as BP_DRAIN_RUNNING's).  0 with *res set, or -1 with
 * res->error set.
 */
struct bp_drain_window_ring {
	size_t ring;
	const void *const *pages;
	size_t npages;
	uint64_t expect_rec;
};
int bp_drain_write_window(struct bp_drain_file *f, const char *path,
			  const struct bp_drain_window_ring *rings, size_t nrings,
			  struct bp_drain_result *res);

/* The file's counters (set in full by bp_drain_finish()) and error. */
const struct bp_drain_result *bp_drain_result(const struct bp_drain_file *f);

#endif /* BP_FILE_DRAIN_H */
