/*
 * bprint enable PID PATTERN, bprint disable PID PATTERN, bprint sites PID:
 * a running process's call sites switched and listed from outside
 * (docs/attach.md, "Switching call sites").
 *
 * The process's live file is found and opened as snapshot opens it
 * (attach.c: the kernel's ptrace access rule is the permission), but
 * read-write: its header's control area (src/file/layout.h) takes one
 * request at a time, which the process's control thread applies with
 * bprint_enable() or bprint_disable() and answers in place.  The asker
 * claims the area with a compare-and-swap, writes the request, posts it
 * and sleeps on the futex until the answer, one second at most; a
 * request the process did not take in time is withdrawn (so a stopped
 * process does not apply it later, unasked).
 *
 * Orderings: Q1 (release of POSTED: the request before it) pairs with the
 * process's acquire CAS; Q2 (the process's release of ANSWERED) with the
 * acquire load here.
 */
#include "bprint_cmd.h"
#include "attach.h"

#include "file/layout.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define EXIT_NOCONTROL	11	/* the process cannot switch its sites from outside */
#define WAIT_NS		1000000000ull	/* for the area, then for the answer */
#define NAP_NS		20000000L	/* a look at the process between naps */
#define SITE_IDS	(1u << 18)	/* the records' site field (docs/trace-format.md) */

static void futex_wait(_Atomic uint32_t *word, uint32_t val)
{
	const struct timespec nap = { 0, NAP_NS };

	/* not FUTEX_PRIVATE: the process that answers maps the same page */
	(void)syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, val, &nap, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
	(void)syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int say(const char *sub, const char *arg, int status, const char *why)
{
	fflush(stdout);
	fprintf(stderr, "%s %s: %s: %s\n", prog, sub, arg, why);
	return status;
}

/* A process's control area, mapped. */
struct control {
	struct attach a;
	struct bp_file_header *h;
	struct bp_file_control *c;
	const char *sub, *arg;
};

static int control_open(const char *sub, const char *arg, struct control *k)
{
	uint32_t version;
	int rc;

	memset(k, 0, sizeof(*k));
	k->sub = sub;
	k->arg = arg;
	if ((rc = attach_open(sub, arg, true, &k->a)) != EXIT_OK)
		return rc;
	k->h = mmap(NULL, BP_FILE_HEADER_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, k->a.fd, 0);
	if (k->h == MAP_FAILED) {
		k->h = NULL;
		close(k->a.fd);
		return say(sub, arg, EXIT_DENIED, "not permitted: its trace opens read-only here "
			   "(switching sites needs the same user or root)");
	}
	k->c = &k->h->control;
	if ((version = atomic_load_explicit(&k->c->version, memory_order_acquire)) !=
	    BP_CONTROL_VERSION) {
		munmap(k->h, BP_FILE_HEADER_BYTES);
		close(k->a.fd);
		return say(sub, arg, EXIT_NOCONTROL, version
			   ? "its libbprint switches sites in a way this bprint does not know"
			   : "its libbprint cannot switch call sites from outside (older than "
			     "bprint enable, or it could not start its control thread)");
	}
	return EXIT_OK;
}

static void control_close(struct control *k)
{
	munmap(k->h, BP_FILE_HEADER_BYTES);
	close(k->a.fd);
}

/* Take the area: EXIT_OK, or a refusal. */
static int claim(struct control *k)
{
	uint64_t deadline = mono_ns() + WAIT_NS;

	for (;;) {
		uint32_t s = BP_CONTROL_IDLE;

		/* relaxed: the request is published by Q1, nothing before it */
		if (atomic_compare_exchange_strong_explicit(&k->c->state, &s, BP_CONTROL_CLAIMED,
							    memory_order_relaxed,
							    memory_order_relaxed)) {
			atomic_store_explicit(&k->c->asker, (uint32_t)getpid(), memory_order_relaxed);
			return EXIT_OK;
		}
		if (attach_ended(&k->a))
			return say(k->sub, k->arg, EXIT_NOPROC, "the process has exited");
		if (mono_ns() > deadline)
			return say(k->sub, k->arg, EXIT_BUSY, "another bprint switches its sites "
				   "now; try again");
		futex_wait(&k->c->state, s);
	}
}

/* Post the request written in the area and wait for the answer. */
static int ask(struct control *k)
{
	uint64_t deadline = mono_ns() + WAIT_NS;

	/* Q1: the request before POSTED; pairs with the process's acquire CAS */
	atomic_store_explicit(&k->c->state, BP_CONTROL_POSTED, memory_order_release);
	futex_wake(&k->c->state);
	for (;;) {
		/* Q2: the answer after ANSWERED; pairs with the process's release */
		uint32_t s = atomic_load_explicit(&k->c->state, memory_order_acquire);

		if (s == BP_CONTROL_ANSWERED)
			return EXIT_OK;
		if (attach_ended(&k->a))
			return say(k->sub, k->arg, EXIT_NOPROC, "the process has exited");
		if (mono_ns() > deadline && s == BP_CONTROL_POSTED &&
		    atomic_compare_exchange_strong_explicit(&k->c->state, &s, BP_CONTROL_IDLE,
							    memory_order_relaxed,
							    memory_order_relaxed))
			return say(k->sub, k->arg, EXIT_NOCONTROL, "the process did not answer "
				   "within a second (stopped?); nothing was changed");
		futex_wait(&k->c->state, s);
	}
}

/* The answer read: the area is free again. */
static void release(struct control *k)
{
	atomic_store_explicit(&k->c->asker, 0, memory_order_relaxed);
	atomic_store_explicit(&k->c->state, BP_CONTROL_IDLE, memory_order_release);
	futex_wake(&k->c->state);
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
	       "11 the process cannot switch its sites from outside (an older libbprint), or\n"
	       "did not answer within a second.\n",
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
	if (!argv[optind + 1][0] || strlen(argv[optind + 1]) >= BP_CONTROL_DATA_BYTES)
		return usage_error(sub, "PATTERN: empty, or longer than %u bytes",
				   BP_CONTROL_DATA_BYTES - 1);
	return -1;
}

static int cmd_switch(const char *sub, uint32_t op, int argc, char **argv)
{
	struct control k;
	bool quiet = false;
	const char *pattern;
	int32_t result;
	int rc;

	if ((rc = switch_args(sub, argc, argv, &quiet)) >= 0)
		return rc;
	pattern = argv[optind + 1];
	if ((rc = control_open(sub, argv[optind], &k)) != EXIT_OK)
		return rc;
	if ((rc = claim(&k)) != EXIT_OK) {
		control_close(&k);
		return rc;
	}
	k.c->op = op;
	k.c->count = (uint32_t)strlen(pattern);
	memcpy(k.c->data, pattern, k.c->count + 1);
	if ((rc = ask(&k)) != EXIT_OK) {
		control_close(&k);
		return rc;
	}
	result = k.c->result;
	release(&k);
	control_close(&k);
	if (result == BP_CONTROL_BAD_PATTERN)
		return say(sub, pattern, EXIT_USAGE, "not a site pattern: expected file:GLOB, "
			   "line:FILE:LINE, func:GLOB, fmt:GLOB or a function glob");
	if (result < 0)
		return say(sub, argv[optind], EXIT_NOCONTROL, "the process could not do it (out "
			   "of memory)");
	if (!quiet)
		printf("%s: %d site%s %sd\n", argv[optind], result, result == 1 ? "" : "s", sub);
	return finish_output();
}

int cmd_enable(int argc, char **argv)
{
	return cmd_switch("enable", BP_CONTROL_ENABLE, argc, argv);
}

int cmd_disable(int argc, char **argv)
{
	return cmd_switch("disable", BP_CONTROL_DISABLE, argc, argv);
}

/* ---- bprint sites PID ------------------------------------------------------ */

/* Every site's state, a byte each (1 on), ids [0, *n). */
static int ask_states(struct control *k, uint8_t **states, uint32_t *n, bool *gate)
{
	uint32_t first = 1;
	int rc;

	*states = NULL;
	*n = 0;
	do {
		uint32_t count, end;
		uint8_t *grown;

		if ((rc = claim(k)) != EXIT_OK)
			return rc;
		k->c->op = BP_CONTROL_STATES;
		k->c->first = first;
		if ((rc = ask(k)) != EXIT_OK)
			return rc;
		end = (uint32_t)k->c->result;
		count = k->c->count;
		*gate = k->c->gate;
		if (count > BP_CONTROL_DATA_BYTES * 8 || first + count > end) {
			release(k);
			return say(k->sub, k->arg, EXIT_NOCONTROL, "the process answered nonsense");
		}
		if (!(grown = realloc(*states, (size_t)first + count + 1))) {
			release(k);
			return out_of_memory();
		}
		*states = grown;
		memset(*states + *n, 0, first + count - *n);
		for (uint32_t i = 0; i < count; i++)
			(*states)[first + i] = (k->c->data[i / 8] >> (i % 8)) & 1;
		*n = first + count;
		release(k);
		first += count;
		if (!count)
			break;
	} while (first < SITE_IDS);
	return EXIT_OK;
}

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
	       "11 the process cannot list its sites' states (an older libbprint), or did\n"
	       "not answer within a second.\n",
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
	bool gate = true;
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
	if ((rc = ask_states(&k, &states, &n, &gate)) != EXIT_OK) {
		free(states);
		control_close(&k);
		return rc;
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
