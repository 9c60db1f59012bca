/*
 * reader_args_only: bp_trace_next() with BP_TRACE_NEXT_ARGS_ONLY gives, for
 * every record, what a full read gives of the record's arguments (site,
 * thread, ring, index, block, text), in the same order across threads,
 * and leaves the rest of the event as the caller left it.
 *
 * The program traces from three threads into a live file of its own (it
 * sets BPRINT_FILE to a new directory's file and executes itself again),
 * then reads it back twice.
 */
#include "trace/tracer_check.h"

#include <bprint/reader.h>

#include <pthread.h>

#define PER_THREAD 3000

static void *worker(void *arg)
{
	long k = (long)arg;

	for (int i = 0; i < PER_THREAD; i++) {
		if (i % 3)
			trace_printk("req %d of %ld name %s", i, k, i % 2 ? "odd" : "even");
		else
			trace_puts("a line of text\n");
	}
	return NULL;
}

static struct bp_trace *open_it(const char *path)
{
	char err[256];
	int rc;
	struct bp_trace *t = bp_trace_open(path, 0, err, sizeof(err), &rc);

	if (!t)
		FAIL("%s: %s", path, err);
	return t;
}

int main(int argc, char **argv)
{
	const char *path = tc_own_file(argv, "bp-reader-args");
	struct bp_trace *full, *args;
	struct bp_trace_event f = BP_TRACE_EVENT_INIT, a = BP_TRACE_EVENT_INIT;
	pthread_t th[3];
	long n = 0;
	int rf, ra;

	CHECK(argc == 2 && path != NULL);
	for (long k = 0; k < 3; k++)
		CHECK_EQ(pthread_create(&th[k], NULL, worker, (void *)k), 0);
	for (int k = 0; k < 3; k++)
		CHECK_EQ(pthread_join(th[k], NULL), 0);
	full = open_it(path);
	args = open_it(path);
	for (;;) {
		rf = bp_trace_next(full, &f, 0);
		memset(&a, 0x5a, sizeof(a));
		a.size = sizeof(a);
		ra = bp_trace_next(args, &a, BP_TRACE_NEXT_ARGS_ONLY);
		CHECK_EQ(ra, rf);
		if (rf != 1)
			break;
		n++;
		CHECK_EQ(a.site_id, f.site_id);
		CHECK(a.site == f.site || (a.site && f.site && a.site->id == f.site->id));
		CHECK_EQ(a.tid, f.tid);
		CHECK_EQ(a.ring, f.ring);
		CHECK_EQ(a.index, f.index);
		CHECK_EQ(a.text, f.text);
		CHECK_EQ(a.block_words, f.block_words);
		CHECK(!memcmp(a.block, f.block, f.block_words * 4));
		/* the rest as it was */
		CHECK(a.ns == 0x5a5a5a5a5a5a5a5aull);
		CHECK(a.raw_ts == 0x5a5a5a5a5a5a5a5aull);
		CHECK(a.lost_before == 0x5a5a5a5a5a5a5a5aull);
		CHECK_EQ(a.exact, 0x5a5a5a5a);
	}
	CHECK_EQ(rf, 0);
	CHECK_EQ(n, 3 * PER_THREAD);
	bp_trace_close(full);
	bp_trace_close(args);
	tc_own_file_remove(path);
	printf("ok: %ld records read with their arguments only, as a full read gives them\n", n);
	return 0;
}
