/*
 * bprint_dump() and the automatic dumps: at exit and on fatal signals
 * (BPRINT_DUMP=exit|crash|both).  The crash dump runs in a signal handler,
 * so it formats into a stack buffer and writes with write(2); it takes the
 * readers' lock only if it is free; then it restores the default action
 * and re-raises the signal, so the process dies as it would have.
 */
#include "trace/tracer.h"

#include "trace/config.h"
#include "trace/reader.h"
#include "trace/safe_open.h"
#include "trace/text.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
static int dump_fd = STDERR_FILENO;
static bool dump_to_file;	/* dump_fd is BPRINT_DUMP_FILE */

struct line_out {
	bool (*write)(void *ctx, const char *s, size_t n);
	void *ctx;
};

static bool write_fd(void *ctx, const char *s, size_t n)
{
	int fd = *(int *)ctx;

	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		s += w;
		n -= (size_t)w;
	}
	return true;
}

static bool write_file(void *ctx, const char *s, size_t n)
{
	return fwrite(s, 1, n, (FILE *)ctx) == n;
}

static bool put_line(struct line_out *o, char *line, size_t size, int n)
{
	size_t len = n < 0 ? strlen(line) : (size_t)n < size - 1 ? (size_t)n : size - 2;

	line[len] = '\n';
	return o->write(o->ctx, line, len + 1);
}

static void header(struct line_out *o, const struct bprint_reader *r, char *line, size_t size)
{
	uint64_t written, lost;
	size_t len;

	bp_reader_header(r, &written, &lost);
	len = bp_text_header(line, size, written, lost, sysconf(_SC_NPROCESSORS_CONF));
	o->write(o->ctx, line, len < size ? len : size - 1);
}

static long dump(struct line_out *o, struct bprint_reader *r, enum bprint_output how)
{
	char line[BP_MSG_MAX + 128];
	struct bprint_event ev = BPRINT_EVENT_INIT;
	long count = 0;

	if (!r)
		return -1;
	if (how == BPRINT_OUTPUT_FTRACE)
		header(o, r, line, sizeof(line));
	while (bprint_read_next(r, &ev) == 1) {
		if (!put_line(o, line, sizeof(line),
			      bprint_format_event(line, sizeof(line), &ev, how)))
			break;
		count++;
	}
	bprint_read_end(r);
	return count;
}

long bprint_dump_fmt(FILE *out, enum bprint_output how)
{
	struct line_out o = { write_file, out };
	long n;

	if (!out) {
		errno = EINVAL;
		return -1;
	}
	n = dump(&o, bprint_snapshot_begin(), how);
	fflush(out);
	return n;
}

long bprint_dump(FILE *out)
{
	return bprint_dump_fmt(out, BPRINT_OUTPUT_FTRACE);
}

long bp_dump_fd(int fd, enum bprint_output how)
{
	struct line_out o = { write_fd, &fd };

	return dump(&o, bp_reader_begin_unlocked(), how);
}

/*
 * The dump file is opened at start-up but left as it is until a dump has
 * been written: then it is cut where that dump ended, so an old, longer dump
 * leaves no tail and a run without a dump leaves the file unchanged.  A
 * forked child shares the file offset, so its dumps and its parent's follow
 * each other instead of overwriting each other.  Async-signal-safe.
 */
static void dump_done(void)
{
	off_t end;

	if (dump_to_file && (end = lseek(dump_fd, 0, SEEK_CUR)) >= 0)
		(void)!ftruncate(dump_fd, end);
}

static void crash_handler(int sig)
{
	static const char msg[] = "bprint: fatal signal, dumping the trace\n";
	int saved = errno;

	bprint_off();
	write_fd(&dump_fd, msg, sizeof(msg) - 1);
	bp_dump_fd(dump_fd, BPRINT_OUTPUT_FTRACE);
	dump_done();
	signal(sig, SIG_DFL);
	errno = saved;
	raise(sig);
}

static void exit_dump(void)
{
	bprint_off();
	bp_dump_fd(dump_fd, BPRINT_OUTPUT_FTRACE);
	dump_done();
}

/* BPRINT_DUMP_FILE by the rule of safe_open.c: ours and regular, kept 0600. */
static void open_dump_file(const char *path)
{
	const char *why;
	int fd = bp_open_output(path, BP_OPEN_KEEP | BP_OPEN_PRIVATE, &why);

	if (fd < 0) {
		fprintf(stderr, "bprint: BPRINT_DUMP_FILE=%s: %s; dumping to stderr\n", path,
			why ? why : strerror(errno));
		return;
	}
	dump_fd = fd;
	dump_to_file = true;
}

void bp_dump_install(void)
{
	if (bp_config.dump == BP_DUMP_NEVER)
		return;
	if (bp_config.dump_path && *bp_config.dump_path)
		open_dump_file(bp_config.dump_path);
	if (bp_config.dump & BP_DUMP_EXIT)
		atexit(exit_dump);
	if (bp_config.dump & BP_DUMP_CRASH) {
		for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
			struct sigaction old, sa;

			/* Leave a program's own handlers alone. */
			if (sigaction(fatal_signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL)
				continue;
			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = crash_handler;
			sigemptyset(&sa.sa_mask);
			sa.sa_flags = (int)(SA_NODEFER | SA_RESETHAND | SA_ONSTACK);
			sigaction(fatal_signals[i], &sa, NULL);
		}
	}
}
