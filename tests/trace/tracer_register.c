/*
 * tracer_register: a site's first call while the registry is busy (the
 * lazy registration of src/trace/site.c, emit.c's register_now()).
 *
 * Sites are registered at start-up, but a site reached before its
 * object's constructor, or one whose flags another thread's registration
 * has already set, registers on its call.  The registry's lock may be
 * held then:
 *  - by another thread: the call waits for it, and its record is there
 *    (it used to be dropped, uncounted);
 *  - by the calling thread itself, interrupted by a signal handler that
 *    makes the call: the handler cannot wait for its own thread, so the
 *    record is dropped, and counted as discarded (in a thread that has
 *    traced before: the count lives in the thread's state, which a
 *    handler does not make);
 *  - a site whose flags are set but whose id is not yet (the words path,
 *    bprint__printk_words()): the same wait.
 *
 * The sites here are made by hand, outside the "bprint_sites" section,
 * so that nothing registers them before the test does.
 */
#include "tracer_check.h"

#include "trace/site.h"

#include <pthread.h>
#include <stdatomic.h>

#define LAZY_SITE(fmt)								\
	{ .magic = BPRINT__SITE_MAGIC, .layout = BPRINT__LAYOUT, .enabled = 1,	\
	  .kind = BPRINT__SITE_PRINTK, .line = __LINE__, .file = __FILE__,	\
	  .format = (fmt), .func = "main", .nargs = 1 }

static struct bprint_site site_thread = LAZY_SITE("lazy thread %d");
static struct bprint_site site_signal = LAZY_SITE("lazy signal %d");
static struct bprint_site site_words = LAZY_SITE("lazy words %d");

static atomic_int traced;

static void *first_call(void *arg)
{
	(void)arg;
	bprint__printk(&site_thread, "lazy thread %d", 1);
	atomic_store(&traced, 1);
	return NULL;
}

static void *first_words_call(void *arg)
{
	const uint64_t words[] = { 3 };

	(void)arg;
	bprint__printk_words(&site_words, words);
	atomic_store(&traced, 1);
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
	bprint__printk(&site_signal, "lazy signal %d", 2);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* Hold the registry while a thread makes its site's first call. */
static void blocked_first_call(void *(*fn)(void *))
{
	pthread_t th;
	int early, made;

	atomic_store(&traced, 0);
	CHECK(bp_site_trylock());
	made = pthread_create(&th, NULL, fn, NULL);
	sleep_ms(100);
	early = atomic_load(&traced);
	bp_site_unlock();	/* before any CHECK: exit() would wait for the lock */
	CHECK_EQ(made, 0);
	/* it waited for the registry, not returning with its record dropped */
	CHECK_EQ(early, 0);
	CHECK_EQ(pthread_join(th, NULL), 0);
	CHECK_EQ(atomic_load(&traced), 1);
}

struct tally {
	int thread, words, signal;
};

static void count(const struct bprint_event *ev, struct tally *t)
{
	char want[64];

	if (ev->site == NULL)
		FAIL("a record without a site: \"%s\"", ev->message);
	if (!strcmp(ev->site->format, "lazy thread %d")) {
		tc_expect(want, sizeof(want), "lazy thread %d", 1);
		CHECK_STREQ(ev->message, want);
		t->thread++;
	} else if (!strcmp(ev->site->format, "lazy words %d")) {
		tc_expect(want, sizeof(want), "lazy words %d", 3);
		CHECK_STREQ(ev->message, want);
		t->words++;
	} else if (!strcmp(ev->site->format, "lazy signal %d")) {
		t->signal++;
	}
}

int main(void)
{
	struct bprint_thread_stats st[8] = { BPRINT_THREAD_STATS_INIT };
	struct tally tally = { 0, 0, 0 };
	struct bprint_event ev = BPRINT_EVENT_INIT;
	struct bprint_reader *r;
	int rc;
	uint64_t written = 0, discarded = 0, read = 0, overwritten = 0;
	int n;

	/* 1. another thread holds the registry: the first call waits */
	blocked_first_call(first_call);
	CHECK(site_thread.id != 0 && site_thread.id != BPRINT__SITE_REFUSED);

	/*
	 * 2. the words path with flags but no id yet: what a call site sees
	 * in the moment between another thread's registration setting the
	 * flags and the id (site.c stores the id last)
	 */
	site_words.flags = BPRINT__SITE_WORDS;
	blocked_first_call(first_words_call);
	CHECK(site_words.id != 0);

	/*
	 * 3. the calling thread holds the registry; its signal handler calls.
	 * The thread has traced before (a thread's first record makes its
	 * state, which a handler cannot), so the drop has a count to go to.
	 */
	trace_printk("main %d", 0);
	CHECK(signal(SIGUSR1, on_signal) != SIG_ERR);
	CHECK(bp_site_trylock());
	rc = raise(SIGUSR1);	/* returns: the handler did not wait */
	bp_site_unlock();
	CHECK_EQ(rc, 0);
	CHECK_EQ(site_signal.id, 0u);

	r = bprint_snapshot_begin();
	CHECK(r != NULL);
	while ((rc = bprint_read_next(r, &ev)) == 1)
		count(&ev, &tally);
	CHECK_EQ(rc, 0);
	bprint_read_end(r);
	CHECK_EQ(tally.thread, 1);
	CHECK_EQ(tally.words, 1);
	CHECK_EQ(tally.signal, 0);

	/* the handler's record: written and discarded, not silently gone */
	n = bprint_stats(st, 8);
	CHECK(n >= 1 && n <= 8);
	for (int i = 0; i < n; i++) {
		written += st[i].written;
		discarded += st[i].discarded;
		read += st[i].read;
		overwritten += st[i].overwritten;
	}
	CHECK_EQ(written, 4u);
	CHECK_EQ(discarded, 1u);
	CHECK_EQ(read + overwritten, 0u);	/* nothing consumed: a snapshot only looks */
	printf("ok: a first call waits for another thread's registration (records 3 of 3),"
	       " a signal handler's is dropped and counted (discarded %llu)\n",
	       (unsigned long long)discarded);
	return 0;
}
