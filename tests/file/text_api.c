/*
 * text_api: bprint/text.h, the text forms a program prints a trace with.
 * Each ftrace prefix (with and without BP_TRACE_TEXT_COMM16, its cache
 * carried from line to line) followed by the message is the line
 * bp_trace_format_event() makes through the runtime's bprint_format_event()
 * for the same record; the header and dates are checked against fixed
 * text; caches without their size are refused.
 *
 * The program traces into a live file of its own (it sets BPRINT_FILE to
 * a new directory's file and executes itself again) and reads it back.
 */
#include "trace/tracer_check.h"

#include <bprint/text.h>

#include <pthread.h>
#include <string.h>

static void *other_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++)
		trace_printk("other %d", i);
	return NULL;
}

static void check_lines(struct bp_trace *t)
{
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	struct bp_trace_text_cache plain = BP_TRACE_TEXT_CACHE_INIT;
	struct bp_trace_text_cache comm16 = { .size = sizeof(comm16),
					      .flags = BP_TRACE_TEXT_COMM16 };
	char want[BP_TRACE_MSG_MAX + 128], got[BP_TRACE_MSG_MAX + 128];
	int n = 0;

	while (bp_trace_next(t, &e, 0) == 1) {
		size_t len;

		CHECK(bp_trace_format_event(want, sizeof(want), &e, BPRINT_OUTPUT_FTRACE) > 0);
		len = bp_trace_ftrace_prefix(&plain, got, sizeof(got), &e, NULL, 0);
		snprintf(got + len, sizeof(got) - len, "%s", e.message);
		CHECK_STREQ(got, want);
		len = bp_trace_ftrace_prefix(&comm16, got, sizeof(got), &e, e.site->func,
					     e.site->func_len);
		snprintf(got + len, sizeof(got) - len, "%s", e.message);
		CHECK_STREQ(got, want);
		/* snprintf semantics: cut, NUL-terminated, the full length */
		CHECK_EQ(bp_trace_ftrace_prefix(&plain, got, 5, &e, NULL, 0), len);
		CHECK_EQ(strlen(got), 4);
		n++;
	}
	CHECK_EQ(n, 6);
}

int main(int argc, char **argv)
{
	const char *path = tc_own_file(argv, "bp-text-api");
	struct bp_trace_text_cache unset_text = { 0 };
	struct bp_trace_date_cache utc = BP_TRACE_DATE_CACHE_INIT, unset_date = { 0 };
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	struct bp_trace *t;
	pthread_t th;
	uint32_t major = 0, minor = 0;
	char err[256], buf[512];

	CHECK(argc >= 1);
	trace_printk("main %d", 1);
	trace_puts("a puts line");
	CHECK_EQ(pthread_create(&th, NULL, other_thread, NULL), 0);
	CHECK_EQ(pthread_join(th, NULL), 0);
	trace_printk("main %s", "last");
	t = bp_trace_open(path, 0, err, sizeof(err), NULL);
	if (!t)
		FAIL("%s: %s", path, err);
	check_lines(t);
	bp_trace_close(t);

	/* dates: one cache per zone, the second's text kept */
	CHECK_EQ(bp_trace_format_date(&utc, buf, sizeof(buf), 0, 1), 30);
	CHECK_STREQ(buf, "1970-01-01T00:00:00.000000000Z");
	bp_trace_format_date(&utc, buf, sizeof(buf), 1764787646573637466ll, 1);
	CHECK_STREQ(buf, "2025-12-03T18:47:26.573637466Z");
	bp_trace_format_date(&utc, buf, sizeof(buf), 1764787646000000001ll, 1);
	CHECK_STREQ(buf, "2025-12-03T18:47:26.000000001Z");

	/* the header's first line, and six lines */
	CHECK(bp_trace_text_header(buf, sizeof(buf), 10, 2, 4) < sizeof(buf));
	CHECK(strncmp(buf, "# tracer: bprint\n", 17) == 0);
	{
		int lines = 0;

		for (const char *p = buf; *p; p++)
			lines += *p == '\n';
		CHECK_EQ(lines, 6);
	}

	/* caches without their size: refused, nothing written but the NUL */
	t = bp_trace_open(path, 0, err, sizeof(err), NULL);
	CHECK(t != NULL);
	CHECK_EQ(bp_trace_next(t, &e, 0), 1);
	strcpy(buf, "x");
	CHECK_EQ(bp_trace_ftrace_prefix(&unset_text, buf, sizeof(buf), &e, NULL, 0), 0);
	CHECK_STREQ(buf, "");
	CHECK_EQ(unset_text.opaque[0], 0);
	strcpy(buf, "x");
	CHECK_EQ(bp_trace_format_date(&unset_date, buf, sizeof(buf), 0, 1), 0);
	CHECK_STREQ(buf, "");
	bp_trace_close(t);

	bp_trace_file_version(&major, &minor);
	CHECK_EQ(major, 1);
	CHECK(minor >= 5);
	tc_own_file_remove(path);
	return 0;
}
