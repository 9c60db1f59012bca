/*
 * bprint record [OPTION]... -- CMD [ARG]...: run CMD with tracing into a
 * file.
 *
 * The child gets BPRINT_FILE=FILE.live and BPRINT_RECORD_PID (and
 * BPRINT_BUFFER_SIZE, BPRINT_MODE, record's defaults unless given or in
 * the environment; BPRINT_PAGE_SIZE, BPRINT_BLOCK_TIMEOUT, BPRINT_CLOCK
 * when given): its rings live in that file, with us as their consumer
 * (the drainer of <bprint/record.h>, supervised by supervise.h): it copies every full
 * page into FILE while the child runs.  Children of the child that exec
 * and keep BPRINT_FILE are copied too: the first traced program into
 * FILE, the others into FILE.PID, so a wrapper as CMD works.  When each
 * has exited, the drainer copies what is left, writes the final counters,
 * marks its file closed and removes its live file.
 *
 * SIGINT, SIGTERM and SIGHUP sent to bprint record alone (kill) are passed
 * on to the child; a terminal's Ctrl-C reaches both already.  A second one
 * stops the drain at once (the file is still finished properly).
 *
 * If bprint record itself dies (SIGKILL, a crash), the child dies with it
 * (PR_SET_PDEATHSIG): nobody would copy its pages any more, and FILE says
 * what it holds from its accounts (docs/file-format.md).  The signal
 * follows the death of the thread that forked, so the fork happens on the
 * thread that drains, and the child checks after prctl() that its parent
 * is still the one that forked it (the parent may have died before).
 */
#include "bprint_cmd.h"
#include "attach.h"
#include "supervise.h"
#include "trigger.h"
#include "record_kernel.h"

#include <bprint/record.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * record's defaults (README, "bprint record"): block mode and 4 MiB per
 * thread, where the in-memory flight recorder has overwrite and 1 MiB.  A
 * stream should keep what the program traced, as NanoLog does: the writer
 * waits for the copier only when its buffer is full, and a 4 MiB buffer
 * absorbs the copier's scheduling delays so that it seldom has to.
 */
#define RECORD_MODE "block"
#define RECORD_BUFFER "4M"

static volatile sig_atomic_t child_pid;
/* traced programs that could not make their live file, and the last one's pid */
static volatile sig_atomic_t no_file_count, no_file_pid;
static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t stop_drain;

/* The stream files written, in the order they were created: "A, B.PID". */
struct outputs {
	char *names;
	size_t len;
	unsigned n;
	char **paths;			/* each, for the verdict at the end */
	unsigned npaths;
};

static void on_output(void *arg, const char *path)
{
	struct outputs *o = arg;
	size_t add = strlen(path) + 2;
	char *grown = realloc(o->names, o->len + add + 1);
	char **paths = realloc(o->paths, (o->npaths + 1) * sizeof(*paths));

	if (paths && (paths[o->npaths] = strdup(path)))
		o->npaths++;
	if (paths)
		o->paths = paths;
	if (!grown)
		return;
	o->names = grown;
	o->len += (size_t)snprintf(o->names + o->len, add + 1, "%s%s", o->n ? ", " : "", path);
	o->n++;
}

static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (got_signal)
		stop_drain = 1;	/* the second one: finish now */
	got_signal = sig;
	/* A terminal signals the whole process group: the child has it too. */
	if (child_pid > 0 && si && si->si_code == SI_USER)
		kill((pid_t)child_pid, sig);
}

static void record_help(void)
{
	printf("Usage: %s record [OPTION]... [--] COMMAND [ARG]...\n"
	       "  or:  %s record --pid PID [-o FILE] [--duration T]\n"
	       "  or:  %s record [--pid PID] --trigger SITE [--where EXPR] --before T1\n"
	       "                 --after T2 [--max N] -o FILE [--] [COMMAND [ARG]...]\n"
	       "Run COMMAND, a program linked with libbprint, with its trace going to a file;\n"
	       "or copy the trace of PID, a program already running, from what its buffers\n"
	       "hold now until Ctrl-C, T (like 10s, 500ms) or its exit (exit status 10 then,\n"
	       "5-9 when it cannot be read: see bprint snapshot --help).\n"
	       "\n"
	       "      --pid=PID          a running program's trace (perf's -p; here -p is\n"
	       "                         the page size)\n"
	       "      --duration=T       with --pid: stop after T\n"
	       "      --trigger=SITE     keep the buffers in overwrite mode, watch the records\n"
	       "                         as they are written, and for each record of SITE (an\n"
	       "                         id or pattern, as bprint report --site) at time t\n"
	       "                         write the window [t-T1, t+T2] of every thread as a\n"
	       "                         trace file FILE.1, FILE.2, ...\n"
	       "      --where=EXPR       with --trigger: only records whose fields match EXPR\n"
	       "      --before=T1, --after=T2  the window around a match (like 5ms)\n"
	       "      --max=N            with --trigger: N windows at most (default 1), then\n"
	       "                         stop watching\n"
	       "  -o, --output=FILE      the trace file (default %s); an existing trace file\n"
	       "                         is replaced, any other file is left alone\n"
	       "  -b, --buffer-size=N    per-thread buffer, e.g. 64K, 16M, at most 4G\n"
	       "                         (BPRINT_BUFFER_SIZE; default %s here, 1M in memory)\n"
	       "  -p, --page-size=N      ring page size, a power of two from 1K to 64K\n"
	       "                         (BPRINT_PAGE_SIZE)\n"
	       "  -M, --mode=MODE        block (the default here: a writer whose buffer is\n"
	       "                         full waits for the copy), discard (keep the oldest\n"
	       "                         records) or overwrite (flight recorder) (BPRINT_MODE)\n"
	       "  -t, --block-timeout=T  block mode's longest wait, e.g. 100ms, 2s, 500us; then\n"
	       "                         the record is discarded and counted\n"
	       "                         (BPRINT_BLOCK_TIMEOUT, default 100ms)\n"
	       "  -c, --clock=CLOCK      tsc, mono, mono_raw, boot or counter (BPRINT_CLOCK)\n"
	       "      --kernel[=LIST]    also record the kernel's events, on the same clock\n"
	       "                         (root): LIST is sched (the default), syscalls, irq\n"
	       "                         or SYSTEM:EVENT names, comma-separated\n"
	       "      --kernel-buffer=N  the kernel's buffer per CPU (default 4M)\n"
	       "  -q, --quiet            no summary on stderr at the end\n"
	       "  -h, --help             show this help\n"
	       "\n"
	       "While COMMAND runs, its trace goes to FILE.live and bprint record copies every\n"
	       "full page of it into FILE.  With the defaults nothing is lost: a thread that\n"
	       "outruns the copy waits for it (at most the block timeout, then the record is\n"
	       "discarded and counted); in discard mode records are dropped (and counted)\n"
	       "when copying falls behind.  Options win over the environment, which wins over\n"
	       "these defaults.  When COMMAND is a wrapper (a script, sh -c), the first\n"
	       "traced program it starts goes to FILE and every other one to FILE.PID; the\n"
	       "summary names them.  Ctrl-C stops COMMAND (a second one stops copying at\n"
	       "once); FILE is complete when bprint record ends.\n"
	       "If bprint record is killed, COMMAND is killed too and FILE says what it lacks.\n"
	       "Exit status, once the trace is recorded: COMMAND's, or 128+N if signal N\n"
	       "killed it (0 if it was stopped by the signal bprint record was sent and passed\n"
	       "on).  bprint record's own errors, each with a line on stderr: 1 bad command\n"
	       "line, 2 the output exists and is not a trace file, 3 COMMAND could not be run\n"
	       "or the trace not written whole: FILE lacks records it does not count as\n"
	       "discarded or overwritten (a file that filled up; the line on stderr counts\n"
	       "them).\n",
	       prog, prog, prog, DEFAULT_FILE, RECORD_BUFFER);
}

/* CPU time of this process alone (the copier), not of the command. */
static double copier_cpu_ms(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/*
 * The trace is written: exit as COMMAND did, 128 + the signal that killed
 * it, as strace and time do.  COMMAND ended by the signal we were sent and
 * passed on (kill, Ctrl-C) was stopped on request: that is a success.
 */
static int command_status(int status)
{
	if (WIFSIGNALED(status))
		return WTERMSIG(status) == got_signal ? EXIT_OK : 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_IO;
}

/*
 * Make room for a trace file: replace an old trace of ours, nothing else.
 * The name is checked by the rule of src/trace/safe_open.c (opened as it
 * is, nothing changed), then removed; the drainer creates the file anew.
 */
int clear_output(const char *path)
{
	const char *why;
	char magic[8];
	struct stat st;
	ssize_t n;
	int fd;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? EXIT_OK : (errmsg(path, "%s", strerror(errno)), EXIT_IO);
	fd = bp_record_open_output(path, BP_RECORD_OPEN_RDWR | BP_RECORD_OPEN_KEEP, &why);
	if (fd < 0) {
		errmsg(path, "%s", why ? why : strerror(errno));
		return why ? EXIT_BADFILE : EXIT_IO;
	}
	n = pread(fd, magic, sizeof(magic), 0);
	close(fd);
	if (n != 0 && (n != (ssize_t)sizeof(magic) || !bp_record_is_trace(magic, sizeof(magic)))) {
		errmsg(path, "exists and is not a bprint trace file (not replaced)");
		return EXIT_BADFILE;
	}
	if (unlink(path) != 0) {
		errmsg(path, "cannot replace it: %s", strerror(errno));
		return EXIT_IO;
	}
	return EXIT_OK;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/*
 * "bprint: FILE, FILE.PID: 2 rings, ..." on stderr: every file written,
 * counted with the words and sums of bprint stats (written, discarded and
 * overwritten, dropped records in both written and discarded).
 */
static void summary(const struct bp_record_counts *res, const struct outputs *written)
{
	fprintf(stderr, "%s: %s: %llu ring%s, %llu records written, %llu discarded", prog,
		written->names ? written->names : "no file", (unsigned long long)res->rings,
		plural(res->rings), (unsigned long long)(res->written + res->dropped),
		(unsigned long long)(res->discarded + res->dropped));
	if (res->lost_records)
		fprintf(stderr, ", %llu overwritten", (unsigned long long)res->lost_records);
	if (res->not_copied)
		fprintf(stderr, ", %llu not copied", (unsigned long long)res->not_copied);
	if (res->memory_rings)
		fprintf(stderr, "; the trace file was full: %llu buffer%s kept in memory only, "
			"%llu records not in the file", (unsigned long long)res->memory_rings,
			plural(res->memory_rings), (unsigned long long)res->memory_records);
	if (written->n > 1)
		fprintf(stderr, "; %u traced programs, one file each", written->n);
	fprintf(stderr, "; copier CPU %.1f ms\n", copier_cpu_ms());
}

/*
 * Does the trace lack records it did not count as discarded or
 * overwritten?  Each stream file written says, as bprint report and stats
 * would (the reader's verdict, its lines on stderr): a stream whose
 * writes stopped, buffers and call sites the live file had no room for.
 */
static bool trace_lacks(const struct outputs *written)
{
	bool lacks = false;

	for (unsigned i = 0; i < written->npaths; i++) {
		int rc;
		struct bp_trace *t = open_trace(written->paths[i], &rc);

		if (!t || report_trouble(written->paths[i], t) != EXIT_OK)
			lacks = true;
		bp_trace_close(t);
	}
	return lacks;
}

/* What the command line asks of record. */
struct record_opts {
	const char *out, *bufsize, *pagesize, *mode, *clock, *timeout;
	const char *pid, *duration;	/* --pid: a running program's (attach.c) */
	bool kernel;			/* --kernel */
	const char *kernel_list, *kernel_buffer;
	bool quiet;
	struct trigger_opts trig;	/* --trigger and its options (trigger.c) */
	char **cmd;			/* COMMAND and its arguments */
	uint64_t started_ns;		/* CLOCK_REALTIME at the start, before COMMAND */
};

/* The argument of option c, checked: 0, or a usage error. */
static int check_value(int c, const char *arg)
{
	size_t n;

	switch (c) {
	case 'b':
		n = bp_record_parse_size(arg);
		if (!n || n > bp_record_buffer_max())
			return usage_error("record", "--buffer-size: expected a size up to 4G: '%s'", arg);
		break;
	case 'p':
		n = bp_record_parse_size(arg);
		if (n < 1024 || n > 65536 || (n & (n - 1)))
			return usage_error("record", "--page-size: expected a power of two from 1K to 64K");
		break;
	case 'M':
		if (!bp_record_mode_known(arg))
			return usage_error("record", "--mode: expected block, discard or overwrite");
		break;
	case 't':
		n = bp_record_parse_duration(arg);
		if (!n || n > 60000000000ull)
			return usage_error("record", "--block-timeout: expected a duration up to 60s, like 100ms");
		break;
	case 'c':
		if (!bp_record_clock_known(arg))
			return usage_error("record", "--clock: expected tsc, mono, mono_raw, boot or counter");
		break;
	case 'B':
		if (!kernel_rec_buffer_ok(arg))
			return usage_error("record", "--kernel-buffer: expected a size of 4K or more, like 8M");
		break;
	}
	return 0;
}

/* --trigger and the options that go with it: -1 if fine, else the exit code. */
static int check_trigger(struct record_opts *o)
{
	char err[300];

	o->trig.quiet = o->quiet;
	if (!o->trig.site) {
		if (o->trig.where || o->trig.before || o->trig.after || o->trig.max)
			return usage_error("record", "--where, --before, --after and --max go with --trigger");
		return -1;
	}
	if (!*o->trig.site)
		return usage_error("record", "--trigger: expected a call site (id or pattern)");
	if (trigger_check(&o->trig, err, sizeof(err)) != 0)
		return usage_error("record", "%s", err);
	if (o->mode && strcmp(o->mode, "overwrite") != 0)
		return usage_error("record", "--trigger: the buffers stay in overwrite mode (no --mode)");
	if (o->kernel)
		return usage_error("record", "--trigger: not with --kernel");
	return -1;
}

/* Options and COMMAND into o: -1 to go on, else the exit code. */
static int parse_record_args(int argc, char **argv, struct record_opts *o)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "page-size", required_argument, NULL, 'p' },
		{ "mode", required_argument, NULL, 'M' },
		{ "block-timeout", required_argument, NULL, 't' },
		{ "clock", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "pid", required_argument, NULL, 'P' },
		{ "duration", required_argument, NULL, 'D' },
		{ "kernel", optional_argument, NULL, 'K' },
		{ "kernel-buffer", required_argument, NULL, 'B' },
		{ "trigger", required_argument, NULL, 'T' },
		{ "where", required_argument, NULL, 'W' },
		{ "before", required_argument, NULL, 'E' },
		{ "after", required_argument, NULL, 'A' },
		{ "max", required_argument, NULL, 'X' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	optind = 1;
	opterr = 0;
	/* '+': options end at the command */
	while ((c = getopt_long(argc, argv, "+:o:b:p:M:t:c:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case 'b': o->bufsize = optarg; break;
		case 'p': o->pagesize = optarg; break;
		case 'M': o->mode = optarg; break;
		case 't': o->timeout = optarg; break;
		case 'c': o->clock = optarg; break;
		case 'q': o->quiet = true; break;
		case 'P': o->pid = optarg; break;
		case 'D': o->duration = optarg; break;
		case 'K': o->kernel = true; o->kernel_list = optarg; break;
		case 'B': o->kernel_buffer = optarg; break;
		case 'T': o->trig.site = optarg; break;
		case 'W': o->trig.where = optarg; break;
		case 'E': o->trig.before = optarg; break;
		case 'A': o->trig.after = optarg; break;
		case 'X': o->trig.max = optarg; break;
		case 'h': record_help(); return finish_output();
		case ':': return usage_error("record", "option '%s' needs an argument", argv[optind - 1]);
		default: return usage_error("record", "unknown option '%s'", argv[optind - 1]);
		}
		if ((rc = check_value(c, optarg)) != 0)
			return rc;
	}
	if ((rc = check_trigger(o)) >= 0)
		return rc;
	if (o->pid && (optind < argc || o->bufsize || o->pagesize || o->mode || o->timeout || o->clock))
		return usage_error("record", "--pid: no COMMAND, and the program's buffers as they are");
	if (o->duration && !o->pid)
		return usage_error("record", "--duration: only with --pid");
	if (optind >= argc && !o->pid)
		return usage_error("record", "missing COMMAND");
	if (!*o->out)
		return usage_error("record", "--output: empty file name");
	if (o->kernel_buffer && !o->kernel)
		return usage_error("record", "--kernel-buffer needs --kernel");
	o->cmd = argv + optind;
	return -1;
}

/* A file with no name in path's directory (O_TMPFILE): -1 with errno if
 * the directory cannot take one. */
static int open_unnamed_beside(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	int fd;

	if (!dir) {
		errno = ENOMEM;
		return -1;
	}
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	free(dir);
	return fd;
}

/*
 * Can FILE be created (a read-only directory, a missing one)?  So that
 * COMMAND does not run for a trace that cannot be kept.  Asked with a
 * file that has no name: a recorder killed now leaves nothing behind (a
 * file made by its name and removed again was left empty, unexplained,
 * by a SIGKILL in between).  Where the file system has no O_TMPFILE, the
 * name itself is made and removed.
 */
static int can_create(const char *path)
{
	const char *why = NULL;
	int fd = open_unnamed_beside(path);

	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		fd = bp_record_open_output(path, BP_RECORD_OPEN_PRIVATE, &why);
		if (fd >= 0)
			unlink(path);
	}
	if (fd < 0) {
		errmsg(path, "cannot create it: %s (COMMAND not run)", why ? why : strerror(errno));
		return why ? EXIT_BADFILE : EXIT_IO;
	}
	close(fd);
	return EXIT_OK;
}

/* FILE.live (allocated), once FILE and FILE.live are cleared; NULL with
 * *rc set. */
static char *prepare_outputs(const char *out, int *rc)
{
	size_t len = strlen(out) + sizeof(".live");
	char *live = malloc(len);

	if (!live) {
		*rc = usage_error("record", "out of memory");
		return NULL;
	}
	snprintf(live, len, "%s.live", out);
	/* a killed recorder's: the user asked for FILE anew, but not silently */
	{
		char *left = live_left(out, NULL);

		if (left)
			errmsg(out, "left by a bprint record that was killed, its uncopied records in "
			       "%s: both replaced ('%s recover %s' would have finished it)", left,
			       prog, out);
		free(left);
		say_children_left(out);	/* theirs are left alone: other names */
	}
	if ((*rc = clear_output(out)) != EXIT_OK || (*rc = clear_output(live)) != EXIT_OK ||
	    (*rc = can_create(out)) != EXIT_OK) {
		free(live);
		return NULL;
	}
	return live;
}

/* BP_RECORD_NO_FILE_SIGNAL from a traced program (src/writer/writer.c). */
static void on_no_file(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si && si->si_code == SI_QUEUE) {
		no_file_count++;
		no_file_pid = si->si_value.sival_int;
	}
}

static void forward_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_no_file;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(BP_RECORD_NO_FILE_SIGNAL, &sa, NULL);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* In the child: die with bprint record, trace into live, become COMMAND. */
static _Noreturn void exec_command(const struct record_opts *o, const char *live, pid_t parent)
{
	char ppid[24];

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(126);
	snprintf(ppid, sizeof(ppid), "%lld", (long long)parent);
	if (o->trig.site) {
		/* watched from outside, in its flight recorder's mode (trigger.c) */
		unsetenv("BPRINT_FILE");
		unsetenv("BPRINT_ATTACH");
		if (setenv("BPRINT_BUFFER_SIZE", o->bufsize ? o->bufsize : RECORD_BUFFER,
			   o->bufsize != NULL) ||
		    (o->pagesize && setenv("BPRINT_PAGE_SIZE", o->pagesize, 1)) ||
		    setenv("BPRINT_MODE", "overwrite", 1) ||
		    (o->clock && setenv("BPRINT_CLOCK", o->clock, 1)))
			_exit(126);
		execvp(o->cmd[0], o->cmd);
		errmsg(o->cmd[0], "%s", strerror(errno));
		_exit(127);
	}
	if (setenv("BPRINT_FILE", live, 1) || setenv("BPRINT_RECORD_PID", ppid, 1) ||
	    setenv("BPRINT_BUFFER_SIZE", o->bufsize ? o->bufsize : RECORD_BUFFER, o->bufsize != NULL) ||
	    (o->pagesize && setenv("BPRINT_PAGE_SIZE", o->pagesize, 1)) ||
	    setenv("BPRINT_MODE", o->mode ? o->mode : RECORD_MODE, o->mode != NULL) ||
	    (o->timeout && setenv("BPRINT_BLOCK_TIMEOUT", o->timeout, 1)) ||
	    (o->clock && setenv("BPRINT_CLOCK", o->clock, 1)))
		_exit(126);
	execvp(o->cmd[0], o->cmd);
	errmsg(o->cmd[0], "%s", strerror(errno));
	_exit(127);
}

/* Fork COMMAND: its pid, or -1 with a message. */
static pid_t start_command(const struct record_opts *o, const char *live)
{
	pid_t parent, pid;

	fflush(NULL);
	parent = getpid();
	pid = fork();
	if (pid < 0)
		errmsg(NULL, "fork: %s", strerror(errno));
	else if (pid == 0)
		exec_command(o, live, parent);
	return pid;
}

/* Copy the pages of COMMAND, and of the traced programs it starts, until
 * each has exited: bp_drain_run()'s result. */
static int drain_command(const struct record_opts *o, const char *live, pid_t pid,
			 struct bp_drain_run_result *res, struct outputs *written,
			 struct kernel_rec *kernel)
{
	struct bp_drain_opts dopt;

	memset(&dopt, 0, sizeof(dopt));
	dopt.live_path = live;
	dopt.out_path = o->out;
	dopt.stop = &stop_drain;
	dopt.child = pid;
	dopt.follow = 1;
	dopt.started_ns = o->started_ns;
	dopt.remove_live = 1;
	dopt.on_output = on_output;
	dopt.on_output_arg = written;
	if (kernel) {
		dopt.on_pass = kernel_rec_pass;
		dopt.on_pass_arg = kernel;
	}
	return bp_drain_run(&dopt, res);
}

/* COMMAND's wait status into *status: 0, or -1 with a message. */
static int wait_command(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR) {
			errmsg(NULL, "waitpid: %s", strerror(errno));
			return -1;
		}
	child_pid = 0;
	return 0;
}

/* What became of the trace (drc, res) and of COMMAND: messages and the
 * exit code. */
static int record_result(const struct record_opts *o, int drc, const struct bp_drain_run_result *res,
			 const struct outputs *written, int status)
{
	bool lacks;

	if (WIFEXITED(status) && WEXITSTATUS(status) >= 126 && drc != 0)
		return EXIT_IO;		/* exec failed: said so already */
	if (drc != 0 && !res->c.truncated) {
		errmsg(o->out, "%s", res->error[0] ? res->error : "the trace could not be written");
		if (strstr(res->error, "no live") && !no_file_count)
			fprintf(stderr, "%s: is %s linked with libbprint?\n", prog, o->cmd[0]);
		return EXIT_IO;
	}
	if (!o->quiet)
		summary(&res->c, written);
	/* said even with --quiet: the exit status is not the command's */
	lacks = trace_lacks(written) || res->c.truncated || res->c.not_copied || no_file_count;
	if (no_file_count)
		errmsg(NULL, "incomplete: %d traced program%s could not make %s trace file "
		       "(process %d, said above): %s records are in no file", (int)no_file_count,
		       no_file_count == 1 ? "" : "s", no_file_count == 1 ? "its" : "their",
		       (int)no_file_pid, no_file_count == 1 ? "its" : "their");
	if (WIFSIGNALED(status) && WTERMSIG(status) != got_signal && !o->quiet)
		errmsg(o->cmd[0], "killed by signal %d", WTERMSIG(status));
	else if (WIFEXITED(status) && WEXITSTATUS(status) && !o->quiet)
		errmsg(o->cmd[0], "exited with status %d", WEXITSTATUS(status));
	return lacks ? EXIT_IO : command_status(status);
}

/*
 * --kernel: the instance, before COMMAND starts (a missing privilege or
 * event stops record here).  The kernel's clock follows the program's,
 * which is made explicit for the program: --clock, BPRINT_CLOCK, or the
 * default this machine gives (docs/kernel-stream.md, the clock rule).
 */
static int start_kernel(struct record_opts *o, struct kernel_rec **k)
{
	*k = NULL;
	if (!o->kernel)
		return EXIT_OK;
	if (!o->clock)
		o->clock = getenv("BPRINT_CLOCK");
	if (!o->clock || !*o->clock)
		o->clock = bp_record_clock_default();
	return kernel_rec_start(k, o->kernel_list, o->kernel_buffer, o->clock);
}

/* --trigger -- COMMAND: COMMAND in overwrite mode, watched from outside
 * (trigger.c); exits as COMMAND did, unless the watch failed. */
static int record_trigger(struct record_opts *o)
{
	pid_t pid;
	int rc, status;

	forward_signals();
	if ((pid = start_command(o, NULL)) < 0)
		return EXIT_IO;
	child_pid = pid;
	rc = trigger_child(pid, o->out, &o->trig, &stop_drain);
	if (wait_command(pid, &status) != 0)
		return EXIT_IO;
	if (rc != EXIT_OK)
		return rc;
	if (WIFEXITED(status) && WEXITSTATUS(status) >= 126)
		return EXIT_IO;
	return command_status(status);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { .out = DEFAULT_FILE };
	struct outputs written = { NULL, 0, 0, NULL, 0 };
	struct bp_drain_run_result res;
	struct kernel_rec *kernel;
	char *live;
	pid_t pid;
	int rc, drc, status;

	if ((rc = parse_record_args(argc, argv, &o)) >= 0)
		return rc;
	o.started_ns = clock_ns(CLOCK_REALTIME);
	if (o.pid && o.trig.site)
		return trigger_pid(o.pid, o.out, o.duration, &o.trig);
	if (o.pid)
		return record_pid(o.pid, o.out, o.duration, o.quiet);
	if (o.trig.site)
		return record_trigger(&o);
	if (!(live = prepare_outputs(o.out, &rc)))
		return rc;
	forward_signals();
	if ((rc = start_kernel(&o, &kernel)) != EXIT_OK) {
		free(live);
		return rc;
	}
	if ((pid = start_command(&o, live)) < 0) {
		kernel_rec_stop(kernel);
		free(live);
		return EXIT_IO;
	}
	child_pid = pid;
	if (kernel)
		kernel_rec_set_root(kernel, pid);
	drc = drain_command(&o, live, pid, &res, &written, kernel);
	if (kernel && !o.quiet && drc == 0)
		kernel_rec_summary(kernel);
	kernel_rec_stop(kernel);
	if (wait_command(pid, &status) != 0)
		rc = EXIT_IO;
	else
		rc = record_result(&o, drc, &res, &written, status);
	free(written.names);
	for (unsigned i = 0; i < written.npaths; i++)
		free(written.paths[i]);
	free(written.paths);
	free(live);
	return rc;
}
