/*
 * The progress line of report and export: on a terminal only, once the
 * read has run for a second (BPRINT_PROGRESS_AFTER milliseconds), one line
 * on stderr rewritten in place ("\r") a few times a second, erased at the
 * end so that what follows starts clean:
 *
 *   bprint: 2097152 of 4031376 records read (52%), 1.3 s, about 1.2 s left
 *
 * The total is what the file holds, counted before reading: the records
 * written less those known lost (bp_trace_overwritten_estimate() and the
 * totals' discarded and not-copied counts); a live file may grow past it,
 * and then the line drops the percentage.  Quiet when stderr is a file or
 * a pipe (logs, CI, the tests), and when the records themselves go to the
 * terminal.
 */
#include "bprint_cmd.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_EVERY (1u << 16)	/* records between two looks at the clock */
#define PROGRESS_AFTER_MS 1000		/* the first line, unless BPRINT_PROGRESS_AFTER says */
#define PROGRESS_REDRAW 0.2		/* seconds between two lines */

static struct {
	bool shown;
	struct timespec t0;
	double after, last;		/* seconds: the first line, the last one drawn */
	uint64_t total;			/* records the file holds, 0 if unknown */
} line;

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static void tick(void *arg, uint64_t records)
{
	double s = since(&line.t0);

	(void)arg;
	if (s < line.after || (line.shown && s - line.last < PROGRESS_REDRAW))
		return;
	if (line.total > records) {
		unsigned pct = (unsigned)((double)records * 100 / (double)line.total);
		double left = s * (double)(line.total - records) / (double)records;

		fprintf(stderr, "\r%s: %llu of %llu records read (%u%%), %.1f s, about %.1f s left\033[K",
			prog, (unsigned long long)records, (unsigned long long)line.total,
			pct > 99 ? 99 : pct, s, left);
	} else {
		fprintf(stderr, "\r%s: %llu records read, %.1f s\033[K", prog,
			(unsigned long long)records, s);
	}
	fflush(stderr);
	line.shown = true;
	line.last = s;
}

/* The records the file holds, as far as its counters say before reading. */
static uint64_t records_held(struct bp_trace *t)
{
	struct bp_trace_totals tot = BP_TRACE_TOTALS_INIT;
	uint64_t lost;

	if (bp_trace_totals(t, &tot) != 0)
		return 0;
	lost = tot.discarded + tot.not_copied + bp_trace_overwritten_estimate(t);
	return tot.written > lost ? tot.written - lost : 0;
}

void progress_start(struct bp_trace *t, bool to_stdout)
{
	const char *env = getenv("BPRINT_PROGRESS_AFTER");

	line.shown = false;
	if (!isatty(STDERR_FILENO) || (to_stdout && isatty(STDOUT_FILENO)))
		return;
	line.after = (env && *env ? strtod(env, NULL) : PROGRESS_AFTER_MS) / 1000;
	line.total = records_held(t);
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
