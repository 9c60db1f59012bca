/*
 * bprint export --format=trace-cmd|chrome|perfetto|ctf [-o OUT] [FILE]: a trace file in
 * another tool's format (bprint/export.h, docs/exporters.md).
 */
#include "bprint_cmd.h"

#include <bprint/export.h>

int cmd_export(int argc, char **argv);

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Each format's name and what it is for, from the exporters' table. */
static void formats_help(void)
{
	struct bp_export_format_info info = BP_EXPORT_FORMAT_INFO_INIT;
	const char *name;

	for (size_t i = 0; (name = bp_export_format_at(i)); i++) {
		const char *line = "";

		if (bp_export_format_info(name, &info) == 0 && info.help)
			line = info.help;
		printf("                       %-10s ", name);
		for (;;) {
			const char *nl = strchr(line, '\n');
			int n = nl ? (int)(nl - line) : (int)strlen(line);

			printf("%.*s\n", n, line);
			if (!nl)
				break;
			line = nl + 1;
			printf("                       %-10s ", "");
		}
	}
}

/* --format=help: the names alone, one a line (the bash completion's). */
static int formats_list(void)
{
	const char *name;

	for (size_t i = 0; (name = bp_export_format_at(i)); i++)
		puts(name);
	return finish_output();
}

static void export_help(void)
{
	printf("Usage: %s export --format=FORMAT [-o OUT] [FILE]\n"
	       "Write the records of a trace FILE (default %s) in another tool's format.\n"
	       "\n"
	       "  -f, --format=FORMAT  one of these (--format=help lists their names):\n",
	       prog, DEFAULT_FILE);
	formats_help();
	printf("                       A record --kernel trace's kernel events go into each\n"
	       "                       format (every CPU's): trace-cmd as kernel events of\n"
	       "                       their own formats, perfetto as ftrace event bundles,\n"
	       "                       ctf as a second trace in OUT/kernel (babeltrace2 OUT\n"
	       "                       OUT/kernel), chrome as the threads' running slices\n"
	       "  -o, --output=OUT     write to OUT (created with the umask's mode; a regular\n"
	       "                       file of yours is replaced, never a symlink, a FIFO, a\n"
	       "                       device, a directory or another user's file);\n"
	       "                       default: standard output, which must not be a terminal\n"
	       "                       for trace-cmd and perfetto; for ctf, the directory\n"
	       "                       (required)\n"
	       "  -t, --tid=TID        only records of thread TID (repeatable)\n"
	       "  -s, --site=SITE      only records of SITE: an id or a pattern, as report's\n"
	       "      --from=SEC, --to=SEC  only records in that window of time\n"
	       "  -w, --where=EXPR     only records whose fields satisfy EXPR (as report's;\n"
	       "                       repeated, every one must hold);\n"
	       "                       records lost before one left out are shown before the\n"
	       "                       next one of its thread\n"
	       "      --span=FROM,TO[,KEY]...  (perfetto, chrome; repeatable) draw each pair of a\n"
	       "                       FROM record and the next TO record of its KEY fields'\n"
	       "                       values (of its thread, without KEY) as a slice, as\n"
	       "                       'bprint latency' pairs them; FROM and TO are sites\n"
	       "  -q, --quiet          no summary on standard error\n"
	       "  -h, --help           show this help\n"
	       "\n"
	       EXIT_STATUS_HELP);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* Would writing out replace the input?  (Replacing it truncates what is being read.) */
static bool same_file(const char *out, const char *in)
{
	struct stat a, b;

	return stat(out, &a) == 0 && stat(in, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* One export: what to write where, and how it went. */
struct export_job {
	struct bp_export_format_info kind;	/* the format */
	const char *out, *path;		/* out NULL: standard output */
	bool quiet;
	struct filter f;		/* --tid, --site, --from, --to, --where */
	struct bp_span_export *spans;	/* --span, NULL: none */
	int fd;				/* the output file, or ctf's directory */
	struct bp_export_counts st;
	char err[256];
};

/* The options into j and *format: -1 to go on, else the exit code. */
static int parse_export_options(int argc, char **argv, const char **format,
				struct export_job *j)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "tid", required_argument, NULL, 't' },
		{ "site", required_argument, NULL, 's' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "where", required_argument, NULL, 'w' },
		{ "span", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:qt:s:w:h", opts, NULL)) != -1) {
		switch (c) {
		FILTER_OPTIONS:
			if ((rc = filter_option(&j->f, "export", c, optarg)) != 0)
				return rc;
			break;
		case 'S': {
			char err[256];

			if ((!j->spans && !(j->spans = bp_span_export_new())) ||
			    bp_span_export_add(j->spans, optarg, err, sizeof(err)))
				return usage_error("export", "--span %s", j->spans ? err : "out of memory");
			break;
		}
		case 'f': *format = optarg; break;
		case 'o': j->out = optarg; break;
		case 'q': j->quiet = true; break;
		case 'h': export_help(); return finish_output();
		case ':': return usage_error("export", "option '%s' needs an argument", argv[optind - 1]);
		default: return usage_error("export", "unknown option '%s'", argv[optind - 1]);
		}
	}
	return -1;
}

/* The one FILE argument, if given, into *path. */
static int take_path(int argc, char **argv, const char **path)
{
	if (optind < argc)
		*path = argv[optind++];
	if (optind < argc)
		return usage_error("export", "unexpected argument '%s'", argv[optind]);
	return EXIT_OK;
}

static int export_kind(const char *format, struct bp_export_format_info *kind)
{
	if (bp_export_format_info(format, kind) != 0)
		return usage_error("export", "unknown format '%s' (--format=help lists them)", format);
	return EXIT_OK;
}

/* Refuse binary output to a terminal, and an output that is the input. */
static int check_output(const struct export_job *j)
{
	if (j->kind.flags & BP_EXPORT_F_DIRECTORY)
		return j->out ? EXIT_OK
			      : usage_error("export", "--format=%s writes a directory: give -o DIR",
					    j->kind.name);
	if (!j->out && (j->kind.flags & BP_EXPORT_F_BINARY) && isatty(STDOUT_FILENO))
		return usage_error("export", "%s is binary: give -o OUT or redirect the output",
				   j->kind.noun);
	if (j->out && same_file(j->out, j->path))
		return usage_error("export", "'%s' is the trace being exported: give another -o", j->out);
	return EXIT_OK;
}

/* Open -o OUT (ctf: the directory), with the umask's mode: 0, or -1 with a message. */
static int open_export_output(struct export_job *j)
{
	const char *why = NULL;

	j->fd = bp_export_open(j->kind.name, j->out, &why);
	if (j->fd < 0) {
		errmsg(j->out, "%s", why ? why : strerror(errno));
		return -1;
	}
	return 0;
}

/* Close the output: rc, or a write error the export did not see. */
static int close_export_output(struct export_job *j, int rc)
{
	if (j->out && close(j->fd) != 0 && rc == 0) {
		snprintf(j->err, sizeof(j->err), "write error: %s", strerror(errno));
		rc = BP_TRACE_EIO;
	}
	return rc;
}

static void export_summary(const struct export_job *j)
{
	const struct bp_export_counts *st = &j->st;

	if (!strcmp(j->kind.name, "trace-cmd"))
		fprintf(stderr, "%s: %llu records (%llu site events, %llu print events, %llu kernel "
			"events), %u threads, %u CPUs, %llu pages, %llu lost, %llu truncated\n",
			j->out ? j->out : "stdout", (unsigned long long)st->records,
			(unsigned long long)st->site_events, (unsigned long long)st->print,
			(unsigned long long)st->kernel, st->threads, st->cpus,
			(unsigned long long)st->pages, (unsigned long long)st->lost,
			(unsigned long long)st->truncated);
	else
		fprintf(stderr, "%s: %llu records, %u threads%s, %llu lost\n",
			j->out ? j->out : "stdout", (unsigned long long)st->records, st->threads,
			!strcmp(j->kind.name, "ctf") ? " (streams)" : "", (unsigned long long)st->lost);
	if (j->spans) {
		uint64_t opens, closes;

		bp_span_export_unmatched(j->spans, &opens, &closes);
		fprintf(stderr, "%s: %llu spans; unmatched: %llu opened and never closed, %llu closed "
			"without an open\n", j->out ? j->out : "stdout", (unsigned long long)st->spans,
			(unsigned long long)opens, (unsigned long long)closes);
	}
}

/* --span's sites and keys exist, and the format draws slices. */
static int check_spans(const struct export_job *j, struct bp_trace *t)
{
	char err[256];

	if (!j->spans)
		return EXIT_OK;
	if (!(j->kind.flags & BP_EXPORT_F_SPANS)) {
		return sub_error("export", "--span: %s has no slices (perfetto and chrome have)",
				 j->kind.name);
	}
	if (bp_span_export_check(j->spans, t, err, sizeof(err))) {
		return sub_error("export", "%s", err);
	}
	return EXIT_OK;
}

/* The filters of export: a record they let through. */
static bool chosen(void *arg, struct bp_trace *t, const struct bp_trace_event *e)
{
	return filter_pass(arg, t, e);
}

static int run_export(int argc, char **argv, struct export_job *jp)
{
	struct export_job j = *jp;
	const char *format = NULL;
	struct bp_trace *t;
	int rc;

	rc = parse_export_options(argc, argv, &format, &j);
	jp->f = j.f;	/* for the caller to free */
	jp->spans = j.spans;
	if (rc >= 0)
		return rc;
	if (!format)
		return usage_error("export", "--format is required (--format=help lists them)");
	if (!strcmp(format, "help"))
		return formats_list();
	if ((rc = export_kind(format, &j.kind)) != EXIT_OK ||
	    (rc = take_path(argc, argv, &j.path)) != EXIT_OK ||
	    (rc = check_output(&j)) != EXIT_OK)
		return rc;
	if (*j.kind.suffix && j.out && !j.quiet && !has_suffix(j.out, j.kind.suffix))
		fprintf(stderr, "%s: warning: %s: KernelShark opens only files named *%s\n", prog,
			j.out, j.kind.suffix);
	if (!(t = open_trace(j.path, &rc)))
		return rc;
	if ((rc = filter_check_sites(&j.f, t, "export", j.path)) != EXIT_OK ||
	    (rc = check_spans(&j, t)) != EXIT_OK) {
		bp_trace_close(t);
		return rc;
	}
	if (j.out && open_export_output(&j) != 0) {
		if (j.kind.flags & BP_EXPORT_F_DIRECTORY)
			report_file(j.path, t);
		bp_trace_close(t);
		return EXIT_IO;
	}
	progress_start(t, !j.out);
	{
		struct bp_export_options opts = {
			.size = sizeof(opts),
			.chosen = filter_active(&j.f) ? chosen : NULL, .arg = &j.f,
			.spans = j.spans,
		};

		rc = bp_export_run(t, j.kind.name, j.fd, &opts, &j.st, j.err, sizeof(j.err));
	}
	progress_end(t);
	rc = close_export_output(&j, rc);
	if (rc < 0) {
		errmsg(j.out ? j.out : j.path, "%s", j.err);
		report_file(j.path, t);
		bp_trace_close(t);
		return rc == BP_TRACE_EFORMAT ? EXIT_BADFILE : EXIT_IO;
	}
	if (!j.quiet)
		export_summary(&j);
	rc = report_file(j.path, t);
	bp_trace_close(t);
	return rc;
}

int cmd_export(int argc, char **argv)
{
	struct export_job j = { .kind = BP_EXPORT_FORMAT_INFO_INIT, .path = DEFAULT_FILE,
				.fd = STDOUT_FILENO, .st = BP_EXPORT_COUNTS_INIT };
	int rc = run_export(argc, argv, &j);

	filter_free(&j.f);
	bp_span_export_free(j.spans);
	return rc;
}
