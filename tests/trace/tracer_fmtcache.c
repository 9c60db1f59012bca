/*
 * tracer_fmtcache: call sites whose format is not a compile-time constant
 * (src/trace/fmtcache.c).  A format they repeat gets a derived site, and
 * its records are binary under that site's id, decoding to exactly what
 * the C library's snprintf() makes of the same format and arguments.
 *
 *   tracer_fmtcache            the single-thread cases below
 *   tracer_fmtcache threads    4 threads, one site, 2 alternating formats
 *   tracer_fmtcache signal     a 20 us timer signal whose handler traces
 *                              runtime formats, into a loop that does too
 *   tracer_fmtcache file OUT   trace a fixed sequence (BPRINT_FILE set) and
 *                              write each record's expected message and
 *                              format to OUT.msg and OUT.fmt, for
 *                              tracer_fmtcache_file.sh to compare with
 *                              `bprint report` and `bprint formats`
 *
 * Single-thread cases: a repeated format (binary from its first call, one
 * derived site); one buffer rewritten with other formats (same pointer);
 * a freed format whose address malloc() hands out again; formats that
 * differ from a learnt one only in their last byte, or are one byte
 * shorter or longer, at every alignment (the cache's text check reads 16
 * bytes at a time); more formats than a set of the cache holds, cycled
 * (evicted formats get their derived site back); more formats than a call
 * site may learn (the rest are text, counted, said once on stderr).
 *
 * A record is binary exactly when its site has a format: a text record of
 * a runtime-format site names the call site itself, whose format is NULL.
 */
#include "tracer_check.h"

#include "trace/fmtcache.h"
#include "trace/site.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"

enum expect_kind { TEXT, BINARY, EITHER };

struct want {
	char *text;		/* the message */
	char *fmt;		/* the format as traced */
	int line;		/* the call site's line */
	enum expect_kind kind;
};

static struct want *want;
static size_t nwant, cap;

/* Distinct (line, format) pairs traced so far, and the derived id each got. */
struct learnt {
	int line;
	char *fmt;
	uint32_t id;
};
static struct learnt *learnt;
static size_t nlearnt;

static void add_want(const char *text, const char *fmt, int line, enum expect_kind kind)
{
	if (nwant == cap) {
		cap = cap ? 2 * cap : 256;
		want = realloc(want, cap * sizeof(*want));
		CHECK(want != NULL);
	}
	want[nwant].text = strdup(text);
	want[nwant].fmt = strdup(fmt);
	CHECK(want[nwant].text && want[nwant].fmt);
	want[nwant].line = line;
	want[nwant].kind = kind;
	nwant++;
}

static struct learnt *find_learnt(int line, const char *fmt)
{
	for (size_t i = 0; i < nlearnt; i++)
		if (learnt[i].line == line && !strcmp(learnt[i].fmt, fmt))
			return &learnt[i];
	return NULL;
}

/* Distinct formats of the wants [from, nwant) of kind BINARY: what the cache must learn. */
static unsigned distinct_binary(size_t from)
{
	unsigned n = 0;

	for (size_t i = from; i < nwant; i++) {
		size_t j;

		if (want[i].kind != BINARY)
			continue;
		for (j = from; j < i; j++)
			if (want[j].kind == BINARY && want[j].line == want[i].line &&
			    !strcmp(want[j].fmt, want[i].fmt))
				break;
		n += j == i;
	}
	return n;
}

/* The call sites: one format argument, the arguments of fixed types. */
static int line_a, line_b, line_many;

__attribute__((noinline)) static void site_a(const char *fmt, int a, const char *s,
					     unsigned long long x)
{
	line_a = __LINE__; trace_printk(fmt, a, s, x);
}

__attribute__((noinline)) static void site_b(const char *fmt, int a, const char *s,
					     unsigned long long x)
{
	line_b = __LINE__; trace_printk(fmt, a, s, x);
}

__attribute__((noinline)) static void site_many(const char *fmt, int a)
{
	line_many = __LINE__; trace_printk(fmt, a);
}

/* Scalars only: the call site writes a known format's records itself. */
static int line_scalars;

__attribute__((noinline)) static void site_scalars(const char *fmt, int a, double d,
						   long long x)
{
	line_scalars = __LINE__; trace_printk(fmt, a, d, x);
}

/* Trace with site_a or site_b and expect what snprintf() makes of it. */
static void call(void (*site)(const char *, int, const char *, unsigned long long),
		 enum expect_kind kind, const char *fmt, int a, const char *s,
		 unsigned long long x)
{
	char text[512];

	site(fmt, a, s, x);
	snprintf(text, sizeof(text), fmt, a, s, x);
	add_want(text, fmt, site == site_a ? line_a : line_b, kind);
}

/* The alignment sweep: one call site per offset, so that no site reaches its bound. */
static int sweep_line[16];
#define SWEEP_SITE(n) \
	case n: sweep_line[n] = __LINE__; trace_printk(fmt, a); break;

__attribute__((noinline)) static void sweep_site(unsigned off, const char *fmt, int a)
{
	switch (off) {
	SWEEP_SITE(0)
	SWEEP_SITE(1)
	SWEEP_SITE(2)
	SWEEP_SITE(3)
	SWEEP_SITE(4)
	SWEEP_SITE(5)
	SWEEP_SITE(6)
	SWEEP_SITE(7)
	SWEEP_SITE(8)
	SWEEP_SITE(9)
	SWEEP_SITE(10)
	SWEEP_SITE(11)
	SWEEP_SITE(12)
	SWEEP_SITE(13)
	SWEEP_SITE(14)
	SWEEP_SITE(15)
	}
}

static void sweep_call(unsigned off, const char *fmt, int a)
{
	char text[128];

	sweep_site(off, fmt, a);
	snprintf(text, sizeof(text), fmt, a);
	add_want(text, fmt, sweep_line[off], BINARY);
}

/* Read every record back and hold it to its want. */
static void drain_and_check(void)
{
	struct bprint_reader *r = bprint_read_begin();
	struct bprint_event ev = BPRINT_EVENT_INIT;
	size_t i = 0, binary = 0;
	int rc;

	CHECK(r != NULL);
	while ((rc = bprint_read_next(r, &ev)) == 1) {
		const struct want *w = &want[i];
		bool is_binary = ev.site && ev.site->format;

		if (i >= nwant)
			FAIL("unexpected extra record \"%s\"", ev.message);
		if (strcmp(ev.message, w->text))
			FAIL("record %zu (format \"%s\", line %d): got \"%s\", want \"%s\"", i,
			     w->fmt, w->line, ev.message, w->text);
		CHECK_EQ(ev.message_len, strlen(w->text));
		CHECK(ev.site != NULL);
		CHECK_EQ((int)ev.site->line, w->line);
		if (w->kind != EITHER && is_binary != (w->kind == BINARY))
			FAIL("record %zu (format \"%s\"): a %s record, want %s", i, w->fmt,
			     is_binary ? "binary" : "text", w->kind == BINARY ? "binary" : "text");
		if (is_binary) {
			struct learnt *l = find_learnt(w->line, w->fmt);

			/* the derived site's format is the one traced, and one id per format */
			CHECK_STREQ(ev.site->format, w->fmt);
			if (!l) {
				learnt = realloc(learnt, (nlearnt + 1) * sizeof(*learnt));
				CHECK(learnt != NULL);
				l = &learnt[nlearnt++];
				*l = (struct learnt){ w->line, strdup(w->fmt), ev.site->id };
			}
			if (ev.site->id != l->id)
				FAIL("record %zu: format \"%s\" under site %u, earlier under %u", i,
				     w->fmt, ev.site->id, l->id);
			binary++;
		}
		i++;
	}
	CHECK_EQ(rc, 0);
	bprint_read_end(r);
	CHECK_EQ(i, nwant);
	printf("%zu records as expected, %zu binary\n", i, binary);
}

static void expect_counts(const struct bp_fmtcache_counts *before, uint64_t derived,
			  uint64_t refused, const char *what)
{
	struct bp_fmtcache_counts now;

	bp_fmtcache_counts(&now);
	printf("%s: %llu misses, %llu derived sites, %llu refused\n", what,
	       (unsigned long long)(now.misses - before->misses),
	       (unsigned long long)(now.derived - before->derived),
	       (unsigned long long)(now.refused - before->refused));
	CHECK_EQ(now.derived - before->derived, derived);
	CHECK_EQ(now.refused - before->refused, refused);
	CHECK_EQ(now.planless, before->planless);
}

/*
 * 1. One format in a buffer, many times: one derived site, every record
 * binary, and only the first call misses (the others are lock-free hits),
 * at an aligned address and at an odd one.
 */
static void case_repeated(void)
{
	static _Alignas(16) char buf[2][80];
	struct bp_fmtcache_counts c0, c1;

	for (int k = 0; k < 2; k++) {
		char *fmt = buf[k] + (k ? 5 : 0);
		size_t from = nwant;

		bp_fmtcache_counts(&c0);
		memset(buf[k], 'x', sizeof(buf[k]));	/* no NULs around the text */
		strcpy(fmt, k ? "repeated a=%d s=%s x=%#llx, at an odd address"
			      : "repeated a=%d s=%s x=%#llx");
		for (int i = 0; i < 100; i++)
			call(site_a, BINARY, fmt, i, i % 2 ? "odd" : "even",
			     0xabcdef00ull + (unsigned)i);
		expect_counts(&c0, 1, 0, "repeated");
		CHECK_EQ(distinct_binary(from), 1);
		bp_fmtcache_counts(&c1);
		CHECK_EQ(c1.misses - c0.misses, 1);
	}
}

/*
 * 1a. A nested call (a signal handler's) only looks formats up: an unseen
 * format gives no plan and takes no lock; a learnt one gives its derived
 * site's plan and id.
 */
static void case_lookup_only(void)
{
	struct bp_fmtcache_counts c0, c1;
	uint32_t site_id = 0, id;
	char fmt[64];

	strcpy(fmt, "lookup only %d %s");
	call(site_a, BINARY, fmt, 1, "learnt", 0);	/* learns it: site_a is registered */
	for (uint32_t i = 1; i < bp_site_count(); i++) {
		const struct bprint_site *s = bp_site_lookup(i);

		if (s && !s->format && (int)s->line == line_a)
			site_id = i;
	}
	CHECK(site_id != 0);
	bp_fmtcache_counts(&c0);
	id = site_id;
	CHECK(bp_fmtcache_plan("lookup only, never traced %d", &id, 0) == NULL);
	CHECK_EQ(id, site_id);
	id = site_id;
	CHECK(bp_fmtcache_plan(fmt, &id, 0) != NULL);
	CHECK(id != site_id);
	CHECK_STREQ(bp_site_lookup(id)->format, fmt);
	CHECK_EQ((int)bp_site_lookup(id)->line, line_a);
	bp_fmtcache_counts(&c1);
	CHECK_EQ(c1.misses, c0.misses);
	CHECK_EQ(c1.derived, c0.derived);
}

/* 1b. One buffer at two call sites: each record under its own site's derived site. */
static void case_two_sites(void)
{
	struct bp_fmtcache_counts c0;
	char fmt[64];

	bp_fmtcache_counts(&c0);
	strcpy(fmt, "shared by two sites %d %s");
	for (int i = 0; i < 10; i++) {
		call(site_a, BINARY, fmt, i, "a", 0);
		call(site_b, BINARY, fmt, i, "b", 0);
	}
	expect_counts(&c0, 2, 0, "two sites");
}

/*
 * 2. The same buffer rewritten: each text decodes with its own format,
 * never the plan learnt for what the buffer held before.  The formats
 * differ in the kind and number of arguments they take (a stale plan
 * would read the wrong ones), or only in one byte, or in length.
 */
static void case_rewritten(void)
{
	static const char *const texts[] = {
		"rw one %d %s %llu",
		"rw two %d",
		"rw three %x [%s]",
		"rw one %d %s %llu",	/* back: the derived site of the first */
		"rw %d %s",
		"rw %x %s",		/* one byte changed */
		"rw %d",		/* shorter */
		"rw %d %s %llx!",	/* longer */
		"no conversions at all",
	};
	struct bp_fmtcache_counts c0;
	char buf[64];
	size_t from = nwant;

	bp_fmtcache_counts(&c0);
	for (int round = 0; round < 3; round++) {
		for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
			strcpy(buf, texts[i]);
			call(site_b, BINARY, buf, (int)(i * 7 + (size_t)round), "str", 1000 + i);
		}
	}
	expect_counts(&c0, distinct_binary(from), 0, "rewritten");
	CHECK_EQ(distinct_binary(from), sizeof(texts) / sizeof(texts[0]) - 1);
}

/*
 * 2b. The same, at a call site with scalar arguments only, which writes
 * the records of a known format itself, under the head the cache hands
 * it (bprint__format_head): a rewritten buffer must get its own head,
 * never the one of the text it held before.  The texts take the same
 * argument sizes (4, 8, 8 bytes) in other conversions, or fewer of them
 * (no head: the words path).
 */
static void case_rewritten_scalars(void)
{
	static const struct {
		const char *text;
		enum expect_kind kind;
	} texts[] = {
		{ "rs %d %f %lld", BINARY },
		{ "rs %x %e %llx", BINARY },
		{ "rs %5d|%.2f|%llu", BINARY },
		{ "rs %d %f %lld", BINARY },	/* back: the head of the first */
		{ "rs %d %g %lld", BINARY },	/* one byte changed */
		{ "rs %d %f", BINARY },		/* fewer conversions than arguments:
						 * no head, a text record, of
						 * the derived site as before */
		{ "rs %d %f %lld.", BINARY },	/* longer */
	};
	struct bp_fmtcache_counts c0;
	char buf[64], text[256];
	size_t from = nwant;

	bp_fmtcache_counts(&c0);
	for (int round = 0; round < 4; round++) {
		for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
			int a = (int)(i * 13) - round;
			double d = 0.25 * (double)(i + 1) + round;
			long long x = (long long)i << 33 | (long long)round;

			strcpy(buf, texts[i].text);
			site_scalars(buf, a, d, x);
			snprintf(text, sizeof(text), texts[i].text, a, d, x);
			add_want(text, texts[i].text, line_scalars, texts[i].kind);
		}
	}
	expect_counts(&c0, distinct_binary(from), 0, "rewritten, scalars");
	CHECK_EQ(distinct_binary(from), 6);
}

/* 3. A freed format, and another malloc()'d at the same address. */
static void case_reused_address(void)
{
	char *p = malloc(48), *q;

	CHECK(p != NULL);
	strcpy(p, "heap one %d %s %llu");
	call(site_a, BINARY, p, 1, "first", 11);
	call(site_a, BINARY, p, 2, "first", 22);
	free(p);
	q = malloc(48);
	CHECK(q != NULL);
	if (q != p) {
		printf("skip: malloc() did not hand out the freed address again\n");
	} else {
		strcpy(q, "heap two [%5d]");
		call(site_a, BINARY, q, 3, "second", 33);
		call(site_a, BINARY, q, 4, "second", 44);
	}
	free(q);
}

/*
 * 4. Formats that differ from a learnt one in their last byte, or are
 * one byte shorter or longer, at every offset from a 16-byte boundary and
 * lengths around the 16-byte steps, all at the same pointer.
 */
static void case_alignment(void)
{
	static const unsigned lengths[] = { 3, 8, 14, 15, 16, 17, 18, 31, 32, 33, 47 };
	static _Alignas(16) char buf[128];
	struct bp_fmtcache_counts c0;
	size_t from = nwant;

	bp_fmtcache_counts(&c0);
	for (unsigned off = 0; off < 16; off++) {
		char *fmt = buf + off;

		for (size_t li = 0; li < sizeof(lengths) / sizeof(lengths[0]); li++) {
			unsigned len = lengths[li];

			/* "%d" then letters: a text of len bytes */
			memset(buf, 'x', sizeof(buf));
			fmt[0] = '%';
			fmt[1] = 'd';
			for (unsigned k = 2; k < len; k++)
				fmt[k] = (char)('a' + (k + off) % 26);
			fmt[len] = '\0';
			sweep_call(off, fmt, (int)len);
			sweep_call(off, fmt, (int)len + 1);
			fmt[len - 1] = fmt[len - 1] == 'Z' ? 'Y' : 'Z';	/* last byte */
			sweep_call(off, fmt, -(int)len);
			fmt[len - 1] = '\0';				/* shorter */
			sweep_call(off, fmt, 1);
			fmt[len - 1] = 'Q';				/* longer */
			fmt[len] = 'R';
			fmt[len + 1] = '\0';
			sweep_call(off, fmt, 2);
		}
	}
	expect_counts(&c0, distinct_binary(from), 0, "alignment");
}

/* 5. More formats than a set of the table holds, at distinct pointers, cycled. */
static void case_many_cycled(void)
{
	enum { N = 3 * BP_FMTCACHE_WAYS + 1 };
	static char fmts[N][48];
	struct bp_fmtcache_counts c0;
	size_t from = nwant;

	bp_fmtcache_counts(&c0);
	for (int i = 0; i < N; i++)
		snprintf(fmts[i], sizeof(fmts[i]), "cycled %d: %%d %%s", i);
	for (int round = 0; round < 5; round++)
		for (int i = 0; i < N; i++)
			call(site_b, BINARY, fmts[i], round, "r", 0);
	/* evicted formats came back to their first derived site: N in all */
	expect_counts(&c0, N, 0, "cycled");
	CHECK_EQ(distinct_binary(from), N);
}

/*
 * 6. More formats than one call site may learn: the first
 * BP_FMTCACHE_SITE_MAX binary, the rest text (still exact), each refusal
 * counted, and stderr says so once.
 */
static void case_site_bound(void)
{
	enum { EXTRA = 10 };
	struct bp_fmtcache_counts c0;
	char fmt[64], text[128], said[1024];
	char path[] = "tracer_fmtcache_stderr_XXXXXX";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	ssize_t n;
	size_t from = nwant;
	const char *hit, *needle = "runtime formats at this call site";

	CHECK(fd >= 0 && saved >= 0);
	unlink(path);
	bp_fmtcache_counts(&c0);
	fflush(stderr);
	CHECK(dup2(fd, STDERR_FILENO) == STDERR_FILENO);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < BP_FMTCACHE_SITE_MAX + EXTRA; i++) {
			snprintf(fmt, sizeof(fmt), "bound %d: %%d", i);
			site_many(fmt, round);
			snprintf(text, sizeof(text), fmt, round);
			add_want(text, fmt, line_many, i < BP_FMTCACHE_SITE_MAX ? BINARY : TEXT);
		}
	}
	CHECK(dup2(saved, STDERR_FILENO) == STDERR_FILENO);
	close(saved);
	n = pread(fd, said, sizeof(said) - 1, 0);
	close(fd);
	CHECK(n > 0);
	said[n] = '\0';
	printf("stderr said: %s", said);
	hit = strstr(said, needle);
	CHECK(hit != NULL);
	CHECK(strstr(hit + 1, needle) == NULL);	/* once */
	CHECK(strstr(said, "tracer_fmtcache.c:") != NULL);
	expect_counts(&c0, BP_FMTCACHE_SITE_MAX, 2 * EXTRA, "site bound");
	CHECK_EQ(distinct_binary(from), BP_FMTCACHE_SITE_MAX);
}

static int run_single(void)
{
	case_repeated();
	case_lookup_only();
	case_two_sites();
	case_rewritten();
	case_rewritten_scalars();
	case_reused_address();
	case_alignment();
	case_many_cycled();
	case_site_bound();
	drain_and_check();
	return 0;
}

/* ---- 4 threads, one site, 2 alternating formats ----------------------- */

#define NTHREADS 4
static const char thread_fmt_1[] = "T1 who=%d seq=%d tag=%s";
static const char thread_fmt_2[] = "T2 seq of %d is %d [%s]";
static char thread_buf[2][64];	/* the formats the threads pass: runtime, not literals */
static long long per_thread;
static atomic_int writers_done;
static atomic_bool stop_consumer, release_writers;
static _Atomic int tids[NTHREADS];
static long long got[NTHREADS], last_seq[NTHREADS];
static long long got_binary, got_text;

__attribute__((noinline)) static void thread_site(const char *fmt, int who, int seq)
{
	trace_printk(fmt, who, seq, seq % 3 ? "abc" : "defgh");
}

static void *writer(void *arg)
{
	int who = (int)(intptr_t)arg;

	atomic_store(&tids[who], (int)gettid());
	for (long long i = 0; i < per_thread; i++)
		thread_site(thread_buf[i % 2], who, (int)i);
	atomic_fetch_add(&writers_done, 1);
	while (!atomic_load(&release_writers))
		tc_sleep_us(1000);
	return NULL;
}

static void check_thread_event(const struct bprint_event *ev, void *ctx)
{
	char want_text[128];
	int who, seq;
	bool is_binary = ev->site && ev->site->format;

	(void)ctx;
	if (sscanf(ev->message, "T1 who=%d seq=%d", &who, &seq) == 2) {
		CHECK(seq % 2 == 0);
	} else if (sscanf(ev->message, "T2 seq of %d is %d", &who, &seq) == 2) {
		CHECK(seq % 2 == 1);
	} else {
		FAIL("record \"%s\" is of neither format", ev->message);
	}
	CHECK(who >= 0 && who < NTHREADS);
	CHECK_EQ(ev->tid, atomic_load(&tids[who]));
	snprintf(want_text, sizeof(want_text), seq % 2 ? thread_fmt_2 : thread_fmt_1, who, seq,
		 seq % 3 ? "abc" : "defgh");
	CHECK_STREQ(ev->message, want_text);
	if (is_binary)
		CHECK_STREQ(ev->site->format, seq % 2 ? thread_fmt_2 : thread_fmt_1);
	if (seq <= last_seq[who])
		FAIL("thread %d: seq %d after %lld", who, seq, last_seq[who]);
	last_seq[who] = seq;
	got[who]++;
	if (is_binary)
		got_binary++;
	else
		got_text++;
}

static void *consumer(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_consumer))
		if (tc_drain(check_thread_event, NULL) == 0)
			tc_sleep_us(100);
	return NULL;
}

static int run_threads(void)
{
	struct bprint_thread_stats st[NTHREADS + 8] = { BPRINT_THREAD_STATS_INIT };
	struct bp_fmtcache_counts c0;
	pthread_t w[NTHREADS];
	unsigned long long total_over = 0;
	int n;

	strcpy(thread_buf[0], thread_fmt_1);
	strcpy(thread_buf[1], thread_fmt_2);
	per_thread = tc_scale(200000);
	for (int t = 0; t < NTHREADS; t++)
		last_seq[t] = -1;
	bp_fmtcache_counts(&c0);
	tc_run_writers(w, NTHREADS, writer, consumer, &writers_done, &stop_consumer);
	n = tc_drain_with_stats(check_thread_event, NULL, st, NTHREADS + 8);
	CHECK_EQ(n, NTHREADS);
	for (int t = 0; t < NTHREADS; t++) {
		const struct bprint_thread_stats *s = tc_stats_of(st, n, atomic_load(&tids[t]));

		if (!s)
			FAIL("no stats for thread %d", t);
		printf("thread %d: written %llu read %llu overwritten %llu discarded %llu\n", t,
		       (unsigned long long)s->written, (unsigned long long)s->read,
		       (unsigned long long)s->overwritten, (unsigned long long)s->discarded);
		CHECK_EQ(s->written, (uint64_t)per_thread);
		CHECK_EQ(s->read + s->overwritten + s->discarded, s->written);
		CHECK_EQ(s->read, (uint64_t)got[t]);
		total_over += s->overwritten;
	}
	printf("records: %lld binary, %lld text (while another thread learnt a format); "
	       "%llu overwritten\n", got_binary, got_text, total_over);
	/* Two formats, parsed once each, however many threads met them first. */
	expect_counts(&c0, 2, 0, "threads");
	CHECK(got_binary > 0);
	atomic_store(&release_writers, true);
	for (int t = 0; t < NTHREADS; t++)
		CHECK_EQ(pthread_join(w[t], NULL), 0);
	return 0;
}

/* ---- a timer signal tracing runtime formats into runtime-format calls -- */

static const char sig_fmts[2][32] = { "sig %u tag=%s", "sig n=%u [%s] second" };
static const char main_fmts[2][32] = { "main %llu s=%s", "main seq=%llu <%s> other" };
static char sig_buf[2][32], main_buf[2][32];
static _Atomic unsigned sig_count;

static const char *tag_of(unsigned long long n)
{
	static const char *const tags[] = { "", "a", "bcd", "nested-signal-record" };

	return tags[n % 4];
}

static void on_signal(int sig)
{
	unsigned n = atomic_load_explicit(&sig_count, memory_order_relaxed);

	(void)sig;
	trace_printk(sig_buf[n % 2], n, tag_of(n));
	atomic_store_explicit(&sig_count, n + 1, memory_order_relaxed);
}

/*
 * The handler lands inside the main loop's calls (nested: it only looks
 * formats up) and between them, also while the main loop learns its own
 * formats.  Every record reads back exactly, and the counters add up to
 * what both sources wrote.  The handler's formats are learnt before the
 * timer starts, as docs/trace-format.md asks (learning allocates), so
 * that in the handler they are lock-free hits.
 */
static int run_signal(void)
{
	unsigned long long n_main = (unsigned long long)tc_scale(300000), got_main = 0;
	unsigned long long got_sig = 0, binary = 0;
	long long last_main = -1, last_sig = -1;
	struct bprint_thread_stats st[4] = { BPRINT_THREAD_STATS_INIT };
	struct bprint_reader *r;
	struct bprint_event ev = BPRINT_EVENT_INIT;
	timer_t timer;
	int rc;

	for (int k = 0; k < 2; k++) {
		strcpy(sig_buf[k], sig_fmts[k]);
		strcpy(main_buf[k], main_fmts[k]);
	}
	on_signal(SIGPROF);	/* learn the handler's two formats, outside a handler */
	on_signal(SIGPROF);
	timer = tc_thread_timer_start(on_signal, 20000);
	for (unsigned long long seq = 0; seq < n_main; seq++)
		trace_printk(main_buf[seq % 2], seq, tag_of(seq));
	tc_thread_timer_stop(timer);
	CHECK(atomic_load(&sig_count) > 0);

	r = bprint_read_begin();
	CHECK(r != NULL);
	while ((rc = bprint_read_next(r, &ev)) == 1) {
		char text[128];
		unsigned long long seq;
		unsigned n;

		if (sscanf(ev.message, "main %llu", &seq) == 1 ||
		    sscanf(ev.message, "main seq=%llu", &seq) == 1) {
			snprintf(text, sizeof(text), main_fmts[seq % 2], seq, tag_of(seq));
			CHECK((long long)seq > last_main);
			last_main = (long long)seq;
			got_main++;
		} else if (sscanf(ev.message, "sig %u", &n) == 1 ||
			   sscanf(ev.message, "sig n=%u", &n) == 1) {
			snprintf(text, sizeof(text), sig_fmts[n % 2], n, tag_of(n));
			CHECK((long long)n > last_sig);
			last_sig = n;
			got_sig++;
		} else {
			FAIL("record \"%s\" is of no format traced", ev.message);
		}
		CHECK_STREQ(ev.message, text);
		if (ev.site && ev.site->format)
			binary++;
	}
	CHECK_EQ(rc, 0);
	CHECK_EQ(bprint_stats(st, 4), 1);
	bprint_read_end(r);
	printf("main records %llu, signal records %llu, %llu binary\n", got_main, got_sig, binary);
	CHECK_EQ(st[0].written, n_main + atomic_load(&sig_count));
	CHECK_EQ(st[0].read + st[0].overwritten + st[0].discarded, st[0].written);
	CHECK_EQ(st[0].read, got_main + got_sig);
	CHECK(binary > 0);
	return 0;
}

/* ---- the trace-file round trip ---------------------------------------- */

static int run_file(const char *out)
{
	char path[512];
	FILE *msg, *fmt;
	char *heap;

	/* The same sequence as the in-process cases that need no reader-side checks. */
	case_repeated();
	case_rewritten();
	case_many_cycled();
	heap = malloc(40);
	CHECK(heap != NULL);
	strcpy(heap, "heap %d of %s");
	call(site_a, BINARY, heap, 5, "file", 0);
	free(heap);

	snprintf(path, sizeof(path), "%s.msg", out);
	msg = fopen(path, "w");
	snprintf(path, sizeof(path), "%s.fmt", out);
	fmt = fopen(path, "w");
	CHECK(msg && fmt);
	for (size_t i = 0; i < nwant; i++) {
		CHECK(want[i].kind == BINARY);
		fprintf(msg, "%s\n", want[i].text);
		fprintf(fmt, "%s\n", want[i].fmt);
	}
	CHECK(fclose(msg) == 0 && fclose(fmt) == 0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "threads"))
		return run_threads();
	if (argc == 2 && !strcmp(argv[1], "signal"))
		return run_signal();
	if (argc == 3 && !strcmp(argv[1], "file"))
		return run_file(argv[2]);
	if (argc == 1)
		return run_single();
	fprintf(stderr, "usage: %s [threads | signal | file OUT]\n", argv[0]);
	return 2;
}
