/*
 * reader_sized: the reading library's caller-allocated structs begin with
 * their size, as bprint.h's do.  A struct whose size is not set is
 * refused (BP_TRACE_EINVAL) and left alone; one from a newer program (a
 * larger size) gets what this library knows and keeps its own tail.
 *
 * The program traces into a live file of its own (it sets BPRINT_FILE to
 * a new directory's file and executes itself again) and reads it back.
 */
#include "trace/tracer_check.h"

#include <bprint/reader.h>


struct newer_event {
	struct bp_trace_event ev;
	uint64_t tail;			/* a field this library does not know */
};

struct newer_totals {
	struct bp_trace_totals tot;
	uint64_t tail;
};

int main(int argc, char **argv)
{
	const char *path = tc_own_file(argv, "bp-reader-sized");
	struct bp_trace_event unset, e = BP_TRACE_EVENT_INIT;
	struct bp_trace_totals unset_tot, tot = BP_TRACE_TOTALS_INIT;
	struct newer_event ne;
	struct newer_totals nt;
	struct bp_trace *t;
	char err[256];
	int rc;

	CHECK(argc == 2 && path != NULL);
	trace_printk("sized %d", 1);
	trace_printk("sized %d", 2);
	t = bp_trace_open(path, 0, err, sizeof(err), &rc);
	if (!t)
		FAIL("%s: %s", path, err);

	memset(&unset, 0x5a, sizeof(unset));
	unset.size = 0;
	CHECK_EQ(bp_trace_next(t, &unset, 0), BP_TRACE_EINVAL);
	CHECK_EQ(unset.tid, 0x5a5a5a5a);	/* untouched */
	unset.size = BP_TRACE_EVENT_SIZE_3 - 1;
	CHECK_EQ(bp_trace_next(t, &unset, 0), BP_TRACE_EINVAL);
	/* the sizes of the layout that embedded struct bprint_event: a
	 * program built against that header is refused, not misfilled */
	unset.size = 136;
	CHECK_EQ(bp_trace_next(t, &unset, 0), BP_TRACE_EINVAL);
	unset.size = 144;
	CHECK_EQ(bp_trace_next(t, &unset, 0), BP_TRACE_EINVAL);
	CHECK_EQ(unset.tid, 0x5a5a5a5a);

	CHECK_EQ(bp_trace_next(t, &e, 0), 1);
	CHECK_STREQ(e.message, "sized 1");
	CHECK_EQ(e.size, sizeof(e));

	memset(&ne, 0, sizeof(ne));
	ne.ev.size = sizeof(ne);
	ne.tail = 0x1234567890abcdefull;
	CHECK_EQ(bp_trace_next(t, &ne.ev, 0), 1);
	CHECK_STREQ(ne.ev.message, "sized 2");
	CHECK_EQ(ne.ev.size, sizeof(ne));
	CHECK(ne.tail == 0x1234567890abcdefull);

	memset(&unset_tot, 0x5a, sizeof(unset_tot));
	unset_tot.size = 0;
	CHECK_EQ(bp_trace_totals(t, &unset_tot), BP_TRACE_EINVAL);
	CHECK(unset_tot.written == 0x5a5a5a5a5a5a5a5aull);
	CHECK_EQ(bp_trace_totals(t, &tot), BP_TRACE_OK);
	CHECK_EQ(tot.size, sizeof(tot));
	CHECK_EQ(tot.read, 2);
	CHECK_EQ(tot.written, 2);

	memset(&nt, 0, sizeof(nt));
	nt.tot.size = sizeof(nt);
	nt.tail = 7;
	CHECK_EQ(bp_trace_totals(t, &nt.tot), BP_TRACE_OK);
	CHECK_EQ(nt.tot.size, sizeof(nt));
	CHECK_EQ(nt.tot.read, 2);
	CHECK_EQ(nt.tail, 7);
	bp_trace_close(t);
	tc_own_file_remove(path);
	printf("ok: sized structs refused unset, filled as far as their size\n");
	return 0;
}
