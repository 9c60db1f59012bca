/*
 * file/drain.h - the drainer of `bprint record`.
 *
 * The traced program (started by the command with BPRINT_FILE=live_path)
 * keeps its rings in a live trace file.  bp_drain_run() maps that file,
 * becomes the consumer of every ring in it, and copies every completed
 * page into a growing stream file (docs/file-format.md, chunk type 6,
 * compact pages), with
 * the header, sites and libraries, while the program runs.  In discard
 * mode the consumer's progress (consumed_seq) is what lets the writer reuse
 * a page, so nothing is lost unless the drainer falls behind, and what is
 * lost is counted exactly by the rings' `discarded`; in overwrite mode
 * pages recycled before the drainer copied them are counted as lost (in
 * records, exactly, from the pages' first_rec).
 *
 * When the traced process has exited (or *stop is set), the drainer copies
 * what is left, including the partly filled head pages, writes the end
 * chunk with the final counters and marks the output closed.  Until then
 * the stream's accounts chunk (right after its header) holds the same
 * counters as far as the drainer has copied, so that a stream whose
 * drainer died still says what it lacks.  If a write fails (the disk is
 * full), that stream gets no more chunks: its header says where and why it
 * stopped, and its accounts follow the rings until the process is gone.
 *
 * Descendants that exec and inherit BPRINT_FILE create "live_path.<pid>";
 * with follow set, the drainer picks those up too, each into
 * "out_path.<pid>".
 *
 * The drainer is the rings' only consumer: a traced program must not use
 * the in-process consuming reader (bprint_read_begin()) under it.
 *
 * bp_drain_run() asks the scheduler for short time slices for the calling
 * thread (where the kernel has them), so that it runs soon after it wakes
 * up; the setting stays with the thread.
 */
#ifndef BP_FILE_DRAIN_H
#define BP_FILE_DRAIN_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

struct bp_drain_opts {
	const char *live_path;		/* what the child was given as BPRINT_FILE */
	const char *out_path;		/* the stream file (created 0600, replaced if it exists) */
	volatile sig_atomic_t *stop;	/* non-zero: finish now (say, from a SIGINT handler); may be NULL */
	pid_t child;			/* the traced child: the drain ends once it has exited and
					 * every followed file is done.  It is not reaped (waitid
					 * with WNOWAIT): the caller collects its status.  0: run
					 * until *stop */
	int follow;			/* also drain live_path.<pid> into out_path.<pid> */
	int remove_live;		/* unlink each live file once drained */
	unsigned idle_us;		/* longest sleep when there is nothing to copy
					 * (the sleeps grow to it from 20 us); 0 = 1000 */
	unsigned batch_pages;		/* pages per output chunk, at most; 0 = 64 */
};

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
	char error[256];		/* a one-line reason when the call returns -1 */
};

/*
 * Drain until the child has exited (or *stop).  Returns 0, or -1 with
 * res->error set: the output cannot be written (or a write failed and the
 * stream is truncated, after draining to the end all the same), or no live
 * file ever appeared (the program does not use libbprint, or failed to
 * start).
 */
int bp_drain_run(const struct bp_drain_opts *o, struct bp_drain_result *res);

#endif /* BP_FILE_DRAIN_H */
