/*
 * Opening the files a user names, safely: the one place that decides what
 * bprint may write over and what it may read (docs/file-format.md, "Who
 * writes what"; the rule in full is at the top of safe_open.c).
 *
 * It lives in trace/ because the runtime's dump file (trace/dump.c) is the
 * lowest layer that opens a user-named file; the live-file writer, the
 * drainer, the reader and the command, all above it, use it too.
 *
 * Both functions return a file descriptor (O_CLOEXEC), or -1 with errno set
 * and *why a short reason for a "bprint: FILE: reason" line: a static string,
 * or NULL when strerror(errno) says it.  They only make system calls
 * (async-signal-safe), so they can run anywhere.
 */
#ifndef BP_TRACE_SAFE_OPEN_H
#define BP_TRACE_SAFE_OPEN_H

enum bp_open_how {
	BP_OPEN_RDWR = 1,	/* read and write (the live file is mmap'd), else write only */
	BP_OPEN_REPLACE = 2,	/* an existing regular file of ours is truncated to 0 */
	BP_OPEN_KEEP = 4,	/* an existing regular file of ours is opened as it is */
	BP_OPEN_PRIVATE = 8,	/* created 0600, and an existing file made 0600;
				 * else created 0666 less the umask, and an existing
				 * file keeps its mode (as a shell redirection does) */
};

/*
 * Create path, or with BP_OPEN_REPLACE or BP_OPEN_KEEP reuse it if it is a
 * regular file owned by our effective uid.  Never follows a symlink, never
 * opens a FIFO, device, socket or directory, never changes a file it
 * refuses.  Without REPLACE or KEEP an existing name fails with EEXIST.
 */
int bp_open_output(const char *path, unsigned how, const char **why);

/*
 * Open path for reading, without blocking: a regular file only (a symlink
 * to one is fine).  A FIFO, device, socket or directory fails with EINVAL
 * (EISDIR for a directory) and a reason naming what it is.
 */
int bp_open_input(const char *path, const char **why);

/*
 * A new private (0600) file with no name yet, in path's directory
 * (O_TMPFILE), for a file that must never be seen half made: the caller
 * fills it, then names it with bp_name_output().  -1 with errno where the
 * file system or kernel cannot make one (the caller then creates path
 * with bp_open_output()).
 */
int bp_open_unnamed(const char *path);

/*
 * Give fd, from bp_open_unnamed(), the name path, unless path exists
 * (then -1 with EEXIST, as O_EXCL; nothing existing is followed or
 * replaced).  fd is then reopened by its name, so that /proc/PID/fd
 * shows path (a file made unnamed shows "#INODE (deleted)" there for
 * good, and live files are found in /proc by their names).
 */
int bp_name_output(int fd, const char *path);

#endif /* BP_TRACE_SAFE_OPEN_H */
