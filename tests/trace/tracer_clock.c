/*
 * tracer_clock CLOCK: run under BPRINT_CLOCK=CLOCK (checked).  Two threads
 * trace, each call bracketed by reads of the clock the records should be
 * in; then every record's ns lies within the bracket of its own call,
 * give or take a generous 10 ms (a correctness bound, not a timing one),
 * and per thread ns never decreases.  For "counter" the values are counts:
 * distinct, strictly increasing per thread and across the merged output.
 * Exit 77 (skipped) for tsc where the TSC is unusable.
 */
#include "tracer_check.h"

#include "trace/clock.h"

#include <pthread.h>

#define NTHREADS 2
#define SLACK_NS 10000000ull

static int per_thread;
static enum bp_clock_id clock_id;
static clockid_t ref_clock;
static uint64_t *lo[NTHREADS], *hi[NTHREADS];
static int tids[NTHREADS];

static uint64_t ref_now(void)
{
	struct timespec ts;

	clock_gettime(ref_clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *writer(void *arg)
{
	int t = (int)(intptr_t)arg;

	tids[t] = (int)gettid();
	for (int i = 0; i < per_thread; i++) {
		lo[t][i] = ref_now();
		trace_printk("c t=%d i=%d", t, i);
		hi[t][i] = ref_now();
		if (i % 1000 == 999)
			tc_sleep_us(100);	/* spread the calls over some time */
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w[NTHREADS];
	uint64_t last[NTHREADS] = { 0 }, last_any = 0;
	int got[NTHREADS] = { 0 };
	struct bprint_reader *r;
	struct bprint_event ev = BPRINT_EVENT_INIT;
	int rc, first = 1;

	if (argc != 2 || bp_clock_parse(argv[1], &clock_id) != 0)
		FAIL("usage: tracer_clock tsc|mono|mono_raw|boot|counter");
	if (clock_id == BP_CLOCK_TSC && !bp_clock_tsc_usable()) {
		printf("tsc unusable here: skipped\n");
		return 77;
	}
	CHECK_EQ(bp_clock_selected(), clock_id);	/* BPRINT_CLOCK took effect */
	ref_clock = clock_id == BP_CLOCK_MONO_RAW ? CLOCK_MONOTONIC_RAW :
		    clock_id == BP_CLOCK_BOOT ? CLOCK_BOOTTIME : CLOCK_MONOTONIC;
	per_thread = (int)tc_scale(20000);
	for (int t = 0; t < NTHREADS; t++) {
		lo[t] = calloc((size_t)per_thread, sizeof(uint64_t));
		hi[t] = calloc((size_t)per_thread, sizeof(uint64_t));
		CHECK(lo[t] && hi[t]);
	}
	for (int t = 0; t < NTHREADS; t++)
		CHECK_EQ(pthread_create(&w[t], NULL, writer, (void *)(intptr_t)t), 0);
	for (int t = 0; t < NTHREADS; t++)
		CHECK_EQ(pthread_join(w[t], NULL), 0);

	r = bprint_read_begin();
	CHECK(r != NULL);
	while ((rc = bprint_read_next(r, &ev)) == 1) {
		int t, i;

		if (sscanf(ev.message, "c t=%d i=%d", &t, &i) != 2 || t < 0 || t >= NTHREADS ||
		    i < 0 || i >= per_thread)
			FAIL("bad record \"%s\"", ev.message);
		CHECK_EQ(ev.tid, tids[t]);
		CHECK_EQ(i, got[t]);
		got[t]++;
		if (clock_id == BP_CLOCK_COUNTER) {
			if (!first && ev.ns <= last_any)
				FAIL("counter %llu after %llu", (unsigned long long)ev.ns,
				     (unsigned long long)last_any);
		} else {
			if (ev.ns + SLACK_NS < lo[t][i] || ev.ns > hi[t][i] + SLACK_NS)
				FAIL("thread %d record %d: ns %llu outside [%llu, %llu] +- 10 ms", t, i,
				     (unsigned long long)ev.ns, (unsigned long long)lo[t][i],
				     (unsigned long long)hi[t][i]);
			if (got[t] > 1 && ev.ns < last[t])
				FAIL("thread %d: ns %llu after %llu", t, (unsigned long long)ev.ns,
				     (unsigned long long)last[t]);
		}
		last[t] = ev.ns;
		last_any = ev.ns;
		first = 0;
	}
	CHECK_EQ(rc, 0);
	bprint_read_end(r);
	for (int t = 0; t < NTHREADS; t++) {
		CHECK_EQ(got[t], per_thread);
		free(lo[t]);
		free(hi[t]);
	}
	printf("clock %s: %d records per thread in range and in order\n", argv[1], per_thread);
	return 0;
}
