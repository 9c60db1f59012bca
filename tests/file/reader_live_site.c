/*
 * reader_live_site: a trace file read while its program still writes it
 * knows the sites filed after the reader opened it, also before the
 * reader's first refresh (bprint tail drains once before it refreshes).
 *
 * The program is its own writer and reader (BPRINT_FILE, set by the
 * test): it traces, opens its own live file, then traces under a site
 * that registers only now (a runtime format: its derived site is filed
 * at that call), and reads every record without a refresh.  Each must
 * name its site, with the format the call used.
 */
#include "trace/tracer_check.h"

#include <bprint/reader.h>

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

int main(void)
{
	const char *path = getenv("BPRINT_FILE");
	char late_fmt[32], err[256], want[64];
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	struct bp_trace *t;
	int rc, n = 0;

	CHECK(path != NULL);
	trace_printk("before the open %d", 1);
	t = bp_trace_open(path, 0, err, sizeof(err), &rc);
	if (!t)
		FAIL("%s: %s", path, err);
	strcpy(late_fmt, "after the open %d");
	trace_printk(late_fmt, 2);	/* a derived site, filed now */
	while ((rc = bp_trace_next(t, &e, 0)) == 1) {
		const char *fmt = n == 0 ? "before the open %d" : late_fmt;

		if (!e.site)
			FAIL("record %d: site %u unknown (\"%s\")", n, e.site_id, e.message);
		CHECK_STREQ(e.site->format, fmt);
		snprintf(want, sizeof(want), fmt, n + 1);
		CHECK_STREQ(e.message, want);
		n++;
	}
	CHECK_EQ(rc, 0);
	CHECK_EQ(n, 2);
	bp_trace_close(t);
	printf("ok: a site filed after the open is known at its first record\n");
	return 0;
}
