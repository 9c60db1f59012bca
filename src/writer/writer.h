/*
 * writer/writer.h - the traced process's side of a trace file (BPRINT_FILE).
 *
 * bp_file_open() creates the live file (docs/file-format.md) and installs
 * a struct bp_backing (trace/backing.h), so that from then on every ring is
 * a chunk of the file, mapped MAP_SHARED: a process killed at any instant
 * leaves every committed record in the file.  It also writes the header,
 * the libraries chunk and the sites chunks, and keeps them current:
 *
 *   - a ring chunk per thread and nesting level, allocated on the thread's
 *     first trace (async-signal-safe: a fetch-add on the header's `end`,
 *     fallocate, mmap; no allocation, no lock);
 *   - a site record per registered call site (site_added, under the
 *     registry lock), in 64 KiB sites chunks;
 *   - a library record per loaded object, at open and whenever a site
 *     registers after the set of loaded objects changed (dlopen);
 *   - the clock calibration, refreshed at most every 10 ms when a ring is
 *     mapped or a site registers, and at exit: a file's calibration is as
 *     fresh as its last update;
 *   - at normal exit (atexit), the "closed cleanly" flag.
 *
 * A fork child does not write to its parent's file: its rings are anonymous
 * memory from then on (an exec'd child that inherits BPRINT_FILE creates a
 * file of its own, "path.<pid>").
 */
#ifndef BP_FILE_WRITER_H
#define BP_FILE_WRITER_H

/*
 * Create the file at path (O_EXCL, mode 0600; if path exists, "path.<pid>"
 * instead), fill its header and start writing to it.  Call once, at
 * start-up, after the clock is selected and before anything traces.
 * Returns 0, or -1 with errno set and a one-line message on stderr (tracing
 * then goes on in anonymous memory).
 */
int bp_file_open(const char *path);

/*
 * Without BPRINT_FILE: the same live file in shared memory (a memfd named
 * BP_FILE_MEMFD_NAME, close-on-exec), so that a reader with ptrace access
 * to the process can map it through /proc/PID/fd (docs/attach.md).  The
 * memory stays sparse: a ring's pages cost memory as they are reached.
 * Returns 0, or -1 with errno set, quietly: tracing then goes on in
 * anonymous memory, as it did before, and nothing can attach.
 */
int bp_file_open_memory(void);

/* The path actually created, or NULL if there is no file (or shared memory). */
const char *bp_file_path(void);

/* Publish a fresh clock calibration in the header now.  Async-signal-safe;
 * a no-op without a file, or while another update is in progress. */
void bp_file_calibrate(void);

#endif /* BP_FILE_WRITER_H */
