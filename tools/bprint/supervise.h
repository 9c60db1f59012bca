/*
 * tools/bprint/supervise.h - `bprint record`'s supervisor: which live
 * files its child and the child's descendants trace into, into which
 * stream files they go, and when each is finished.  The copying itself is
 * the drainer's (<bprint/record.h>).
 *
 * The child gets BPRINT_FILE=live_path.  Programs it starts that keep
 * BPRINT_FILE create "live_path.<pid>" while live_path is taken (or
 * live_path itself once the file there was drained and removed); with
 * follow set, those are drained too.  The first program to trace into
 * live_path itself goes to out_path, every other one to "out_path.<pid>":
 * a wrapper as the child (a shell script) still gives out_path the first
 * traced program it runs.  A file is finished when its process has
 * exited; the drain ends when the child has exited and every file is
 * finished.
 */
#ifndef BPRINT_SUPERVISE_H
#define BPRINT_SUPERVISE_H

#include <bprint/record.h>

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct bp_drain_opts {
	const char *live_path;		/* what the child was given as BPRINT_FILE */
	const char *out_path;		/* the first stream file (0600, replaced if it exists) */
	volatile sig_atomic_t *stop;	/* non-zero: finish now (say, from a SIGINT handler); may be NULL */
	pid_t child;			/* the traced child: the drain ends once it has exited and
					 * every followed file is done.  It is not reaped (waitid
					 * with WNOWAIT): the caller collects its status.  0: run
					 * until *stop */
	int follow;			/* also drain the files of the child's descendants */
	uint64_t started_ns;		/* CLOCK_REALTIME before the child was started: a
					 * live file older than that whose process is
					 * gone is an earlier run's (a killed recorder's,
					 * for bprint recover).  0: not known */
	int remove_live;		/* unlink each live file once drained */
	unsigned idle_us;		/* longest sleep when there is nothing to copy
					 * (the sleeps grow to it from 20 us); 0 = 1000 */
	unsigned batch_pages;		/* pages per output chunk, at most; 0 = 64 */
	/* called with each stream file's name once it is created; may be NULL */
	void (*on_output)(void *arg, const char *out_path);
	void *on_output_arg;
	/*
	 * Another copier into out_path's stream (record --kernel): called
	 * after every pass with its drainer once it exists, and once more with
	 * final set right before that stream is finished, so that it can add
	 * chunks of its own (bp_drain_put_chunk()).  Returns the work it did
	 * (0: none, the loop may sleep).  May be NULL.
	 */
	long (*on_pass)(void *arg, struct bp_drain_file *first, bool final);
	void *on_pass_arg;
};

/* What a drain did: every file's counts summed, and its first error. */
struct bp_drain_run_result {
	struct bp_record_counts c;
	char error[256];		/* a one-line reason when the run returns -1 */
};

/*
 * Drain until the child has exited (or *stop); res sums every file.
 * Returns 0, or -1 with res->error set: an output cannot be written (or a
 * write failed and a stream is truncated, after draining to the end all
 * the same), or no live file ever appeared (the program does not use
 * libbprint, or failed to start).  Asks for short time slices for the
 * calling thread (bp_drain_short_slices()).
 */
int bp_drain_run(const struct bp_drain_opts *o, struct bp_drain_run_result *res);

/* Is name (a directory entry) base followed by ".PID", digits only? */
bool sibling_name(const char *name, const char *base, size_t blen);

/*
 * What /proc/PID/stat says of process pid: 0 with its state letter ('R',
 * 'S', 'Z', ...) and its parent's pid, '?' and 0 where the line is odd;
 * or -errno (-ENOENT: no such process).
 */
int proc_stat(long pid, char *state, long *ppid);

/* Does process pid still exist (a zombie has ended)? */
bool alive(long pid);

/* The system clock id (CLOCK_MONOTONIC, CLOCK_REALTIME) now, in ns. */
uint64_t clock_ns(clockid_t id);

#endif /* BPRINT_SUPERVISE_H */
