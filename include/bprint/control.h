/*
 * bprint/control.h - a running process's call sites switched and listed
 * from outside, as `bprint enable PID PATTERN`, `disable` and `sites PID`
 * do (docs/attach.md, "Switching call sites"): through the control area
 * of its live file's header, which the process's control thread serves.
 *
 *	bp_control_open()     the area of a live file opened read-write
 *	bp_control_switch()   enable or disable the sites a pattern names
 *	bp_control_states()   every site's state, and whether tracing is on
 *	bp_control_close()
 *
 * One request at a time: the asker claims the area, writes its request,
 * posts it and sleeps on it until the answer, one second at most each; a
 * request the process did not take in time is withdrawn, so that a
 * stopped process does not apply it later, unasked.  While waiting, the
 * caller's ended(arg) is asked whether the process is gone.
 *
 * Finding a process's live file, and the permission to open it
 * read-write (the kernel's ptrace access rule), are the caller's.
 */
#ifndef BPRINT_CONTROL_H
#define BPRINT_CONTROL_H

#include <bprint/reader.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Failures (negative): what the process or its file said. */
#define BP_CONTROL_E_DENIED	(-20)	/* the header does not map read-write */
#define BP_CONTROL_E_NONE	(-21)	/* its libbprint cannot switch sites from outside
					 * (older, or its control thread did not start:
					 * no thread of that name in the process) */
#define BP_CONTROL_E_VERSION	(-22)	/* its libbprint switches them another way */
#define BP_CONTROL_E_ENDED	(-23)	/* the process ended (ended() said so) */
#define BP_CONTROL_E_BUSY	(-24)	/* another asker held the area for a second */
#define BP_CONTROL_E_TIMEOUT	(-25)	/* no answer within a second: withdrawn,
					 * nothing changed */
#define BP_CONTROL_E_PATTERN	(-26)	/* not a site pattern (or empty, or longer than
					 * BP_CONTROL_PATTERN_MAX) */
#define BP_CONTROL_E_FAILED	(-27)	/* the process could not (out of memory) */
#define BP_CONTROL_E_NONSENSE	(-28)	/* an answer that cannot be */
#define BP_CONTROL_E_NOT_YET	(-29)	/* its control thread runs but does not serve
					 * yet (a fork child's, until its first record
					 * has made its file): try again */
/* and BP_TRACE_ENOMEM, BP_TRACE_EINVAL */

#define BP_CONTROL_PATTERN_MAX	959	/* bytes of a pattern, at most */

struct bp_control;

/*
 * The control area of the live file open at fd (read-write; not closed
 * by bp_control_close()), or NULL with the reason in *rc.  ended (may be
 * NULL): has the process gone?  Asked while waiting.  An area nobody
 * serves is BP_CONTROL_E_NOT_YET if the process the file names has its
 * control thread (/proc/PID/task, as this process sees pids), else
 * BP_CONTROL_E_NONE.
 */
BP_API struct bp_control *bp_control_open(int fd, int (*ended)(void *arg), void *arg, int *rc);
BP_API void bp_control_close(struct bp_control *c);

/* Enable (enable != 0) or disable the sites pattern names, now and for
 * those the process registers later (bprint_enable()'s patterns): the
 * number of sites switched, or a failure. */
BP_API int bp_control_switch(struct bp_control *c, int enable, const char *pattern);

/*
 * Every site's state: *states (malloc()ed, the caller frees it) holds a
 * byte per site id in [0, *n), 1 for on; *gate 1 when tracing is on
 * (bprint_on()).  0, or a failure (then *states is NULL).
 */
BP_API int bp_control_states(struct bp_control *c, uint8_t **states, uint32_t *n, int *gate);

#ifdef __cplusplus
}
#endif

#endif /* BPRINT_CONTROL_H */
