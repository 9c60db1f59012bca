/*
 * bprint - read and record bprint trace files.
 *
 *   bprint report [FILE]          the trace as text (like bprint_dump())
 *   bprint tail FILE|PID          follow a live trace (trace_pipe)
 *   bprint formats FILE           the call sites (printk_formats)
 *   bprint stats FILE             counts per site and per thread
 *   bprint record [...] -- CMD    run CMD and keep its whole trace
 *   bprint snapshot PID           a running program's buffers, now
 *   bprint enable/disable PID PAT a running program's call sites switched
 *   bprint sites PID              ... listed, with their state and records
 *   bprint export -f FORMAT FILE  the trace in another tool's format
 *
 * The manual is docs/bprint.1.  This file holds the dispatcher and what the
 * subcommands share (bprint_cmd.h).
 */
#include "bprint_cmd.h"
#include "attach.h"

#include <bprint/text.h>


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

int sub_error(const char *sub, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s %s: ", prog, sub);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

int out_of_memory(void)
{
	errmsg(NULL, "out of memory");
	return EXIT_IO;
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

/* The verdict's notes on stderr; its state as an exit code. */
static int say_verdict(const char *path, const struct bp_trace_verdict *v)
{
	for (uint32_t i = 0; i < v->nnotes; i++)
		errmsg(path, "%s", v->notes[i]);
	if (v->state != BP_TRACE_COMPLETE)
		say_live_left(path);
	return v->state == BP_TRACE_DAMAGED ? EXIT_BADFILE :
	       v->state == BP_TRACE_INCOMPLETE ? EXIT_INCOMPLETE : EXIT_OK;
}

int report_trouble(const char *path, struct bp_trace *t)
{
	struct bp_trace_verdict v = BP_TRACE_VERDICT_INIT;

	bp_trace_verdict(t, &v);
	return v.state == BP_TRACE_COMPLETE ? EXIT_OK : say_verdict(path, &v);
}

int report_file(const char *path, struct bp_trace *t)
{
	struct bp_trace_verdict v = BP_TRACE_VERDICT_INIT;

	bp_trace_verdict(t, &v);
	return say_verdict(path, &v);
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

/*
 * SEC as nanoseconds.  Digits with an optional fraction of up to nine
 * digits are taken exactly (a double holds no nanoseconds past 2^53 ns,
 * 104 days), other numbers through strtod().  *last is the last nanosecond
 * SEC stands for: with the six decimals that report (and latency --top)
 * print, the whole microsecond, so that --to 12.000123 keeps the record
 * printed as 12.000123 (at 12.000123456); else SEC itself.
 */
static int parse_seconds(const char *s, uint64_t *ns, uint64_t *last)
{
	size_t whole = strspn(s, "0123456789"), frac = 0;
	char *end;
	double v;

	if (s[whole] == '.')
		frac = strspn(s + whole + 1, "0123456789");
	if (whole + frac && whole <= 10 && frac <= 9 && !s[whole + (s[whole] == '.') + frac]) {
		uint64_t sec = 0, sub = 0;

		for (size_t i = 0; i < whole; i++)
			sec = sec * 10 + (uint64_t)(s[i] - '0');
		for (size_t i = 0; i < 9; i++)
			sub = sub * 10 + (i < frac ? (uint64_t)(s[whole + 1 + i] - '0') : 0);
		*ns = sec * 1000000000u + sub;
		*last = *ns + (frac == 6 ? 999 : 0);
		return 0;
	}
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !(v >= 0) || v > 1.8e10)
		return -1;
	*last = *ns = (uint64_t)(v * 1e9 + 0.5);
	return 0;
}

/*
 * --where given once more: each EXPR parsed alone first (its own error
 * message), then all as one expression, their terms joined by ',' (which
 * ANDs them), so that the one evaluator sees every term.  A term ends at
 * a ',' or the end (a quoted value's quote closed before it), so the
 * joined text holds exactly the terms of its parts.
 */
int where_option(const char *sub, const char *opt, struct bp_where **w, char **text,
		 const char *arg)
{
	char err[256], *joined;
	struct bp_where *alone = bp_where_new(arg, err, sizeof(err)), *all;
	size_t had = *text ? strlen(*text) : 0;

	if (!alone)
		return usage_error(sub, "%s: %s", opt, err);
	if (!(joined = malloc(had + 1 + strlen(arg) + 1))) {
		bp_where_free(alone);
		return usage_error(sub, "out of memory");
	}
	if (had)
		memcpy(joined, *text, had), joined[had++] = ',';
	strcpy(joined + had, arg);
	all = *w ? bp_where_new(joined, err, sizeof(err)) : alone;
	if (all != alone)
		bp_where_free(alone);
	if (!all) {
		free(joined);
		return usage_error(sub, "%s: %s", opt, err);
	}
	bp_where_free(*w);
	free(*text);
	*w = all, *text = joined;
	return 0;
}

int filter_option(struct filter *f, const char *sub, int c, const char *arg)
{
	switch (c) {
	case 't': {
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
	case 's':
		if ((!f->sites && !(f->sites = bp_sites_new())) || bp_sites_add(f->sites, arg))
			return usage_error(sub, "--site: expected an id or a pattern");
		return 0;
	case 'w':
		return where_option(sub, "--where", &f->where, &f->where_text, arg);
	default: {
		uint64_t ns, last;
		const char *opt = c == 'F' ? "from" : "to";

		if (parse_seconds(arg, &ns, &last))
			return usage_error(sub, "--%s: not a time in seconds: '%s'", opt, arg);
		if (c == 'F')
			f->have_from = true, f->from_ns = ns;
		else
			f->have_to = true, f->to_ns = last;
		return 0;
	}
	}
}

bool filter_active(const struct filter *f)
{
	return f->ntids || bp_sites_count(f->sites) || f->have_from || f->have_to || f->where ||
	       f->kernel_on;
}

int filter_kernel_option(struct filter *f, const char *sub, const char *arg)
{
	if (!arg || !strcmp(arg, "own"))
		f->kernel = FILTER_KERNEL_OWN;
	else if (!strcmp(arg, "all"))
		f->kernel = FILTER_KERNEL_ALL;
	else if (!strcmp(arg, "none"))
		f->kernel = FILTER_KERNEL_NONE;
	else
		return usage_error(sub, "--kernel: expected own, all or none, not '%s'", arg);
	return 0;
}

void filter_kernel_bind(struct filter *f, struct bp_trace *t)
{
	f->kernel_on = f->kernel != FILTER_KERNEL_ALL &&
		       bp_trace_max_site_id(t) >= BP_TRACE_KERNEL_SITE_BASE;
}

int filter_check_sites(struct filter *f, struct bp_trace *t, const char *sub, const char *path)
{
	const char *pat = bp_sites_unmatched(f->sites, t);
	char err[256];

	if (pat) {
		return sub_error(sub, "--site %s: no such site in %s (see '%s formats')", pat, path,
				 prog);
	}
	if (f->where && bp_where_check(f->where, t, f->sites, err, sizeof(err))) {
		return sub_error(sub, "--where: %s", err);
	}
	return EXIT_OK;
}

void filter_note_sites(struct filter *f, struct bp_trace *t, const char *path)
{
	const char *pat = bp_sites_unmatched(f->sites, t);

	if (pat)
		errmsg(path, "--site %s matches no call site yet: waiting for one", pat);
}

bool filter_pass(struct filter *f, struct bp_trace *t, const struct bp_trace_event *e)
{
	if (f->kernel_on && t && IS_KERNEL_EVENT(e) &&
	    (f->kernel == FILTER_KERNEL_NONE ||
	     bp_trace_event_kernel(t) != BP_TRACE_FROM_KERNEL_OWN))
		return false;
	if (f->have_from && e->ns < f->from_ns)
		return false;
	if (f->have_to && e->ns > f->to_ns)
		return false;
	if (f->ntids) {
		size_t i;

		for (i = 0; i < f->ntids && f->tids[i] != e->tid; i++)
			;
		if (i == f->ntids)
			return false;
	}
	if (f->sites && !bp_sites_match(f->sites, t, e->site_id))
		return false;
	return !f->where || bp_where_match(f->where, t, e);
}

void filter_free(struct filter *f)
{
	free(f->tids);
	bp_sites_free(f->sites);
	bp_where_free(f->where);
	free(f->where_text);
	memset(f, 0, sizeof(*f));
}

static bool print_text_event(struct bp_trace *t, struct bp_trace_event *e,
			     enum bprint_output how);

/* Lines go into one large buffer, written out when it is nearly full. */
static char obuf[1 << 18];
static size_t olen;

int out_flush(void)
{
	if (!records_flush())
		return -1;
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
	if (n > sizeof(obuf) / 4 && !olen)
		return fwrite(s, 1, n, stdout) == n;	/* large enough alone */
	memcpy(obuf + olen, s, n);
	olen += n;
	return true;
}

/*
 * Why the records before e were lost, in words, or NULL: the words of
 * stats and of record's summary, one name a loss.  Records a stream's
 * ring recycled before bprint record copied them (BP_TRACE_LOST_NOT_COPIED)
 * are overwritten: stats counts them in OVERWRITTEN (NOT-DRAINED says how
 * many of those), record's summary as "overwritten"; its "not copied" and
 * stats' NOT-COPIED are the records still in the rings when a recorder
 * stopped, which no record comes after.
 */
static const char *lost_why(const struct bp_trace_event *e)
{
	bool overwritten = e->lost_kind & (BP_TRACE_LOST_OVERWRITTEN | BP_TRACE_LOST_NOT_COPIED);
	bool discarded = e->lost_kind & BP_TRACE_LOST_DISCARDED;

	return overwritten && discarded ? "overwritten, discarded" : overwritten ? "overwritten"
	       : discarded ? "discarded" : NULL;
}

bool print_loss(const struct bp_trace_event *e, enum bprint_output how)
{
	char what[96], line[256];
	static struct bp_trace_text_cache cache = BP_TRACE_TEXT_CACHE_INIT;
	size_t len;

	if (how == OUTPUT_JSON || how == OUTPUT_CSV)
		return true;	/* their records carry lost_before */
	if (IS_KERNEL_EVENT(e))	/* a CPU's kernel buffer was full */
		snprintf(what, sizeof(what), "[%llu kernel event%s lost on CPU %d]",
			 (unsigned long long)e->lost_before, e->lost_before == 1 ? "" : "s",
			 e->cpu);
	else
		snprintf(what, sizeof(what), "[%llu record%s lost%s%s]",
			 (unsigned long long)e->lost_before, e->lost_before == 1 ? "" : "s",
			 lost_why(e) ? ": " : "", lost_why(e) ? lost_why(e) : "");
	if (how == BPRINT_OUTPUT_RAW)
		len = (size_t)snprintf(line, sizeof(line), "%llu %d %d 0 %s",
				       (unsigned long long)e->ns, e->tid, e->cpu, what);
	else if (how == BPRINT_OUTPUT_MSG)
		len = (size_t)snprintf(line, sizeof(line), "%s", what);
	else {
		len = bp_trace_ftrace_prefix(&cache, line, sizeof(line), e, "", 0);
		if (len >= 2)
			len -= 2;	/* no function: ": " once */
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s", what);
	}
	if (len >= sizeof(line))
		len = sizeof(line) - 1;
	line[len++] = '\n';
	return out_write(line, len);
}

bool print_event(struct bp_trace *t, struct bp_trace_event *e, enum bprint_output how)
{
	if (how == OUTPUT_JSON || how == OUTPUT_CSV)
		return how == OUTPUT_JSON ? print_event_json(t, e) : print_event_csv(t, e);
	return print_text_event(t, e, how);
}

/* The three text forms of bprint_dump(). */
static bool print_text_event(struct bp_trace *t, struct bp_trace_event *e, enum bprint_output how)
{
	/* The same buffer and cut as bprint_dump() (src/trace/dump.c). */
	char line[BP_TRACE_MSG_MAX + 128];
	size_t len;
	int n;

	if (sizeof(obuf) - olen < sizeof(line) + 1 && out_flush() != 0)
		return false;
	if (how == BPRINT_OUTPUT_FTRACE) {
		/* The prefix straight into the buffer, the message after it, cut
		 * where bprint_format_event() would cut the same line. */
		/* events of bp_trace_next() point into a 17-byte comm array */
		static struct bp_trace_text_cache cache = { .size = sizeof(cache),
							    .flags = BP_TRACE_TEXT_COMM16 };
		size_t room = sizeof(line) - 1;

		len = bp_trace_ftrace_prefix(&cache, obuf + olen, room, e, NULL, 0);
		if (len < room - 1)
			len += bp_trace_format_message(t, obuf + olen + len, room - len);
		if (len > room - 1)
			len = room - 1;
		obuf[olen + len] = '\n';
		olen += len + 1;
		return true;
	}
	bp_trace_message(t, e);
	n = bp_trace_format_event(line, sizeof(line), e, how);
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
	{ "recover", cmd_recover, "finish the trace of a bprint record that was killed" },
	{ "snapshot", cmd_snapshot, "write a running program's trace buffers, as they are now" },
	{ "enable", cmd_enable, "switch a running program's call sites on" },
	{ "disable", cmd_disable, "switch a running program's call sites off" },
	{ "sites", cmd_sites, "list a running program's call sites, their state and records" },
	{ "export", cmd_export, "write a trace as trace.dat, Chrome JSON, Perfetto protobuf or CTF" },
	{ "hist", cmd_hist, "aggregate a field's values per key: percentiles and a histogram" },
	{ "latency", cmd_latency, "pair two call sites' records into spans: their durations" },
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
		EXIT_STATUS_HELP
		"bprint record exits with its command's status, or 3 when its trace lacks\n"
		"records.  See bprint(1).\n");
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
		uint32_t major, minor;

		bp_trace_file_version(&major, &minor);
		printf("bprint %s (trace file format %u.%u)\n", BPRINT_VERSION, major, minor);
		return finish_output();
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	return usage_error(NULL, "unknown command '%s'", argv[1]);
}
