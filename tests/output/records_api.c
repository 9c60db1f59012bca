/*
 * records_api: the record writers of bprint/text.h, as `bprint report
 * --json` and `--csv` print (tool_analysis checks the command's lines
 * against known values; this checks the calls): CSV's header columns
 * and its rows under them, JSON's members, quoting, dates, and that
 * lines gather until cleared.
 *
 * The program traces into a live file of its own (it sets BPRINT_FILE to
 * a new directory's file and executes itself again) and reads it back.
 */
#include "trace/tracer_check.h"

#include <bprint/text.h>

#include <stdlib.h>
#include <string.h>

/* The writer's lines for every record of path, after CSV's header. */
static char *lines_of(const char *path, unsigned flags, const char *date)
{
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	char err[256];
	struct bp_trace *t = bp_trace_open(path, 0, err, sizeof(err), NULL);
	struct bp_trace_records *w;
	const char *p;
	char *copy;
	size_t len;

	CHECK(t != NULL);
	CHECK((w = bp_trace_records_new(t, flags)) != NULL);
	CHECK_EQ(bp_trace_records_header(w, NULL), 0);
	while (bp_trace_next(t, &e, BP_TRACE_NEXT_NO_MESSAGE) == 1)
		CHECK_EQ(bp_trace_records_event(w, &e, date, date ? strlen(date) : 0), 0);
	p = bp_trace_records_lines(w, &len);
	CHECK((copy = strndup(p, len)) != NULL);
	CHECK_EQ(strlen(copy), len);
	bp_trace_records_clear(w);
	bp_trace_records_lines(w, &len);
	CHECK_EQ(len, 0);
	bp_trace_records_free(w);
	bp_trace_close(t);
	return copy;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

int main(int argc, char **argv)
{
	const char *path = tc_own_file(argv, "bp-records-api");
	char err[256], *s;
	struct bp_trace *t;

	CHECK(argc >= 1);
	trace_printk("val %d name %s f %f", 5, "x,\"y", 1.5);
	trace_printk("other %u", 7u);

	s = lines_of(path, BP_TRACE_RECORDS_CSV, NULL);
	CHECK_EQ(count_lines(s), 3);
	/* the columns: each site's fields, in the site table's order */
	{
		const char *fixed = "ns,tid,comm,cpu,site,func,message,lost_before,";
		bool other_first = strncmp(s + strlen(fixed), "other,", 6) == 0;

		CHECK(strncmp(s, fixed, strlen(fixed)) == 0);
		CHECK(strstr(s, other_first ? ",other,val,name,f\n" : ",val,name,f,other\n") != NULL);
		CHECK(strstr(s, other_first
			  ? ",main,\"val 5 name x,\"\"y f 1.500000\",0,,5,\"x,\"\"y\",1.5\n"
			  : ",main,\"val 5 name x,\"\"y f 1.500000\",0,5,\"x,\"\"y\",1.5,\n"));
		CHECK(strstr(s, other_first ? ",main,other 7,0,7,,,\n" : ",main,other 7,0,,,,7\n"));
	}
	free(s);

	s = lines_of(path, BP_TRACE_RECORDS_CSV | BP_TRACE_RECORDS_DATES, "D8");
	CHECK(strncmp(s, "ns,date,tid,", 12) == 0);
	CHECK(strstr(s, ",D8,") != NULL);
	free(s);

	s = lines_of(path, BP_TRACE_RECORDS_JSON, NULL);
	CHECK_EQ(count_lines(s), 2);	/* JSON Lines have no header */
	CHECK(strncmp(s, "{\"ns\":", 6) == 0);
	CHECK(strstr(s, "\"func\":\"main\",\"message\":\"val 5 name x,\\\"y f 1.500000\","
			"\"fields\":{\"val\":5,\"name\":\"x,\\\"y\",\"f\":1.5},\"lost_before\":0}\n"));
	CHECK(strstr(s, "\"fields\":{\"other\":7},\"lost_before\":0}\n"));
	CHECK(!strstr(s, "\"date\""));
	free(s);

	s = lines_of(path, BP_TRACE_RECORDS_JSON, "1970-01-01T00:00:00.000000000Z");
	CHECK(strstr(s, ",\"date\":\"1970-01-01T00:00:00.000000000Z\",\"tid\":") != NULL);
	free(s);

	/* one form, and a trace */
	t = bp_trace_open(path, 0, err, sizeof(err), NULL);
	CHECK(t != NULL);
	CHECK(bp_trace_records_new(t, BP_TRACE_RECORDS_JSON | BP_TRACE_RECORDS_CSV) == NULL);
	CHECK(bp_trace_records_new(t, 0) == NULL);
	CHECK(bp_trace_records_new(NULL, BP_TRACE_RECORDS_JSON) == NULL);
	bp_trace_records_free(NULL);
	bp_trace_close(t);
	tc_own_file_remove(path);
	return 0;
}
