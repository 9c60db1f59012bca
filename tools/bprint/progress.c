/*
 * The progress line of report and export: on a terminal only, once more
 * than a few million records were read, one line on stderr rewritten in
 * place ("\r"), erased at the end so that what follows starts clean.
 * Quiet when stderr is a file or a pipe (logs, CI, the tests), and when
 * the records themselves go to the terminal.
 */
#include "bprint_cmd.h"

#include <time.h>
#include <unistd.h>

#define PROGRESS_EVERY (1u << 20)	/* records between two looks */
#define PROGRESS_FROM (2u << 20)	/* the first line */

static struct {
	bool shown;
	struct timespec t0;
} line;

static void tick(void *arg, uint64_t records)
{
	struct timespec now;
	double s;

	(void)arg;
	if (records < PROGRESS_FROM)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	s = (double)(now.tv_sec - line.t0.tv_sec) + (double)(now.tv_nsec - line.t0.tv_nsec) / 1e9;
	fprintf(stderr, "\r%s: %llu records read (%.1f s)", prog, (unsigned long long)records, s);
	fflush(stderr);
	line.shown = true;
}

void progress_start(struct bp_trace *t, bool to_stdout)
{
	line.shown = false;
	if (!isatty(STDERR_FILENO) || (to_stdout && isatty(STDOUT_FILENO)))
		return;
	clock_gettime(CLOCK_MONOTONIC, &line.t0);
	bp_trace_on_progress(t, PROGRESS_EVERY, tick, NULL);
}

void progress_end(struct bp_trace *t)
{
	bp_trace_on_progress(t, 0, NULL, NULL);
	if (line.shown)
		fputs("\r\033[K", stderr);	/* erase the line */
	line.shown = false;
}
