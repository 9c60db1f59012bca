/*
 * bprint - read and record bprint trace files.
 *
 *   bprint report [FILE]          the trace as text (like bprint_dump())
 *   bprint tail FILE|PID          follow a live trace (trace_pipe)
 *   bprint formats FILE           the call sites (printk_formats)
 *   bprint stats FILE             counts per site and per thread
 *   bprint record [...] -- CMD    run CMD and keep its whole trace
 *   bprint export -f FORMAT FILE  the trace in another tool's format
 *
 * The manual is docs/bprint.1.  This file holds the dispatcher and what the
 * subcommands share (bprint_cmd.h).
 */
#include "bprint_cmd.h"

#include "file/layout.h"
#include "trace/record.h"
#include "trace/pattern.h"
#include "trace/text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifndef BPRINT_VERSION
#define BPRINT_VERSION "unknown"
#endif

const char *prog = "bprint";

void errmsg(const char *what, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	if (what)
		fprintf(stderr, "%s: %s: ", prog, what);
	else
		fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_error(const char *sub, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s%s%s: ", prog, sub ? " " : "", sub ? sub : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s%s%s --help'.\n", prog, sub ? " " : "", sub ? sub : "");
	return EXIT_USAGE;
}

struct bp_trace *open_trace(const char *path, int *exit_code)
{
	char err[256];
	int rc;
	struct bp_trace *t = bp_trace_open(path, BP_TRACE_OPEN_DEFAULT, err, sizeof(err), &rc);

	if (!t) {
		errmsg(path, "%s", err);
		*exit_code = rc == BP_TRACE_ENOMEM ? EXIT_IO : EXIT_BADFILE;
	}
	return t;
}

int report_problems(const char *path, struct bp_trace *t)
{
	const char *first;
	unsigned n = bp_trace_problems(t, &first);

	if (!n)
		return EXIT_OK;
	if (n == 1)
		errmsg(path, "damaged: %s", first);
	else
		errmsg(path, "damaged: %s (and %u more problems)", first, n - 1);
	return EXIT_BADFILE;
}

/* A file bprint record did not finish: why, and what it lacks. */
static void report_stream_state(const char *path, struct bp_trace *t)
{
	const struct bp_trace_info *in = bp_trace_info(t);
	struct bp_trace_totals tot;
	char why[160];

	bp_trace_totals(t, &tot);
	if (in->stop_reason == BP_FILE_STOP_FULL)
		snprintf(why, sizeof(why), "truncated: disk full at record %llu",
			 (unsigned long long)in->stop_record);
	else if (in->stop_reason)
		snprintf(why, sizeof(why), "truncated: write error (%s) at record %llu",
			 strerror(in->stop_errno), (unsigned long long)in->stop_record);
	else
		snprintf(why, sizeof(why), "not closed cleanly (bprint record did not finish)");
	if (in->accounted)
		errmsg(path, "%s; %llu records written are not in the file", why,
		       (unsigned long long)tot.not_copied);
	else
		errmsg(path, "%s; the records it did not copy cannot be counted", why);
}

bool report_file_full(const char *path, const struct bp_trace_info *in)
{
	const char *full = "incomplete: the trace file was full";
	bool one = in->memory_rings == 1;

	if (in->missing_sites)
		errmsg(path, "%s, %u call site%s not in it (%s records print as <unknown call "
			     "site N>)", full, in->missing_sites, in->missing_sites == 1 ? " is" : "s are",
		       in->missing_sites == 1 ? "its" : "their");
	if (!in->memory_rings)
		return in->missing_sites != 0;
	if (in->memory_records)
		errmsg(path, "%s, %u buffer%s kept in memory only; %llu records written are not "
			     "in the file", full, in->memory_rings, one ? " was" : "s were",
		       (unsigned long long)in->memory_records);
	else
		errmsg(path, "%s, %u buffer%s kept in memory only; %s records are not in the file "
			     "and cannot be counted", full, in->memory_rings, one ? " was" : "s were",
		       one ? "its" : "their");
	return true;
}

int report_file(const char *path, struct bp_trace *t)
{
	const struct bp_trace_info *in = bp_trace_info(t);
	int rc = report_problems(path, t);

	if (report_file_full(path, in) && rc == EXIT_OK)
		rc = EXIT_INCOMPLETE;
	if (in->flags & BP_TRACE_F_CLOSED && !in->stop_reason)
		return rc;
	if (in->flags & BP_TRACE_F_STREAM)
		report_stream_state(path, t);
	else
		errmsg(path, "not closed cleanly (the process is still running, or did not exit "
			     "normally)");
	return rc == EXIT_OK ? EXIT_INCOMPLETE : rc;
}

int finish_output(void)
{
	if (out_flush() != 0 || ferror(stdout)) {
		errmsg(NULL, "write error: %s", strerror(errno ? errno : EIO));
		return EXIT_IO;
	}
	return EXIT_OK;
}

/* ---- filters ------------------------------------------------------------ */

static int parse_seconds(const char *s, uint64_t *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !(v >= 0) || v > 1.8e10)
		return -1;
	*ns = (uint64_t)(v * 1e9 + 0.5);
	return 0;
}

int filter_option(struct filter *f, const char *sub, int c, const char *arg)
{
	const char *opt = c == 't' ? "tid" : c == 's' ? "site" : c == 'F' ? "from" : "to";

	if (!strcmp(opt, "tid")) {
		char *end;
		long v = strtol(arg, &end, 10);
		int32_t *grown;

		if (end == arg || *end || v < 0 || v > INT32_MAX)
			return usage_error(sub, "--tid: not a thread id: '%s'", arg);
		grown = realloc(f->tids, (f->ntids + 1) * sizeof(*grown));
		if (!grown)
			return usage_error(sub, "out of memory");
		f->tids = grown;
		f->tids[f->ntids++] = (int32_t)v;
		return 0;
	}
	if (!strcmp(opt, "site")) {
		char **grown = realloc(f->sites, (f->nsites + 1) * sizeof(*grown));

		if (!grown || !*arg)
			return usage_error(sub, "--site: expected an id or a pattern");
		f->sites = grown;
		f->sites[f->nsites++] = (char *)(uintptr_t)arg;
		return 0;
	}
	if (!strcmp(opt, "from") || !strcmp(opt, "to")) {
		uint64_t ns;

		if (parse_seconds(arg, &ns))
			return usage_error(sub, "--%s: not a time in seconds: '%s'", opt, arg);
		if (opt[0] == 'f') {
			f->have_from = true;
			f->from_ns = ns;
		} else {
			f->have_to = true;
			f->to_ns = ns;
		}
		return 0;
	}
	return usage_error(sub, "unknown option --%s", opt);
}

/* A --site argument against one site: an id, or a pattern as in
 * BPRINT_FILTER (trace/pattern.h). */
static bool site_matches(const char *pat, const struct bprint_site *s)
{
	char *end;
	unsigned long id = strtoul(pat, &end, 10);

	if (end != pat && !*end)
		return id == s->id;
	return bp_site_pattern_matches(pat, s);
}

static void filter_sites(struct filter *f, struct bp_trace *t)
{
	uint32_t len = bp_trace_max_site_id(t) + 1;
	size_t n = bp_trace_nsites(t);

	if (f->site_ok && f->site_ok_nsites == n)
		return;
	free(f->site_ok);
	f->site_ok = calloc(len, 1);
	f->site_ok_len = f->site_ok ? len : 0;
	f->site_ok_nsites = n;
	for (size_t i = 0; i < n && f->site_ok; i++) {
		const struct bp_trace_site *s = bp_trace_site_at(t, i);

		for (size_t k = 0; s && k < f->nsites; k++)
			if (site_matches(f->sites[k], &s->site)) {
				f->site_ok[s->site.id] = 1;
				break;
			}
	}
}

/* The first --site of f that matches no site of t yet, or NULL. */
static const char *unmatched_site(const struct filter *f, struct bp_trace *t)
{
	for (size_t k = 0; k < f->nsites; k++) {
		size_t i, n = bp_trace_nsites(t);

		for (i = 0; i < n; i++) {
			const struct bp_trace_site *s = bp_trace_site_at(t, i);

			if (s && site_matches(f->sites[k], &s->site))
				break;
		}
		if (i == n)
			return f->sites[k];
	}
	return NULL;
}

int filter_check_sites(struct filter *f, struct bp_trace *t, const char *sub, const char *path)
{
	const char *pat = unmatched_site(f, t);

	if (pat)
		return usage_error(sub, "--site %s: no such site in %s (see '%s formats')", pat,
				   path, prog);
	return EXIT_OK;
}

void filter_note_sites(struct filter *f, struct bp_trace *t, const char *path)
{
	const char *pat = unmatched_site(f, t);

	if (pat)
		errmsg(path, "--site %s matches no call site yet: waiting for one", pat);
}

bool filter_pass(struct filter *f, struct bp_trace *t, const struct bp_trace_event *e)
{
	if (f->have_from && e->ev.ns < f->from_ns)
		return false;
	if (f->have_to && e->ev.ns > f->to_ns)
		return false;
	if (f->ntids) {
		size_t i;

		for (i = 0; i < f->ntids && f->tids[i] != e->ev.tid; i++)
			;
		if (i == f->ntids)
			return false;
	}
	if (f->nsites) {
		if (!e->ev.site) {
			/* not in the table: only its number can name it */
			for (size_t k = 0; k < f->nsites; k++) {
				char *end;
				unsigned long id = strtoul(f->sites[k], &end, 10);

				if (end != f->sites[k] && !*end && id == e->site_id)
					return true;
			}
			return false;
		}
		filter_sites(f, t);
		return e->site_id < f->site_ok_len && f->site_ok[e->site_id];
	}
	return true;
}

void filter_free(struct filter *f)
{
	free(f->tids);
	free(f->sites);
	free(f->site_ok);
	memset(f, 0, sizeof(*f));
}

/* Lines go into one large buffer, written out when it is nearly full. */
static char obuf[1 << 18];
static size_t olen;

int out_flush(void)
{
	if (olen && fwrite(obuf, 1, olen, stdout) != olen) {
		olen = 0;
		return -1;
	}
	olen = 0;
	return fflush(stdout) == 0 ? 0 : -1;
}

bool out_write(const char *s, size_t n)
{
	if (sizeof(obuf) - olen < n && out_flush() != 0)
		return false;
	if (n > sizeof(obuf))
		return fwrite(s, 1, n, stdout) == n;
	memcpy(obuf + olen, s, n);
	olen += n;
	return true;
}

bool print_event(struct bp_trace *t, struct bp_trace_event *e, enum bprint_output how)
{
	/* The same buffer and cut as bprint_dump() (src/trace/dump.c). */
	char line[BP_MSG_MAX + 128];
	size_t len;
	int n;

	if (sizeof(obuf) - olen < sizeof(line) + 1 && out_flush() != 0)
		return false;
	if (how == BPRINT_OUTPUT_FTRACE) {
		/* The prefix straight into the buffer, the message after it, cut
		 * where bprint_format_event() would cut the same line. */
		/* events of bp_trace_next() point into a 17-byte comm array */
		static struct bp_text_cache cache = { .comm16 = true };
		const struct bp_trace_site *ts = e->tsite;
		const char *func = ts && ts->site.func ? ts->site.func : "?";
		size_t flen = ts && ts->site.func ? ts->func_len : 1;
		size_t room = sizeof(line) - 1;

		len = bp_text_ftrace_prefix(&cache, obuf + olen, room, &e->ev, func, flen);
		if (len < room - 1)
			len += bp_trace_format_message(t, obuf + olen + len, room - len);
		if (len > room - 1)
			len = room - 1;
		obuf[olen + len] = '\n';
		olen += len + 1;
		return true;
	}
	bp_trace_message(t, e);
	n = bprint_format_event(line, sizeof(line), &e->ev, how);
	len = n < 0 ? strlen(line) : (size_t)n < sizeof(line) - 1 ? (size_t)n : sizeof(line) - 2;
	memcpy(obuf + olen, line, len);
	obuf[olen + len] = '\n';
	olen += len + 1;
	return true;
}

/* ---- dispatch ----------------------------------------------------------- */

int cmd_export(int argc, char **argv);	/* export.c */

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *what;
} commands[] = {
	{ "report", cmd_report, "print a trace file as text, like bprint_dump()" },
	{ "tail", cmd_tail, "follow a live trace file (or a process's) as it grows" },
	{ "formats", cmd_formats, "list the call sites of a trace: id, format, file:line, function" },
	{ "stats", cmd_stats, "count records per call site and per thread" },
	{ "record", cmd_record, "run a command and keep its whole trace in a file" },
	{ "export", cmd_export, "write a trace as trace.dat, Chrome JSON, Perfetto protobuf or CTF" },
};

static void help(FILE *out)
{
	fprintf(out,
		"Usage: %s COMMAND [OPTION]... [ARG]...\n"
		"Read and record trace files of programs that use libbprint (trace_printk()).\n"
		"\n"
		"Commands:\n", prog);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s  %s\n", commands[i].name, commands[i].what);
	fprintf(out,
		"\n"
		"  -h, --help     show this help, or a command's with COMMAND --help\n"
		"  -V, --version  show the version\n"
		"\n"
		"Exit status: 0 success, 1 bad command line or an incomplete trace file (not\n"
		"closed cleanly, truncated), 2 missing, foreign or damaged\n"
		"trace file, 3 read or write error (or the command could not be run).\n"
		"See bprint(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return help(stderr), EXIT_USAGE;
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		if (argc > 2 && strcmp(argv[1], "help") == 0) {
			char *sub[] = { argv[2], (char *)"--help", NULL };

			for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
				if (!strcmp(argv[2], commands[i].name))
					return commands[i].run(2, sub);
			return usage_error(NULL, "no help for '%s': not a command", argv[2]);
		}
		help(stdout);
		return finish_output();
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("bprint %s (trace file format %u.%u)\n", BPRINT_VERSION, BP_FILE_MAJOR, BP_FILE_MINOR);
		return finish_output();
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	return usage_error(NULL, "unknown command '%s'", argv[1]);
}
