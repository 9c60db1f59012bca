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

#ifdef __cplusplus
extern "C" {
#endif

/* One call site.  Lives in the "bprint_sites" section; one array per ELF object. */
#define BPRINT_SITE_MAGIC 0x42507331u	/* "1sPB" */

struct bprint_site {
	uint32_t magic;			/* BPRINT_SITE_MAGIC: lets a walker skip padding */
	uint32_t line;
	const char *format;		/* NULL if the format is not a compile-time constant */
	const char *file;
	const char *func;
	const struct bp_arg_plan *plan;	/* set when registered; NULL: format at trace time */
	uint32_t id;			/* 0 until registered */
	volatile uint8_t enabled;	/* the one branch a disabled site costs */
	uint8_t kind;			/* enum bprint_site_kind */
	uint16_t reserved;
} __attribute__((aligned(8)));

enum bprint_site_kind {
	BPRINT_SITE_PRINTK = 0,		/* trace_printk() */
	BPRINT_SITE_PUTS = 1,		/* trace_puts(): the "format" is the text */
};

/* The out-of-line halves of trace_printk() and trace_puts().  Use the macros. */
BP_API void bprint_printk(struct bprint_site *site, const char *fmt, ...) BP_PRINTF(2, 3);
BP_API void bprint_puts(struct bprint_site *site, const char *str);
BP_API void bprint_register_sites(struct bprint_site *start, struct bprint_site *stop);
BP_API void bprint_unregister_sites(struct bprint_site *start, struct bprint_site *stop);

#define BPRINT__SITE(name, fmt, k)						\
	static struct bprint_site name						\
		__attribute__((section("bprint_sites"), used)) = {		\
		BPRINT_SITE_MAGIC, __LINE__,					\
		__builtin_constant_p(fmt) ? (fmt) : (const char *)0,		\
		__FILE__, __func__, (const struct bp_arg_plan *)0, 0, 1, k, 0 }

/*
 * trace_printk(fmt, ...): record a printf-style message.  The format is
 * checked by the compiler.  A format that is not a string literal still
 * works: it is formatted at trace time into a text record (slower).
 */
#define trace_printk(fmt, ...)							\
	do {									\
		BPRINT__SITE(bprint__site, fmt, BPRINT_SITE_PRINTK);		\
		if (__builtin_expect(bprint__site.enabled, 1))			\
			bprint_printk(&bprint__site, fmt, ##__VA_ARGS__);	\
	} while (0)

/* trace_puts(str): record a string; a literal costs no copy at all. */
#define trace_puts(str)								\
	do {									\
		BPRINT__SITE(bprint__site, str, BPRINT_SITE_PUTS);		\
		if (__builtin_expect(bprint__site.enabled, 1))			\
			bprint_puts(&bprint__site, str);			\
	} while (0)

/* Register this object's call sites at load time (once per translation unit; repeats are no-ops). */
extern struct bprint_site __start_bprint_sites[] __attribute__((weak, visibility("hidden")));
extern struct bprint_site __stop_bprint_sites[] __attribute__((weak, visibility("hidden")));
__attribute__((constructor, used)) static void bprint__register_object(void)
{
	if (__start_bprint_sites)
		bprint_register_sites(__start_bprint_sites, __stop_bprint_sites);
}
/* At dlclose: the registry keeps its copies but stops flipping these sites. */
__attribute__((destructor, used)) static void bprint__unregister_object(void)
{
	if (__start_bprint_sites)
		bprint_unregister_sites(__start_bprint_sites, __stop_bprint_sites);
}

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

/* A snapshot reader: the same, but consumes nothing; any number at once. */
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
