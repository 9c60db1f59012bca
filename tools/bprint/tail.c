/*
 * bprint tail FILE|PID: follow a live trace file, trace_pipe style: every
 * record once, in the order the merged reader returns them, printed as it
 * arrives, until interrupted (SIGINT, SIGTERM) or, when following a
 * process, until that process has gone and its last records are printed.
 *
 * It reads with snapshot cursors, so it consumes nothing: a bprint record
 * draining the same file, or another tail, sees every record too.  Between
 * polls it sleeps (--interval); each poll refreshes the reader (new
 * threads, new sites) and drains every ring.
 */
#include "bprint_cmd.h"
#include "supervise.h"
#include "attach.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void tail_help(void)
{
	printf("Usage: %s tail [OPTION]... FILE|PID\n"
	       "Follow a live trace: print the records of FILE, and those added to it later,\n"
	       "each once, until interrupted (Ctrl-C), the file is closed, or the process\n"
	       "that wrote it has gone (killed: its last records printed).  With a process\n"
	       "id, follow the trace file that process has mapped, or its buffers in shared\n"
	       "memory (a program started with no bprint variable; see bprint snapshot),\n"
	       "else the one BPRINT_FILE names in its environment (under bprint record, the\n"
	       "file it records into), until the process ends.\n"
	       "\n"
	       "  -r, --raw            one record a line: ns tid cpu site-id message\n"
	       "  -m, --msg-only       the messages alone\n"
	       "  -t, --tid=TID        only records of thread TID (repeatable)\n"
	       "  -s, --site=SITE      only records of SITE: an id or a pattern (see report)\n"
	       "  -w, --where=EXPR     only records whose fields satisfy EXPR (as report's;\n"
	       "                       repeated, every one must hold)\n"
	       "      --from=SEC       only records at or after SEC seconds\n"
	       "      --to=SEC         only records at or before SEC seconds\n"
	       "  -N, --new            skip the records already in the file\n"
	       "  -n, --no-header      taken as report takes it (tail prints no header), so\n"
	       "                       that a report command line works here too\n"
	       "  -i, --interval=MS    poll every MS milliseconds (default 50)\n"
	       "  -h, --help           show this help\n"
	       "\n"
	       "Exit status: 0 success (interrupted, or the process ended), 1 bad command\n"
	       "line, 2 no such file or process, or a foreign or damaged file, 3 read or\n"
	       "write error, 4 the file lacks records it cannot account for.\n",
	       prog);
}

/* Does path hold the header of a trace file of process pid: the stream
 * bprint record writes (stream), else the live file it writes itself? */
static bool trace_of_pid(const char *path, long pid, bool stream)
{
	struct bp_trace_probe p = BP_TRACE_PROBE_INIT;

	return bp_trace_probe(path, &p) == 1 && !(p.flags & BP_TRACE_F_STREAM) == !stream &&
	       p.pid == (int64_t)pid;
}

/*
 * The live trace file process pid has mapped, from its mappings: a file
 * mapped shared and writable from offset 0 whose header is a live file's
 * of that process (a program that rewrote its process title has no
 * environment left to read).  NULL if there is none.
 */
static char *file_of_maps(long pid)
{
	char where[64], line[4096 + 128], *found = NULL;
	FILE *maps;

	snprintf(where, sizeof(where), "/proc/%ld/maps", pid);
	if (!(maps = fopen(where, "re")))
		return NULL;
	while (!found && fgets(line, sizeof(line), maps)) {
		char perms[8], *path;
		unsigned long long off;
		int at = 0;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%*x-%*x %7s %llx %*s %*u %n", perms, &off, &at) != 2 || !at ||
		    strcmp(perms, "rw-s") || off != 0 || line[at] != '/')
			continue;
		path = line + at;
		if (trace_of_pid(path, pid, false))	/* " (deleted)", or not ours: no */
			found = strdup(path);
	}
	fclose(maps);
	return found;
}

/* The environment of process pid, NUL-separated, its length in *len (a
 * NUL after it); NULL with errno set. */
static char *read_environ(long pid, size_t *len)
{
	char where[64], *env = NULL;
	size_t cap = 0;
	ssize_t n;
	int fd, saved;

	*len = 0;
	snprintf(where, sizeof(where), "/proc/%ld/environ", pid);
	if ((fd = open(where, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	for (;;) {
		if (*len + 4096 + 1 > cap) {
			char *grown = realloc(env, cap = cap ? cap * 2 : 65536);

			if (!grown) {
				n = -1;
				break;
			}
			env = grown;
		}
		n = read(fd, env + *len, cap - *len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	saved = errno;
	close(fd);
	if (n < 0) {
		free(env);
		errno = saved;
		return NULL;
	}
	env[*len] = '\0';
	return env;
}

/* The value of BPRINT_FILE in env (len bytes, from read_environ()), or
 * NULL. */
static char *bprint_file_in(char *env, size_t len)
{
	for (size_t i = 0; i < len; i += strlen(env + i) + 1)
		if (!strncmp(env + i, "BPRINT_FILE=", 12) && env[i + 12])
			return env + i + 12;
	return NULL;
}

/* Does process pid trace: a live trace file mapped, its buffers in shared
 * memory, or BPRINT_FILE? */
static bool traces(long pid)
{
	char *found = file_of_maps(pid), *env;
	size_t len;
	bool yes = found || (found = attach_path(pid)) != NULL;

	free(found);
	if (!yes && (env = read_environ(pid, &len))) {
		yes = bprint_file_in(env, len) != NULL;
		free(env);
	}
	return yes;
}

/*
 * A process without a trace of its own may run one that has: bprint
 * record (the recorder's PID), a shell.  Its children that trace, as
 * "1234 (redis-server)", into buf; how many.
 */
static size_t traced_children(long pid, char *buf, size_t size)
{
	char where[64], list[4096], comm[32];
	size_t found = 0, at = 0;
	ssize_t n;
	int fd;

	buf[0] = '\0';
	snprintf(where, sizeof(where), "/proc/%ld/task/%ld/children", pid, pid);
	if ((fd = open(where, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, list, sizeof(list) - 1);
	close(fd);
	list[n > 0 ? n : 0] = '\0';
	for (char *p = list, *end;; p = end) {
		long child = strtol(p, &end, 10);
		FILE *f;

		if (end == p)
			break;
		if (!traces(child))
			continue;
		snprintf(where, sizeof(where), "/proc/%ld/comm", child);
		comm[0] = '\0';
		if ((f = fopen(where, "re"))) {
			if (!fgets(comm, sizeof(comm), f))
				comm[0] = '\0';
			fclose(f);
		}
		comm[strcspn(comm, "\n")] = '\0';
		if (at < size)
			at += (size_t)snprintf(buf + at, size - at, "%s%ld (%s)", found ? ", " : "",
					       child, comm);
		found++;
	}
	return found;
}

/* The trace file of process pid: the live file it has mapped, or its
 * shared memory (attach.h), else BPRINT_FILE in its environment, made absolute with its working
 * directory ("path.PID" if the writer had to pick that name).  NULL with
 * a message on failure; for a process that traces nothing but runs one
 * that does (bprint record's PID), the message names it. */
static char *file_of_pid(const char *arg, long pid)
{
	char where[64], cwd[4096], *env, *val, *path;
	size_t len;
	ssize_t cn;
	long parent;

	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
		errmsg(arg, "no such process");
		return NULL;
	}
	if ((path = file_of_maps(pid)) != NULL || (path = attach_path(pid)) != NULL)
		return path;
	if ((parent = attach_forked_from(pid)) > 0) {
		errmsg(arg, "the process forked from %ld and has no trace of its own yet: a fork "
		       "child's is made when it first traces; try again then", parent);
		return NULL;
	}
	if (!(env = read_environ(pid, &len))) {
		errmsg(arg, "%s", errno == ENOENT ? "no such process" :
		       errno == ENOMEM ? "out of memory" : strerror(errno));
		return NULL;
	}
	if (!(val = bprint_file_in(env, len))) {
		char children[512];
		size_t n = traced_children(pid, children, sizeof(children));

		if (n == 1)
			errmsg(arg, "process has no BPRINT_FILE in its environment; it runs %s, "
			       "which traces: follow it with bprint tail %ld", children,
			       strtol(children, NULL, 10));
		else if (n)
			errmsg(arg, "process has no BPRINT_FILE in its environment; it runs %s, "
			       "which trace: follow one with bprint tail PID", children);
		else
			errmsg(arg, "process has no BPRINT_FILE in its environment");
		free(env);
		return NULL;
	}
	cwd[0] = '\0';
	if (val[0] != '/') {
		snprintf(where, sizeof(where), "/proc/%ld/cwd", pid);
		cn = readlink(where, cwd, sizeof(cwd) - 1);
		if (cn < 0) {
			errmsg(arg, "cannot find its working directory: %s", strerror(errno));
			free(env);
			return NULL;
		}
		cwd[cn] = '\0';
	}
	len = strlen(cwd) + strlen(val) + 32;
	path = malloc(len);
	if (path) {
		struct stat st;

		snprintf(path, len, "%s%s%s.%ld", cwd, cwd[0] ? "/" : "", val, pid);
		if (stat(path, &st) != 0)
			snprintf(path, len, "%s%s%s", cwd, cwd[0] ? "/" : "", val);
	}
	free(env);
	return path;
}

void follow_nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);	/* a signal cuts it short */
}

uint64_t follow_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Print (or, skipping, just read) what is there now. */
static int drain(struct bp_trace *t, struct filter *f, enum bprint_output how, bool skip)
{
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	long count = 0;
	int rc;

	if (!skip) {
		rc = print_records(t, f, how, &count);
		if (out_flush() != 0)
			return EXIT_IO;
		return rc;
	}
	while ((rc = bp_trace_next(t, &e, BP_TRACE_NEXT_NO_MESSAGE)) == 1)
		;
	return rc < 0 ? EXIT_BADFILE : EXIT_OK;
}

/* What the command line asks of tail. */
struct tail_opts {
	enum bprint_output how;
	bool skip;			/* --new */
	long interval;			/* ms */
	struct filter f;
	const char *arg;		/* FILE or PID */
};

/* Options and FILE|PID into o: -1 to go on, else the exit code. */
static int parse_tail_args(int argc, char **argv, struct tail_opts *o)
{
	static const struct option opts[] = {
		{ "raw", no_argument, NULL, 'r' },
		{ "msg-only", no_argument, NULL, 'm' },
		{ "tid", required_argument, NULL, 't' },
		{ "site", required_argument, NULL, 's' },
		{ "where", required_argument, NULL, 'w' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "new", no_argument, NULL, 'N' },
		{ "no-header", no_argument, NULL, 'n' },
		{ "interval", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c, rc = EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":rmt:s:w:Nni:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': o->how = BPRINT_OUTPUT_RAW; break;
		case 'm': o->how = BPRINT_OUTPUT_MSG; break;
		case 'N': o->skip = true; break;
		case 'n': break;	/* report's: tail prints no header */
		FILTER_OPTIONS: rc = filter_option(&o->f, "tail", c, optarg); break;
		case 'i':
			o->interval = strtol(optarg, &end, 10);
			if (end == optarg || *end || o->interval < 1 || o->interval > 60000)
				rc = usage_error("tail", "--interval: expected 1 to 60000 ms");
			break;
		case 'h': tail_help(); return finish_output();
		case ':': rc = usage_error("tail", "option '%s' needs an argument", argv[optind - 1]); break;
		default: rc = usage_error("tail", "unknown option '%s'", argv[optind - 1]); break;
		}
		if (rc)
			return rc;
	}
	if (optind >= argc)
		return usage_error("tail", "missing FILE or PID");
	if (optind + 1 < argc)
		return usage_error("tail", "unexpected argument '%s'", argv[optind + 1]);
	o->arg = argv[optind];
	return -1;
}

/*
 * The file bprint record copies process pid's live file into, if it does:
 * FILE for FILE.live, FILE.PID for FILE.live.PID (a child's).  Following
 * the live file itself would miss what the copier had copied and freed
 * before, and count it lost; the stream holds every record.  NULL if no
 * recorder copies live.
 */
#define RECORDED_WAIT_MS 1000

static char *recorded_into(const char *live, long pid)
{
	size_t n = strlen(live);
	const char *at = NULL;
	char *stream;

	for (const char *p = strstr(live, ".live"); p; p = strstr(p + 1, ".live"))
		at = p;	/* the last one */
	if (!at || (at[5] && at[5] != '.') || !(stream = malloc(n + 1)))
		return NULL;
	memcpy(stream, live, (size_t)(at - live));
	strcpy(stream + (at - live), at + 5);	/* "", or ".PID" */
	/* the recorder makes its stream once it has found the live file: a
	 * follower that came first waits for it, a while (the name alone may
	 * be a user's own) */
	for (int tries = 0; tries < RECORDED_WAIT_MS / 10 && alive(pid); tries++) {
		if (trace_of_pid(stream, pid, true))
			return stream;
		follow_nap(10);
	}
	if (trace_of_pid(stream, pid, true))
		return stream;
	free(stream);
	return NULL;
}

/* A number that names no file is a process: *path becomes its trace file
 * (allocated; the file bprint record copies it into, if one does) and
 * *pid its id.  Else *pid is 0 and arg is the file. */
int tail_target(const char *arg, long *pid, char **path)
{
	struct stat st;
	char *end, *stream;

	*pid = strtol(arg, &end, 10);
	if (end != arg && !*end && *pid > 0 && stat(arg, &st) != 0) {
		if (!(*path = file_of_pid(arg, *pid)))
			return EXIT_BADFILE;
		if ((stream = recorded_into(*path, *pid))) {
			free(*path);
			*path = stream;
		}
	} else {
		*pid = 0;
	}
	return EXIT_OK;
}

/*
 * Following: is the poll about to be made the last one?  Yes once process
 * pid has gone, or the file is closed cleanly (nothing more can come).
 * pid 0 (a file named, not a process): the process the file's header
 * names, so that the file of a program killed, or the stream of a killed
 * recorder (whose program died with it), ends the follow too.  But a
 * stream that bprint record copies into gets the copier's last pages
 * after its program ends: until the file is closed, or its end has not
 * moved for FOLLOW_SETTLE_MS (a recorder killed never closes it).
 */
#define FOLLOW_SETTLE_MS 2000u

bool follow_last_poll(struct follow_end *fe, struct bp_trace *t, long pid)
{
	const struct bp_trace_info *in = bp_trace_info(t);
	uint64_t now = follow_now_ns() / 1000000u, end = in->file_size;

	if (in->flags & BP_TRACE_F_CLOSED)
		return true;
	if (!pid && in->pid > 0 && in->pid <= INT32_MAX)
		pid = (long)in->pid;
	if (!pid || alive(pid))
		return false;
	if (!(in->flags & BP_TRACE_F_STREAM))
		return true;
	if (!fe->since || end != fe->end)
		fe->since = now, fe->end = end;
	return now - fe->since >= FOLLOW_SETTLE_MS;
}

bool follow_writer_at_work(struct bp_trace *t)
{
	const struct bp_trace_info *in = bp_trace_info(t);

	return stop && !(in->flags & BP_TRACE_F_CLOSED) && !in->stop_reason && in->pid > 0 &&
	       alive((long)in->pid);
}

int follow_verdict(const char *path, struct bp_trace *t)
{
	struct bp_trace_verdict v = BP_TRACE_VERDICT_INIT;
	const struct bp_trace_info *in = bp_trace_info(t);

	/* a stream not closed yet is all it lacks: not a fault, not a loss */
	if (follow_writer_at_work(t) && !in->memory_rings && !in->missing_sites) {
		bp_trace_verdict(t, &v);
		if (v.state != BP_TRACE_DAMAGED)
			return EXIT_OK;
	}
	return report_trouble(path, t);
}

void follow_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	/* a write to stdout under way goes on (it failed with EINTR: "write
	 * error", exit 3); the nap between polls is cut short all the same */
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

bool follow_interrupted(void)
{
	return stop != 0;
}

/*
 * Print what the file holds (or skip it, --new), then poll for more until
 * a signal or an error, or, following process pid (0: none), until it has
 * gone and one last poll is printed.  Returns the exit code.
 */
static int follow(struct bp_trace *t, struct tail_opts *o, long pid, const char *name)
{
	struct follow_end fe = { 0 };
	int rc = drain(t, &o->f, o->how, o->skip);

	while (rc == EXIT_OK && !stop) {
		bool last = follow_last_poll(&fe, t, pid);

		follow_nap(last ? 0 : o->interval);
		if (bp_trace_refresh(t) < 0) {
			errmsg(name, "read error");
			rc = EXIT_IO;
			break;
		}
		rc = drain(t, &o->f, o->how, false);
		if (last)
			break;
	}
	if (rc == EXIT_IO)
		errmsg(NULL, "write error: %s", strerror(errno ? errno : EIO));
	return rc;
}

int cmd_tail(int argc, char **argv)
{
	struct tail_opts o = { .how = BPRINT_OUTPUT_FTRACE, .interval = 50 };
	struct bp_trace *t;
	char *path = NULL;
	const char *name;
	long pid;
	int rc, rc2;

	if ((rc = parse_tail_args(argc, argv, &o)) >= 0) {
		filter_free(&o.f);
		return rc;
	}
	if ((rc = tail_target(o.arg, &pid, &path)) == EXIT_OK) {
		name = path ? path : o.arg;
		if ((t = open_trace(name, &rc))) {
			filter_note_sites(&o.f, t, name);
			follow_catch_signals();
			rc = follow(t, &o, pid, name);
			rc2 = follow_verdict(name, t);
			if (rc == EXIT_OK)
				rc = rc2;
			bp_trace_close(t);
		}
	}
	free(path);
	filter_free(&o.f);
	return rc;
}
