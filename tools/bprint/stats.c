/*
 * bprint stats FILE: what a trace holds, counted.
 *
 * Sites: records per call site and their rate over the trace's span (first
 * to last record read).  Threads: the counters of bprint_stats() as the
 * file records them (written and discarded from the rings, dropped records
 * counted in both), and overwritten and read as this reader found them
 * (records the rings recycled before anyone read them, records read), so
 * that read + overwritten + discarded = written for a finished trace.
 * Stream files add the records the drainer could not copy: NOT-DRAINED
 * (overwritten before it got there, part of OVERWRITTEN) and NOT-COPIED
 * (still in the rings when a drainer that did not finish stopped), so that
 * read + overwritten + discarded + not-copied = written.  A file that was
 * too full for some threads' buffers has no counters of theirs but the
 * sum its header keeps: one line after the threads.
 */
#include "bprint_cmd.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void stats_help(void)
{
	printf("Usage: %s stats [OPTION]... FILE\n"
	       "Count the records of trace FILE per call site (with their rate over the\n"
	       "trace's span) and per thread (written, overwritten, discarded, read, as\n"
	       "bprint_stats() counts them).\n"
	       "\n"
	       "  -a, --all-sites  list the sites that recorded nothing too\n"
	       "  -h, --help       show this help\n"
	       "\n"
	       EXIT_STATUS_HELP,
	       prog);
}

struct thread_sum {
	int32_t tid;
	char comm[17];
	uint64_t written, overwritten, discarded, read, lost, not_copied;
	uint64_t waits, wait_ns;
	size_t first;			/* its first ring's position */
};

/* What reading the records found: per site id, unknown sites, the span. */
struct site_counts {
	uint64_t *count;		/* by site id, ncount of them */
	uint32_t ncount;
	uint64_t unknown, total, first, last;
};

/* enum bp_ring_mode's name, or "unknown" */
static const char *mode_name(uint32_t mode)
{
	return bp_trace_ring_mode_name(mode) ? bp_trace_ring_mode_name(mode) : "unknown";
}

/* Options into *all and *path.  -1 to go on, else the exit status. */
static int parse_stats_args(int argc, char **argv, bool *all, const char **path)
{
	static const struct option opts[] = {
		{ "all-sites", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ah", opts, NULL)) != -1) {
		switch (c) {
		case 'a': *all = true; break;
		case 'h': stats_help(); return finish_output();
		default: return usage_error("stats", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("stats", "missing FILE");
	if (optind + 1 < argc)
		return usage_error("stats", "unexpected argument '%s'", argv[optind + 1]);
	*path = argv[optind];
	return -1;
}

/* One more record of site id: the table grows to the file's largest id. */
static bool count_site(struct bp_trace *t, struct site_counts *sc, uint32_t id)
{
	if (id >= sc->ncount) {
		uint32_t n = bp_trace_max_site_id(t) + 1;
		uint64_t *grown = realloc(sc->count, n * sizeof(*grown));

		if (!grown)
			return false;
		memset(grown + sc->ncount, 0, (n - sc->ncount) * sizeof(*grown));
		sc->count = grown;
		sc->ncount = n;
	}
	sc->count[id]++;
	return true;
}

/* Read every record into sc.  bp_trace_next()'s last result, or 2: out of memory. */
static int count_records(struct bp_trace *t, struct site_counts *sc)
{
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	int next;

	while ((next = bp_trace_next(t, &e, BP_TRACE_NEXT_NO_MESSAGE)) == 1) {
		if (!sc->total || e.ns < sc->first)
			sc->first = e.ns;
		if (e.ns > sc->last)
			sc->last = e.ns;
		sc->total++;
		if (!e.site)
			sc->unknown++;
		else if (!count_site(t, sc, e.site_id))
			return 2;
	}
	return next;
}

static void print_summary(const char *path, const struct bp_trace_info *in, uint64_t total,
			  double span)
{
	printf("# file: %s (%s, %s)\n", path,
	       in->flags & BP_TRACE_F_STREAM ? "stream" : "live",
	       in->flags & BP_TRACE_F_CLOSED ? "closed cleanly" : "not closed");
	printf("# process: %lld %s  clock: %s  mode: %s\n", (long long)in->pid,
	       in->comm[0] ? in->comm : "?", in->clock_name,
	       mode_name(in->ring_mode));
	if (in->cmdline[0])
		printf("# command: %s\n", in->cmdline);
	printf("# records: %llu  span: %.6f s\n", (unsigned long long)total, span);
}

static void print_sites(struct bp_trace *t, const struct site_counts *sc, double span, bool all)
{
	printf("#\n# sites\n");
	printf("%8s %12s %14s  %s\n", "ID", "COUNT", "RATE/s", "FILE:LINE FUNCTION");
	for (size_t i = 0; i < bp_trace_nsites(t); i++) {
		const struct bp_trace_site *s = bp_trace_site_at(t, i);
		uint64_t n = s && s->id < sc->ncount ? sc->count[s->id] : 0;

		if (!s || (!n && !all))
			continue;
		if (span > 0)
			printf("%8u %12llu %14.1f  %s:%u %s\n", s->id, (unsigned long long)n,
			       (double)n / span, s->file, s->line, s->func);
		else
			printf("%8u %12llu %14s  %s:%u %s\n", s->id, (unsigned long long)n, "-",
			       s->file, s->line, s->func);
	}
	if (sc->unknown)
		printf("%8s %12llu %14s  (unknown call sites)\n", "?",
		       (unsigned long long)sc->unknown, "-");
}

/* A ring by its thread: sorted by tid, then position, to group a thread's rings. */
struct ring_ref {
	int32_t tid;
	size_t i;
};

static int by_tid(const void *a, const void *b)
{
	const struct ring_ref *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int by_first_ring(const void *a, const void *b)
{
	const struct thread_sum *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * One entry per thread: its rings (nesting levels) summed, in the order of
 * each thread's first ring.  The count made; 0 with *th NULL when out of
 * memory.  Sorting, not a search per ring, so that 20,000 threads cost 20
 * times 1,000.
 */
static size_t sum_threads(struct bp_trace *t, struct thread_sum **th)
{
	size_t n = bp_trace_nrings(t), nth = 0;
	struct ring_ref *ref = malloc((n ? n : 1) * sizeof(*ref));

	*th = calloc(n ? n : 1, sizeof(**th));
	if (!ref || !*th) {
		free(ref);
		free(*th);
		*th = NULL;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		ref[i] = (struct ring_ref){ bp_trace_ring_at(t, i)->tid, i };
	qsort(ref, n, sizeof(*ref), by_tid);
	for (size_t k = 0; k < n; k++) {
		size_t i = ref[k].i;
		const struct bp_trace_ring *r = bp_trace_ring_at(t, i);
		struct bp_trace_totals rt = BP_TRACE_TOTALS_INIT;
		struct thread_sum *s;

		if (!k || ref[k - 1].tid != ref[k].tid) {
			s = &(*th)[nth++];
			s->tid = r->tid;
			s->first = i;
		}
		s = &(*th)[nth - 1];
		if (r->level == 0 || !s->comm[0])
			memcpy(s->comm, r->comm, sizeof(s->comm));
		bp_trace_ring_totals(t, i, &rt);	/* dropped in written and discarded */
		s->written += rt.written;
		s->discarded += rt.discarded;
		s->overwritten += rt.overwritten;
		s->read += rt.read;
		s->lost += rt.lost_by_drainer;
		s->not_copied += rt.not_copied;
		s->waits += r->block_waits;
		s->wait_ns += r->block_ns;
	}
	free(ref);
	qsort(*th, nth, sizeof(**th), by_first_ring);
	return nth;
}

static void print_threads(const struct bp_trace_info *in, const struct thread_sum *th, size_t nth)
{
	bool stream = in->flags & BP_TRACE_F_STREAM;
	/* block mode (stream files only: only bprint record drains): the waits */
	bool block = in->ring_mode == BP_TRACE_MODE_BLOCK && stream;

	printf("#\n# threads\n");
	if (stream)
		printf("%8s %-16s %12s %12s %12s %12s %12s %12s%s\n", "TID", "COMM", "WRITTEN",
		       "OVERWRITTEN", "DISCARDED", "READ", "NOT-DRAINED", "NOT-COPIED",
		       block ? "        WAITS      WAIT-MS" : "");
	else
		printf("%8s %-16s %12s %12s %12s %12s\n", "TID", "COMM", "WRITTEN",
		       "OVERWRITTEN", "DISCARDED", "READ");
	for (size_t k = 0; k < nth; k++) {
		printf("%8d %-16s %12llu %12llu %12llu %12llu", th[k].tid,
		       th[k].comm[0] ? th[k].comm : "<...>", (unsigned long long)th[k].written,
		       (unsigned long long)th[k].overwritten, (unsigned long long)th[k].discarded,
		       (unsigned long long)th[k].read);
		if (stream)
			printf(" %12llu %12llu", (unsigned long long)th[k].lost,
			       (unsigned long long)th[k].not_copied);
		if (block)
			printf(" %12llu %12.3f", (unsigned long long)th[k].waits,
			       (double)th[k].wait_ns / 1e6);
		putchar('\n');
	}
	/* buffers the file was too full for: no ring of theirs is in it */
	if (in->memory_rings)
		printf("# not in the file (it was full): %u buffer%s kept in memory only, "
		       "%llu records\n", in->memory_rings, in->memory_rings == 1 ? "" : "s",
		       (unsigned long long)in->memory_records);
}

int cmd_stats(int argc, char **argv)
{
	bool all = false;
	const char *path = NULL;
	struct bp_trace *t;
	struct site_counts sc = { 0 };
	struct thread_sum *th = NULL;
	size_t nth;
	double span;
	int rc, next;

	if ((rc = parse_stats_args(argc, argv, &all, &path)) >= 0)
		return rc;
	if (!(t = open_trace(path, &rc)))
		return rc;
	if ((next = count_records(t, &sc)) == 2) {
		errmsg(NULL, "out of memory");
		free(sc.count);
		bp_trace_close(t);
		return EXIT_IO;
	}
	span = sc.total > 1 ? (double)(sc.last - sc.first) / 1e9 : 0.0;
	print_summary(path, bp_trace_info(t), sc.total, span);
	print_sites(t, &sc, span, all);
	nth = sum_threads(t, &th);
	if (!th) {
		errmsg(NULL, "out of memory");
		free(sc.count);
		bp_trace_close(t);
		return EXIT_IO;
	}
	print_threads(bp_trace_info(t), th, nth);
	free(th);
	free(sc.count);
	rc = finish_output();
	if (next < 0 && rc == EXIT_OK) {
		errmsg(path, "read error");
		rc = next == BP_TRACE_EFORMAT ? EXIT_BADFILE : EXIT_IO;
	}
	if (rc == EXIT_OK)
		rc = report_file(path, t);
	bp_trace_close(t);
	return rc;
}
