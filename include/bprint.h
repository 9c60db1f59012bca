/*
 * bprint.h - trace_printk() for user space.
 *
 *   trace_printk("This is the timer interrupt: %llu", jiffies);
 *
 * costs a few nanoseconds: the call stores a reference to its call site and
 * the raw arguments in the calling thread's ring buffer; the text is made
 * only when the trace is read (bprint_dump(), a reader, or the bprint
 * command on a trace file).  Safe in signal handlers and in hot loops.
 *
 * Each trace_printk() expands to a static struct bprint_site in the ELF
 * section "bprint_sites"; a constructor in every object that includes this
 * header registers the section, so `bprint formats` lists every call site,
 * hit or not, including those of libraries loaded later with dlopen().  The
 * registry copies what it needs, so a dlclose()d library's records still
 * decode.
 *
 * Configuration is by environment variable, read once at start-up
 * (README.md lists them): BPRINT_BUFFER_SIZE, BPRINT_MODE, BPRINT_CLOCK,
 * BPRINT_DUMP, BPRINT_FILTER, BPRINT_DISABLE.
 *
 * Which calls need external locking:
 *   trace_printk, trace_puts, bprint_on/off, site enable/disable: none.
 *   bprint_read_begin/next/end (consuming): one consumer at a time; the
 *     library serialises consumers with a mutex.
 *   bprint_snapshot*: none; any number at once.
 */
#ifndef BPRINT_H
#define BPRINT_H

#include <bprint/format.h>

#include <stdint.h>
#include <stdio.h>

/* The call sites' internals: not API (see the naming rule in there). */
#include <bprint/internal.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * trace_printk(fmt, ...): record a printf-style message.  The format is
 * checked by the compiler.  A format that is not a string literal still
 * works: it is formatted at trace time into a text record (slower).
 */
#define trace_printk(fmt, ...) BPRINT__PRINTK(fmt, ##__VA_ARGS__)

/* trace_puts(str): record a string; a literal costs no copy at all. */
#define trace_puts(str) BPRINT__PUTS(str)

/* ---- Control ---- */

/* Global switch: tracing is on at start unless BPRINT_DISABLE=1. */
BP_API void bprint_on(void);
BP_API void bprint_off(void);
BP_API int bprint_is_on(void);

/*
 * Per-site switches.  pattern is a glob (fnmatch) matched against the
 * site's file ("file:main.c", "file:net_*.c"), file and line
 * ("line:main.c:42"), function ("func:parse_*") or format ("fmt:*timer*").
 * A bare pattern matches a function.  Returns the number of sites changed.
 * Sites registered later (dlopen) get the filters in force then.
 * BPRINT_FILTER holds a comma-separated list of such patterns, each
 * prefixed by '-' to disable or '+' (or nothing) to enable; if its first
 * entry enables, every other site starts disabled.
 */
BP_API int bprint_enable(const char *pattern);
BP_API int bprint_disable(const char *pattern);

/* ---- Reading ---- */

enum bprint_output {
	BPRINT_OUTPUT_FTRACE = 0,	/* "comm-tid [cpu] seconds.micros: function: message" */
	BPRINT_OUTPUT_RAW,		/* "tid cpu ns site-id words..." */
	BPRINT_OUTPUT_MSG,		/* the message alone */
};

/* A record read back, formatted. */
struct bprint_event {
	uint64_t ns;			/* in the trace clock's nanoseconds */
	int32_t tid;
	int32_t cpu;			/* -1 if unknown */
	const char *comm;		/* the thread's name */
	const struct bprint_site *site;	/* the registry's copy: format, file, line, func */
	const char *message;		/* formatted, NUL-terminated */
	size_t message_len;
};

/*
 * Print every thread's records, oldest first, without consuming them (the
 * kernel's "trace" file), with a '#' header.  Returns the number of records
 * printed, or -1 with errno set.
 */
BP_API long bprint_dump(FILE *out);
BP_API long bprint_dump_fmt(FILE *out, enum bprint_output how);

/*
 * Consuming reader (the kernel's "trace_pipe"): each record is returned
 * once.  bprint_read_begin() takes the consumer lock; bprint_read_next()
 * fills *ev (valid until the next call) and returns 1, or 0 when every
 * buffer is drained for now; bprint_read_end() releases the lock.
 */
struct bprint_reader;
BP_API struct bprint_reader *bprint_read_begin(void);
BP_API int bprint_read_next(struct bprint_reader *r, struct bprint_event *ev);
BP_API void bprint_read_end(struct bprint_reader *r);

/*
 * A snapshot reader: the same, but consumes nothing; any number at once.
 * Like the kernel's trace file after reads of trace_pipe, a snapshot (and
 * bprint_dump()) starts where the consumer stands: what a consuming reader
 * took is gone.  While a consuming session is open, and in the crash dump,
 * it starts at the oldest record still stored.
 */
BP_API struct bprint_reader *bprint_snapshot_begin(void);

/* Format an event as one line (no newline) in the given form; snprintf semantics. */
BP_API int bprint_format_event(char *buf, size_t size, const struct bprint_event *ev,
			       enum bprint_output how);

/* ---- Counters ---- */

struct bprint_thread_stats {
	int32_t tid;
	char comm[16];
	int alive;
	uint64_t written;		/* records stored */
	uint64_t discarded;		/* dropped: buffer full in discard mode, or nested too deep */
	uint64_t overwritten;		/* lost to the flight recorder before a consumer read them */
	uint64_t read;			/* returned by the consumer */
};

/*
 * Fill up to max entries, one per thread that ever traced (dead threads
 * included until reclaimed).  Returns the number of threads.
 */
BP_API int bprint_stats(struct bprint_thread_stats *out, int max);

#ifdef __cplusplus
}
#endif
#endif /* BPRINT_H */
