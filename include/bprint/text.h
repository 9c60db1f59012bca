/*
 * bprint/text.h - a trace's records as the text `bprint report` prints:
 * the ftrace line's prefix, the '#' header above ftrace lines, a record's
 * date.  The same module prints bprint_dump() and the crash dump, so a
 * program that prints with these reads the same as the command.
 *
 *	bp_trace_ftrace_prefix()  "            demo-4242    [001]    12.345678: main: "
 *	bp_trace_text_header()    the six '#' lines above them
 *	bp_trace_format_date()    "2026-12-03T19:07:26.573637466+01:00"
 *	bp_trace_records_*()      records as JSON Lines or CSV rows, typed fields
 *	                          by name (`bprint report --json`, `--csv`)
 *
 * (bp_trace_format_event() in bprint/reader.h is a whole line, in any of
 * the three forms.)  Each writes inside [buf, buf + size), NUL-terminates
 * when size > 0 and returns the full length (snprintf semantics).
 *
 * The caches keep what changes rarely from one line to the next (the
 * thread's "comm-tid [", the second's text): the caller allocates one per
 * stream of lines, sets its size (BP_TRACE_TEXT_CACHE_INIT,
 * BP_TRACE_DATE_CACHE_INIT) and leaves the rest to the library, which
 * refuses (writes nothing, returns 0) one whose size is not set.
 */
#ifndef BPRINT_TEXT_H
#define BPRINT_TEXT_H

#include <bprint/reader.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A message's longest, its NUL included: bp_trace_format_message() and
 * the text forms cut there, as bprint_dump() does. */
#define BP_TRACE_MSG_MAX 4096

/* The file format this library writes and reads up to (`bprint
 * --version`): *major and *minor. */
BP_API void bp_trace_file_version(uint32_t *major, uint32_t *minor);

struct bp_trace_text_cache {
	uint32_t size;			/* the caller's sizeof(struct bp_trace_text_cache) */
	uint32_t flags;			/* BP_TRACE_TEXT_COMM16 */
	uint64_t opaque[28];		/* the library's (zeros: its first state) */
};
#define BP_TRACE_TEXT_CACHE_INIT { .size = sizeof(struct bp_trace_text_cache) }
#define BP_TRACE_TEXT_COMM16 1u	/* every event's comm has 16 readable bytes (those of
				 * bp_trace_next() have): compared as two words */

/*
 * The ftrace prefix of ev, up to its message: "comm-tid [cpu] s.us: func: "
 * (the kernel's trace file; "[???]" for an unknown CPU, "<...>" for a
 * thread without a name).  func, func_len: the function to print; NULL
 * for ev's site's ("?" without one).
 */
BP_API size_t bp_trace_ftrace_prefix(struct bp_trace_text_cache *c, char *buf, size_t size,
				     const struct bp_trace_event *ev, const char *func,
				     size_t func_len);

/* The '#' header of the ftrace form: six lines, each ending in '\n' (the
 * records written and lost, the CPUs, the column titles). */
BP_API size_t bp_trace_text_header(char *buf, size_t size, unsigned long long written,
				   unsigned long long lost, long ncpu);

struct bp_trace_date_cache {
	uint32_t size;			/* the caller's sizeof(struct bp_trace_date_cache) */
	uint32_t reserved;
	uint64_t opaque[8];		/* the library's */
};
#define BP_TRACE_DATE_CACHE_INIT { .size = sizeof(struct bp_trace_date_cache) }

/*
 * unix_ns (nanoseconds from the epoch: a record's ns plus
 * bp_trace_wallclock_offset()'s offset) as ISO-8601 with nanoseconds and
 * the zone's offset from UTC, in local time (TZ), or with utc set as
 * "2026-12-03T18:07:26.573637466Z".  One cache per zone.
 */
BP_API size_t bp_trace_format_date(struct bp_trace_date_cache *c, char *buf, size_t size,
				   int64_t unix_ns, int utc);

/*
 * Records as `bprint report --json` and `--csv` write them (the bprint(1)
 * manual has the columns and members): one line each, appended to the
 * writer's lines until the caller takes them.  Strings are quoted as
 * each form wants, floats keep their digits, pointers read "0x...",
 * %pS/%ps the symbol the message shows.  A writer serves one trace, one
 * thread at a time; its per-site text is made on each site's first record.
 *
 *	bp_trace_records_new()     a writer for t, JSON or CSV
 *	bp_trace_records_header()  CSV's header: the fixed columns, then every
 *	                           field name of the sites sel chooses (NULL:
 *	                           all), each once, in the site table's order;
 *	                           a record's fields go under these
 *	bp_trace_records_event()   a record (from bp_trace_next(), its message
 *	                           made here if it was read without one) and
 *	                           its date's text (NULL: none; with
 *	                           BP_TRACE_RECORDS_DATES, CSV's date column)
 *	bp_trace_records_lines()   the lines so far, whole lines only
 *	bp_trace_records_clear()   taken: forget them (their text stays
 *	                           readable until the next header or event)
 *
 * header and event return 0 or BP_TRACE_ENOMEM (that line is dropped).
 */
struct bp_sites;
struct bp_trace_records;
#define BP_TRACE_RECORDS_JSON	1u	/* JSON Lines */
#define BP_TRACE_RECORDS_CSV	2u	/* RFC 4180 CSV */
#define BP_TRACE_RECORDS_DATES	4u	/* CSV: a date column after ns */
BP_API struct bp_trace_records *bp_trace_records_new(struct bp_trace *t, unsigned flags);
BP_API int bp_trace_records_header(struct bp_trace_records *w, struct bp_sites *sel);
BP_API int bp_trace_records_event(struct bp_trace_records *w, struct bp_trace_event *e,
				  const char *date, size_t date_len);
BP_API const char *bp_trace_records_lines(const struct bp_trace_records *w, size_t *len);
BP_API void bp_trace_records_clear(struct bp_trace_records *w);
BP_API void bp_trace_records_free(struct bp_trace_records *w);

#if !defined(__cplusplus) && UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(struct bp_trace_text_cache) == 232, "bp_trace_text_cache is 232 bytes");
_Static_assert(sizeof(struct bp_trace_date_cache) == 72, "bp_trace_date_cache is 72 bytes");
#endif

#ifdef __cplusplus
}
#endif

#endif /* BPRINT_TEXT_H */
