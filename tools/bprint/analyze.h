/*
 * tools/bprint/analyze.h - what `bprint hist` and `bprint latency` share:
 * their common options (--where, --buckets, --json, --csv, --svg,
 * --follow, --tid), the trace they read (a file, or a PID's live file),
 * the key of a record's fields (bprint/analysis.h finds and decodes
 * them), the read loop (once, or redrawn every second while following),
 * and the output.
 */
#ifndef BPRINT_ANALYZE_H
#define BPRINT_ANALYZE_H

#include "bprint_cmd.h"

#include <bprint/aggregate.h>
#include <bprint/analysis.h>
#include <bprint/query.h>

#include <getopt.h>

#define ANALYZE_MAX_KEYS 8	/* -k fields */

/* The options of both commands, parsed. */
struct analyze_opts {
	const char *sub;		/* "hist" or "latency" */
	const char *where_expr;
	struct bp_where *where;
	bool json, csv, follow;
	const char *svg;		/* --svg OUT */
	enum bp_bucket_kind buckets;
	double width;
	struct filter f;		/* --tid (and hist's --site) */
	const char *keys[ANALYZE_MAX_KEYS];	/* -k */
	size_t nkeys;
	const char *percentiles;	/* --percentiles (NULL: the default set) */
	struct bp_agg_sort sort;	/* --sort */
	size_t limit;			/* --limit, 0 for all */
	uint64_t every_ns;		/* --every, 0 for none */
	long interval;			/* --follow's redraw, ms */
	const char *arg;		/* FILE or PID */
};

/* The long options both take (their short names below). */
#define ANALYZE_LONG_OPTIONS                                   \
	{ "where", required_argument, NULL, 'w' },             \
	{ "buckets", required_argument, NULL, 'B' },           \
	{ "json", no_argument, NULL, 'J' },                    \
	{ "csv", no_argument, NULL, 'C' },                     \
	{ "svg", required_argument, NULL, 'G' },               \
	{ "follow", no_argument, NULL, 'f' },                  \
	{ "tid", required_argument, NULL, 't' },               \
	{ "key", required_argument, NULL, 'k' },               \
	{ "percentiles", required_argument, NULL, 'P' },       \
	{ "sort", required_argument, NULL, 'S' },              \
	{ "limit", required_argument, NULL, 'L' },             \
	{ "every", required_argument, NULL, 'E' },             \
	{ "help", no_argument, NULL, 'h' }
#define ANALYZE_OPTIONS case 'w': case 'B': case 'J': case 'C': case 'G': case 'f': case 't': \
	case 'k': case 'P': case 'S': case 'L': case 'E'

/* The lines of --help for the options both take that shape the groups. */
#define ANALYZE_GROUP_HELP                                                               \
	"      --percentiles=LIST  the percentiles shown, e.g. 50,95,99,99.99 (default\n"  \
	"                        50,90,99,99.9; JSON and CSV name them p50, p9999)\n"        \
	"      --sort=FIELD      order the groups by FIELD, largest first: count (the\n"     \
	"                        default), min, max, mean, sum, or a percentile pN (p99,\n" \
	"                        p99.99, any N); or by key, smallest first\n"              \
	"      --limit=N         show the first N groups only (the others are counted)\n"  \
	"      --every=T         also per window of T (1s, 100ms, 500us): count, rate\n"   \
	"                        and percentiles of each group in each window; with\n"     \
	"                        --follow, the last window beside the totals\n"

/* One of ANALYZE_OPTIONS into o: 0 or a usage error's exit code. */
int analyze_option(struct analyze_opts *o, int c, const char *arg);
/* After the options: FILE|PID, and checks that span options.  -1 to go
 * on, else the exit code. */
int analyze_finish_args(struct analyze_opts *o, int argc, char **argv);

/* Append the values of the first n fields asked for of s (bprint/analysis.h)
 * to key, from vals (decoded by bp_bind_decode()). */
static inline bool analyze_key(struct bp_key *key, const struct bp_bind_site *s, size_t n,
			       const struct bp_field_value *vals)
{
	for (size_t i = 0; i < n; i++)
		if (!bp_key_add_field(key, s->lay->fields[s->index[i]].type, &vals[s->index[i]]))
			return false;
	return true;
}

/* A field's type as a word for messages: "a string", "a number", ... */
const char *analyze_type_word(uint8_t type);

/* What a command does with the records. */
struct analyze_ops {
	/* one record (asked for without its message, and with args_only, with
	 * only what decoding its arguments needs: BP_TRACE_NEXT_ARGS_ONLY);
	 * an exit code, EXIT_OK to go on */
	int (*record)(void *ctx, struct bp_trace *t, const struct bp_trace_event *e);
	/* the answer so far (final: the last time) into out */
	bool (*render)(void *ctx, struct bp_trace *t, bool final);
	bool args_only;
	bool args_time;		/* with args_only: the time too (BP_TRACE_NEXT_TIME) */
	/* or, without a filter, the records of the sites bind chooses, their
	 * fields decoded (bp_bind_next()), through bound a batch r[0 .. n) at
	 * a time */
	struct bp_bind *bind;
	int (*bound)(void *ctx, struct bp_trace *t, const struct bp_bind_rec *r, int n);
};

/* Open the trace, read it through ops (following it if asked: redrawn every
 * second until interrupted or the process ends), render the answer, say
 * what the file lacks.  check (may be NULL) runs once the trace is open,
 * before reading: an exit code, EXIT_OK to go on.  Returns the exit code. */
int analyze_run(struct analyze_opts *o, const struct analyze_ops *ops,
		int (*check)(void *ctx, struct bp_trace *t, const char *path), void *ctx);

/* Write the aggregate as o asks (text to stdout, --json, --csv, and the
 * --svg file; a redraw, not final, shows --every's last window only);
 * false on a write error (said on stderr). */
bool analyze_output(const struct analyze_opts *o, struct bp_agg *a, const char *title, bool final);

/* A new aggregate of values of kind, with the options that shape the
 * groups (buckets, percentiles, order, limit, --every's windows); NULL if
 * memory ran out. */
struct bp_agg *analyze_agg_new(const struct analyze_opts *o, enum bp_dist_kind kind);

void analyze_free(struct analyze_opts *o);

int cmd_hist(int argc, char **argv);
int cmd_latency(int argc, char **argv);

#endif
