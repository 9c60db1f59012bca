/*
 * sched_lost: bp_sched_split() where a CPU's kernel events were lost.
 *
 * The file is `sched_traced span` recorded with --kernel: span 1's thread
 * sleeps 10 ms, then spins 5 ms.  It is read twice into a bp_sched: as
 * recorded, and with one kernel event in the middle of that sleep marked
 * as following lost events (lost_before), as a kernel buffer overwritten
 * there would have it.  The thread was asleep, so the loss may have
 * hidden its wake-up: from the lossy CPU's event before, to the thread's
 * next event, its state is unknown.  So the second split has as much
 * running and runnable as the first, and blocked time turned into
 * unknown: more unknown than the first, and blocked and unknown summing
 * to what they did.  A thread running on the other CPU is left as it was:
 * span 2's spinner, pinned to CPU 0, through a loss marked on CPU 1.
 *
 *   sched_lost FILE
 */
#include "check.h"

#include <bprint/reader.h>
#include <bprint/spans.h>

#include <stdio.h>
#include <string.h>

struct span {
	uint64_t from, to;
	int32_t tid;
};

/* Span id's begin and end records. */
static struct span find_span(const char *path, int id)
{
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	char begin[32], end[32], err[256];
	struct span sp = { 0, 0, 0 };
	struct bp_trace *t = bp_trace_open(path, 0, err, sizeof(err), NULL);

	if (!t)
		FAIL("%s: %s", path, err);
	snprintf(begin, sizeof(begin), "span begin id=%d", id);
	snprintf(end, sizeof(end), "span end id=%d", id);
	while (bp_trace_next(t, &e, 0) == 1) {
		if (!strcmp(e.message, begin))
			sp.from = e.ns;
		else if (!strcmp(e.message, end)) {
			sp.to = e.ns;
			sp.tid = e.tid;
		}
	}
	bp_trace_close(t);
	CHECK(sp.from && sp.to > sp.from);
	return sp;
}

/* The split of sp, the file read with the first kernel event of lossy_cpu
 * in [lost_from, lost_to) marked as following lost events (lossy_cpu -1:
 * none); *marked: whether one was. */
static struct bp_sched_split split(const char *path, const struct span *sp, int lossy_cpu,
				   uint64_t lost_from, uint64_t lost_to, bool *marked)
{
	struct bp_sched_split out = BP_SCHED_SPLIT_INIT;
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	struct bp_sched *s = bp_sched_new();
	char err[256];
	struct bp_trace *t = bp_trace_open(path, 0, err, sizeof(err), NULL);

	CHECK(s && t);
	*marked = false;
	while (bp_trace_next(t, &e, BP_TRACE_NEXT_NO_MESSAGE) == 1) {
		if (!*marked && lossy_cpu >= 0 && e.site_id >= BP_TRACE_KERNEL_SITE_BASE &&
		    e.cpu == lossy_cpu && e.ns >= lost_from && e.ns < lost_to) {
			CHECK(e.lost_before == 0);
			e.lost_before = 1;
			*marked = true;
		}
		CHECK(bp_sched_event(s, t, &e));
	}
	bp_sched_split(s, sp->tid, sp->from, sp->to, &out);
	bp_trace_close(t);
	bp_sched_free(s);
	CHECK(out.running + out.runnable + out.blocked + out.unknown == sp->to - sp->from);
	return out;
}

int main(int argc, char **argv)
{
	struct bp_sched_split asis, lossy = BP_SCHED_SPLIT_INIT;
	struct span sleeper, spinner;
	bool marked = false;
	int cpu;

	if (argc != 2)
		FAIL("usage: sched_lost FILE");
	sleeper = find_span(argv[1], 1);
	asis = split(argv[1], &sleeper, -1, 0, 0, &marked);
	CHECK_OP(asis.blocked, >=, 9000000u);	/* it slept 10 ms */
	/* a kernel event 1-9 ms into the sleep, on either CPU */
	for (cpu = 0; cpu < 2 && !marked; cpu++)
		lossy = split(argv[1], &sleeper, cpu, sleeper.from + 1000000, sleeper.from + 9000000,
			      &marked);
	if (!marked)
		FAIL("no kernel event 1-9 ms into span 1's sleep, on CPU 0 or 1");
	printf("span 1, as recorded: running %llu, runnable %llu, blocked %llu, unknown %llu ns\n",
	       (unsigned long long)asis.running, (unsigned long long)asis.runnable,
	       (unsigned long long)asis.blocked, (unsigned long long)asis.unknown);
	printf("span 1, a loss on CPU %d: running %llu, runnable %llu, blocked %llu, unknown %llu ns\n",
	       cpu - 1, (unsigned long long)lossy.running, (unsigned long long)lossy.runnable,
	       (unsigned long long)lossy.blocked, (unsigned long long)lossy.unknown);
	CHECK_OP(lossy.unknown, >, asis.unknown);
	CHECK_OP(lossy.running, ==, asis.running);
	CHECK_OP(lossy.runnable, ==, asis.runnable);
	CHECK_OP(lossy.blocked + lossy.unknown, ==, asis.blocked + asis.unknown);

	/* the spinner on CPU 0 through a loss on CPU 1: still running */
	spinner = find_span(argv[1], 2);
	asis = split(argv[1], &spinner, -1, 0, 0, &marked);
	CHECK_OP(asis.running, >=, 19000000u);
	lossy = split(argv[1], &spinner, 1, spinner.from + 1000000, spinner.to - 1000000, &marked);
	if (marked) {
		CHECK_OP(lossy.running, ==, asis.running);
		CHECK_OP(lossy.unknown, ==, asis.unknown);
		printf("span 2 on CPU 0, a loss on CPU 1: running %llu ns as recorded\n",
		       (unsigned long long)lossy.running);
	} else {
		printf("span 2: no kernel event on CPU 1 in it to mark\n");
	}
	return 0;
}
