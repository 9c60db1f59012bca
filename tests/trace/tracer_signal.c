/*
 * tracer_signal: a ~20 us timer signal aimed at the tracing thread, whose
 * handler traces, while the main loop traces ~10^6 records.  Afterwards
 * every record must be exactly one of the two shapes with consistent
 * fields (no torn or mixed record), each source's sequence numbers must
 * increase, and the counters must add up exactly to what both sources
 * wrote.  Outside TSan (which defers signals to safe points) the handler
 * must really have interrupted trace_printk(): its nested ring was used.
 *
 * Run with a buffer big enough to keep everything (BPRINT_BUFFER_SIZE).
 *   tracer_signal        the thread traces once before the timer starts
 *   tracer_signal cold   the timer runs from before the thread's first
 *                        trace, whose slow path (descriptor, 64M ring) a
 *                        traced signal then interrupts
 *   tracer_signal scalar formats without %s, so that both the loop and
 *                        the handler take the inline fast path of
 *                        include/bprint/internal.h, which the handler must then
 *                        interrupt half-way through a record
 */
#include "tracer_check.h"

#include "trace/thread.h"

#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>

#define MAIN_FMT "main seq=%llu x=%llx s=%s"
#define SIG_FMT "sig n=%u y=%u tag=%s"
#define MAIN_FMT_SCALAR "main seq=%llu x=%llx s=%d"
#define SIG_FMT_SCALAR "sig n=%u y=%u tag=%d"

static _Atomic unsigned sig_count;
static int scalar;

static unsigned long long mix(unsigned long long v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 29;
	return v;
}

static const char *main_str(unsigned long long seq)
{
	static const char *const words[] = { "", "a", "bc", "def", "ghij", "klmno", "pqrstuvw" };

	return words[seq % 7];
}

static const char *sig_tag(unsigned n)
{
	static const char *const tags[] = { "alarm", "tick", "nested-signal-record" };

	return tags[n % 3];
}

static void handler(int sig)
{
	unsigned n = atomic_load_explicit(&sig_count, memory_order_relaxed);

	(void)sig;
	if (scalar)
		trace_printk(SIG_FMT_SCALAR, n, n * 2654435761u, (int)(n % 3));
	else
		trace_printk(SIG_FMT, n, n * 2654435761u, sig_tag(n));
	atomic_store_explicit(&sig_count, n + 1, memory_order_relaxed);
}

int main(int argc, char **argv)
{
	int cold = argc > 1 && !strcmp(argv[1], "cold");
	const char *main_fmt, *sig_fmt;
	struct bprint_thread_stats sum = { 0 };
	unsigned long long n_main = (unsigned long long)tc_scale(1000000);
	long long last_main = -1, last_sig = -1;
	unsigned long long got_main = 0, got_sig = 0;
	struct bprint_thread_stats st[8] = { BPRINT_THREAD_STATS_INIT };
	timer_t timer;
	struct bprint_reader *r;
	struct bprint_event ev = BPRINT_EVENT_INIT;
	char expect[256];
	int rc, n;
	uint64_t nested_written = 0;

	scalar = argc > 1 && !strcmp(argv[1], "scalar");
	main_fmt = scalar ? MAIN_FMT_SCALAR : MAIN_FMT;
	sig_fmt = scalar ? SIG_FMT_SCALAR : SIG_FMT;
	/* warm: the thread's descriptor exists before the first signal; cold: not. */
	if (!cold)
		trace_puts("warm-up");
	timer = tc_thread_timer_start(handler, 20000);

	if (scalar) {
		for (unsigned long long seq = 0; seq < n_main; seq++)
			trace_printk(MAIN_FMT_SCALAR, seq, mix(seq), (int)(seq % 7));
	} else {
		for (unsigned long long seq = 0; seq < n_main; seq++)
			trace_printk(MAIN_FMT, seq, mix(seq), main_str(seq));
	}

	tc_thread_timer_stop(timer);
	printf("main records %llu, signal records %u\n", n_main, atomic_load(&sig_count));
	CHECK(atomic_load(&sig_count) > 0);

	r = bprint_read_begin();
	CHECK(r != NULL);
	while ((rc = bprint_read_next(r, &ev)) == 1) {
		unsigned long long seq, x;
		unsigned sn, y;
		int len = 0;

		CHECK_EQ(ev.tid, gettid());
		CHECK(ev.site != NULL);
		if (!cold && !strcmp(ev.message, "warm-up"))
			continue;
		if (sscanf(ev.message, "main seq=%llu x=%llx s=%n", &seq, &x, &len) == 2 && len) {
			if (scalar)
				tc_expect(expect, sizeof(expect), MAIN_FMT_SCALAR, seq, mix(seq),
					  (int)(seq % 7));
			else
				tc_expect(expect, sizeof(expect), MAIN_FMT, seq, mix(seq),
					  main_str(seq));
			if (strcmp(ev.message, expect))
				FAIL("torn main record:\n  got    \"%s\"\n  expect \"%s\"",
				     ev.message, expect);
			CHECK_STREQ(ev.site->format, main_fmt);
			CHECK_STREQ(ev.site->func, "main");
			if ((long long)seq <= last_main)
				FAIL("main seq %llu after %lld", seq, last_main);
			last_main = (long long)seq;
			got_main++;
		} else if (sscanf(ev.message, "sig n=%u y=%u tag=%n", &sn, &y, &len) == 2 && len) {
			if (scalar)
				tc_expect(expect, sizeof(expect), SIG_FMT_SCALAR, sn,
					  sn * 2654435761u, (int)(sn % 3));
			else
				tc_expect(expect, sizeof(expect), SIG_FMT, sn, sn * 2654435761u,
					  sig_tag(sn));
			if (strcmp(ev.message, expect))
				FAIL("torn signal record:\n  got    \"%s\"\n  expect \"%s\"",
				     ev.message, expect);
			CHECK_STREQ(ev.site->format, sig_fmt);
			CHECK_STREQ(ev.site->func, "handler");
			if ((long long)sn <= last_sig)
				FAIL("signal n %u after %lld", sn, last_sig);
			last_sig = sn;
			got_sig++;
		} else {
			FAIL("record of neither shape: \"%s\"", ev.message);
		}
	}
	CHECK_EQ(rc, 0);
	n = bprint_stats(st, 8);
	bprint_read_end(r);

	/* Sum over every descriptor of this thread (there should be one: checked last). */
	for (int i = 0; i < n && i < 8; i++) {
		printf("tid %d: written %llu read %llu overwritten %llu discarded %llu\n", st[i].tid,
		       (unsigned long long)st[i].written, (unsigned long long)st[i].read,
		       (unsigned long long)st[i].overwritten, (unsigned long long)st[i].discarded);
		CHECK_EQ(st[i].tid, gettid());
		CHECK_EQ(st[i].read + st[i].overwritten + st[i].discarded, st[i].written);
		sum.written += st[i].written;
		sum.read += st[i].read;
	}
	CHECK_EQ(sum.written, n_main + atomic_load(&sig_count) + (cold ? 0 : 1));
	CHECK_EQ(sum.read, got_main + got_sig + (cold ? 0 : 1));
	/* The buffer holds everything: nothing may be missing. */
	CHECK_EQ(got_main, n_main);
	CHECK_EQ(got_sig, atomic_load(&sig_count));

	/* Did the handler ever land inside trace_printk()?  Then ring 1 has records. */
	for (unsigned i = 1; i < BP_NEST_MAX; i++) {
		void *mem = atomic_load(&bp_self->ring[i].mem);
		struct bp_ring_stats rs;

		if (mem && bp_ring_stats(mem, bp_self->ring[i].bytes, &rs) == BP_RING_OK)
			nested_written += rs.written;
	}
	printf("records in nested rings: %llu\n", (unsigned long long)nested_written);
	if (!TC_TSAN)
		CHECK(nested_written > 0);
	/*
	 * One thread, one descriptor, even when its first trace_printk() was
	 * interrupted by a handler that traced (cold start).
	 */
	if (n != 1)
		FAIL("one thread has %d descriptors (first trace interrupted by a traced signal)", n);
	return 0;
}
