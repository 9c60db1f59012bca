/*
 * bprint record [OPTION]... -- CMD [ARG]...: run CMD with tracing into a
 * file.
 *
 * The child gets BPRINT_FILE (and BPRINT_BUFFER_SIZE, BPRINT_PAGE_SIZE,
 * BPRINT_MODE, BPRINT_CLOCK when given) in its environment.  SIGINT,
 * SIGTERM and SIGHUP are forwarded to it; bprint record waits for it and
 * exits with its status.
 *
 * The output is the child's live trace file itself: every committed record
 * survives however the child ends.
 */
#include "bprint_cmd.h"

#include "file/layout.h"
#include "trace/clock.h"
#include "trace/config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t got_signal;

static void forward(int sig)
{
	got_signal = sig;
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

static void record_help(void)
{
	printf("Usage: %s record [OPTION]... [--] COMMAND [ARG]...\n"
	       "Run COMMAND, a program linked with libbprint, with its trace going to a file.\n"
	       "\n"
	       "  -o, --output=FILE      the trace file (default %s); an existing trace file\n"
	       "                         is replaced, any other file is left alone\n"
	       "  -b, --buffer-size=N    per-thread buffer, e.g. 64K, 16M (BPRINT_BUFFER_SIZE)\n"
	       "  -p, --page-size=N      ring page size, a power of two from 1K to 64K\n"
	       "                         (BPRINT_PAGE_SIZE)\n"
	       "  -M, --mode=MODE        overwrite (flight recorder, the default) or discard\n"
	       "                         (keep the oldest records) (BPRINT_MODE)\n"
	       "  -c, --clock=CLOCK      tsc, mono, mono_raw, boot or counter (BPRINT_CLOCK)\n"
	       "  -q, --quiet            no summary on stderr at the end\n"
	       "  -h, --help             show this help\n"
	       "\n"
	       "Ctrl-C is passed on to COMMAND; the file is complete when bprint record ends.\n"
	       "Exit status: 0 the trace was recorded (however COMMAND ended: its status is\n"
	       "reported on stderr), 1 bad command line, 2 the output exists and is not a\n"
	       "trace file, 3 COMMAND could not be run or the trace not written.\n",
	       prog, DEFAULT_FILE);
}

/* Make room for the output: the writer will not replace a file. */
static int clear_output(const char *path)
{
	char magic[8];
	struct stat st;
	ssize_t n = 0;
	int fd;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? EXIT_OK : (errmsg(path, "%s", strerror(errno)), EXIT_IO);
	if (!S_ISREG(st.st_mode)) {
		errmsg(path, "exists and is not a regular file (not replaced)");
		return EXIT_BADFILE;
	}
	if (st.st_size > 0) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			n = read(fd, magic, sizeof(magic));
			close(fd);
		}
		if (n != (ssize_t)sizeof(magic) || memcmp(magic, BP_FILE_MAGIC, 8) != 0) {
			errmsg(path, "exists and is not a bprint trace file (not replaced)");
			return EXIT_BADFILE;
		}
	}
	if (unlink(path) != 0) {
		errmsg(path, "cannot replace it: %s", strerror(errno));
		return EXIT_IO;
	}
	return EXIT_OK;
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "page-size", required_argument, NULL, 'p' },
		{ "mode", required_argument, NULL, 'M' },
		{ "clock", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = DEFAULT_FILE, *bufsize = NULL, *pagesize = NULL, *mode = NULL;
	const char *clock = NULL;
	bool quiet = false;
	struct sigaction sa;
	enum bp_clock_id cid;
	pid_t pid;
	int c, rc, status;
	size_t n;

	optind = 1;
	opterr = 0;
	/* '+': options end at the command */
	while ((c = getopt_long(argc, argv, "+:o:b:p:M:c:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'b':
			bufsize = optarg;
			if (!bp_parse_size(optarg))
				return usage_error("record", "--buffer-size: not a size: '%s'", optarg);
			break;
		case 'p':
			pagesize = optarg;
			n = bp_parse_size(optarg);
			if (n < 1024 || n > 65536 || (n & (n - 1)))
				return usage_error("record", "--page-size: expected a power of two from 1K to 64K");
			break;
		case 'M':
			mode = optarg;
			if (strcmp(mode, "overwrite") && strcmp(mode, "discard"))
				return usage_error("record", "--mode: expected overwrite or discard");
			break;
		case 'c':
			clock = optarg;
			if (bp_clock_parse(optarg, &cid))
				return usage_error("record", "--clock: expected tsc, mono, mono_raw, boot or counter");
			break;
		case 'q': quiet = true; break;
		case 'h': record_help(); return finish_output();
		case ':': return usage_error("record", "option '%s' needs an argument", argv[optind - 1]);
		default: return usage_error("record", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("record", "missing COMMAND");
	if (!*out)
		return usage_error("record", "--output: empty file name");
	if ((rc = clear_output(out)) != EXIT_OK)
		return rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		errmsg(NULL, "fork: %s", strerror(errno));
		return EXIT_IO;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (setenv("BPRINT_FILE", out, 1) ||
		    (bufsize && setenv("BPRINT_BUFFER_SIZE", bufsize, 1)) ||
		    (pagesize && setenv("BPRINT_PAGE_SIZE", pagesize, 1)) ||
		    (mode && setenv("BPRINT_MODE", mode, 1)) ||
		    (clock && setenv("BPRINT_CLOCK", clock, 1)))
			_exit(EXIT_IO);
		execvp(argv[optind], argv + optind);
		errmsg(argv[optind], "%s", strerror(errno));
		_exit(127);
	}
	child_pid = pid;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			errmsg(NULL, "waitpid: %s", strerror(errno));
			return EXIT_IO;
		}
	child_pid = 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		return EXIT_IO;
	}
	if (!quiet) {
		struct bp_trace *t = bp_trace_open(out, 0, (char[8]){ 0 }, 8, NULL);

		if (t) {
			struct bp_trace_totals tot;

			bp_trace_totals(t, &tot);
			fprintf(stderr, "%s: %s: %zu threads, %llu records written, %llu discarded\n",
				prog, out, bp_trace_nrings(t), (unsigned long long)tot.written,
				(unsigned long long)tot.discarded);
			bp_trace_close(t);
		} else {
			errmsg(out, "no trace file was written (is %s linked with libbprint?)",
			       argv[optind]);
		}
	}
	if (WIFSIGNALED(status) && WTERMSIG(status) != got_signal && !quiet)
		errmsg(argv[optind], "killed by signal %d", WTERMSIG(status));
	else if (WIFEXITED(status) && WEXITSTATUS(status) && !quiet)
		errmsg(argv[optind], "exited with status %d", WEXITSTATUS(status));
	return EXIT_OK;
}
