/*
 * tools/bprint/bprint_cmd.h - what the subcommands of the bprint command
 * share: exit codes, error messages, opening a trace, the output options
 * and filters of report and tail.
 */
#ifndef BPRINT_CMD_H
#define BPRINT_CMD_H

#include <bprint/reader.h>

#include <bprint/query.h>


#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes (the manual's EXIT STATUS). */
#define EXIT_OK		0	/* every record the file holds read, every other counted */
#define EXIT_USAGE	1	/* bad command line */
#define EXIT_BADFILE	2	/* missing, unreadable, foreign, newer or damaged trace file */
#define EXIT_IO		3	/* a read or write failed, a child could not be run */
#define EXIT_INCOMPLETE	4	/* read, but the file lacks records it cannot account for */

#define DEFAULT_FILE	"bprint.dat"

/* The exit status lines of the readers' --help (the manual's EXIT STATUS). */
#define EXIT_STATUS_HELP                                                               \
	"Exit status: 0 every record the file holds read and every other one counted\n"  \
	"(a killed program's file too), 1 bad command line, 2 missing, foreign or\n"       \
	"damaged file (what could be read comes first), 3 read or write error, 4 the\n"   \
	"file lacks records it cannot account for (bprint record did not finish, a\n"     \
	"disk or the file was full).\n"


extern const char *prog;	/* "bprint" */

/* "bprint: what: message", on stderr. */
void errmsg(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "bprint SUB: message", one line on stderr (a bad field, site or value
 * found once the trace is open); returns EXIT_USAGE. */
int sub_error(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "bprint: out of memory", on stderr; returns EXIT_IO. */
int out_of_memory(void);
/* "bprint SUB: message" and "Try 'bprint SUB --help'.", returns EXIT_USAGE. */
int usage_error(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Open path for reading; on failure print "bprint: path: reason" and set
 * *exit_code (EXIT_BADFILE for a file that is not a readable trace). */
struct bp_trace *open_trace(const char *path, int *exit_code);

/* What bp_trace_verdict() says of t, one line each on stderr (the file's
 * name first); returns EXIT_BADFILE for damage, EXIT_INCOMPLETE for a file
 * that lacks records it cannot account for, else EXIT_OK. */
int report_file(const char *path, struct bp_trace *t);
/* The same, silent when the trace is complete (tail: a live file is not
 * closed, and needs no note saying so). */
int report_trouble(const char *path, struct bp_trace *t);

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
	struct bp_sites *sites;		/* --site, NULL: every site */
	bool have_from, have_to;
	uint64_t from_ns, to_ns;
	struct bp_where *where;		/* --where, NULL: none */
	char *where_text;		/* its terms, every --where's, joined */
	int kernel;			/* report --kernel: FILTER_KERNEL_* */
	bool kernel_on;			/* kernel is not ALL and the trace has kernel events */
};
#define FILTER_KERNEL_OWN	0	/* the traced process tree's events (the default) */
#define FILTER_KERNEL_ALL	1
#define FILTER_KERNEL_NONE	2
/* Is e a kernel event (docs/kernel-stream.md)? */
#define IS_KERNEL_EVENT(e)	((e)->site_id >= BP_TRACE_KERNEL_SITE_BASE)
/* report --kernel=WHICH into f: 0, or a usage error. */
int filter_kernel_option(struct filter *f, const char *sub, const char *arg);
/* Once t is open: does --kernel choose anything in it? */
void filter_kernel_bind(struct filter *f, struct bp_trace *t);

/* One more --where EXPR (or --where-to: opt names it in errors) into *w:
 * ANDed with those before (*text, the terms joined, freed by the caller).
 * 0, or a usage error's exit code. */
int where_option(const char *sub, const char *opt, struct bp_where **w, char **text,
		 const char *arg);

/* Parse one filter option (its short name, one of FILTER_OPTIONS, and its
 * argument) into f.  Returns 0, or prints a usage error and returns
 * EXIT_USAGE. */
int filter_option(struct filter *f, const char *sub, int c, const char *arg);
/* The filters' short options, as getopt returns them: --tid, --site, --from,
 * --to, --where. */
#define FILTER_OPTIONS case 't': case 's': case 'F': case 'T': case 'w'
/* Does f choose anything (else every record passes)? */
bool filter_active(const struct filter *f);
/* Every --site of f names a site of t, and --where's fields exist in them?
 * Else a line on stderr and EXIT_USAGE (for a closed file, whose site
 * table is complete). */
int filter_check_sites(struct filter *f, struct bp_trace *t, const char *sub, const char *path);
/* tail: a --site that matches nothing yet may still appear; say so on stderr. */
void filter_note_sites(struct filter *f, struct bp_trace *t, const char *path);
/* Does the event pass (message not needed)? */
bool filter_pass(struct filter *f, struct bp_trace *t, const struct bp_trace_event *e);
void filter_free(struct filter *f);

/* Two more forms of report's: JSON Lines and CSV (records.c). */
#define OUTPUT_JSON ((enum bprint_output)100)
#define OUTPUT_CSV ((enum bprint_output)101)
bool print_event_json(struct bp_trace *t, struct bp_trace_event *e);
bool print_event_csv(struct bp_trace *t, struct bp_trace_event *e);
/* The CSV header line: the fixed columns, then every field name of the
 * sites f chooses (dates: a date column after ns); false on error. */
bool print_csv_header(struct bp_trace *t, struct filter *f, bool dates);
/* report --date: the next record's date (n bytes), a "date" member of its
 * JSON or the date column (after ns) of its CSV row. */
void records_date(const char *date, size_t n);
/* The JSON or CSV lines not yet given to out_write(): out_flush() calls
 * it.  False on error. */
bool records_flush(void);
void records_free(void);

/* Records the file lacks: discarded, overwritten, not copied, kept in the
 * traced process's memory only (the exact count once t is read through). */
uint64_t trace_lost(struct bp_trace *t);
/* Of those, the records a stream not closed yet has not received: its
 * recorder may still copy them (what a live view says apart). */
uint64_t trace_not_yet(struct bp_trace *t);

/* The line that stands where e->lost_before records of e's thread were
 * lost, in the form how (none for JSON and CSV: their records carry the
 * count).  false: a write error. */
bool print_loss(const struct bp_trace_event *e, enum bprint_output how);

/* A trace's target: a number that names no file is a process, whose trace
 * file becomes *path (allocated) and *pid its id; else *pid is 0 and arg
 * is the file (tail.c). */
int tail_target(const char *arg, long *pid, char **path);

/* Following a file (tail, --follow): where its end stood, and since when. */
struct follow_end {
	uint64_t end, since;
};
/* Is the poll about to be made the last one?  pid: the process followed,
 * 0 for none.  fe starts zeroed (tail.c). */
bool follow_last_poll(struct follow_end *fe, struct bp_trace *t, long pid);
/* SIGINT, SIGTERM and SIGHUP end a follow loop once the poll under way is
 * done: follow_interrupted() says so from then on (tail.c). */
void follow_catch_signals(void);
bool follow_interrupted(void);
/* Was following interrupted while the file's writer (the traced process,
 * and bprint record copying it) still writes?  Then what the file lacks
 * is not copied yet, not lost (tail.c). */
bool follow_writer_at_work(struct bp_trace *t);
/* What the file lacks once following ends, on stderr, as an exit code:
 * nothing while the writer is at work (unless damage or a full file),
 * else the verdict's trouble (tail.c). */
int follow_verdict(const char *path, struct bp_trace *t);
/* Sleep ms milliseconds between polls; a signal cuts it short. */
void follow_nap(long ms);
/* CLOCK_MONOTONIC in ns: when to redraw or give up while following. */
uint64_t follow_now_ns(void);

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
int cmd_recover(int argc, char **argv);
/* If path is the stream of a bprint record that was killed and its live
 * file is still there (FILE.live, FILE.live.PID for FILE.PID), one line on
 * stderr: where the records it did not copy are, and `bprint recover`. */
void say_live_left(const char *path);
/* That live file's name (allocated), NULL if there is none; with main,
 * also the FILE to give `bprint recover` (allocated). */
char *live_left(const char *path, char **main_file);
/* A killed recorder's children's live files (FILE.live.PID, their process
 * gone) beside FILE: one line on stderr naming them and bprint recover. */
void say_children_left(const char *file);
int cmd_hist(int argc, char **argv);
int cmd_latency(int argc, char **argv);

#endif
