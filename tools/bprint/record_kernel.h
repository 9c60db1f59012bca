/*
 * tools/bprint/record_kernel.h - `bprint record --kernel`: the kernel's
 * events beside the program's records, in the same stream file, on the
 * same clock (docs/kernel-stream.md).
 *
 * A private tracefs instance, bprint-PID (PID: the recorder's), gets the
 * clock that matches the program's, the per-CPU buffer size asked, and
 * the events asked.  The supervisor's loop (supervise.h, on_pass) reads
 * each CPU's raw pages about every 10 ms and appends them to the first
 * stream as kernel pages chunks, after one kernel formats chunk.  The
 * instance is removed when the recording ends (also after a signal the
 * recorder handles), and an instance left by a recorder that was killed
 * is removed when the next one starts.
 */
#ifndef BPRINT_RECORD_KERNEL_H
#define BPRINT_RECORD_KERNEL_H

#include <bprint/record.h>

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct kernel_rec;

/*
 * Make the instance: list is --kernel's LIST (NULL: sched), buffer the
 * per-CPU size (NULL: 4M), clock the program's bprint clock name.
 * Returns 0 with *out set, or EXIT_USAGE after one line on stderr saying
 * what is missing (root, tracefs, an event, the clock) and what to do;
 * nothing is left behind then.
 */
int kernel_rec_start(struct kernel_rec **out, const char *list, const char *buffer,
		     const char *clock);

/* The traced command: the root of the process tree of --kernel=own. */
void kernel_rec_set_root(struct kernel_rec *k, pid_t root);

/* supervise.h's on_pass: read the pages, append them to first. */
long kernel_rec_pass(void *arg, struct bp_drain_file *first, bool final);

/* "kernel: ..." on stderr: pages, CPUs, events lost per CPU. */
void kernel_rec_summary(const struct kernel_rec *k);

/* Remove the instance and free k (NULL: nothing). */
void kernel_rec_stop(struct kernel_rec *k);

/* Is s a size for --kernel-buffer (at least 4K)? */
bool kernel_rec_buffer_ok(const char *s);

#endif /* BPRINT_RECORD_KERNEL_H */
