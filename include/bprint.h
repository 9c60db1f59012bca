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
 * section "bprint_sites", stamped with the header's layout version (a
 * library refuses, once and on stderr, a site of another layout); a
 * constructor in every object that includes this header registers the
 * section, so `bprint formats` lists every call site,
 * hit or not, including those of libraries loaded later with dlopen().  The
 * registry copies what it needs, so a dlclose()d library's records still
 * decode.
 *
 * Configuration is by environment variable, read once at start-up
 * (README.md says what each takes): BPRINT_BUFFER_SIZE, BPRINT_PAGE_SIZE,
 * BPRINT_MODE, BPRINT_CLOCK, BPRINT_DUMP, BPRINT_DUMP_FILE, BPRINT_FILTER,
 * BPRINT_DISABLE, BPRINT_FILE, BPRINT_RETAIN.
 *
 * This header and <bprint/format.h> are the API; <bprint/internal.h>,
 * which this one includes for the macros' sake, is not: an identifier
 * that starts with bprint__ or BPRINT__ is internal wherever it appears.
 * Structs the caller allocates begin with their size (below).
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
 * checked by the compiler.  At most 64 arguments after the format (past
 * that, a static assertion says so).  A format that is not a string
 * literal still works: each format it passes is parsed at its first call,
 * and its records are binary like any other's; the call's own arguments
 * are all it reads, the conversions past them printing 0 or (null).
 *
 * The fast path, the same in C and in C++ (C++11 on): a call site is a
 * test of its switch and one call with its arguments as words; a call
 * whose arguments are none or only 4- and 8-byte scalars (integers,
 * enums, pointers, float and double), each of the size its conversion
 * asks for, has its record written in that call's straight line, on the
 * thread's page (x86-64, TSC clock); so does one that also passes chars
 * for %c and pointers to char (or arrays of char) for %s without a
 * precision or with a '*' one (char, not signed or unsigned char).
 * Everything else (%.8s, an int for %c,
 * scalars of other sizes, a pointer to char for %p, %Lf, more than 32
 * arguments, and what the page cannot take) goes on out of line, with
 * the same words (a long double's call with the arguments as they are).
 * A message too long for a record
 * is cut, as text, and marked so ("[...cut: N of M bytes]").
 */
#define trace_printk(...) BPRINT__PRINTK(__VA_ARGS__)

/* trace_puts(str): record a string; a literal costs no copy at all. */
#define trace_puts(str) BPRINT__PUTS(str)

/* ---- Control ---- */

/*
 * Global switch: tracing is on at start unless BPRINT_DISABLE=1.  Off,
 * every call site reads as disabled (a call costs one load and branch);
 * on, each site is back as the per-site switches below left it.
 */
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
	BPRINT_OUTPUT_RAW,		/* "ns tid cpu site-id message" */
	BPRINT_OUTPUT_MSG,		/* the message alone */
};

/*
 * Caller-allocated structs begin with their size, so that they may grow
 * at the end: the caller sets size to sizeof the struct it was compiled
 * with (the _INIT initialisers do in C; in C++, value-initialise and set
 * size), and the library writes only what fits in that many bytes: an
 * older program is never written past its struct's end, a newer one keeps
 * what it set in the fields this library does not know.  A size smaller
 * than the first version's (0: not set) gets EINVAL.
 */

/* A record read back, formatted. */
struct bprint_event {
	uint32_t size;			/* the caller's sizeof(struct bprint_event) */
	int32_t tid;
	uint64_t ns;			/* in the trace clock's nanoseconds */
	int32_t cpu;			/* -1 if unknown */
	uint32_t reserved;
	const char *comm;		/* the thread's name */
	const struct bprint_site *site;	/* the registry's copy: read file, line,
					 * func and format (bprint/internal.h) */
	const char *message;		/* formatted, NUL-terminated */
	size_t message_len;
};
#define BPRINT_EVENT_INIT { .size = sizeof(struct bprint_event) }
#define BPRINT_EVENT_SIZE_1 56		/* the first version's size, the smallest taken */

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
 * fills *ev (valid until the next call; ev->size set by the caller) and
 * returns 1, or 0 when every buffer is drained for now, or -1 with errno
 * EINVAL; bprint_read_end() releases the lock.
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
	uint32_t size;			/* the caller's sizeof(struct bprint_thread_stats) */
	int32_t tid;
	char comm[16];
	int32_t alive;
	uint32_t reserved;
	uint64_t written;		/* records stored */
	uint64_t discarded;		/* dropped: buffer full in discard mode, nested too deep,
					 * or the site could not be registered */
	uint64_t overwritten;		/* lost to the flight recorder before a consumer read them */
	uint64_t read;			/* returned by the consumer */
};

#define BPRINT_THREAD_STATS_INIT { .size = sizeof(struct bprint_thread_stats) }
#define BPRINT_THREAD_STATS_SIZE_1 64	/* the first version's size, the smallest taken */

/*
 * Fill up to max entries, one per thread that ever traced (dead threads
 * included until reclaimed), plus, once BPRINT_RETAIN has dropped exited
 * threads, one entry with tid -1 and comm "(dropped)" summing theirs.
 * Returns the number of entries, or -1 with errno EINVAL.  out[0].size is
 * the size of every entry (the array's stride): set it, e.g. with
 * "st[64] = { BPRINT_THREAD_STATS_INIT }"; each entry filled gets that
 * size.  out may be NULL (max 0) to count.
 */
BP_API int bprint_stats(struct bprint_thread_stats *out, int max);

/* The public structs' layouts, pinned (LP64). */
#if !defined(__cplusplus) && UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(struct bprint_event) == BPRINT_EVENT_SIZE_1, "bprint_event grows only at the end");
_Static_assert(__builtin_offsetof(struct bprint_event, size) == 0, "size first");
_Static_assert(__builtin_offsetof(struct bprint_event, ns) == 8, "bprint_event.ns");
_Static_assert(__builtin_offsetof(struct bprint_event, site) == 32, "bprint_event.site");
_Static_assert(__builtin_offsetof(struct bprint_event, message_len) == 48, "bprint_event.message_len");
_Static_assert(sizeof(struct bprint_thread_stats) == BPRINT_THREAD_STATS_SIZE_1,
	       "bprint_thread_stats grows only at the end");
_Static_assert(__builtin_offsetof(struct bprint_thread_stats, size) == 0, "size first");
_Static_assert(__builtin_offsetof(struct bprint_thread_stats, comm) == 8, "bprint_thread_stats.comm");
_Static_assert(__builtin_offsetof(struct bprint_thread_stats, written) == 32,
	       "bprint_thread_stats.written");
_Static_assert(__builtin_offsetof(struct bprint_thread_stats, read) == 56, "bprint_thread_stats.read");
#endif

#ifdef __cplusplus
}
#endif
#endif /* BPRINT_H */
