/*
 * rt_toggle: bprint_enable() and bprint_disable() under load (issue 19,
 * item 7: add_rule stored a site's enabled byte with a plain store while
 * the call sites load it atomically, a data race TSan reported).  Four
 * threads call the toggled site flat out while the main thread turns it
 * off and on 200 times; after each switch the main thread calls it 100
 * times itself.  Then a snapshot: exactly 100 of its records for each
 * phase it was on, none for each phase it was off.  Run under TSan (make
 * tsan) it is the race's test.
 */
#include <bprint.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PHASES 200
#define PER_PHASE 100
#define HAMMERS 4

static atomic_int stop;

static void toggled(int phase, int i)
{
	trace_printk("toggled phase=%d i=%d", phase, i);
}

static void *hammer(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		toggled(-1, 0);
	return NULL;
}

static int fail(const char *what, int phase, int got, int want)
{
	fprintf(stderr, "rt_toggle: %s: phase %d: %d records, want %d\n", what, phase, got, want);
	return 1;
}

int main(void)
{
	static int count[PHASES];
	struct bprint_event ev = BPRINT_EVENT_INIT;
	struct bprint_reader *r;
	pthread_t th[HAMMERS];
	int phase, i, bad = 0;

	toggled(-1, 0);	/* registered before the threads start */
	for (i = 0; i < HAMMERS; i++)
		if (pthread_create(&th[i], NULL, hammer, NULL) != 0)
			return 2;
	for (phase = 0; phase < PHASES; phase++) {
		int changed = phase % 2 ? bprint_enable("func:toggled") : bprint_disable("func:toggled");

		if (changed != 1)
			bad |= fail("sites changed by the switch", phase, changed, 1);
		for (i = 0; i < PER_PHASE; i++)
			toggled(phase, i);
	}
	atomic_store(&stop, 1);
	for (i = 0; i < HAMMERS; i++)
		pthread_join(th[i], NULL);
	if (!(r = bprint_snapshot_begin()))
		return 2;
	while (bprint_read_next(r, &ev) == 1)
		if (sscanf(ev.message, "toggled phase=%d i=%*d", &phase) == 1 && phase >= 0 &&
		    phase < PHASES)
			count[phase]++;
	bprint_read_end(r);
	for (phase = 0; phase < PHASES; phase++)
		if (count[phase] != (phase % 2 ? PER_PHASE : 0))
			bad |= fail("records", phase, count[phase], phase % 2 ? PER_PHASE : 0);
	if (!bad)
		printf("rt_toggle: %d switches under %d threads: every phase exact\n", PHASES, HAMMERS);
	return bad;
}
