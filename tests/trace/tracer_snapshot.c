/*
 * tracer_snapshot: a snapshot after a consuming read shows only what the
 * consumer has not taken, as the kernel's trace file does after reads of
 * trace_pipe.  Two threads trace numbered records; the consumer takes some
 * (and, merging two rings, holds one of the other thread's unreturned);
 * then bprint_snapshot_begin() and bprint_dump() must show exactly the
 * rest, in order, and a second consuming session must return that rest.
 */
#include "tracer_check.h"

#include <pthread.h>

#define PER_THREAD 100
#define TAKEN 37

static void *worker(void *arg)
{
	int who = (int)(intptr_t)arg;

	for (int i = 0; i < PER_THREAD; i++)
		trace_printk("snap %d %d", who, i);
	return NULL;
}

/* Records left after TAKEN were consumed: each thread's seq numbers, in order. */
static int read_rest(struct bprint_reader *r, int next[2])
{
	struct bprint_event ev = BPRINT_EVENT_INIT;
	int n = 0, who, i;

	while (bprint_read_next(r, &ev) == 1) {
		CHECK(sscanf(ev.message, "snap %d %d", &who, &i) == 2);
		CHECK(who == 0 || who == 1);
		CHECK_EQ(i, next[who]);
		next[who]++;
		n++;
	}
	return n;
}

int main(void)
{
	struct bprint_reader *r;
	struct bprint_event ev = BPRINT_EVENT_INIT;
	int taken[2] = { 0, 0 }, snap[2], again[2], who, i, n;
	pthread_t t[2];
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	for (intptr_t k = 0; k < 2; k++)
		CHECK(pthread_create(&t[k], NULL, worker, (void *)k) == 0);
	for (int k = 0; k < 2; k++)
		CHECK(pthread_join(t[k], NULL) == 0);

	CHECK((r = bprint_read_begin()) != NULL);
	for (n = 0; n < TAKEN; n++) {
		CHECK_EQ(bprint_read_next(r, &ev), 1);
		CHECK(sscanf(ev.message, "snap %d %d", &who, &i) == 2);
		CHECK_EQ(i, taken[who]);
		taken[who]++;
	}
	bprint_read_end(r);

	memcpy(snap, taken, sizeof(snap));
	CHECK((r = bprint_snapshot_begin()) != NULL);
	CHECK_EQ(read_rest(r, snap), 2 * PER_THREAD - TAKEN);
	bprint_read_end(r);
	CHECK_EQ(snap[0], PER_THREAD);
	CHECK_EQ(snap[1], PER_THREAD);

	/* bprint_dump(): the same records, and none of those consumed. */
	CHECK((mem = open_memstream(&text, &len)) != NULL);
	CHECK_EQ(bprint_dump_fmt(mem, BPRINT_OUTPUT_MSG), 2 * PER_THREAD - TAKEN);
	fclose(mem);
	for (int k = 0; k < 2; k++) {
		char line[32];

		snprintf(line, sizeof(line), "snap %d %d\n", k, taken[k] - 1);
		if (taken[k] > 0)
			CHECK(strstr(text, line) == NULL);
		snprintf(line, sizeof(line), "snap %d %d\n", k, PER_THREAD - 1);
		CHECK(strstr(text, line) != NULL);
	}
	free(text);

	/* The snapshot consumed nothing: the consumer gets the same rest. */
	memcpy(again, taken, sizeof(again));
	CHECK((r = bprint_read_begin()) != NULL);
	CHECK_EQ(read_rest(r, again), 2 * PER_THREAD - TAKEN);
	bprint_read_end(r);

	/* Everything consumed: a snapshot shows nothing. */
	CHECK((r = bprint_snapshot_begin()) != NULL);
	CHECK_EQ(bprint_read_next(r, &ev), 0);
	bprint_read_end(r);
	puts("ok: snapshots start where the consumer stands");
	return 0;
}
