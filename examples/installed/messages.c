/*
 * Read a trace file with the reading library: every record's message, one
 * a line, then the file's counters.  The smallest analysis program:
 *   messages TRACE-FILE
 */
#include <bprint/reader.h>

#include <stdio.h>

int main(int argc, char **argv)
{
	struct bp_trace_event ev = BP_TRACE_EVENT_INIT;
	struct bp_trace_totals tot = BP_TRACE_TOTALS_INIT;
	struct bp_trace *t;
	char err[256];
	long n = 0;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: %s TRACE-FILE\n", argv[0]);
		return 1;
	}
	t = bp_trace_open(argv[1], BP_TRACE_OPEN_DEFAULT, err, sizeof(err), NULL);
	if (!t) {
		fprintf(stderr, "%s: %s\n", argv[1], err);
		return 2;
	}
	while ((rc = bp_trace_next(t, &ev, 0)) == 1) {
		printf("%s\n", ev.message);
		n++;
	}
	bp_trace_totals(t, &tot);
	fprintf(stderr, "%ld records of %llu written, %zu call sites\n", n,
		(unsigned long long)tot.written, bp_trace_nsites(t));
	bp_trace_close(t);
	return rc < 0 ? 2 : 0;
}
