/*
 * How complete a trace is (bprint/query.h): the one place where the header,
 * the accounts and the damage met become a state and the lines that say
 * why.  The bprint command prints the notes and turns the state into its
 * exit status; the Python module puts them in its info.
 */
#include <bprint/query.h>

#include "file/layout.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

__attribute__((format(printf, 3, 4)))
static void note(struct bp_trace_verdict *v, uint32_t state, const char *fmt, ...)
{
	va_list ap;

	if (state > v->state)
		v->state = state;
	if (v->nnotes == BP_TRACE_VERDICT_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(v->notes[v->nnotes++], BP_TRACE_NOTE_MAX, fmt, ap);
	va_end(ap);
}

static void lacks(struct bp_trace_verdict *v, uint64_t n, bool counted)
{
	if (!counted || v->lacking == BP_TRACE_UNCOUNTED)
		v->lacking = BP_TRACE_UNCOUNTED;
	else
		v->lacking += n;
}

static void damage(struct bp_trace *t, struct bp_trace_verdict *v)
{
	const char *first;
	unsigned n = bp_trace_problems(t, &first);

	if (n == 1)
		note(v, BP_TRACE_DAMAGED, "damaged: %s", first);
	else if (n)
		note(v, BP_TRACE_DAMAGED, "damaged: %s (and %u more problems)", first, n - 1);
}

/* A traced process's file that was too full for some buffers or sites. */
static void file_full(const struct bp_trace_info *in, struct bp_trace_verdict *v)
{
	const char *full = "incomplete: the trace file was full";
	bool one = in->memory_rings == 1;

	if (in->missing_sites)
		note(v, BP_TRACE_INCOMPLETE, "%s, %u call site%s not in it (%s records print as "
		     "<unknown call site N>)", full, in->missing_sites,
		     in->missing_sites == 1 ? " is" : "s are", in->missing_sites == 1 ? "its" : "their");
	if (!in->memory_rings)
		return;
	lacks(v, in->memory_records, in->memory_records != 0);
	if (in->memory_records)
		note(v, BP_TRACE_INCOMPLETE, "%s, %u buffer%s kept in memory only; %llu record%s "
		     "written %s not in the file", full, in->memory_rings, one ? " was" : "s were",
		     (unsigned long long)in->memory_records, in->memory_records == 1 ? "" : "s",
		     in->memory_records == 1 ? "is" : "are");
	else
		note(v, BP_TRACE_INCOMPLETE, "%s, %u buffer%s kept in memory only; %s records are "
		     "not in the file and cannot be counted", full, in->memory_rings,
		     one ? " was" : "s were", one ? "its" : "their");
}

/* A stream bprint record did not finish, or stopped writing early. */
static void stream_state(struct bp_trace *t, const struct bp_trace_info *in,
			 struct bp_trace_verdict *v)
{
	struct bp_trace_totals tot = BP_TRACE_TOTALS_INIT;
	char why[160];

	bp_trace_totals(t, &tot);
	if (in->stop_reason == BP_FILE_STOP_FULL)
		snprintf(why, sizeof(why), "truncated: disk full at record %llu",
			 (unsigned long long)in->stop_record);
	else if (in->stop_reason)
		snprintf(why, sizeof(why), "truncated: write error (%s) at record %llu",
			 strerror(in->stop_errno), (unsigned long long)in->stop_record);
	else
		snprintf(why, sizeof(why), "not closed cleanly (bprint record did not finish)");
	lacks(v, tot.not_copied, in->accounted);
	if (in->accounted)
		note(v, BP_TRACE_INCOMPLETE, "%s; %llu record%s written %s not in the file", why,
		     (unsigned long long)tot.not_copied, tot.not_copied == 1 ? "" : "s",
		     tot.not_copied == 1 ? "is" : "are");
	else
		note(v, BP_TRACE_INCOMPLETE, "%s; the records it did not copy cannot be counted", why);
}

void bp_trace_verdict(struct bp_trace *t, struct bp_trace_verdict *out)
{
	const struct bp_trace_info *in = bp_trace_info(t);
	struct bp_trace_verdict v = BP_TRACE_VERDICT_INIT;
	size_t n = out->size < sizeof(v) ? out->size : sizeof(v);

	damage(t, &v);
	file_full(in, &v);
	if (!(in->flags & BP_TRACE_F_CLOSED) || in->stop_reason) {
		if (in->flags & BP_TRACE_F_STREAM)
			stream_state(t, in, &v);
		else
			note(&v, BP_TRACE_COMPLETE, "not closed cleanly (%s); every record written is "
			     "in the file or counted", in->flags & BP_TRACE_F_ENDED ?
			     "the process ended without exit(): _exit(), as a forked child may, a "
			     "crash or a kill" : "the process is still running");
	}
	v.size = out->size;
	memcpy(out, &v, n);
}
