/*
 * What `bprint hist` and `bprint latency` share (analyze.h): options, the
 * key of a record's fields (as the analysis binding planned them), the
 * read loop and the output.
 *
 * Following a live trace (--follow) reads what is there, then refreshes the
 * reader and reads again every interval; the text answer is redrawn once
 * a second when stdout is a terminal (cleared first), and the final answer,
 * in the asked format, is written when the loop ends: on SIGINT, SIGTERM or
 * SIGHUP, once the followed process has gone, or once the file is closed.
 */
#include "analyze.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int parse_buckets(struct analyze_opts *o, const char *arg)
{
	char *end;

	if (!strcmp(arg, "log2")) {
		o->buckets = BP_BUCKETS_LOG2;
		return 0;
	}
	if (!strncmp(arg, "linear:", 7)) {
		errno = 0;
		o->width = strtod(arg + 7, &end);
		if (end != arg + 7 && !*end && !errno && o->width > 0 && o->width < 1e300) {
			o->buckets = BP_BUCKETS_LINEAR;
			return 0;
		}
	}
	return usage_error(o->sub, "--buckets: expected log2 or linear:WIDTH (WIDTH > 0), not '%s'",
			   arg);
}

static bool field_name_ok(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

static int parse_limit(struct analyze_opts *o, const char *arg)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (end == arg || *end || errno || n < 1)
		return usage_error(o->sub, "--limit: expected a number of groups (1 or more), not '%s'",
				   arg);
	o->limit = (size_t)n;
	return 0;
}

/* --every T: a number (a fraction allowed) and ns, us, ms or s (seconds
 * if none), at least a nanosecond. */
static int parse_every(struct analyze_opts *o, const char *arg)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1e9 } };
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	for (size_t i = 0; end != arg && !errno && v > 0 && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit) && v * units[i].ns >= 1 && v * units[i].ns < 1e18) {
			o->every_ns = (uint64_t)(v * units[i].ns + 0.5);
			return 0;
		}
	return usage_error(o->sub, "--every: expected a time such as 1s, 100ms or 500us, not '%s'", arg);
}

int analyze_option(struct analyze_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'w': {
		int rc = where_option(o->sub, "--where", &o->where, &o->f.where_text, arg);

		o->where_expr = o->f.where_text;	/* every --where's terms */
		return rc;
	}
	case 'B':
		return parse_buckets(o, arg);
	case 'J':
		o->json = true;
		return 0;
	case 'C':
		o->csv = true;
		return 0;
	case 'G':
		o->svg = arg;
		return 0;
	case 'f':
		o->follow = true;
		return 0;
	case 't':
		return filter_option(&o->f, o->sub, 't', arg);
	case 'k':
		if (!field_name_ok(arg))
			return usage_error(o->sub, "-k: not a field name: '%s'", arg);
		if (o->nkeys == ANALYZE_MAX_KEYS)
			return usage_error(o->sub, "-k: at most %d key fields", ANALYZE_MAX_KEYS);
		o->keys[o->nkeys++] = arg;
		return 0;
	case 'P': {
		char err[256];

		if (bp_agg_set_percentiles(NULL, arg, err, sizeof(err)))
			return usage_error(o->sub, "--percentiles: %s", err);
		o->percentiles = arg;
		return 0;
	}
	case 'S':
		if (!bp_agg_sort_parse(&o->sort, arg))
			return usage_error(o->sub, "--sort: expected count, min, max, mean, sum, key or "
					   "a percentile pN (p99, p99.99), not '%s'", arg);
		return 0;
	case 'L':
		return parse_limit(o, arg);
	case 'E':
		return parse_every(o, arg);
	default:
		return usage_error(o->sub, "unknown option");
	}
}

int analyze_finish_args(struct analyze_opts *o, int argc, char **argv)
{
	if (o->json && o->csv)
		return usage_error(o->sub, "--json and --csv: choose one");
	if (optind >= argc)
		return usage_error(o->sub, "missing FILE (or the PID of a traced process)");
	if (optind + 1 < argc)
		return usage_error(o->sub, "unexpected argument '%s'", argv[optind + 1]);
	o->arg = argv[optind];
	return -1;
}

struct bp_agg *analyze_agg_new(const struct analyze_opts *o, enum bp_dist_kind kind)
{
	struct bp_agg *a = bp_agg_new(kind, o->buckets, o->width);
	char err[8];

	if (!a)
		return NULL;
	if (o->percentiles)	/* checked when parsed */
		(void)bp_agg_set_percentiles(a, o->percentiles, err, sizeof(err));
	bp_agg_set_sort(a, &o->sort);
	bp_agg_set_limit(a, o->limit);
	if (bp_agg_set_every(a, o->every_ns)) {
		bp_agg_free(a);
		return NULL;
	}
	return a;
}

void analyze_free(struct analyze_opts *o)
{
	bp_where_free(o->where);
	o->where = NULL;
	filter_free(&o->f);
}

/* ---- fields ------------------------------------------------------------- */

const char *analyze_type_word(uint8_t type)
{
	switch (type) {
	case BP_FIELD_STRING:
		return "a string";
	case BP_FIELD_CHAR:
		return "a character";
	case BP_FIELD_POINTER:
		return "a pointer";
	case BP_FIELD_FLOAT:
		return "a floating-point number";
	default:
		return "an integer";
	}
}

/* ---- the loop ----------------------------------------------------------- */

/* Every record of a chosen site there is now, through ops->bound. */
static int read_bound(struct bp_trace *t, const struct analyze_ops *ops, void *ctx)
{
	struct bp_bind_rec r[BP_BIND_NEXT_MAX];
	int n;

	r[0].size = sizeof(r[0]);
	while ((n = bp_bind_next(ops->bind, t, r, BP_BIND_NEXT_MAX,
				 ops->args_time ? BP_TRACE_NEXT_TIME : 0)) > 0) {
		int rc = ops->bound(ctx, t, r, n);

		if (rc != EXIT_OK)
			return rc;
	}
	if (n < 0)
		return n == BP_TRACE_EFORMAT ? EXIT_BADFILE : n == BP_TRACE_ENOMEM ? out_of_memory()
											: EXIT_IO;
	return EXIT_OK;
}

/* Every record there is now, through ops->record: an exit code. */
static int read_all(struct bp_trace *t, struct analyze_opts *o, const struct analyze_ops *ops,
		    void *ctx)
{
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	bool filtering = filter_active(&o->f);
	/* a filter may choose by time */
	unsigned flags = !ops->args_only || filtering ? BP_TRACE_NEXT_NO_MESSAGE
			 : ops->args_time ? BP_TRACE_NEXT_ARGS_ONLY | BP_TRACE_NEXT_TIME
					  : BP_TRACE_NEXT_ARGS_ONLY;
	int rc;

	if (ops->bound && !filtering)
		return read_bound(t, ops, ctx);
	while ((rc = bp_trace_next(t, &e, flags)) == 1) {
		int r;

		if (filtering && !filter_pass(&o->f, t, &e))
			continue;
		if ((r = ops->record(ctx, t, &e)) != EXIT_OK)
			return r;
	}
	if (rc < 0)
		return rc == BP_TRACE_EFORMAT ? EXIT_BADFILE : EXIT_IO;
	return EXIT_OK;
}

/* --follow: read, refresh, read again, redrawing every second. */
static int follow(struct bp_trace *t, struct analyze_opts *o, const struct analyze_ops *ops,
		  void *ctx, long pid, const char *name)
{
	struct follow_end fe = { 0 };
	uint64_t drawn = follow_now_ns();
	int rc = read_all(t, o, ops, ctx);

	follow_catch_signals();
	while (rc == EXIT_OK && !follow_interrupted()) {
		bool last = follow_last_poll(&fe, t, pid);

		if (!last)
			follow_nap(o->interval);
		if (bp_trace_refresh(t) < 0) {
			errmsg(name, "read error");
			return EXIT_IO;
		}
		rc = read_all(t, o, ops, ctx);
		if (last)
			break;
		if (rc == EXIT_OK && follow_now_ns() - drawn >= 1000000000u) {
			if (!ops->render(ctx, t, false))
				return EXIT_IO;
			drawn = follow_now_ns();
		}
	}
	return rc;
}

int analyze_run(struct analyze_opts *o, const struct analyze_ops *ops,
		int (*check)(void *ctx, struct bp_trace *t, const char *path), void *ctx)
{
	struct bp_trace *t;
	char *path = NULL;
	const char *name;
	long pid = 0;
	int rc, rc2;

	if ((rc = tail_target(o->arg, &pid, &path)) != EXIT_OK)
		return rc;
	name = path ? path : o->arg;
	if (!(t = open_trace(name, &rc))) {
		free(path);
		return rc;
	}
	if (check && (rc = check(ctx, t, name)) != EXIT_OK)
		goto out;
	if (!o->follow)
		progress_start(t, false);
	rc = o->follow ? follow(t, o, ops, ctx, pid, name) : read_all(t, o, ops, ctx);
	if (!o->follow)
		progress_end(t);
	if (rc == EXIT_IO)
		errmsg(name, "read error");
	if (!ops->render(ctx, t, true) && rc == EXIT_OK)
		rc = EXIT_IO;
	rc2 = o->follow ? follow_verdict(name, t) : report_file(name, t);
	if (rc == EXIT_OK)
		rc = rc2;
out:
	bp_trace_close(t);
	free(path);
	return rc;
}

/* ---- output ------------------------------------------------------------- */

static bool write_svg(const struct analyze_opts *o, const struct bp_agg *a, const char *title)
{
	FILE *out = fopen(o->svg, "w");
	bool ok;

	if (!out) {
		errmsg(o->svg, "%s", strerror(errno));
		return false;
	}
	ok = bp_agg_svg(a, out, title);
	if (fclose(out) != 0 || !ok) {
		errmsg(o->svg, "write error: %s", strerror(errno ? errno : EIO));
		return false;
	}
	return true;
}

/* Lines of text, a last one without its newline included. */
static size_t count_lines(const char *text, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	return n + (len && text[len - 1] != '\n');
}

/*
 * --follow's redraw on a terminal: the screen cleared, then the text,
 * with its bars while it fits the terminal's height; without them (a
 * line a group) when it does not, so that the header stays on screen.
 */
static bool redraw(const struct bp_agg *a)
{
	struct winsize ws;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	bool ok = mem && bp_agg_text(a, mem, true);

	if (mem && fclose(mem) != 0)
		ok = false;
	if (ok && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row &&
	    count_lines(text, len) >= ws.ws_row) {
		free(text);
		text = NULL, len = 0;
		mem = open_memstream(&text, &len);
		ok = mem && bp_agg_text(a, mem, false);
		if (mem && fclose(mem) != 0)
			ok = false;
	}
	fputs("\033[H\033[J", stdout);
	if (ok)
		fwrite(text, 1, len, stdout);
	free(text);
	fflush(stdout);
	return ok;
}

bool analyze_output(const struct analyze_opts *o, struct bp_agg *a, const char *title, bool final)
{
	bool ok;

	bp_agg_set_live(a, !final);	/* a live view: the last window */
	if (!final)	/* --follow's redraw: text, on a terminal only */
		return o->json || o->csv || !isatty(STDOUT_FILENO) || redraw(a);
	if (o->json)
		ok = bp_agg_json(a, stdout);
	else if (o->csv)
		ok = bp_agg_csv(a, stdout);
	else
		ok = bp_agg_text(a, stdout, true);
	if (finish_output() != EXIT_OK)
		return false;
	return (!o->svg || write_svg(o, a, title)) && ok;
}
