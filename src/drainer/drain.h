/*
 * drainer/drain.h - the drainer: one live trace file into one stream file.
 *
 * The traced program keeps its rings in a live trace file.  The drainer
 * maps that file, becomes the consumer of every ring in it, and copies
 * every completed page into a growing stream file (docs/file-format.md,
 * dense pages), with the header, sites and libraries, pass after pass,
 * until its caller says the file is finished.  In discard mode the
 * consumer's progress (consumed_seq) is what lets the writer reuse a page,
 * so nothing is lost unless the drainer falls behind, and what is lost is
 * counted exactly by the rings' `discarded`; in overwrite mode pages
 * recycled before the drainer copied them are counted as lost (in
 * records, exactly, from the pages' first_rec).
 *
 * Finishing copies what is left, including the partly filled head pages,
 * writes the end chunk with the final counters and marks the output
 * closed.  Until then the stream's accounts chunk (right after its header)
 * holds the same counters as far as the drainer has copied, so that a
 * stream whose drainer died still says what it lacks.  If a write fails
 * (the disk is full), the stream gets no more chunks: its header says
 * where and why it stopped, and its accounts follow the rings until the
 * file is finished.
 *
 * Which live files to drain, into which stream, and when a file is
 * finished (its process has exited) is the caller's business: `bprint
 * record` supervises its child in tools/bprint/supervise.c.
 *
 * The drainer is the rings' only consumer: a traced program must not use
 * the in-process consuming reader (bprint_read_begin()) under it.  One
 * bp_drain_file is used by one thread at a time.
 */
#ifndef BP_FILE_DRAIN_H
#define BP_FILE_DRAIN_H

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

/* What a live file's header says, and when the file last changed. */
struct bp_drain_live {
	pid_t pid;
	uint64_t start_realtime_ns;
	uint64_t mtime_ns;		/* also set when the header is not complete yet */
	int open_errno;			/* the file could not be opened for want of
					 * descriptors or memory (EMFILE, ENFILE,
					 * ENOMEM): worth trying again, else 0 */
};

struct bp_drain_file;

/*
 * Open the live file at live_path if its header is complete (the rules
 * of file/valid.h, and a live file's: no stream flag, a pid).  Returns 1
 * with *f and *live set; 0 if it is not (yet) such a file, with
 * live->mtime_ns set if the file exists; -1 out of memory.
 */
int bp_drain_open(const char *live_path, struct bp_drain_file **f, struct bp_drain_live *live);

/*
 * The same, for a live file already open as fd (taken: closed on failure
 * and by bp_drain_free()), named name in messages: another process's
 * shared memory, opened through /proc/PID/fd (docs/attach.md).
 *
 * BP_DRAIN_RUNNING: the process was running before the drain and may run
 * on after it (bprint record --pid): each ring is copied from its oldest
 * page, whatever an earlier consumer took, and the stream's counts end
 * with the last record copied (a cut: what the process writes after it is
 * not missing from this file).  BP_DRAIN_OBSERVE, the same, and the
 * drainer never writes to the live file (fd may be read-only): it is no
 * consumer and hands no exited ring back, so the process keeps every
 * record it holds (bprint snapshot).
 */
#define BP_DRAIN_OBSERVE 1u
#define BP_DRAIN_RUNNING 2u
int bp_drain_open_fd(int fd, const char *name, unsigned flags, struct bp_drain_file **f,
		     struct bp_drain_live *live);

/*
 * Create the stream file out_path (0600; an existing file is replaced,
 * by the rule of trace/safe_open.h) and write its header and accounts.
 * batch_pages: pages per output chunk, at most; 0 = 64.  0, or -1 with
 * the result's error set (and errno, when the stream could not be
 * created).
 */
int bp_drain_start(struct bp_drain_file *f, const char *out_path, unsigned batch_pages);

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
 * One pass: copy what the rings completed since the last one.  Returns
 * the pages copied (0: nothing new), or -1 when the drain cannot go on
 * (the result's error says why).  A write that fails (disk full) is not
 * -1: the stream stops there and bp_drain_finish() says so.
 */
long bp_drain_pass(struct bp_drain_file *f);

/*
 * The file's process is gone, or the caller stops: copy the rest, write
 * the end chunk and the final header, close both files (and unlink the
 * live file, with remove_live).  Only after bp_drain_start().  Returns 0,
 * or -1 if the stream is incomplete (a write failed: the result's error).
 */
int bp_drain_finish(struct bp_drain_file *f, bool remove_live);

/*
 * Append a chunk made by another copier into the same stream (the kernel
 * stream of `record --kernel`, docs/kernel-stream.md): buf holds size
 * bytes, a multiple of align, whose chunk header this fills (magic, type,
 * size, state, index, checksum).  Only between bp_drain_start() and
 * bp_drain_finish().  0, or -1 once the stream's writes have stopped (a
 * write failed: its header says where and why).
 */
int bp_drain_put_chunk(struct bp_drain_file *f, uint32_t type, void *buf, uint64_t size);

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

/* Unmap and close what is left (a file not finished stays as it is). */
void bp_drain_free(struct bp_drain_file *f);

/*
 * Ask the scheduler for short time slices for the calling thread (where
 * the kernel has them), so that a drainer runs soon after it wakes up;
 * the setting stays with the thread.
 */
void bp_drain_short_slices(void);

#endif /* BP_FILE_DRAIN_H */
