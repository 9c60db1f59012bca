/*
 * reader_join: a ring that appears in the middle of a consuming session (a
 * new thread, or a signal handler's first nested call) joins it in time
 * order: the consumer returns records oldest first across the rings it
 * knew and the one that appeared, not the new ring's after every known
 * ring is empty.  Also for a snapshot taken while the new ring appears.
 */
#include "trace/tracer_check.h"

static atomic_int phase;

static void *old_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2000; i++)
		trace_printk("old %d", i);
	atomic_store(&phase, 1);
	while (atomic_load(&phase) != 2)
		tc_sleep_us(100);
	for (int i = 2000; i < 4000; i++)
		trace_printk("old %d", i);
	return NULL;
}

static void *new_thread(void *arg)
{
	(void)arg;
	trace_printk("new %d", 1);
	return NULL;
}

static void signal_trace(int sig)
{
	(void)sig;
	trace_printk("handler %d", 1);	/* the main thread's first nested ring */
}

/* One session: returns the records read; fails on one older than the one before. */
static long read_in_order(struct bprint_reader *r, uint64_t *last, int *seen_new)
{
	struct bprint_event ev = BPRINT_EVENT_INIT;
	long n = 0;

	while (bprint_read_next(r, &ev) == 1) {
		if (ev.ns < *last)
			FAIL("record \"%s\" at %llu after one at %llu", ev.message,
			     (unsigned long long)ev.ns, (unsigned long long)*last);
		*last = ev.ns;
		*seen_new += !strncmp(ev.message, "new", 3) || !strncmp(ev.message, "handler", 7);
		n++;
	}
	return n;
}

int main(void)
{
	struct bprint_event ev = BPRINT_EVENT_INIT;
	struct bprint_reader *r;
	pthread_t a, b;
	uint64_t last = 0;
	int seen_new = 0;
	long n = 0;

	signal(SIGUSR1, signal_trace);
	trace_printk("main %d", 0);
	r = bprint_read_begin();
	CHECK(pthread_create(&a, NULL, old_thread, NULL) == 0);
	while (!atomic_load(&phase))
		tc_sleep_us(100);
	/* the session knows the old rings: take a few records of them */
	for (int i = 0; i < 10 && bprint_read_next(r, &ev) == 1; i++) {
		CHECK(ev.ns >= last);
		last = ev.ns;
		n++;
	}
	/* new rings while the old ones still hold older records than theirs */
	CHECK(pthread_create(&b, NULL, new_thread, NULL) == 0);
	pthread_join(b, NULL);
	raise(SIGUSR1);
	atomic_store(&phase, 2);
	pthread_join(a, NULL);
	n += read_in_order(r, &last, &seen_new);
	bprint_read_end(r);
	CHECK_EQ(seen_new, 2);
	CHECK_EQ(n, 4001 + 2);
	printf("ok: %ld records in time order, the new rings' among them\n", n);
	return 0;
}
