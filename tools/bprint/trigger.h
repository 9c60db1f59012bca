/*
 * tools/bprint/trigger.h - bprint record --trigger (trigger.c): watch a
 * running program's records and write the window around each match as a
 * trace file of its own (docs/attach.md, "Triggers").
 */
#ifndef BPRINT_TRIGGER_H
#define BPRINT_TRIGGER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct attach;

/* The options, as given (checked by trigger_check()). */
struct trigger_opts {
	const char *site;		/* --trigger: a site id or pattern */
	const char *where;		/* --where, or NULL */
	const char *before, *after;	/* --before, --after: durations */
	const char *max;		/* --max, or NULL: 1 */
	bool quiet;
};

/* 0, or -1 with a one-line reason in err. */
int trigger_check(const struct trigger_opts *o, char *err, size_t errlen);

/* bprint record --pid PID --trigger ...: an exit status. */
int trigger_pid(const char *pid, const char *out, const char *duration,
		const struct trigger_opts *o);

/* bprint record --trigger ... -- COMMAND, once COMMAND (pid) is started
 * in overwrite mode: watch it until it exits, *stop is set or the
 * windows are all written.  An exit status (0: done). */
int trigger_child(pid_t pid, const char *out, const struct trigger_opts *o,
		  volatile sig_atomic_t *stop);

/* The watch itself, on a's live file (taken: closed on return); *ended
 * says the process ended meanwhile. */
int trigger_watch(struct attach *a, const char *arg, const char *out,
		  const struct trigger_opts *o, volatile sig_atomic_t *stop, uint64_t deadline,
		  bool *ended);

#endif /* BPRINT_TRIGGER_H */
