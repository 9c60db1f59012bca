/*
 * tracer_strings: %s, %.*s and %c without a va_list.
 *
 * A site whose chars are %c and whose pointers to char are plain %s or
 * %.*s is written at the call site (BPRINT__SITE_ON_CHARS); other string
 * sites (a literal precision, an int for %c) go to
 * bprint__printk_words(), which packs them on the thread's window or,
 * failing that, through the ring (so do a call site's records that do
 * not fit, and a NULL with a '*' precision).  Every record is checked
 * three ways:
 *   - its text, against the C library's snprintf() of the same call;
 *   - where the record went through the window, its payload, byte for
 *     byte, against bp_bin_printf() of the same call (the va_list packer);
 *   - the counters: written == read, nothing lost.
 * Cases: NULL, empty, exactly the precision, strings that do not fit the
 * room left in the page (every length from 0 to 300 bytes in turn, so
 * that records end at every offset of many pages), a string longer than
 * a page (a text record, cut to what a record holds), and a string that
 * another thread keeps changing, NULs included: every record must still
 * decode, its string a NUL-free run of at most the buffer's bytes, the
 * argument after it intact.
 *
 *   tracer_strings           whatever the clock is (tsc: the inline paths)
 *   BPRINT_CLOCK=mono        every call through the ring: the same results
 */
#include "tracer_check.h"

#include <pthread.h>
#include <stdatomic.h>

/* ---- expected texts, in the order the calls were made ---- */

#define MAX_EXPECT 20000
#define TEXT_MAX 400

static char want_text[MAX_EXPECT][TEXT_MAX];
static struct tc_want want = { want_text[0], TEXT_MAX, MAX_EXPECT, 0, 0 };

static uint64_t calls;

static void drain_and_check(void)
{
	CHECK_EQ(want.next, 0);
	CHECK_EQ(tc_drain(tc_want_check, &want), want.n);
	CHECK_EQ(want.next, want.n);
	want.n = want.next = 0;
}

/* ---- the record a call wrote through the window ---- */

struct mark {
	const unsigned char *rec;
	uint32_t off;
};

static struct mark mark_now(void)
{
	return (struct mark){ bprint__tls.rec, bprint__tls.off };
}

static long compared, not_compared;

/*
 * If the call between a and b wrote one record through the window (same
 * page, the offset moved, no CPU prefix), compare its payload with the
 * block bp_bin_printf() makes.
 */
static void compare_block(struct mark a, struct mark b, const uint32_t *block, size_t words,
			  const char *what)
{
	uint32_t head, len;

	if (!a.rec || a.rec != b.rec || b.off <= a.off) {
		not_compared++;
		return;
	}
	memcpy(&head, a.rec + a.off, 4);
	len = (head & 0x3ffu) * 4u;
	if (head & (1u << (12 + 19))) {	/* BP_REC_CPU: a prefix word first */
		not_compared++;
		return;
	}
	if (len != b.off - a.off)
		FAIL("%s: record of %u bytes, the window moved %u", what, len, b.off - a.off);
	if (len - 8u != words * 4u)
		FAIL("%s: payload of %u bytes, bp_bin_printf() makes %zu", what, len - 8u,
		     words * 4u);
	if (memcmp(a.rec + a.off + 8, block, words * 4u))
		FAIL("%s: payload differs from bp_bin_printf()'s block", what);
	compared++;
}

/*
 * One call: trace it, note the text the C library makes, and compare the
 * record's bytes with the va_list packer's.  The arguments are evaluated
 * more than once: give it plain values.
 */
#define CALL(fmt, ...)								\
	do {									\
		uint32_t blk_[1100];						\
		size_t words_ = bp_bin_printf(blk_, 1100, fmt, __VA_ARGS__);	\
		struct mark a_ = mark_now(), b_;				\
		trace_printk(fmt, __VA_ARGS__);					\
		b_ = mark_now();						\
		calls++;							\
		tc_expect(tc_want_add(&want), want.width, fmt, __VA_ARGS__);	\
		compare_block(a_, b_, blk_, words_, fmt);			\
	} while (0)

static const char *volatile null_string;	/* NULL the compiler cannot see */

static void edge_cases(void)
{
	char empty[1] = "";
	char five[] = "abcde", ten[] = "0123456789", three[] = "xyz";
	char c = 'q';
	signed char sc = 'r';
	unsigned char uc = 's';
	const unsigned char *ustr = (const unsigned char *)"unsigned";
	const char *nul = null_string;

	/* the writers' own path: plain %s and %c of char (signed and unsigned
	 * char, and pointers to them, by the words path: the same bytes) */
	CALL("[%s]", nul);
	CALL("[%s]", empty);
	CALL("[%s] port %d", five, -17);
	CALL("%c%c%c", c, sc, uc);
	CALL("%c|%s|%d|%c|%s|%llu", c, ten, 42, uc, empty, 1234567890123ull);
	CALL("%s", ustr);
	CALL("%10s|%-6s|", three, five);
	/* '*' precisions: the call site's too (a NULL goes out of line) */
	CALL("[%.*s][%.*s][%.*s]", 0, ten, 3, ten, -1, ten);
	CALL("[%*.*s]", 8, 2, five);
	CALL("[%.*s][%.*s]", 6, nul, 2, nul);
	CALL("%c[%.*s]%d", c, 4, ten, 9);
	/* bprint__printk_words(): literal precisions, an int for %c */
	CALL("[%.5s][%.5s][%.5s]", five, ten, three);
	CALL("[%.0s][%.6s]", ten, nul);
	CALL("[%.5s]", nul);
	CALL("int as char %c", 'a' + 1);
	CALL("%p and %s", (void *)ten, ten);
}

/* Every string length from 0 to 300, many times: records end at every offset of many pages. */
static void page_room(void)
{
	char s[301];

	for (int i = 0; i < 300; i++)
		s[i] = (char)('A' + i % 26);
	for (int round = 0; round < 12; round++) {
		for (int len = 0; len <= 300; len++) {
			s[len] = '\0';
			if (len % 2)
				CALL("room %s|%d", s, len);
			else
				CALL("room %.*s|%c", len, s, (char)('a' + len % 26));
			s[len] = (char)('A' + len % 26);
		}
		drain_and_check();
	}
}

/* A string longer than any record: a text record, cut to what one holds, marked. */
static void longer_than_a_page(void)
{
	static char big[9000];
	char full[2][9100];
	struct bprint_reader *r;
	struct bprint_event ev = BPRINT_EVENT_INIT;
	int got = 0;

	memset(big, 'z', sizeof(big) - 1);
	big[100] = 'Y';
	snprintf(full[0], sizeof(full[0]), "big %s end", big);
	snprintf(full[1], sizeof(full[1]), "big again %s %d", big, 7);
	trace_printk("big %s end", big);
	trace_printk("big again %s %d", big, 7);
	calls += 2;
	r = bprint_read_begin();
	CHECK(r != NULL);
	while (bprint_read_next(r, &ev) == 1) {
		/* a prefix of the text, as long as a record holds (pages of 1 KiB and
		 * more), and the mark of the cut with the whole length */
		CHECK(got < 2);
		CHECK(tc_cut_prefix(ev.message, ev.message_len, full[got]) >= 500);
		got++;
	}
	bprint_read_end(r);
	CHECK_EQ(got, 2);
}

/* ---- a string another thread keeps changing ---- */

#define RACE_LEN 64
static char racy[RACE_LEN];
static atomic_int racing;

static void *mutate(void *arg)
{
	unsigned x = 12345;

	(void)arg;
	while (atomic_load_explicit(&racing, memory_order_relaxed)) {
		x = x * 1103515245u + 12345u;
		/* a byte of the first 63 (the last stays NUL): a letter, or a NUL */
		racy[(x >> 8) % (RACE_LEN - 1)] = (x >> 20) % 7 ? (char)('a' + (x >> 24) % 26) : '\0';
	}
	return NULL;
}

static long race_seen, race_records;

static void check_race(const struct bprint_event *ev, void *ctx)
{
	long *seq = ctx;
	const char *bar = strrchr(ev->message, '|');
	size_t len;
	char tail[32];

	if (strncmp(ev->message, "race <", 6) != 0 || !bar || bar < ev->message + 6 ||
	    bar[-1] != '>')
		FAIL("race record %ld: \"%s\"", *seq, ev->message);
	len = (size_t)(bar - 1 - (ev->message + 6));
	if (len > RACE_LEN - 1)
		FAIL("race record %ld: %zu bytes of a %d-byte buffer", *seq, len, RACE_LEN);
	for (size_t i = 0; i < len; i++)
		if (ev->message[6 + i] < 'a' || ev->message[6 + i] > 'z')
			FAIL("race record %ld: byte %zu is %#x", *seq, i,
			     (unsigned char)ev->message[6 + i]);
	snprintf(tail, sizeof(tail), "|%ld %c", *seq, (char)('A' + *seq % 26));
	if (strcmp(bar, tail))
		FAIL("race record %ld: \"%s\" ends \"%s\", expect \"%s\"", *seq, ev->message, bar,
		     tail);
	if (len)
		race_seen++;
	(*seq)++;
	race_records++;
}

static void changing_string(void)
{
	pthread_t th;
	long n = (long)tc_scale(200000), seq = 0;

	memset(racy, 'm', RACE_LEN - 1);
	atomic_store(&racing, 1);
	CHECK_EQ(pthread_create(&th, NULL, mutate, NULL), 0);
	for (long i = 0; i < n; i++) {
		trace_printk("race <%s>|%ld %c", racy, i, (char)('A' + i % 26));
		if (i % 1000 == 999)
			tc_drain(check_race, &seq);
	}
	atomic_store(&racing, 0);
	CHECK_EQ(pthread_join(th, NULL), 0);
	tc_drain(check_race, &seq);
	CHECK_EQ(seq, n);
	CHECK(race_seen > 0);
	calls += (uint64_t)n;
}

/* The site kinds registration gave: the inline paths must really have run. */
static const struct bprint_site *site_of_last;

static void note_site(const struct bprint_event *ev, void *ctx)
{
	(void)ctx;
	site_of_last = ev->site;
	tc_want_check(ev, &want);
}

static void site_kinds(void)
{
	char s[] = "abc";
	char c = 'c';

	CALL("kind %s %c", s, c);
	CHECK_EQ(tc_drain(note_site, NULL), 1);
	want.n = want.next = 0;
#if defined(__x86_64__)
	CHECK(site_of_last->flags & BPRINT__SITE_CHARS);
#endif
	CALL("kind %.*s", 2, s);
	CHECK_EQ(tc_drain(note_site, NULL), 1);
	want.n = want.next = 0;
#if defined(__x86_64__)
	CHECK(site_of_last->flags & BPRINT__SITE_CHARS);
	CHECK_EQ(site_of_last->argstar, 1u);
#endif
	CALL("kind %.2s", s);
	CHECK_EQ(tc_drain(note_site, NULL), 1);
	want.n = want.next = 0;
	CHECK(site_of_last->flags & BPRINT__SITE_WORDS);
	CHECK(!(site_of_last->flags & (BPRINT__SITE_CHARS | BPRINT__SITE_FAST)));
}

int main(void)
{
	struct bprint_thread_stats st[4] = { BPRINT_THREAD_STATS_INIT };
	int n;

	for (int i = 0; i < 50; i++) {
		edge_cases();
		drain_and_check();
	}
	page_room();
	site_kinds();
	longer_than_a_page();
	if (!TC_TSAN)	/* the race is the point; TSan would (rightly) report it */
		changing_string();

	n = bprint_stats(st, 4);
	CHECK(n >= 1);
	printf("tracer_strings: %llu calls, %ld payloads compared byte for byte, %ld not "
	       "(page switch or CPU prefix), %ld racing records (%ld with bytes)\n",
	       (unsigned long long)calls, compared, not_compared, race_records, race_seen);
	CHECK_EQ(st[0].written, calls);
	CHECK_EQ(st[0].read, calls);
	CHECK_EQ(st[0].overwritten + st[0].discarded, 0);
#if defined(__x86_64__)
	{
		const char *clock = getenv("BPRINT_CLOCK");

		/* with the TSC, most records went through the window */
		if (!clock || !strcmp(clock, "tsc"))
			CHECK(compared > not_compared);
	}
#endif
	return 0;
}
