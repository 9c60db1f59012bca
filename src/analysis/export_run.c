/*
 * bp_export_run() (bprint/export.h): an export chosen by name, its
 * options (the filter, --span's spans) put into the exporters' own
 * (output/export.h), its counts copied out as far as the caller's size
 * goes.  Here, not in output/, because --span's pairing is analysis.
 */
#include <bprint/export.h>

#include "analysis/span_export.h"
#include "output/export.h"

#include <stdio.h>
#include <string.h>

int bp_export_run(struct bp_trace *t, const char *name, int fd,
		  const struct bp_export_options *opts, struct bp_export_counts *counts,
		  char *err, size_t errlen)
{
	struct bp_export_opts o = { 0 };
	struct bp_export_stats st = { 0 };
	int rc;

	if ((opts && opts->size < sizeof(*opts)) || (counts && counts->size < sizeof(*counts))) {
		snprintf(err, errlen, "a struct without its size");
		return BP_TRACE_EINVAL;
	}
	if (opts) {
		o.chosen = opts->chosen;
		o.arg = opts->arg;
		if (opts->spans) {
			o.observe = bp_span_export_observe;
			o.observe_arg = opts->spans;
		}
	}
	rc = bp_export_with(t, name, fd, &o, &st, err, errlen);
	if (counts) {
		uint32_t size = counts->size;

		*counts = (struct bp_export_counts){
			.size = size,
			.threads = st.threads,
			.records = st.records,
			.site_events = st.site_events,
			.print = st.print,
			.truncated = st.truncated,
			.kernel = st.kernel,
			.lost = st.lost,
			.pages = st.pages,
			.spans = st.spans,
			.cpus = st.cpus,
		};
	}
	return rc;
}
