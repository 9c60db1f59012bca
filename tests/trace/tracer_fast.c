/*
 * tracer_fast: the inline fast path of trace_printk() (include/bprint/internal.h).
 *
 * Scalar-only formats are packed at the call site from the argument sizes
 * the compiler sees; registration allows that only where those sizes are
 * the format's.  Each format here is traced through many pages (so that
 * page switches, time bases and CPU prefixes of the out-of-line path mix
 * with inline records) and every record must read back as the C library
 * formats it.  Then: a site whose argument does not have the format's
 * size (not inline, still right), bprint_off(), a disabled and re-enabled
 * site, and the counters, which must add up to the calls exactly.
 *
 *   tracer_fast          whatever the clock is (tsc: the inline path)
 *   BPRINT_CLOCK=mono    every call out of line: the same results
 */
#include "tracer_check.h"

#include "trace/site.h"

#define ROUNDS 3000

static unsigned long long mix(unsigned long long v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 29;
	return v;
}

static char want_text[ROUNDS * 9][160];	/* one_round() traces 9 */
static struct tc_want want = { want_text[0], sizeof(want_text[0]), ROUNDS * 9, 0, 0 };

#define TRACE(fmt, ...)								\
	do {									\
		trace_printk(fmt, ##__VA_ARGS__);				\
		tc_expect(tc_want_add(&want), want.width, fmt, ##__VA_ARGS__);	\
	} while (0)

static void one_round(unsigned long long i)
{
	unsigned long long m = mix(i);
	int neg = -(int)(i % 1000);
	unsigned char uc = (unsigned char)i;
	short sh = (short)(m >> 7);
	double d = (double)(i % 4096) / 8.0;

	TRACE("This is the timer interrupt: %llu", i);
	TRACE("no arguments at all");
	TRACE("int %d uint %u hex %x", neg, (unsigned)m, (unsigned)(m >> 32));
	TRACE("mixed %d %llu %u %lld %hhu %hd", neg, m, (unsigned)i, (long long)m >> 3, uc, sh);
	TRACE("ptr %p size %zu long %ld", (void *)(uintptr_t)(m & ~7ull), (size_t)i, (long)m);
	TRACE("double %.3f %g int %d", d, d * 3, neg);
	TRACE("star <%*d>", (int)(i % 9), neg);
	/* %c: out of line, words packed with 1-byte slots between 4- and 8-byte ones */
	TRACE("char %c%c %d %c %llu %c", (char)('a' + i % 26), (char)('A' + m % 26), neg,
	      (char)(i % 3 ? '-' : ' '), m, (char)('0' + i % 10));
	TRACE("ten %d %llu %d %llu %d %llu %d %llu %d %llu", 1, m, 2, m + 1, 3, m + 2, 4, m + 3,
	      5, (unsigned long long)i);
}

/* The fast flag, as registration set it, of the site of the last record read. */
static const struct bprint_site *last_site;

static void note_site(const struct bprint_event *ev, void *ctx)
{
	(void)ctx;
	last_site = ev->site;
	tc_want_check(ev, &want);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
/* %d given a long: not the format's size, so never inline; the low half. */
__attribute__((noinline)) static void mismatched(long v)
{
	trace_printk("mismatch %d", v);
}
#pragma GCC diagnostic pop

__attribute__((noinline)) static void toggled(int v)
{
	trace_printk("toggled %d", v);
}

int main(void)
{
	struct bprint_thread_stats st[4] = { BPRINT_THREAD_STATS_INIT };
	long rounds = (long)tc_scale(ROUNDS);
	uint64_t calls;
	int n;

	for (long i = 0; i < rounds; i++)
		one_round((unsigned long long)i);
	calls = (uint64_t)want.n;
	CHECK_EQ(tc_drain(tc_want_check, &want), want.n);
	CHECK_EQ(want.next, want.n);

	/* A site that is not inline still records the right thing. */
	want.n = want.next = 0;
	mismatched(0x500000007l);
	tc_expect(tc_want_add(&want), want.width, "mismatch %d", 7);
	CHECK_EQ(tc_drain(note_site, NULL), 1);
	CHECK(last_site != NULL);
	CHECK(last_site->flags & BPRINT__SITE_WORDS);
	CHECK(!(last_site->flags & BPRINT__SITE_FAST));
	calls++;

	/* Off: nothing, inline or not.  On again: records. */
	want.n = want.next = 0;
	bprint_off();
	for (int i = 0; i < 1000; i++)
		toggled(i);
	bprint_on();
	toggled(1);
	tc_expect(tc_want_add(&want), want.width, "toggled %d", 1);
	CHECK_EQ(tc_drain(note_site, NULL), 1);
#if defined(__x86_64__)
	CHECK(last_site->flags & BPRINT__SITE_FAST);
#endif
	calls++;

	/* A disabled site costs nothing and records nothing; enabled again, it does. */
	want.n = want.next = 0;
	CHECK_EQ(bprint_disable("fmt:toggled*"), 1);
	for (int i = 0; i < 1000; i++)
		toggled(i);
	CHECK_EQ(bprint_enable("fmt:toggled*"), 1);
	toggled(2);
	tc_expect(tc_want_add(&want), want.width, "toggled %d", 2);
	CHECK_EQ(tc_drain(NULL, NULL), 1);
	calls++;

	/* Exact counters: one thread, every call written and read, nothing lost. */
	n = bprint_stats(st, 4);
	CHECK_EQ(n, 1);
	printf("written %llu read %llu overwritten %llu discarded %llu\n",
	       (unsigned long long)st[0].written, (unsigned long long)st[0].read,
	       (unsigned long long)st[0].overwritten, (unsigned long long)st[0].discarded);
	CHECK_EQ(st[0].written, calls);
	CHECK_EQ(st[0].read, calls);
	CHECK_EQ(st[0].overwritten + st[0].discarded, 0);
	return 0;
}
