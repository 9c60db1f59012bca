/*
 * bprint snapshot PID [-o FILE]: the flight recorder of a running process,
 * as it is now, into a complete trace file (docs/attach.md).
 *
 * The process's live file is copied by the drainer of bprint record
 * (src/drainer/drain.h) as an observer: it writes nothing into the process's
 * memory (the descriptor is opened read-only), starts at every ring's
 * oldest page, copies the head pages as far as they are written, and
 * counts the records overwritten before it read them.  The process goes
 * on tracing meanwhile and keeps every record it holds.
 */
#include "bprint_cmd.h"
#include "attach.h"

#include <bprint/record.h>

#include <getopt.h>
#include <string.h>
#include <unistd.h>

static void snapshot_help(void)
{
	printf("Usage: %s snapshot [OPTION]... PID\n"
	       "Write what process PID's trace buffers hold now into a trace file.  PID is\n"
	       "any program that uses libbprint, started with or without bprint variables;\n"
	       "it keeps running and keeps its records.\n"
	       "\n"
	       "  -o, --output=FILE  the trace file (default %s); an existing trace file\n"
	       "                     is replaced, any other file is left alone\n"
	       "  -q, --quiet        no summary on stderr\n"
	       "  -h, --help         show this help\n"
	       "\n"
	       "Every thread's buffer is copied, from its oldest record to its newest;\n"
	       "records the buffer overwrote before are counted in the file where they were.\n"
	       "Reading another user's process needs root (the kernel's ptrace access rule).\n"
	       ATTACH_STATUS_HELP,
	       prog, DEFAULT_FILE);
}

static int snapshot_args(int argc, char **argv, const char **out, bool *quiet)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': *out = optarg; break;
		case 'q': *quiet = true; break;
		case 'h': snapshot_help(); return finish_output();
		case ':': return usage_error("snapshot", "option '%s' needs an argument", argv[optind - 1]);
		default: return usage_error("snapshot", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage_error("snapshot", optind >= argc ? "missing PID" : "one PID only");
	if (!**out)
		return usage_error("snapshot", "--output: empty file name");
	return -1;
}

int cmd_snapshot(int argc, char **argv)
{
	const char *out = DEFAULT_FILE;
	struct bp_record_counts res = BP_RECORD_COUNTS_INIT;
	struct attach a;
	bool quiet = false;
	char err[256];
	int rc;

	if ((rc = snapshot_args(argc, argv, &out, &quiet)) >= 0)
		return rc;
	if ((rc = clear_output(out)) != EXIT_OK ||
	    (rc = attach_open("snapshot", argv[optind], false, &a)) != EXIT_OK)
		return rc;
	rc = bp_trace_snapshot(a.fd, a.name, out, &res, err, sizeof(err));
	close(a.fd);
	if (rc == BP_TRACE_ENOMEM)
		return out_of_memory();
	if (rc == BP_RECORD_E_NOT_READY) {
		errmsg(argv[optind], "its trace is not readable yet (the process is starting)");
		return EXIT_NOTRACE;
	}
	if (rc != 0) {
		errmsg(out, "%s", err);
		return EXIT_IO;
	}
	if (!quiet)
		fprintf(stderr, "%s: %s: %llu ring%s, %llu records copied, %llu overwritten before\n",
			prog, out, (unsigned long long)res.rings, res.rings == 1 ? "" : "s",
			(unsigned long long)res.copied,
			(unsigned long long)res.lost_records);
	return EXIT_OK;
}
