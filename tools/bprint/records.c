/*
 * report --json and --csv (bprint_cmd.h): the record writers of
 * bprint/text.h, one for the trace being printed, their lines handed to
 * the output buffer (out_write()) 64 KiB at a time, so that JSON and CSV
 * cost no more system calls than the text.
 */
#include "bprint_cmd.h"

#include <bprint/text.h>

#include <errno.h>
#include <string.h>

static struct bp_trace_records *writer;
static struct bp_trace *writer_trace;
static unsigned writer_flags;

/* report --date: the date of the record being printed (date_len 0: none) */
static char date[64];
static size_t date_len;

void records_date(const char *text, size_t n)
{
	date_len = n < sizeof(date) ? n : sizeof(date) - 1;
	memcpy(date, text, date_len);
}

/* The writer of t in form flags, made on first use. */
static struct bp_trace_records *writer_of(struct bp_trace *t, unsigned flags)
{
	if (writer && (writer_trace != t || (writer_flags & ~BP_TRACE_RECORDS_DATES) != flags)) {
		if (!records_flush())
			return NULL;
		bp_trace_records_free(writer);
		writer = NULL;
	}
	if (!writer && (writer = bp_trace_records_new(t, flags)))
		writer_trace = t, writer_flags = flags;
	return writer;
}

bool records_flush(void)
{
	size_t n = 0;
	const char *p = writer ? bp_trace_records_lines(writer, &n) : NULL;

	if (!n)
		return true;
	/* cleared first: out_write() may call out_flush(), and so us (the
	 * text stays where it is until the writer's next line) */
	bp_trace_records_clear(writer);
	return out_write(p, n);
}

/* A record's line into the writer; the lines go to the output when they
 * fill 64 KiB, or at out_flush().  False on error. */
static bool print_record(struct bp_trace *t, struct bp_trace_event *e, unsigned flags)
{
	struct bp_trace_records *w = writer_of(t, flags);
	size_t n;

	if (!w || bp_trace_records_event(w, e, date, date_len) != 0) {
		errno = ENOMEM;
		return false;
	}
	bp_trace_records_lines(w, &n);
	return n < (1u << 16) || records_flush();
}

bool print_event_json(struct bp_trace *t, struct bp_trace_event *e)
{
	return print_record(t, e, BP_TRACE_RECORDS_JSON);
}

bool print_event_csv(struct bp_trace *t, struct bp_trace_event *e)
{
	return print_record(t, e, BP_TRACE_RECORDS_CSV);
}

bool print_csv_header(struct bp_trace *t, struct filter *f, bool dates)
{
	struct bp_trace_records *w;

	if (writer && !records_flush())
		return false;
	bp_trace_records_free(writer);
	writer = NULL;
	if (!(w = bp_trace_records_new(t, BP_TRACE_RECORDS_CSV |
					  (dates ? BP_TRACE_RECORDS_DATES : 0u))))
		return false;
	writer = w, writer_trace = t, writer_flags = BP_TRACE_RECORDS_CSV |
						  (dates ? BP_TRACE_RECORDS_DATES : 0u);
	return bp_trace_records_header(w, f->sites) == 0;
}

void records_free(void)
{
	bp_trace_records_free(writer);
	writer = NULL, writer_trace = NULL;
}
