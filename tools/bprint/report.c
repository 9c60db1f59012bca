/*
 * bprint report [FILE]: every record of a trace file, oldest first, as
 * bprint_dump() prints the process's own trace (the kernel's "trace" file).
 *
 * The header's counters line differs from bprint_dump()'s in one way:
 * "lost" counts every record the file no longer holds (discarded, dropped,
 * overwritten before the ring was read, not copied by the drainer, left in
 * the rings by a drainer that stopped early), where
 * the process counts overwritten records only when its own consumer missed
 * them.  #P is the CPU count of the machine reading the file.
 */
#include "bprint_cmd.h"
#include "supervise.h"

#include <bprint/text.h>


#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A trace file (a header we read), opened without following links. */
static bool is_trace(const char *path)
{
	struct bp_trace_probe p = BP_TRACE_PROBE_INIT;

	return bp_trace_probe(path, &p) == 1 && p.valid;
}

/*
 * `bprint record` of a wrapper leaves the other traced programs in
 * FILE.PID beside FILE: say so, one line on stderr.
 */
static void note_siblings(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t blen = strlen(base);
	char dir[4096], sib[4096 + 256], list[512];
	size_t len = 0;
	unsigned n = 0;
	struct dirent *de;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path + (slash == path)) : 1,
		 slash ? path : ".");
	if (!(dp = opendir(dir)))
		return;
	list[0] = '\0';
	while ((de = readdir(dp))) {
		if (!sibling_name(de->d_name, base, blen) ||
		    snprintf(sib, sizeof(sib), "%s/%s", dir, de->d_name) >= (int)sizeof(sib) ||
		    !is_trace(sib))
			continue;
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%.*s%s", n ? ", " : "",
						(int)(base - path), path, de->d_name);
		n++;
	}
	closedir(dp);
	if (n)
		errmsg(path, "beside it, the trace%s of %u other program%s: %s%s", n > 1 ? "s" : "",
		       n, n > 1 ? "s" : "", list, len >= sizeof(list) ? "..." : "");
}

static void report_help(void)
{
	printf("Usage: %s report [OPTION]... [FILE]\n"
	       "Print the records of a trace FILE (default %s), oldest first, merged across\n"
	       "threads, in the format of bprint_dump().\n"
	       "\n"
	       "  -r, --raw           one record a line: ns tid cpu site-id message (a newline,\n"
	       "                      carriage return or backslash in it as \\n, \\r, \\\\)\n"
	       "      --json          JSON Lines: one record a line, its fields typed, by name\n"
	       "      --csv           one record a row, a column per field name, header first\n"
	       "  -m, --msg-only      the messages alone\n"
	       "  -n, --no-header     leave out the '#' header of the default format\n"
	       "  -t, --tid=TID       only records of thread TID (repeatable)\n"
	       "  -s, --site=SITE     only records of SITE: an id (see 'bprint formats') or a\n"
	       "                      pattern as in BPRINT_FILTER: file:GLOB, line:FILE:N,\n"
	       "                      func:GLOB, fmt:GLOB, kernel:GLOB (a kernel event by\n"
	       "                      name), or a bare function glob (repeatable);\n"
	       "                      one that matches no site of FILE is an error (exit 1)\n"
	       "      --from=SEC      only records at or after SEC seconds (the timestamp column)\n"
	       "      --to=SEC        only records at or before SEC seconds\n"
	       "  -w, --where=EXPR    only records whose fields satisfy EXPR: FIELD OP VALUE\n"
	       "                      terms joined by ',', OP one of == != < <= > >= ~ (glob);\n"
	       "                      repeated, every one must hold (as one joined by ',')\n"
	       "      --date[=utc]    begin each line with the record's wall-clock date,\n"
	       "                      ISO-8601 with nanoseconds, in local time (TZ) or UTC\n"
	       "      --relative      times (seconds column, raw ns) since the file's first\n"
	       "                      record; --from and --to still use the recorded times\n"
	       "      --kernel=WHICH  the kernel's events of a record --kernel trace: own (the\n"
	       "                      default: those of the traced process tree), all, none\n"
	       "  -h, --help          show this help\n"
	       "\n"
	       EXIT_STATUS_HELP,
	       prog, DEFAULT_FILE);
}

/*
 * The '#' header of bprint_dump(), with the file's counters; the records
 * of buffers the file was too full for count as written and lost.
 */
uint64_t trace_lost(struct bp_trace *t)
{
	struct bp_trace_totals tot = BP_TRACE_TOTALS_INIT;
	uint64_t over = bp_trace_overwritten_estimate(t);

	bp_trace_totals(t, &tot);
	if (tot.overwritten > over)
		over = tot.overwritten;
	return tot.discarded + over + tot.not_copied + bp_trace_info(t)->memory_records;
}

uint64_t trace_not_yet(struct bp_trace *t)
{
	struct bp_trace_totals tot = BP_TRACE_TOTALS_INIT;
	uint32_t flags = bp_trace_info(t)->flags;

	if (!(flags & BP_TRACE_F_STREAM) || (flags & BP_TRACE_F_CLOSED))
		return 0;
	bp_trace_totals(t, &tot);
	return tot.not_copied;
}

static void header(FILE *out, struct bp_trace *t)
{
	struct bp_trace_totals tot = BP_TRACE_TOTALS_INIT;
	uint64_t in_memory = bp_trace_info(t)->memory_records;
	char buf[512];
	size_t len;

	bp_trace_totals(t, &tot);
	len = bp_trace_text_header(buf, sizeof(buf), tot.written + in_memory, trace_lost(t),
			     sysconf(_SC_NPROCESSORS_CONF));
	fwrite(buf, 1, len < sizeof(buf) ? len : sizeof(buf) - 1, out);
}

/* --date and --relative, for report only (tail leaves them off). */
static struct {
	enum { DATE_NONE, DATE_LOCAL, DATE_UTC } date;
	bool relative, have_first;
	uint64_t first_ns;
	int64_t offset;			/* trace clock -> realtime */
	struct bp_trace_date_cache cache;
} times = { .cache = BP_TRACE_DATE_CACHE_INIT };

/* The date before the line (in the record for --json and --csv), and the
 * time made relative; false on error. */
static bool apply_times(struct bp_trace_event *e, enum bprint_output how)
{
	char date[64];
	size_t n;

	if (times.date != DATE_NONE) {
		n = bp_trace_format_date(&times.cache, date, sizeof(date) - 1,
				(int64_t)e->ns + times.offset, times.date == DATE_UTC);
		if (how == OUTPUT_JSON || how == OUTPUT_CSV) {
			records_date(date, n);
		} else {
			date[n++] = ' ';
			if (!out_write(date, n))
				return false;
		}
	}
	if (times.relative)
		e->ns -= times.first_ns;
	return true;
}

/* Does e's thread and time pass f (its site and fields aside)?  Where a
 * loss line goes. */
static bool loss_shown(struct filter *f, const struct bp_trace_event *e)
{
	struct filter thread_and_time = *f;

	if (IS_KERNEL_EVENT(e))	/* a CPU's loss: it may be any thread's */
		return !f->kernel_on || f->kernel != FILTER_KERNEL_NONE;

	thread_and_time.sites = NULL;
	thread_and_time.where = NULL;
	return filter_pass(&thread_and_time, NULL, e);
}

/* Print every record that passes f, with a line where records were lost
 * before one; returns the exit code for the loop. */
int print_records(struct bp_trace *t, struct filter *f, enum bprint_output how, long *count)
{
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	bool filtering = filter_active(f);
	int rc;

	while ((rc = bp_trace_next(t, &e, BP_TRACE_NEXT_NO_MESSAGE)) == 1) {
		if (!times.have_first) {
			times.first_ns = e.ns;
			times.have_first = true;
		}
		if (e.lost_before && loss_shown(f, &e)) {
			struct bp_trace_event at = e;

			if (!apply_times(&at, how) || !print_loss(&at, how))
				break;
		}
		if (filtering && !filter_pass(f, t, &e))
			continue;
		if (!apply_times(&e, how) || !print_event(t, &e, how))
			break;
		(*count)++;
	}
	if (rc == 1)
		return EXIT_IO;	/* a write failed */
	if (rc < 0)
		return rc == BP_TRACE_EFORMAT ? EXIT_BADFILE : EXIT_IO;
	return EXIT_OK;
}

/* What the command line asks of report (--date and --relative go to times). */
struct report_opts {
	enum bprint_output how;
	bool no_header;
	struct filter f;
	const char *path;
};

/* Options and FILE into r: -1 to go on, else the exit code. */
static int parse_report_args(int argc, char **argv, struct report_opts *r)
{
	static const struct option opts[] = {
		{ "raw", no_argument, NULL, 'r' },
		{ "msg-only", no_argument, NULL, 'm' },
		{ "no-header", no_argument, NULL, 'n' },
		{ "tid", required_argument, NULL, 't' },
		{ "site", required_argument, NULL, 's' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "date", optional_argument, NULL, 'D' },
		{ "relative", no_argument, NULL, 'R' },
		{ "where", required_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'J' },
		{ "csv", no_argument, NULL, 'C' },
		{ "kernel", required_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc = EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":rmnt:s:w:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': r->how = BPRINT_OUTPUT_RAW; break;
		case 'm': r->how = BPRINT_OUTPUT_MSG; break;
		case 'J': r->how = OUTPUT_JSON; break;
		case 'C': r->how = OUTPUT_CSV; break;
		case 'n': r->no_header = true; break;
		case 'K': rc = filter_kernel_option(&r->f, "report", optarg); break;
		FILTER_OPTIONS: rc = filter_option(&r->f, "report", c, optarg); break;
		case 'D':
			times.date = !optarg || !strcmp(optarg, "local") ? DATE_LOCAL : DATE_UTC;
			if (optarg && strcmp(optarg, "local") && strcmp(optarg, "utc"))
				rc = usage_error("report", "--date takes local or utc, not '%s'", optarg);
			break;
		case 'R': times.relative = true; break;
		case 'h': report_help(); return finish_output();
		case ':': rc = usage_error("report", "option '%s' needs an argument", argv[optind - 1]); break;
		default: rc = usage_error("report", "unknown option '%s'", argv[optind - 1]); break;
		}
		if (rc)
			return rc;
	}
	if (optind < argc)
		r->path = argv[optind++];
	if (optind < argc)
		return usage_error("report", "unexpected argument '%s'", argv[optind]);
	return -1;
}

/* The trace, its --site patterns checked and its dates known; NULL with
 * *rc set. */
static struct bp_trace *open_report_trace(struct report_opts *r, int *rc)
{
	struct bp_trace *t = open_trace(r->path, rc);

	if (!t)
		return NULL;
	filter_kernel_bind(&r->f, t);
	if ((*rc = filter_check_sites(&r->f, t, "report", r->path)) != EXIT_OK) {
		bp_trace_close(t);
		return NULL;
	}
	if (times.date != DATE_NONE && bp_trace_wallclock_offset(t, &times.offset)) {
		errmsg(r->path, "the %s clock gives no dates", bp_trace_info(t)->clock_name);
		bp_trace_close(t);
		*rc = EXIT_USAGE;
		return NULL;
	}
	return t;
}

/* The header and the records, then what the file lacks: the exit code. */
static int print_report(struct bp_trace *t, struct report_opts *r)
{
	long count = 0;
	int rc, rc2;

	if (r->how == BPRINT_OUTPUT_FTRACE && !r->no_header) {
		header(stdout, t);
		fflush(stdout);
	}
	if (r->how == OUTPUT_CSV && !print_csv_header(t, &r->f, times.date != DATE_NONE)) {
		finish_output();
		return EXIT_IO;
	}
	progress_start(t, true);
	rc = print_records(t, &r->f, r->how, &count);
	progress_end(t);
	rc2 = finish_output();
	if (rc == EXIT_OK)
		rc = rc2;
	if (rc == EXIT_IO && rc2 == EXIT_OK)
		errmsg(r->path, "read error");
	if (rc == EXIT_OK)
		rc = report_file(r->path, t);
	else
		report_file(r->path, t);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts r = { .how = BPRINT_OUTPUT_FTRACE, .path = DEFAULT_FILE };
	struct bp_trace *t;
	int rc = parse_report_args(argc, argv, &r);

	if (rc < 0 && (t = open_report_trace(&r, &rc))) {
		rc = print_report(t, &r);
		note_siblings(r.path);
		bp_trace_close(t);
	}
	filter_free(&r.f);
	return rc;
}
