/*
 * The one text module: an event as a line of text, and the '#' header
 * above ftrace lines.  bprint_format_event(), bprint_dump(), the crash dump,
 * `bprint report` and `bprint tail` all print through it, so that a trace
 * reads the same whoever prints it.  It lives in trace/ because the runtime
 * prints with it (bprint_dump() and the crash dump); the reading side only
 * calls it.
 *
 *   ftrace  "            demo-4242    [001]    12.345678: main: message"
 *           (the kernel's trace file: comm right-aligned in 16, '-', tid
 *           left-aligned in 7, CPU in brackets, seconds.microseconds,
 *           function, message); the snprintf format it matches is
 *           "%16.16s-%-7d [%03d] %5llu.%06llu: %s: %s", with "[???]" for
 *           an unknown CPU and "<...>" for a thread without a name
 *   raw     "12345678901 4242 1 7 message" (ns, tid, cpu, site id, message;
 *           one line whatever the message holds: newline, carriage return
 *           and backslash written as \n, \r and \\)
 *   msg     "message"
 *
 * No stdio, no allocation, no locks: the crash dump formats in a signal
 * handler.  Every function writes inside [buf, buf + size), NUL-terminates
 * when size > 0 and returns the full length (snprintf semantics).
 */
#ifndef BP_TRACE_TEXT_H
#define BP_TRACE_TEXT_H

#include <bprint.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What changes rarely from one ftrace line to the next, kept by a reader
 * that prints many: "  comm-tid    [" for the last thread, the seconds
 * part for the last second.  Zero it before the first line.
 */
struct bp_text_cache {
	bool comm16;		/* set by the caller: every event's comm has 16
				 * readable bytes (compared as two words) */
	int32_t tid;
	uint8_t comm_len;
	uint8_t head_len;
	uint8_t secs_len;
	bool have_head, have_secs;
	char comm[16];
	char raw16[16];		/* comm16: the 16 bytes the head was made from */
	char head[40];		/* 16 + '-' + 11 + " [" */
	char secs[32];		/* "] " + up to 20 digits + '.' */
	uint64_t sec_ns;	/* start of the cached second */
};

/* The ftrace prefix, "...: func: ", up to the message. */
size_t bp_text_ftrace_prefix(struct bp_text_cache *c, char *buf, size_t size,
			     const struct bprint_event *ev, const char *func, size_t func_len);

/*
 * The '#' header of the ftrace form, six lines, each ending in '\n':
 * "# tracer: bprint", the counters line, the column titles.
 */
size_t bp_text_header(char *buf, size_t size, unsigned long long written,
		      unsigned long long lost, long ncpu);

#endif /* BP_TRACE_TEXT_H */
