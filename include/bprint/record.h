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
 * recorder killed").
 *
 * And the recorder's parts, which `bprint record` is made of: the drainer
 * (one live file copied into one stream file, pass after pass, until its
 * process is gone: struct bp_drain_file below), its watch mode (pages
 * handed to the caller, read record by record, windows written: record
 * --trigger), the kernel stream's writer (record --kernel), a process's
 * live file seen through its descriptors (record --pid), and the few
 * facts about a traced program's settings that the command checks
 * before it starts one.
 * Which live files to drain and when a file is finished (its process has
 * exited) stays the caller's (the command's supervisor).
 *
 * The structs a caller gives (bp_record_counts, bp_record_live) begin
 * with their size and grow at the end, as reader.h's do: the library
 * writes only what fits in that many bytes, and takes no size below the
 * first version's (BP_RECORD_*_SIZE_1).
 */
#ifndef BPRINT_RECORD_H
#define BPRINT_RECORD_H

#include <bprint/reader.h>

#include <signal.h>
#include <stdbool.h>
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
	/* since the recorder's API (a drainer's counts, bp_drain_counts()) */
	uint64_t pages;			/* pages copied */
	uint64_t written;		/* sum of the rings' final counters */
	uint64_t dropped;
	uint64_t lost_pages;		/* pages recycled before the copy */
	uint64_t memory_rings;		/* rings the live file was too full for */
	uint64_t memory_records;	/* their records: in no file */
	uint64_t missing_sites;		/* sites the live file was too full for */
	uint32_t files;			/* stream files written (a sum of several: the caller's) */
	uint32_t truncated;		/* stream files whose writes stopped (disk full) */
};
#define BP_RECORD_COUNTS_INIT { .size = sizeof(struct bp_record_counts) }
#define BP_RECORD_COUNTS_SIZE_1 56	/* the first version's, the smallest taken */

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
	uint64_t mtime_ns;		/* when the file last changed (also set when the
					 * header is not complete yet) */
	/* since the recorder's API (bp_drain_open()) */
	int32_t open_errno;		/* the file could not be opened for want of
					 * descriptors or memory (EMFILE, ENFILE,
					 * ENOMEM): worth trying again, else 0 */
	uint32_t reserved;
};
#define BP_RECORD_LIVE_INIT { .size = sizeof(struct bp_record_live) }
#define BP_RECORD_LIVE_SIZE_1 24	/* the first version's, the smallest taken */

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

/* ---- the drainer ----------------------------------------------------- */

/*
 * One live trace file into one stream file.  The drainer maps the live
 * file, becomes the consumer of every ring in it, and copies every
 * completed page into a growing stream file (docs/file-format.md, dense
 * pages), with the header, sites and libraries, pass after pass, until its
 * caller says the file is finished.  In discard mode the consumer's
 * progress is what lets the writer reuse a page, so nothing is lost
 * unless the drainer falls behind, and what is lost is counted exactly by
 * the rings' `discarded`; in overwrite mode pages recycled before the
 * drainer copied them are counted as lost (in records, exactly).
 *
 * Finishing copies what is left, including the partly filled head pages,
 * writes the end chunk with the final counters and marks the stream
 * closed.  Until then the stream's accounts chunk holds the same counters
 * as far as the drainer has copied, so that a stream whose drainer died
 * still says what it lacks.  If a write fails (the disk is full), the
 * stream gets no more chunks: its header says where and why it stopped.
 *
 * The drainer is the rings' only consumer: a traced program must not use
 * the in-process consuming reader (bprint_read_begin()) under it.  One
 * bp_drain_file is used by one thread at a time.
 */
struct bp_drain_file;

/*
 * Open the live file at live_path if its header is complete.  Returns 1
 * with *f and *live set; 0 if it is not (yet) such a file, with
 * live->mtime_ns set if the file exists (and live->open_errno if it could
 * not be opened for want of descriptors); -1 out of memory, or
 * BP_TRACE_EINVAL for live without its size.
 */
BP_API int bp_drain_open(const char *live_path, struct bp_drain_file **f,
			 struct bp_record_live *live);

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
BP_API int bp_drain_open_fd(int fd, const char *name, unsigned flags, struct bp_drain_file **f,
			    struct bp_record_live *live);

/*
 * Create the stream file out_path (0600; an existing file is replaced,
 * by the rules of docs/file-format.md, "Opening files") and write its
 * header and accounts.  batch_pages: pages per output chunk, at most;
 * 0 = 64.  0, or -1 with bp_drain_error() set (and errno, when the
 * stream could not be created: EMFILE is worth trying again).
 */
BP_API int bp_drain_start(struct bp_drain_file *f, const char *out_path, unsigned batch_pages);

/*
 * One pass: copy what the rings completed since the last one.  Returns
 * the pages copied (0: nothing new), or -1 when the drain cannot go on
 * (bp_drain_error() says why).  A write that fails (disk full) is not
 * -1: the stream stops there and bp_drain_finish() says so.
 */
BP_API long bp_drain_pass(struct bp_drain_file *f);

/*
 * The file's process is gone, or the caller stops: copy the rest, write
 * the end chunk and the final header, close both files (and unlink the
 * live file, with remove_live).  Only after bp_drain_start().  Returns 0,
 * or -1 if the stream is incomplete (a write failed: bp_drain_error()).
 */
BP_API int bp_drain_finish(struct bp_drain_file *f, bool remove_live);

/*
 * Append a chunk made by another copier into the same stream (the kernel
 * stream of `record --kernel`, docs/kernel-stream.md): buf holds size
 * bytes, a multiple of the format's chunk alignment, whose chunk header
 * this fills (magic, type, size, state, index, checksum).  Only between
 * bp_drain_start() and bp_drain_finish().  0, or -1 once the stream's
 * writes have stopped (a write failed: its header says where and why).
 */
BP_API int bp_drain_put_chunk(struct bp_drain_file *f, uint32_t type, void *buf, uint64_t size);

/* The file's counts so far (in full after bp_drain_finish()): 0, or
 * BP_TRACE_EINVAL for counts without its size. */
BP_API int bp_drain_counts(const struct bp_drain_file *f, struct bp_record_counts *counts);

/* The one-line reason of the last failure ("" if none); valid until
 * bp_drain_free(). */
BP_API const char *bp_drain_error(const struct bp_drain_file *f);

/* Unmap and close what is left (a file not finished stays as it is). */
BP_API void bp_drain_free(struct bp_drain_file *f);

/*
 * Ask the scheduler for short time slices for the calling thread (where
 * the kernel has them), so that a drainer runs soon after it wakes up;
 * the setting stays with the thread.
 */
BP_API void bp_drain_short_slices(void);

/* ---- watching instead of copying (record --trigger) ------------------- */

/*
 * Watch mode (bprint record --trigger, docs/attach.md, "Triggers"): no
 * stream file is started; each page a pass copies out of a ring (in the
 * order of the ring's pages, from its oldest on, as BP_DRAIN_RUNNING
 * copies) is handed to fn, which keeps what it wants.  p->page is the
 * drainer's copy, valid during the call; p->ring numbers the rings in the
 * order the drain found them (0, 1, ...; a ring chunk the process reused
 * for a new thread gets a new number).  Pages are copied whatever the
 * ring's mode (a discard ring is consumed as with a stream).  Set before
 * the first pass.
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
BP_API void bp_drain_watch(struct bp_drain_file *f, bp_drain_page_fn fn, void *arg);

/* A pass (bp_drain_pass()), then every ring's current page, partial, to
 * the watcher: what the rings hold up to now.  The pages copied, or -1. */
BP_API long bp_drain_pass_heads(struct bp_drain_file *f);

/* The live file's calibration in force now: what turns a record's raw
 * timestamp into the trace clock's ns (bp_drain_clock_ns()). */
struct bp_drain_clock {
	uint64_t opaque[4];
};
BP_API void bp_drain_calibration(const struct bp_drain_file *f, struct bp_drain_clock *c);
BP_API uint64_t bp_drain_clock_ns(const struct bp_drain_clock *c, uint64_t ts);

/* A program's site ids are below this (a record's site id: see reader.h). */
#define BP_DRAIN_SITE_IDS (1u << 18)

/*
 * A watched page read record by record.  bp_drain_page_begin(): 0, or -1
 * for a page that fails its checks; it.first_rec is the page's first
 * record's stored-record index.  bp_drain_page_next(): 1 with *r (its
 * words point into the page), 0 at the page's end; it.next_rec is then
 * the index after the last record read.
 */
struct bp_drain_rec {
	uint64_t index;			/* its stored-record index in its ring */
	uint64_t ts;			/* its raw timestamp */
	const uint32_t *words;		/* the argument block, or the text */
	size_t nwords;
	uint32_t site_id;		/* 0: none */
	int32_t cpu;			/* the CPU word, if has_cpu (else -1) */
	bool has_cpu;			/* the record carried a CPU word */
	bool text;			/* words hold text, not an argument block */
};
struct bp_drain_page_iter {
	uint64_t first_rec;
	uint64_t next_rec;
	uint64_t state[6];		/* the library's */
};
BP_API int bp_drain_page_begin(struct bp_drain_page_iter *it, const void *page,
			       uint32_t page_size);
BP_API int bp_drain_page_next(struct bp_drain_page_iter *it, struct bp_drain_rec *r);

/*
 * Cut a copy of a page to its records [first, end) (stored-record
 * indexes), in place; with has_cpu, the first record kept carries cpu
 * (the records dropped may be the only ones that said it).  0, or -1 for
 * a page that fails its checks.
 */
BP_API int bp_drain_page_cut(void *page, uint32_t page_size, uint64_t first, uint64_t end,
			     bool has_cpu, uint32_t cpu);

/*
 * Write pages a watcher kept as a complete stream file at path (header,
 * libraries, sites, a pages chunk per ring, the end chunk with each
 * ring's counts): a window of the trace.  Per ring: the drain's ring
 * number, its pages in order, and expect_rec, the stored-record index the
 * first page's first record should have (the one after the last record
 * kept before it; UINT64_MAX: unknown): records missing between it and
 * the pages, or between the pages, are counted as overwritten, in place.
 * The window's record indexes count from its first record (from
 * expect_rec, when known), so that the records before it are not counted
 * as missing; its counts end with its last record (a cut, as
 * BP_DRAIN_RUNNING's).  0 with *counts (may be NULL) set, or -1 with a
 * one-line reason in err (BP_TRACE_EINVAL for counts without its size).
 */
struct bp_drain_window_ring {
	size_t ring;
	const void *const *pages;
	size_t npages;
	uint64_t expect_rec;
};
BP_API int bp_drain_write_window(struct bp_drain_file *f, const char *path,
				 const struct bp_drain_window_ring *rings, size_t nrings,
				 struct bp_record_counts *counts, char *err, size_t errlen);

/* ---- the kernel stream (record --kernel, docs/kernel-stream.md) ------ */

/*
 * The kernel's events beside a program's records, in the same stream:
 * the caller reads tracefs (the formats, each CPU's trace_pipe_raw
 * pages), the library lays out the chunks and appends them to a
 * drainer's stream, between bp_drain_start() and bp_drain_finish().
 */

/* The kernel's trace_clock that gives the time of bprint's clock named
 * clock ("tsc" -> "x86-tsc", "mono", "mono_raw", "boot"), or NULL for a
 * clock the kernel has not. */
BP_API const char *bp_record_kernel_clock(const char *clock);

/* The kernel formats chunk, collected: the page header's format
 * (events/header_page, system "header"), then each event's format file. */
struct bp_kformats;
#define BP_KFORMATS_HEADER_PAGE 1u
#define BP_KFORMATS_EVENT 2u
BP_API struct bp_kformats *bp_kformats_new(void);
/* 0, or -1 out of memory. */
BP_API int bp_kformats_add(struct bp_kformats *b, unsigned kind, const char *system,
			   const char *text);
BP_API void bp_kformats_free(struct bp_kformats *b);

/* Append b as the stream's kernel formats chunk: ncpus CPUs of pages of
 * page_size bytes, stamped with bprint's clock named clock, root_pid the
 * traced command.  0, or -1 (the stream's writes stopped, out of memory,
 * a clock the kernel has not). */
BP_API int bp_drain_put_kformats(struct bp_drain_file *f, const struct bp_kformats *b,
				 uint32_t ncpus, uint32_t page_size, const char *clock,
				 int32_t root_pid);

/*
 * A kernel pages chunk: a batch the caller allocates with
 * bp_kpages_size(most, page_size) bytes, fills with pages as read, page i
 * at bp_kpages_page(batch, i, page_size), and appends with
 * bp_drain_put_kpages() (which fills its header and padding): npages of
 * CPU cpu, the first of them its seq-th, with the events the pages say
 * were lost (missed) and the pages that say so without a count.  0, or -1
 * once the stream's writes have stopped.
 */
BP_API size_t bp_kpages_size(uint32_t npages, uint32_t page_size);
BP_API void *bp_kpages_page(void *batch, uint32_t i, uint32_t page_size);
BP_API int bp_drain_put_kpages(struct bp_drain_file *f, void *batch, uint32_t cpu,
			       uint32_t npages, uint32_t page_size, uint64_t seq, uint64_t missed,
			       uint64_t missed_pages);

/* Does a kernel page as trace_pipe_raw gives it say events were lost
 * before it?  0 no; 1 yes, *count of them; 2 yes, without a count. */
BP_API int bp_kernel_page_missed(const void *page, uint32_t page_size, uint64_t *count);

/* ---- a traced program's settings, as the recorder checks them --------- */

/* "64K", "1M", "2G", "4096": bytes, or 0 if malformed or past SIZE_MAX
 * (BPRINT_BUFFER_SIZE's and BPRINT_PAGE_SIZE's syntax). */
BP_API size_t bp_record_parse_size(const char *s);

/* "100ms", "500us", "2s", "250000ns", "100" (ms): nanoseconds, or 0 if
 * malformed (BPRINT_BLOCK_TIMEOUT's syntax). */
BP_API uint64_t bp_record_parse_duration(const char *s);

/* The largest ring a program may ask for (BPRINT_BUFFER_SIZE): 4 GiB. */
BP_API size_t bp_record_buffer_max(void);

/* Is name a ring mode BPRINT_MODE takes ("block", "discard", "overwrite")? */
BP_API bool bp_record_mode_known(const char *name);

/* Is name a clock BPRINT_CLOCK takes ("tsc", "mono", ...: exactly)? */
BP_API bool bp_record_clock_known(const char *name);

/* The clock a program takes on this machine without BPRINT_CLOCK: tsc
 * where it is usable, else mono. */
BP_API const char *bp_record_clock_default(void);

/*
 * The signal a traced program sends its recorder (sigqueue() to
 * BPRINT_RECORD_PID, the value its pid) when it cannot make its live
 * file: its records are in no file, and the recorder, which cannot see a
 * file that was never made, must know.  Ignored by default, so that a
 * process that took a dead recorder's pid is not harmed by it.
 */
#define BP_RECORD_NO_FILE_SIGNAL SIGURG

/*
 * Open a file the recorder writes, safely (docs/file-format.md, "Who
 * writes what"): create path, or with BP_RECORD_OPEN_REPLACE or
 * BP_RECORD_OPEN_KEEP reuse it if it is a regular file owned by our
 * effective uid; never follows a symlink, never opens a FIFO, device,
 * socket or directory, never changes a file it refuses.  Without REPLACE
 * or KEEP an existing name fails with EEXIST.  A descriptor (O_CLOEXEC),
 * or -1 with errno set and *why a short reason (a static string, or NULL
 * when strerror(errno) says it).
 */
#define BP_RECORD_OPEN_RDWR 1u		/* read and write, else write only */
#define BP_RECORD_OPEN_REPLACE 2u	/* an existing file of ours is truncated to 0 */
#define BP_RECORD_OPEN_KEEP 4u		/* an existing file of ours is opened as it is */
#define BP_RECORD_OPEN_PRIVATE 8u	/* created 0600, and an existing file made 0600 */
BP_API int bp_record_open_output(const char *path, unsigned how, const char **why);

/* ---- a running process's live file, seen from outside ---------------- */

/*
 * What attaching to a process needs to know of its descriptors
 * (docs/attach.md): libbprint's shared memory is a memfd of this name
 * (/proc/PID/fd shows it as "/memfd:NAME (deleted)"); a live file, as a
 * BPRINT_FILE, is a regular file of at least bp_record_header_bytes().
 */
BP_API const char *bp_record_memfd_name(void);
BP_API size_t bp_record_header_bytes(void);

/* The trace format this library reads: major.minor, and the older minors. */
BP_API void bp_record_format_version(unsigned *major, unsigned *minor);

/*
 * Is the file open as fd the live trace file of process pid (not a
 * stream file it writes, not its parent's, for a fork child)?
 * BP_RECORD_LOOK_LIVE; BP_RECORD_LOOK_OTHER_VERSION for a live file of
 * another format version or word size, with its version in *major and
 * *minor; else BP_RECORD_LOOK_NONE.
 */
#define BP_RECORD_LOOK_NONE 0
#define BP_RECORD_LOOK_LIVE 1
#define BP_RECORD_LOOK_OTHER_VERSION 2
BP_API int bp_record_live_look(int fd, int32_t pid, unsigned *major, unsigned *minor);

/* Has the live file open as fd been closed by its process (at its exit)? */
BP_API bool bp_record_live_closed(int fd);

/*
 * The first process that a ring of the live file open as fd names as its
 * consumer (a bprint record draining it) and that take(arg, pid) accepts;
 * 0 if none.
 */
BP_API long bp_record_live_consumer(int fd, bool (*take)(void *arg, long pid), void *arg);

/* Do the n bytes at buf begin a bprint trace file (live or stream)? */
BP_API bool bp_record_is_trace(const void *buf, size_t n);

#if !defined(__cplusplus) && UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(struct bp_record_counts) == 120, "bp_record_counts is 120 bytes");
_Static_assert(sizeof(struct bp_record_live) == 32, "bp_record_live is 32 bytes");
#endif

#ifdef __cplusplus
}
#endif

#endif /* BPRINT_RECORD_H */
