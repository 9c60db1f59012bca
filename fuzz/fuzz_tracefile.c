/*
 * fuzz_tracefile: the trace-file reader (src/reader/reading.h) on arbitrary
 * bytes.  The input becomes a file (memfd), which is opened and read the
 * way `bprint report` and `bprint stats` read it: every table, every
 * record with its message, the counters, a refresh, and the records again;
 * then opened again and read as `bprint hist` reads it, a run of a page
 * at a time with every field of every site decoded (bp_bind_next()).
 * Seeds: fuzz/corpus/fuzz_tracefile/ (small real trace files, live and
 * stream).
 */
#include "reader/reader.h"

#include <bprint/analysis.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* %pS lookups read ELF files of this machine: not what is being fuzzed. */
#ifdef BP_TRACE_OPEN_NO_SYMBOLS
#define OPEN_FLAGS BP_TRACE_OPEN_NO_SYMBOLS
#else
#define OPEN_FLAGS 0
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every record of path through the analysis binding, every field read. */
static void read_bound(const char *path)
{
	struct bp_bind *b = bp_bind_new(BP_BIND_EVERY_FIELD);
	struct bp_bind_rec r[BP_BIND_NEXT_MAX];
	unsigned long seen = 0, sum = 0;
	char err[256];
	struct bp_trace *t = b ? bp_trace_open(path, OPEN_FLAGS, err, sizeof(err), NULL) : NULL;
	int n;

	r[0].size = sizeof(r[0]);
	while (t && seen < 1000000 && (n = bp_bind_next(b, t, r, BP_BIND_NEXT_MAX,
							BP_TRACE_NEXT_TIME)) > 0)
		for (int i = 0; i < n; i++, seen++)
			for (int k = 0; k < r[i].n && r[i].s->lay && k < 64; k++)
				if (r[i].s->wanted >> k & 1)
					sum += r[i].s->lay->fields[k].type == BP_FIELD_STRING
						       ? (r[i].vals[k].len ? (unsigned char)
							  r[i].vals[k].s[r[i].vals[k].len - 1] : 0)
						       : (unsigned long)r[i].vals[k].v.u;
	if (t)
		bp_trace_close(t);
	bp_bind_free(b);
	(void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[256];
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	struct bp_trace_totals tot = BP_TRACE_TOTALS_INIT;
	struct bp_trace *t;
	size_t left = size;
	int fd = memfd_create("fuzz_tracefile", MFD_CLOEXEC), rc;

	if (fd < 0)
		return 0;
	while (left > 0) {
		ssize_t n = write(fd, data + (size - left), left);

		if (n <= 0) {
			close(fd);
			return 0;
		}
		left -= (size_t)n;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	t = bp_trace_open(path, OPEN_FLAGS, err, sizeof(err), &rc);
	if (t) {
		for (size_t i = 0; i < bp_trace_nsites(t); i++) {
			const struct bp_trace_site *s = bp_trace_site_at(t, i);

			if (s && s->format)
				(void)strlen(s->format);
		}
		for (size_t i = 0; i < bp_trace_nlibs(t); i++)
			(void)strlen(bp_trace_lib_at(t, i)->path);
		(void)bp_trace_overwritten_estimate(t);
		for (int pass = 0; pass < 2; pass++) {
			unsigned long n = 0;

			while (n++ < 1000000 && bp_trace_next(t, &e, pass ? BP_TRACE_NEXT_NO_MESSAGE : 0) == 1)
				if (pass)
					bp_trace_message(t, &e);
			if (bp_trace_refresh(t) < 0)
				break;
		}
		bp_trace_totals(t, &tot);
		(void)bp_trace_problems(t, NULL);
		bp_trace_close(t);
		read_bound(path);
	}
	close(fd);
	return 0;
}
