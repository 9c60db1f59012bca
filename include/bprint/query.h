/*
 * bprint/query.h - choosing records of a trace file (bprint/reader.h): by
 * call site and by the values of their fields; and how complete the file
 * is.  The one site matcher, the one --where evaluator and the one verdict
 * of the bprint command (report, tail, export, hist, latency) and of the
 * Python module.
 *
 *	bp_sites_new()      a set of call sites, given as ids or patterns
 *	bp_sites_match()    is a record's site in it?
 *	bp_where_new()      a --where expression, parsed
 *	bp_where_check()    every field it names exists in the chosen sites
 *	bp_where_match()    does a record satisfy it?
 *	bp_trace_verdict()  does the file hold every record, or account for it?
 *
 * A --where expression is terms FIELD OP VALUE joined by ',' (all must
 * hold).  OP is one of == (or =), !=, <, <=, >, >= and ~ (a glob: *, ?,
 * [...], on strings only).  VALUE is a number (decimal, 0x hex, negative,
 * or with a fraction or exponent) or a string; quote it ("..." or '...',
 * backslash escapes \" \' \\ \n \t) to keep a ',' or leading spaces.
 * Fields are named by the rule of bp_trace_layout() (or argN).  Integers
 * compare as integers (never through a double), floats as doubles, %s and
 * %c fields as byte strings (a %c as a one-character string).  A record
 * whose site lacks a field a term names, or has it with a type its value
 * cannot compare with (a string field against a number, ~ on a number),
 * does not match.
 *
 * Neither object is thread-safe; each caches per-site answers for the one
 * struct bp_trace it is used with.
 */
#ifndef BPRINT_QUERY_H
#define BPRINT_QUERY_H

#include <bprint/reader.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- call sites ---- */

struct bp_sites;

/* An empty set: it matches every site until a pattern is added. */
BP_API struct bp_sites *bp_sites_new(void);
BP_API void bp_sites_free(struct bp_sites *s);

/*
 * Add a site: a decimal id (see `bprint formats`), or a pattern as in
 * BPRINT_FILTER: file:GLOB, line:FILE:LINE, func:GLOB, fmt:GLOB, or a bare
 * function glob.  The string is copied.  0, or -1 if memory ran out or the
 * pattern is empty.
 */
BP_API int bp_sites_add(struct bp_sites *s, const char *pattern);

/* Number of patterns added (0: the set takes every site). */
BP_API size_t bp_sites_count(const struct bp_sites *s);

/* Is site id of t in the set?  An id not in t's site table matches only
 * its own number.  The answers are cached and recomputed when t's site
 * table grows (a live file). */
BP_API int bp_sites_match(struct bp_sites *s, struct bp_trace *t, uint32_t site_id);

/* The first pattern that matches no site of t yet, or NULL. */
BP_API const char *bp_sites_unmatched(const struct bp_sites *s, struct bp_trace *t);

/* ---- --where ---- */

struct bp_where;

/* Parse expr.  NULL on a syntax error, with a one-line reason in err
 * (naming the term and what is wrong), or on out of memory. */
BP_API struct bp_where *bp_where_new(const char *expr, char *err, size_t errlen);
BP_API void bp_where_free(struct bp_where *w);

/*
 * Check w against the sites of t that sel chooses (NULL: every site):
 * every field a term names must be a field of at least one of them, with
 * a type the term's value can compare with.  0, or -1 with a one-line
 * reason naming the field.
 */
BP_API int bp_where_check(struct bp_where *w, struct bp_trace *t, struct bp_sites *sel,
			  char *err, size_t errlen);

/* Does ev (the record bp_trace_next() returned last) satisfy w? 1 or 0.
 * A record that carries text, or of a site not in the table, has no
 * fields and does not match. */
BP_API int bp_where_match(struct bp_where *w, struct bp_trace *t, const struct bp_trace_event *ev);

/* The same with ev's fields already decoded (bp_trace_event_fields()):
 * vals[0 .. n) for site site_id. */
BP_API int bp_where_match_fields(struct bp_where *w, struct bp_trace *t, uint32_t site_id,
				 const struct bp_field_value *vals, size_t n);

/* The fields of site site_id that w's terms read: bit i for field i (of
 * the first 64); 0 if the site lacks one, or memory ran out.  What a
 * caller must decode before bp_where_match_fields(). */
BP_API uint64_t bp_where_fields(struct bp_where *w, struct bp_trace *t, uint32_t site_id);

/* ---- how complete a trace is ---- */

enum bp_trace_state {
	BP_TRACE_COMPLETE = 0,		/* every record written is in the file, or
					 * counted as overwritten or discarded */
	BP_TRACE_INCOMPLETE = 1,	/* records written are neither in the file nor
					 * counted as the buffers' policy dropped them */
	BP_TRACE_DAMAGED = 2,		/* the reader met damage (bp_trace_problems()) */
};

#define BP_TRACE_UNCOUNTED UINT64_MAX	/* lacking: some could not be counted */
#define BP_TRACE_VERDICT_NOTES 4
#define BP_TRACE_NOTE_MAX 256

struct bp_trace_verdict {
	uint32_t size;			/* sizeof(struct bp_trace_verdict) */
	uint32_t state;			/* enum bp_trace_state: the worst that holds */
	uint64_t lacking;		/* records the file lacks beyond the counted ones:
					 * not copied by bprint record, kept in the traced
					 * process's memory; or BP_TRACE_UNCOUNTED */
	uint32_t nnotes;
	char notes[BP_TRACE_VERDICT_NOTES][BP_TRACE_NOTE_MAX];
					/* one line each (no file name, no newline): what
					 * is wrong, or worth saying, in order */
};
#define BP_TRACE_VERDICT_INIT { .size = sizeof(struct bp_trace_verdict) }

/*
 * How complete t is, as its header, accounts and damage met so far say
 * (call it after reading, to include the damage reading met).  A file not
 * closed cleanly by a traced process that was killed is complete: its rings
 * hold every record they did not overwrite or discard, and count the rest
 * (a note says it was not closed cleanly).  A stream that bprint record did
 * not finish, or whose writes stopped early, and a file too full for some
 * buffers or call sites, are incomplete.
 */
BP_API void bp_trace_verdict(struct bp_trace *t, struct bp_trace_verdict *v);

#ifdef __cplusplus
}
#endif

#endif /* BPRINT_QUERY_H */
