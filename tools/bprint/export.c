/*
 * bprint export --format=trace-cmd|chrome|perfetto [-o OUT] [FILE]: a trace file in
 * another tool's format (src/output/export.h, docs/exporters.md).
 */
#include "bprint_cmd.h"

#include "output/export.h"
#include "trace/safe_open.h"

int cmd_export(int argc, char **argv);

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void export_help(void)
{
	printf("Usage: %s export --format=FORMAT [-o OUT] [FILE]\n"
	       "Write the records of a trace FILE (default %s) in another tool's format.\n"
	       "\n"
	       "  -f, --format=FORMAT  trace-cmd  trace.dat (version 6) for trace-cmd report and\n"
	       "                                  KernelShark: bprint and print ftrace events\n"
	       "                       chrome     Trace Event Format JSON for Perfetto UI and\n"
	       "                                  chrome://tracing: instant events named after\n"
	       "                                  their site, message and arguments in args\n"
	       "                       perfetto   Perfetto's protobuf trace (.pftrace) for Perfetto\n"
	       "                                  UI and trace_processor: a track per thread,\n"
	       "                                  message and arguments as debug annotations\n"
	       "                       ctf        CTF 1.8 trace directory (-o DIR required) for\n"
	       "                                  babeltrace2 and Trace Compass\n"
	       "  -o, --output=OUT     write to OUT (created with the umask's mode; a regular\n"
	       "                       file of yours is replaced, never a symlink, a FIFO, a\n"
	       "                       device, a directory or another user's file);\n"
	       "                       default: standard output, which must not be a terminal\n"
	       "                       for trace-cmd and perfetto; for ctf, the directory\n"
	       "                       (required)\n"
	       "  -q, --quiet          no summary on standard error\n"
	       "  -h, --help           show this help\n"
	       "\n"
	       "Exit status: 0 success, 1 bad command line or an incomplete file (not closed\n"
	       "cleanly, truncated), 2 missing, foreign or damaged file (what could be read\n"
	       "is exported), 3 read or write error, or OUT may not be written.\n",
	       prog, DEFAULT_FILE);
}

/* --format=ctf: a directory, not a stream of bytes. */
static int export_ctf(const char *path, const char *dir, bool quiet)
{
	struct bp_export_stats st;
	struct bp_trace *t;
	char err[256];
	int rc;

	if (!dir)
		return usage_error("export", "--format=ctf writes a directory: give -o DIR");
	if (!(t = open_trace(path, &rc)))
		return rc;
	progress_start(t, false);
	rc = bp_export_ctf(t, dir, &st, err, sizeof(err));
	progress_end(t);
	if (rc < 0) {
		errmsg(dir, "%s", err);
		report_problems(path, t);
		bp_trace_close(t);
		return rc == BP_TRACE_EFORMAT ? EXIT_BADFILE : EXIT_IO;
	}
	if (!quiet)
		fprintf(stderr, "%s: %llu records, %u threads (streams), %llu lost\n", dir,
			(unsigned long long)st.records, st.threads, (unsigned long long)st.lost);
	rc = report_problems(path, t);
	bp_trace_close(t);
	return rc;
}

/* Would writing out replace the input?  (Replacing it truncates what is being read.) */
static bool same_file(const char *out, const char *in)
{
	struct stat a, b;

	return stat(out, &a) == 0 && stat(in, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = NULL, *out = NULL, *path = DEFAULT_FILE, *why;
	struct bp_export_stats st;
	struct bp_trace *t;
	enum { TRACEDAT, CHROME, PERFETTO } kind;
	bool quiet = false, tracedat;
	char err[256];
	int c, fd = STDOUT_FILENO, rc;
	FILE *f = stdout;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'f': format = optarg; break;
		case 'o': out = optarg; break;
		case 'q': quiet = true; break;
		case 'h': export_help(); return finish_output();
		case ':': return usage_error("export", "option '%s' needs an argument", argv[optind - 1]);
		default: return usage_error("export", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!format)
		return usage_error("export", "--format=trace-cmd, chrome, perfetto or ctf is required");
	if (!strcmp(format, "ctf")) {
		if (optind < argc)
			path = argv[optind++];
		if (optind < argc)
			return usage_error("export", "unexpected argument '%s'", argv[optind]);
		return export_ctf(path, out, quiet);
	}
	if (!strcmp(format, "trace-cmd"))
		kind = TRACEDAT;
	else if (!strcmp(format, "chrome"))
		kind = CHROME;
	else if (!strcmp(format, "perfetto"))
		kind = PERFETTO;
	else
		return usage_error("export", "unknown format '%s' (trace-cmd, chrome, perfetto or ctf)",
				   format);
	tracedat = kind == TRACEDAT;
	if (optind < argc)
		path = argv[optind++];
	if (optind < argc)
		return usage_error("export", "unexpected argument '%s'", argv[optind]);
	if (!out && kind != CHROME && isatty(STDOUT_FILENO))
		return usage_error("export", "%s is binary: give -o OUT or redirect the output",
				   tracedat ? "a trace.dat" : "a Perfetto trace");
	if (out && same_file(out, path))
		return usage_error("export", "'%s' is the trace being exported: give another -o", out);
	if (!(t = open_trace(path, &rc)))
		return rc;
	if (out) {
		fd = bp_open_output(out, BP_OPEN_REPLACE, &why);	/* the umask's mode */
		if (fd < 0 || (!tracedat && !(f = fdopen(fd, "w")))) {
			errmsg(out, "%s", fd < 0 && why ? why : strerror(errno));
			if (fd >= 0)
				close(fd);
			bp_trace_close(t);
			return EXIT_IO;
		}
	}
	progress_start(t, !out);
	if (tracedat)
		rc = bp_export_tracedat(t, fd, &st, err, sizeof(err));
	else if (kind == PERFETTO)
		rc = bp_export_perfetto(t, f, &st, err, sizeof(err));
	else
		rc = bp_export_chrome(t, f, &st, err, sizeof(err));
	progress_end(t);
	if (out) {
		if (tracedat ? close(fd) != 0 : fclose(f) != 0) {
			if (rc == 0)
				bp_snprintf(err, sizeof(err), "write error: %s", strerror(errno));
			if (rc == 0)
				rc = BP_TRACE_EIO;
		}
	} else if (!tracedat && (fflush(stdout) != 0 || ferror(stdout)) && rc == 0) {
		bp_snprintf(err, sizeof(err), "write error");
		rc = BP_TRACE_EIO;
	}
	if (rc < 0) {
		errmsg(out ? out : path, "%s", err);
		report_file(path, t);
		bp_trace_close(t);
		return rc == BP_TRACE_EFORMAT ? EXIT_BADFILE : EXIT_IO;
	}
	if (!quiet) {
		if (tracedat)
			fprintf(stderr, "%s: %llu records (%llu bprint, %llu print events), %u threads, "
				"%u CPUs, %llu pages, %llu lost, %llu truncated\n", out ? out : "stdout",
				(unsigned long long)st.records, (unsigned long long)st.bprint,
				(unsigned long long)st.print, st.threads, st.cpus,
				(unsigned long long)st.pages, (unsigned long long)st.lost,
				(unsigned long long)st.truncated);
		else
			fprintf(stderr, "%s: %llu records, %u threads, %llu lost\n",
				out ? out : "stdout", (unsigned long long)st.records, st.threads,
				(unsigned long long)st.lost);
	}
	rc = report_file(path, t);
	bp_trace_close(t);
	return rc;
}
