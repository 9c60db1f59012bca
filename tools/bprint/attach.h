/*
 * tools/bprint/attach.h - finding a running process's trace from outside
 * (docs/attach.md): the live file in its shared memory (or its
 * BPRINT_FILE), opened through /proc/PID/fd, and the one-line refusals
 * with their own exit statuses when that cannot be done.
 */
#ifndef BPRINT_ATTACH_H
#define BPRINT_ATTACH_H

#include <stdbool.h>

/* Exit statuses of the commands that read a running process (bprint(1),
 * after the readers' 0-4). */
#define EXIT_NOPROC	5	/* no such process */
#define EXIT_DENIED	6	/* not permitted: another user's, not dumpable */
#define EXIT_NOTRACE	7	/* the process has no trace to read (no libbprint, or a
				 * fork child that has not traced yet) */
#define EXIT_VERSION	8	/* its libbprint writes a format this bprint does not read */
#define EXIT_BUSY	9	/* another bprint record --pid reads it already */
#define EXIT_EXITED	10	/* it exited while attached: the file is complete up to then */

#define ATTACH_STATUS_HELP                                                             \
	"Exit status: 0 done, 1 bad command line, 3 write error, 5 no such process,\n"    \
	"6 not permitted (another user's process: the kernel's ptrace access rule),\n"   \
	"7 the process has no bprint trace (no libbprint, BPRINT_ATTACH=0, or a fork\n" \
	"child that has not traced yet), 8 its libbprint writes a trace format this\n"  \
	"bprint does not read, 9 another bprint record --pid reads it, 10 it exited\n"  \
	"while attached (FILE is complete up to its exit).\n"

/* The trace of a running process, found. */
struct attach {
	long pid;
	int fd;				/* its live file, open (read-only unless asked) */
	char name[320];			/* "/proc/PID/fd/N", for messages */
};

/*
 * Find and open the live file of process arg (a number): read-write when
 * writable, else read-only.  Returns 0, or an exit status above with one
 * line on stderr ("bprint SUB: PID: why").
 */
int attach_open(const char *sub, const char *arg, bool writable, struct attach *a);

/* The name (/proc/PID/fd/N, allocated) under which the live file of
 * process pid opens, or NULL (quietly): for tail, hist and latency. */
char *attach_path(long pid);

/* The process whose live file process pid holds, having none of its own:
 * its parent, when pid is a fork child that has not traced yet; else 0. */
long attach_forked_from(long pid);

/* Has the process ended (gone, a zombie), or closed its trace (normal exit)? */
bool attach_ended(const struct attach *a);

/* Claim a's file for a consumer (record --pid, --trigger): its flock,
 * and no other live consumer of its rings.  0 or EXIT_BUSY, said. */
int attach_claim(const struct attach *a, const char *arg);

/* Make room for a trace file: an old trace file at path is removed,
 * anything else is left alone and refused (record.c). */
int clear_output(const char *path);

/* bprint snapshot PID (snapshot.c). */
int cmd_snapshot(int argc, char **argv);

/* bprint enable, disable, sites PID (control.c). */
int cmd_enable(int argc, char **argv);
int cmd_disable(int argc, char **argv);
int cmd_sites(int argc, char **argv);

/* bprint record --pid PID [-o FILE] [--duration T] (attach.c). */
int record_pid(const char *pid, const char *out, const char *duration, bool quiet);

#endif /* BPRINT_ATTACH_H */
