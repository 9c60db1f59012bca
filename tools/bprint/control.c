/*
 * bprint enable PID PATTERN, bprint disable PID PATTERN, bprint sites PID:
 * a running process's call sites switched and listed from outside
 * (docs/attach.md, "Switching call sites").
 *
 * The process's live file is found and opened as snapshot opens it
 * (attach.c: the kernel's ptrace access rule is the permission), but
 * read-write: its header's control area takes one request at a time,
 * which the process's control thread applies with bprint_enable() or
 * bprint_disable() and answers in place (bprint/control.h asks).
 */
#include "bprint_cmd.h"
#include "attach.h"

#include <bprint/control.h>

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_NOCONTROL	11	/* the process cannot switch its sites from outside (now) */

static int say(const char *sub, const char *arg, int status, const char *why)
{
	fflush(stdout);
	fprintf(stderr, "%s %s: %s: %s\n", prog, sub, arg, why);
	return status;
}

/* A process's control area, open. */
struct control {
	struct attach a;
	struct bp_control *c;
	const char *sub, *arg;
};

static int ended(void *arg)
{
	return attach_ended(arg);
}

/* A failure of bprint/control.h, said: its exit status. */
static int failed(const struct control *k, int rc)
{
	switch (rc) {
	case BP_CONTROL_E_DENIED:
		return say(k->sub, k->arg, EXIT_DENIED, "not permitted: its trace opens read-only "
			   "here (switching sites needs the same user or root)");
	case BP_CONTROL_E_VERSION:
		return say(k->sub, k->arg, EXIT_NOCONTROL,
			   "its libbprint switches sites in a way this bprint does not know");
	case BP_CONTROL_E_NONE:
		return say(k->sub, k->arg, EXIT_NOCONTROL,
			   "its libbprint cannot switch call sites from outside (older than "
			   "bprint enable, or it could not start its control thread)");
	case BP_CONTROL_E_NOT_YET:
		return say(k->sub, k->arg, EXIT_NOCONTROL,
			   "its control thread does not serve yet (a fork child's serves once "
			   "its first record has made its trace file): try again");
	case BP_CONTROL_E_ENDED:
		return say(k->sub, k->arg, EXIT_NOPROC, "the process has exited");
	case BP_CONTROL_E_BUSY:
		return say(k->sub, k->arg, EXIT_BUSY, "another bprint switches its sites now; "
			   "try again");
	case BP_CONTROL_E_TIMEOUT:
		return say(k->sub, k->arg, EXIT_NOCONTROL, "the process did not answer within a "
			   "second (stopped?); nothing was changed");
	case BP_CONTROL_E_NONSENSE:
		return say(k->sub, k->arg, EXIT_NOCONTROL, "the process answered nonsense");
	case BP_TRACE_ENOMEM:
		return out_of_memory();
	default:
		return say(k->sub, k->arg, EXIT_NOCONTROL, "the process could not do it (out "
			   "of memory)");
	}
}

static int control_open(const char *sub, const char *arg, struct control *k)
{
	int rc;

	memset(k, 0, sizeof(*k));
	k->sub = sub;
	k->arg = arg;
	if ((rc = attach_open(sub, arg, true, &k->a)) != EXIT_OK)
		return rc;
	if (!(k->c = bp_control_open(k->a.fd, ended, &k->a, &rc))) {
		close(k->a.fd);
		return failed(k, rc);
	}
	return EXIT_OK;
}

static void control_close(struct control *k)
{
	bp_control_close(k->c);
	close(k->a.fd);
}

static void switch_help(const char *sub)
{
	printf("Usage: %s %s PID PATTERN\n"
	       "%s the call sites of running process PID that PATTERN names, as the\n"
	       "program's own bprint_%s(PATTERN) would: now, and for the sites it registers\n"
	       "later (dlopen).  PATTERN is file:GLOB, line:FILE:LINE, func:GLOB, fmt:GLOB\n"
	       "or a function glob.  Says how many sites changed.\n"
	       "\n"
	       "  -q, --quiet  say nothing on success\n"
	       "  -h, --help   show this help\n"
	       "\n"
	       "Switching another user's process needs root (the kernel's ptrace access rule).\n"
	       ATTACH_STATUS_HELP
	       "11 the process cannot switch its sites from outside (an older libbprint),\n"
	       "its control thread does not serve yet (a fork child's, until its first\n"
	       "record: try again), or it did not answer within a second.\n",
	       prog, sub, strcmp(sub, "enable") ? "Disable" : "Enable", sub);
}

static int switch_args(const char *sub, int argc, char **argv, bool *quiet)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+qh", opts, NULL)) != -1) {
		switch (c) {
		case 'q': *quiet = true; break;
		case 'h': switch_help(sub); return finish_output();
		default: return usage_error(sub, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return usage_error(sub, argc - optind < 2 ? "expected PID PATTERN" : "one PATTERN only");
	if (!argv[optind + 1][0] || strlen(argv[optind + 1]) > BP_CONTROL_PATTERN_MAX)
		return usage_error(sub, "PATTERN: empty, or longer than %u bytes",
				   BP_CONTROL_PATTERN_MAX);
	return -1;
}

static int cmd_switch(const char *sub, int enable, int argc, char **argv)
{
	struct control k;
	bool quiet = false;
	const char *pattern;
	int result;
	int rc;

	if ((rc = switch_args(sub, argc, argv, &quiet)) >= 0)
		return rc;
	pattern = argv[optind + 1];
	if ((rc = control_open(sub, argv[optind], &k)) != EXIT_OK)
		return rc;
	result = bp_control_switch(k.c, enable, pattern);
	control_close(&k);
	if (result == BP_CONTROL_E_PATTERN)
		return say(sub, pattern, EXIT_USAGE, "not a site pattern: expected file:GLOB, "
			   "line:FILE:LINE, func:GLOB, fmt:GLOB or a function glob");
	if (result < 0)
		return failed(&k, result);
	if (!quiet)
		printf("%s: %d site%s %sd\n", argv[optind], result, result == 1 ? "" : "s", sub);
	return finish_output();
}

int cmd_enable(int argc, char **argv)
{
	return cmd_switch("enable", 1, argc, argv);
}

int cmd_disable(int argc, char **argv)
{
	return cmd_switch("disable", 0, argc, argv);
}

/* ---- bprint sites PID ------------------------------------------------------ */

static void sites_help(void)
{
	printf("Usage: %s sites PID\n"
	       "List the call sites of running process PID, one a line:\n"
	       "  ID STATE RECORDS FILE:LINE FUNCTION \"FORMAT\"\n"
	       "STATE is on or off (bprint enable, bprint disable, the program's own\n"
	       "bprint_enable()); RECORDS the site's records its trace buffers hold now.  A\n"
	       "runtime-format site lists each format it traced, with its call site's state.\n"
	       "\n"
	       "  -h, --help  show this help\n"
	       "\n"
	       ATTACH_STATUS_HELP
	       "11 the process cannot list its sites' states (an older libbprint), its\n"
	       "control thread does not serve yet (a fork child's, until its first record:\n"
	       "try again), or it did not answer within a second.\n",
	       prog);
}

/* Records per site id (up to max) that the trace at path holds now. */
static uint64_t *count_records(const char *path, uint32_t max)
{
	struct bp_trace_event ev = BP_TRACE_EVENT_INIT;
	char err[256];
	uint64_t *counts = calloc((size_t)max + 1, sizeof(*counts));
	struct bp_trace *t;

	if (!counts)
		return NULL;
	if (!(t = bp_trace_open(path, BP_TRACE_OPEN_NO_SYMBOLS, err, sizeof(err), NULL)))
		return counts;	/* not readable now: no records counted */
	while (bp_trace_next(t, &ev, BP_TRACE_NEXT_ARGS_ONLY) > 0)
		if (ev.site_id <= max)
			counts[ev.site_id]++;
	bp_trace_close(t);
	return counts;
}

static void put_site(const struct bp_trace_site *ts, bool on, uint64_t records)
{
	const struct bp_trace_site *s = ts;

	printf("%6u %-3s %10llu %s:%u %s ", s->id, on ? "on" : "off",
	       (unsigned long long)records, s->file ? s->file : "?", s->line,
	       s->func ? s->func : "?");
	if (s->format) {
		putchar('"');
		for (const char *p = s->format; *p; p++)
			if (*p == '\n')
				fputs("\\n", stdout);
			else if (*p == '"' || *p == '\\')
				printf("\\%c", *p);
			else
				putchar((unsigned char)*p < ' ' ? '?' : *p);
		putchar('"');
	} else {
		fputs("(formatted at trace time)", stdout);
	}
	putchar('\n');
}

int cmd_sites(int argc, char **argv)
{
	struct control k;
	struct bp_trace *t;
	uint64_t *counts;
	uint8_t *states;
	uint32_t n;
	int gate = 1;
	char err[256];
	int rc;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		sites_help();
		return finish_output();
	}
	if (argc != 2)
		return usage_error("sites", argc < 2 ? "missing PID" : "one PID only");
	if ((rc = control_open("sites", argv[1], &k)) != EXIT_OK)
		return rc;
	if ((rc = bp_control_states(k.c, &states, &n, &gate)) != 0) {
		control_close(&k);
		return failed(&k, rc);
	}
	if (!(t = bp_trace_open(k.a.name, BP_TRACE_OPEN_NO_SYMBOLS, err, sizeof(err), NULL))) {
		free(states);
		control_close(&k);
		return say("sites", argv[1], EXIT_NOTRACE, err);
	}
	counts = count_records(k.a.name, bp_trace_max_site_id(t));
	if (!gate)
		printf("# tracing is off in the process (bprint_off()): no site records\n");
	printf("%6s %-3s %10s %s\n", "ID", "ST", "RECORDS", "FILE:LINE FUNCTION \"FORMAT\"");
	for (size_t i = 0; i < bp_trace_nsites(t); i++) {
		const struct bp_trace_site *ts = bp_trace_site_at(t, i);
		uint32_t id = ts->id;

		if (id >= BP_TRACE_KERNEL_SITE_BASE)
			continue;
		put_site(ts, id < n && states[id], counts ? counts[id] : 0);
	}
	free(counts);
	free(states);
	bp_trace_close(t);
	control_close(&k);
	return finish_output();
}
