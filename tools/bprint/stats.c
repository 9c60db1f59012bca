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
 * read + overwritten + discarded + not-copied = written.
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
	       "Exit status: 0 success, 1 bad command line or an incomplete file (not closed\n"
	       "cleanly, truncated), 2 missing, foreign or damaged file,\n"
	       "3 read or write error.\n",
	       prog);
}

struct thread_sum {
	int32_t tid;
	char comm[17];
	uint64_t written, overwritten, discarded, read, lost, not_copied;
	uint64_t waits, wait_ns;
};

/* enum bp_ring_mode's names */
static const char *mode_name(uint32_t mode)
{
	return mode == 0 ? "overwrite" : mode == 1 ? "discard" : mode == 2 ? "block" : "unknown";
}

int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all-sites", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool all = false, block;
	const char *path;
	struct bp_trace *t;
	const struct bp_trace_info *in;
	struct bp_trace_event e;
	uint64_t *count = NULL, unknown = 0, total = 0, first = 0, last = 0;
	uint32_t ncount = 0;
	struct thread_sum *th = NULL;
	size_t nth = 0;
	double span;
	int c, rc, next;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ah", opts, NULL)) != -1) {
		switch (c) {
		case 'a': all = true; break;
		case 'h': stats_help(); return finish_output();
		default: return usage_error("stats", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("stats", "missing FILE");
	if (optind + 1 < argc)
		return usage_error("stats", "unexpected argument '%s'", argv[optind + 1]);
	path = argv[optind];
	if (!(t = open_trace(path, &rc)))
		return rc;

	while ((next = bp_trace_next(t, &e, BP_TRACE_NEXT_NO_MESSAGE)) == 1) {
		if (!total || e.ev.ns < first)
			first = e.ev.ns;
		if (e.ev.ns > last)
			last = e.ev.ns;
		total++;
		if (!e.ev.site) {
			unknown++;
			continue;
		}
		if (e.site_id >= ncount) {
			uint32_t n = bp_trace_max_site_id(t) + 1;
			uint64_t *grown = realloc(count, n * sizeof(*grown));

			if (!grown) {
				errmsg(NULL, "out of memory");
				free(count);
				bp_trace_close(t);
				return EXIT_IO;
			}
			memset(grown + ncount, 0, (n - ncount) * sizeof(*grown));
			count = grown;
			ncount = n;
		}
		count[e.site_id]++;
	}
	span = total > 1 ? (double)(last - first) / 1e9 : 0.0;

	in = bp_trace_info(t);
	printf("# file: %s (%s, %s)\n", path,
	       in->flags & BP_TRACE_F_STREAM ? "stream" : "live",
	       in->flags & BP_TRACE_F_CLOSED ? "closed cleanly" : "not closed");
	printf("# process: %lld %s  clock: %s  mode: %s\n", (long long)in->pid,
	       in->comm[0] ? in->comm : "?", in->clock_name,
	       mode_name(in->ring_mode));
	if (in->cmdline[0])
		printf("# command: %s\n", in->cmdline);
	printf("# records: %llu  span: %.6f s\n", (unsigned long long)total, span);
	printf("#\n# sites\n");
	printf("%8s %12s %14s  %s\n", "ID", "COUNT", "RATE/s", "FILE:LINE FUNCTION");
	for (size_t i = 0; i < bp_trace_nsites(t); i++) {
		const struct bp_trace_site *s = bp_trace_site_at(t, i);
		uint64_t n = s && s->site.id < ncount ? count[s->site.id] : 0;

		if (!s || (!n && !all))
			continue;
		if (span > 0)
			printf("%8u %12llu %14.1f  %s:%u %s\n", s->site.id, (unsigned long long)n,
			       (double)n / span, s->site.file, s->site.line, s->site.func);
		else
			printf("%8u %12llu %14s  %s:%u %s\n", s->site.id, (unsigned long long)n, "-",
			       s->site.file, s->site.line, s->site.func);
	}
	if (unknown)
		printf("%8s %12llu %14s  (unknown call sites)\n", "?", (unsigned long long)unknown, "-");

	/* one line per thread: its rings (nesting levels) summed */
	for (size_t i = 0; i < bp_trace_nrings(t); i++) {
		const struct bp_trace_ring *r = bp_trace_ring_at(t, i);
		struct thread_sum *s = NULL;

		for (size_t k = 0; k < nth; k++)
			if (th[k].tid == r->tid)
				s = &th[k];
		if (!s) {
			struct thread_sum *grown = realloc(th, (nth + 1) * sizeof(*grown));

			if (!grown)
				break;
			th = grown;
			s = &th[nth++];
			memset(s, 0, sizeof(*s));
			s->tid = r->tid;
		}
		if (r->level == 0 || !s->comm[0])
			memcpy(s->comm, r->comm, sizeof(s->comm));
		s->written += r->written + r->dropped;
		s->discarded += r->discarded + r->dropped;
		s->overwritten += r->overwritten;
		s->read += r->read;
		s->lost += r->lost_by_drainer;
		s->not_copied += r->not_copied;
		s->waits += r->block_waits;
		s->wait_ns += r->block_ns;
	}
	/* block mode (stream files only: only bprint record drains): the waits */
	block = in->ring_mode == 2 && (in->flags & BP_TRACE_F_STREAM);
	printf("#\n# threads\n");
	if (in->flags & BP_TRACE_F_STREAM)
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
		if (in->flags & BP_TRACE_F_STREAM)
			printf(" %12llu %12llu", (unsigned long long)th[k].lost,
			       (unsigned long long)th[k].not_copied);
		if (block)
			printf(" %12llu %12.3f", (unsigned long long)th[k].waits,
			       (double)th[k].wait_ns / 1e6);
		putchar('\n');
	}
	free(th);
	free(count);
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
