/*
 * tools/bprint/bprint_cmd.h - what the subcommands of the bprint command
 * share: exit codes, error messages, opening a trace, the output options
 * and filters of report and tail.
 */
#ifndef BPRINT_CMD_H
#define BPRINT_CMD_H

#include "file/reader.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes (the manual's EXIT STATUS). */
#define EXIT_OK		0
#define EXIT_USAGE	1	/* bad command line */
#define EXIT_INCOMPLETE	1	/* the trace was read, but the file is incomplete */
#define EXIT_BADFILE	2	/* missing, unreadable, foreign, newer or damaged trace file */
#define EXIT_IO		3	/* a read or write failed, a child could not be run */

#define DEFAULT_FILE	"bprint.dat"

extern const char *prog;	/* "bprint" */

/* "bprint: what: message", on stderr. */
void errmsg(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "bprint SUB: message" and "Try 'bprint SUB --help'.", returns EXIT_USAGE. */
int usage_error(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Open path for reading; on failure print "bprint: path: reason" and set
 * *exit_code (EXIT_BADFILE for a file that is not a readable trace). */
struct bp_trace *open_trace(const char *path, int *exit_code);

/* Report problems the reader met (damage); returns EXIT_BADFILE if any,
 * else EXIT_OK. */
int report_problems(const char *path, struct bp_trace *t);

/* report_problems(), then say so if the file was not closed cleanly or
 * its writes stopped early (a line on stderr); returns EXIT_BADFILE for
 * damage, else EXIT_INCOMPLETE for that, else EXIT_OK. */
int report_file(const char *path, struct bp_trace *t);
/* What the traced process's file was too full for (buffers, call sites), on
 * stderr: true if anything. */
bool report_file_full(const char *path, const struct bp_trace_info *in);

/* A progress line on stderr while t is read (records read, percentage,
 * time left), when stderr is a terminal (and stdout is not, if to_stdout:
 * the output goes there), once the read has run for a second
 * (progress.c); progress_end() erases it. */
void progress_start(struct bp_trace *t, bool to_stdout);
void progress_end(struct bp_trace *t);

/* Flush stdout and check it; returns EXIT_IO (with a message) on error. */
int finish_output(void);

/* ---- report and tail ---- */

struct filter {
	int32_t *tids;
	size_t ntids;
	char **sites;			/* ids or patterns, as given */
	size_t nsites;
	bool have_from, have_to;
	uint64_t from_ns, to_ns;
	/* sites matched, by id; rebuilt when the site table grows */
	unsigned char *site_ok;
	uint32_t site_ok_len;
	size_t site_ok_nsites;
};

/* Parse one filter option (its short name, one of FILTER_OPTIONS, and its
 * argument) into f.  Returns 0, or prints a usage error and returns
 * EXIT_USAGE. */
int filter_option(struct filter *f, const char *sub, int c, const char *arg);
/* The filters' short options, as getopt returns them: --tid, --site, --from, --to. */
#define FILTER_OPTIONS case 't': case 's': case 'F': case 'T'
/* Every --site of f names a site of t?  Else a line on stderr and
 * EXIT_USAGE (for a closed file, whose site table is complete). */
int filter_check_sites(struct filter *f, struct bp_trace *t, const char *sub, const char *path);
/* tail: a --site that matches nothing yet may still appear; say so on stderr. */
void filter_note_sites(struct filter *f, struct bp_trace *t, const char *path);
/* Does the event pass (message not needed)? */
bool filter_pass(struct filter *f, struct bp_trace *t, const struct bp_trace_event *e);
void filter_free(struct filter *f);

/* Print the event bp_trace_next() returned last (asked for without its
 * message) in the given form, as bprint_dump() does: one line, into the
 * output buffer.  false: a write error. */
bool print_event(struct bp_trace *t, struct bp_trace_event *e, enum bprint_output how);
/* Write the output buffer to stdout and flush it: 0, or -1 on error. */
int out_flush(void);
/* Append n bytes to the output buffer (before a line); false on error. */
bool out_write(const char *s, size_t n);

/* Print every record of t that passes f, counting them in *count.
 * Returns an exit code. */
int print_records(struct bp_trace *t, struct filter *f, enum bprint_output how, long *count);

int cmd_report(int argc, char **argv);
int cmd_formats(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_tail(int argc, char **argv);
int cmd_record(int argc, char **argv);

#endif
