/*
 * The tracer's clocks: names, selection and the tsc fallback, monotonicity
 * of every clock, the counter clock across threads, and the calibration
 * (raw to nanoseconds), checked against clock_gettime() brackets.  The time
 * bounds are correctness bounds on conversion error, not performance.
 */
#include "trace/clock.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK_KEEP_GOING 1000
#include "check.h"

static int quick;

static uint64_t clock_ns(clockid_t cid)
{
	struct timespec ts;

	clock_gettime(cid, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static clockid_t posix_clock(enum bp_clock_id id)
{
	switch (id) {
	case BP_CLOCK_MONO_RAW: return CLOCK_MONOTONIC_RAW;
	case BP_CLOCK_BOOT: return CLOCK_BOOTTIME;
	default: return CLOCK_MONOTONIC;
	}
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static const enum bp_clock_id all_ids[] = {
	BP_CLOCK_TSC, BP_CLOCK_MONO, BP_CLOCK_MONO_RAW, BP_CLOCK_BOOT,
	BP_CLOCK_COUNTER,
};
#define NIDS (sizeof(all_ids) / sizeof(all_ids[0]))

static void test_names(void)
{
	static const char *const bad[] = {
		"", "TSC", "Mono", "mono ", " mono", "monox", "mon", "mono-raw",
		"monoraw", "local", "global", "x86-tsc", "uptime", "perf",
		"counter2", "boot\n", "tsc\n", "t", "mono_raw_",
	};
	const char *seen[NIDS];
	enum bp_clock_id id;
	size_t i, j;

	for (i = 0; i < NIDS; i++) {
		const char *n = bp_clock_name(all_ids[i]);

		CHECK(n != NULL);
		if (!n)
			continue;
		id = (enum bp_clock_id)99;
		CHECK(bp_clock_parse(n, &id) == 0);
		CHECK(id == all_ids[i]);
		seen[i] = n;
		for (j = 0; j < i; j++)
			CHECK(strcmp(seen[j], n) != 0);
	}
	CHECK(strcmp(bp_clock_name(BP_CLOCK_TSC), "tsc") == 0);
	CHECK(strcmp(bp_clock_name(BP_CLOCK_MONO), "mono") == 0);
	CHECK(strcmp(bp_clock_name(BP_CLOCK_MONO_RAW), "mono_raw") == 0);
	CHECK(strcmp(bp_clock_name(BP_CLOCK_BOOT), "boot") == 0);
	CHECK(strcmp(bp_clock_name(BP_CLOCK_COUNTER), "counter") == 0);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		id = (enum bp_clock_id)77;
		if (bp_clock_parse(bad[i], &id) != -1) {
			fprintf(stderr, "accepted bad clock name \"%s\"\n", bad[i]);
			check_failures++;
		}
		CHECK(id == (enum bp_clock_id)77);	/* untouched */
	}
	CHECK(bp_clock_parse(NULL, &id) == -1);
	CHECK(bp_clock_name((enum bp_clock_id)BP_CLOCK_NR) == NULL);
	CHECK(bp_clock_name((enum bp_clock_id)-1) == NULL);
	CHECK(bp_clock_name((enum bp_clock_id)1000) == NULL);
}

/* Every clock has a whole row in the table, and the rules the readers
 * rely on hold: a clock that counts CLOCK_MONOTONIC's ns is dated and is
 * Perfetto's MONOTONIC; a clock without dates is not. */
static void test_table(void)
{
	for (size_t i = 0; i < NIDS; i++) {
		const struct bp_clock_desc *d = bp_clock_desc(all_ids[i]);

		CHECK(d != NULL);
		if (!d)
			continue;
		CHECK(d->name && d->ctf_name && d->tracecmd_name);
		CHECK(d->name == bp_clock_name(all_ids[i]));
		CHECK(d->perfetto_clock == BP_PERFETTO_CLOCK_MONOTONIC ||
		      d->perfetto_clock == BP_PERFETTO_CLOCK_MONOTONIC_RAW ||
		      d->perfetto_clock == BP_PERFETTO_CLOCK_BOOTTIME);
		if (d->monotonic_ns) {
			CHECK(d->dated);
			CHECK(d->perfetto_clock == BP_PERFETTO_CLOCK_MONOTONIC);
		}
		if (d->perfetto_clock == BP_PERFETTO_CLOCK_MONOTONIC)
			CHECK(d->monotonic_ns);
	}
	CHECK(bp_clock_desc(BP_CLOCK_TSC)->calibrated);
	CHECK(!bp_clock_desc(BP_CLOCK_MONO)->calibrated);
	CHECK(!bp_clock_desc(BP_CLOCK_BOOT)->dated && !bp_clock_desc(BP_CLOCK_COUNTER)->dated);
	CHECK(bp_clock_desc((enum bp_clock_id)BP_CLOCK_NR) == NULL);
	CHECK(bp_clock_desc((enum bp_clock_id)-1) == NULL);
}

/* What the kernel says, for the consistency of bp_clock_tsc_usable(). */
static int kernel_clocksource_is_tsc(void)
{
	char buf[32] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strcmp(buf, "tsc\n") == 0;
}

static void test_default_and_select(void)
{
	int usable = bp_clock_tsc_usable();

	/* The constructor selected the default before main(). */
	CHECK(bp_clock_selected() == bp_clock_default());
	CHECK(bp_clock_default() == (usable ? BP_CLOCK_TSC : BP_CLOCK_MONO));
#if defined(__x86_64__)
	if (kernel_clocksource_is_tsc())
		CHECK(usable);
#else
	CHECK(!usable);
#endif
	printf("tsc usable: %s; default clock: %s\n", usable ? "yes" : "no",
	       bp_clock_name(bp_clock_default()));

	/* Invalid ids are refused and change nothing. */
	CHECK(bp_clock_select(BP_CLOCK_BOOT) == 0);
	CHECK(bp_clock_select((enum bp_clock_id)BP_CLOCK_NR) == -1);
	CHECK(bp_clock_select((enum bp_clock_id)-1) == -1);
	CHECK(bp_clock_selected() == BP_CLOCK_BOOT);

	/* By name; unknown names change nothing; "" and NULL the default. */
	CHECK(bp_clock_select_name("counter") == 0);
	CHECK(bp_clock_selected() == BP_CLOCK_COUNTER);
	CHECK(bp_clock_select_name("bogus") == -1);
	CHECK(bp_clock_selected() == BP_CLOCK_COUNTER);
	CHECK(bp_clock_select_name("mono_raw") == 0);
	CHECK(bp_clock_selected() == BP_CLOCK_MONO_RAW);
	CHECK(bp_clock_select_name("") == 0);
	CHECK(bp_clock_selected() == bp_clock_default());
	CHECK(bp_clock_select(BP_CLOCK_COUNTER) == 0);
	CHECK(bp_clock_select_name(NULL) == 0);
	CHECK(bp_clock_selected() == bp_clock_default());

	/* tsc where it is unusable: mono and -1. */
	bp_clock_test_override_tsc(0);
	CHECK(!bp_clock_tsc_usable());
	CHECK(bp_clock_default() == BP_CLOCK_MONO);
	CHECK(bp_clock_select(BP_CLOCK_COUNTER) == 0);
	CHECK(bp_clock_select(BP_CLOCK_TSC) == -1);
	CHECK(bp_clock_selected() == BP_CLOCK_MONO);
	CHECK(bp_clock_select(BP_CLOCK_BOOT) == 0);
	CHECK(bp_clock_select_name("tsc") == -1);
	CHECK(bp_clock_selected() == BP_CLOCK_MONO);
	CHECK(bp_clock_select_name("") == 0);
	CHECK(bp_clock_selected() == BP_CLOCK_MONO);
	{
		struct bp_clock_calib c;

		bp_clock_calibrate(&c);
		CHECK(c.clock_id == BP_CLOCK_MONO);
	}
	bp_clock_test_override_tsc(-1);
	CHECK(bp_clock_tsc_usable() == usable);

	CHECK(bp_clock_select(BP_CLOCK_TSC) == (usable ? 0 : -1));
	CHECK(bp_clock_selected() == (usable ? BP_CLOCK_TSC : BP_CLOCK_MONO));
}

/* Every clock never goes back on one thread, raw or converted; the
 * counter strictly increases. */
static void test_monotonic(void)
{
	long n = quick ? 100000 : 2000000;
	size_t i;

	for (i = 0; i < NIDS; i++) {
		enum bp_clock_id id = all_ids[i];
		struct bp_clock_calib c;
		uint64_t prev, prev_ns, bad = 0, bad_ns = 0;
		long k;

		if (bp_clock_select(id) != 0) {
			CHECK(id == BP_CLOCK_TSC && !bp_clock_tsc_usable());
			printf("monotonic: %s not usable, skipped\n", bp_clock_name(id));
			continue;
		}
		bp_clock_calibrate(&c);
		CHECK(c.clock_id == (uint32_t)id);
		prev = bp_clock_now();
		prev_ns = bp_clock_to_ns(&c, prev);
		for (k = 0; k < n; k++) {
			uint64_t t = bp_clock_now();
			uint64_t ns = bp_clock_to_ns(&c, t);

			if (id == BP_CLOCK_COUNTER ? t <= prev : t < prev)
				bad++;
			if (ns < prev_ns)
				bad_ns++;
			prev = t;
			prev_ns = ns;
		}
		if (bad || bad_ns) {
			fprintf(stderr, "clock %s went back %" PRIu64 " times (%" PRIu64
				" converted) in %ld reads\n",
				bp_clock_name(id), bad, bad_ns, n);
			check_failures++;
		}
	}
}

/*
 * For the nanosecond clocks the calibration is the identity and the value
 * lies between two clock_gettime() reads of the same clock.
 */
static void test_ns_clocks_identity(void)
{
	static const enum bp_clock_id ids[] = {
		BP_CLOCK_MONO, BP_CLOCK_MONO_RAW, BP_CLOCK_BOOT,
	};
	size_t i;
	int k;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct bp_clock_calib c;

		CHECK(bp_clock_select(ids[i]) == 0);
		bp_clock_calibrate(&c);
		CHECK(c.clock_id == (uint32_t)ids[i]);
		for (k = 0; k < 100; k++) {
			uint64_t a = clock_ns(posix_clock(ids[i]));
			uint64_t r = bp_clock_now();
			uint64_t b = clock_ns(posix_clock(ids[i]));
			uint64_t ns = bp_clock_to_ns(&c, r);

			CHECK_U64(ns, ==, r);
			CHECK_U64(a, <=, ns);
			CHECK_U64(ns, <=, b);
		}
	}
}

/* bp_clock_to_ns() arithmetic on calibrations built by hand. */
static void test_to_ns_arithmetic(void)
{
	struct bp_clock_calib c = { 0 };

	/* Identity. */
	c.mult = 1;
	CHECK_U64(bp_clock_to_ns(&c, 0), ==, 0);
	CHECK_U64(bp_clock_to_ns(&c, 123456789), ==, 123456789);
	CHECK_U64(bp_clock_to_ns(&c, UINT64_MAX), ==, UINT64_MAX);

	/* The identity's in-line path against the general one, offsets and
	 * saturation on both sides included. */
	{
		static const uint64_t edge[] = { 0, 1, 2, 1000, (uint64_t)1 << 63,
						 UINT64_MAX - 1, UINT64_MAX };
		uint64_t x = 0x9e3779b97f4a7c15ull;

		for (int k = 0; k < 20000; k++) {
			uint64_t raw;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			c.raw0 = k < 49 ? edge[k % 7] : x;
			c.ns0 = k < 49 ? edge[k / 7] : x * 0x2545f4914f6cdd1dull;
			raw = k % 3 ? x >> (k % 64) : edge[k % 7];
			CHECK_U64(bp_clock_to_ns(&c, raw), ==, bp_clock_to_ns_scaled(&c, raw));
		}
		c.raw0 = c.ns0 = 0;
	}

	/* x1.5 around (1000, 5000), both sides of raw0. */
	c.mult = 3;
	c.shift = 1;
	c.raw0 = 1000;
	c.ns0 = 5000;
	CHECK_U64(bp_clock_to_ns(&c, 1000), ==, 5000);
	CHECK_U64(bp_clock_to_ns(&c, 1002), ==, 5003);
	CHECK_U64(bp_clock_to_ns(&c, 998), ==, 4997);
	CHECK_U64(bp_clock_to_ns(&c, 0), ==, 3500);
	CHECK_U64(bp_clock_to_ns(&c, 2000), ==, 6500);

	/* Before ns0 by more than ns0: saturates at 0. */
	c.ns0 = 10;
	CHECK_U64(bp_clock_to_ns(&c, 0), ==, 0);
	CHECK_U64(bp_clock_to_ns(&c, 993), ==, 0);
	CHECK_U64(bp_clock_to_ns(&c, 994), ==, 1);

	/* Past UINT64_MAX: saturates. */
	c.ns0 = UINT64_MAX - 10;
	CHECK_U64(bp_clock_to_ns(&c, 1006), ==, UINT64_MAX - 1);
	CHECK_U64(bp_clock_to_ns(&c, 1008), ==, UINT64_MAX);
	CHECK_U64(bp_clock_to_ns(&c, UINT64_MAX), ==, UINT64_MAX);

	/* The product needs more than 64 bits. */
	c.raw0 = 0;
	c.ns0 = 0;
	c.mult = (uint64_t)1 << 40;
	c.shift = 40;
	CHECK_U64(bp_clock_to_ns(&c, (uint64_t)1 << 60), ==, (uint64_t)1 << 60);
	c.mult = UINT64_MAX;
	c.shift = 64;
	CHECK_U64(bp_clock_to_ns(&c, UINT64_MAX), ==, UINT64_MAX - 1);
	c.raw0 = UINT64_MAX;
	c.ns0 = UINT64_MAX;
	CHECK_U64(bp_clock_to_ns(&c, 0), ==, 1);

	/* A 2.5 GHz TSC, 0.4 ns a tick, over a day on either side. */
	c.shift = 32;
	c.mult = (uint64_t)((0.4 * 4294967296.0) + 0.5);
	c.raw0 = (uint64_t)1 << 50;
	c.ns0 = (uint64_t)1 << 55;
	{
		uint64_t day_ticks = 86400ull * 2500000000ull;
		uint64_t day_ns = 86400ull * 1000000000ull;
		uint64_t up = bp_clock_to_ns(&c, c.raw0 + day_ticks);
		uint64_t down = bp_clock_to_ns(&c, c.raw0 - day_ticks);

		/* mult is 0.4 to within 2^-33, so within 30 us a day */
		CHECK_U64(up - c.ns0, <=, day_ns + 30000);
		CHECK_U64(up - c.ns0, >=, day_ns - 30000);
		CHECK_U64(c.ns0 - down, ==, up - c.ns0);
	}

	/* Untrusted fields: any shift is defined. */
	c.shift = 200;
	CHECK_U64(bp_clock_to_ns(&c, c.raw0 + 12345), ==, c.ns0);
	c.shift = UINT32_MAX;
	CHECK_U64(bp_clock_to_ns(&c, 0), ==, c.ns0);
	c.shift = 127;
	c.mult = UINT64_MAX;
	c.raw0 = 0;
	c.ns0 = 0;
	CHECK_U64(bp_clock_to_ns(&c, UINT64_MAX), ==, 1);
}

struct sample {
	uint64_t a, raw, b;	/* CLOCK_MONOTONIC, tsc, CLOCK_MONOTONIC */
};

static struct sample take_sample(void)
{
	struct sample s;

	s.a = clock_ns(CLOCK_MONOTONIC);
	s.raw = bp_clock_now();
	s.b = clock_ns(CLOCK_MONOTONIC);
	return s;
}

/* The converted sample falls within tol of its bracket; returns the
 * error against the bracket's middle, for the log. */
static int64_t check_sample(const struct bp_clock_calib *c, struct sample s,
			    uint64_t tol, const char *what)
{
	uint64_t ns = bp_clock_to_ns(c, s.raw);
	int64_t err = (int64_t)(ns - (s.a + (s.b - s.a) / 2));

	if (ns + tol < s.a || ns > s.b + tol) {
		fprintf(stderr,
			"%s: converted %" PRIu64 " outside [%" PRIu64 ", %" PRIu64
			"] +- %" PRIu64 " (error %" PRId64 " ns)\n",
			what, ns, s.a, s.b, tol, err);
		check_failures++;
	}
	return err;
}

/* The best (narrowest bracket) of a few samples. */
static struct sample good_sample(void)
{
	struct sample best = take_sample();
	int i;

	for (i = 0; i < 20; i++) {
		struct sample s = take_sample();

		if (s.b - s.a < best.b - best.a)
			best = s;
	}
	return best;
}

static void test_tsc_calibration(void)
{
	const uint64_t tight = 50000, loose = 1000000;	/* 50 us, 1 ms */
	struct bp_clock_calib c1, c2, c3;
	struct sample early, s;
	int64_t e1, e2, e3, e4, e5;

	if (bp_clock_select(BP_CLOCK_TSC) != 0) {
		printf("tsc calibration: tsc not usable, skipped\n");
		return;
	}
	/* Right after selection: the calibration waits for its 1 ms. */
	bp_clock_calibrate(&c1);
	CHECK(c1.clock_id == BP_CLOCK_TSC);
	CHECK(c1.mult != 0);
	CHECK(c1.shift <= 63);
	CHECK_U64(bp_clock_to_ns(&c1, c1.raw0), ==, c1.ns0);
	early = good_sample();
	e1 = check_sample(&c1, early, tight, "just calibrated");

	/* 200 ms later the short calibration has drifted by little. */
	sleep_ms(200);
	s = good_sample();
	e2 = check_sample(&c1, s, loose, "200 ms after a 1 ms calibration");

	/* A fresh calibration, over the 200 ms baseline, is tight again,
	 * for now and for the earlier sample (raw < raw0). */
	bp_clock_calibrate(&c2);
	CHECK(c2.clock_id == BP_CLOCK_TSC);
	CHECK(c2.raw0 > c1.raw0);
	CHECK(early.raw < c2.raw0);
	s = good_sample();
	e3 = check_sample(&c2, s, tight, "recalibrated");
	e4 = check_sample(&c2, early, tight, "recalibrated, earlier sample");

	/* ns per tick agree between the two calibrations to 0.1 %. */
	{
		double r1 = (double)c1.mult / (double)((uint64_t)1 << c1.shift);
		double r2 = (double)c2.mult / (double)((uint64_t)1 << c2.shift);

		CHECK(r1 > r2 * 0.999 && r1 < r2 * 1.001);
		printf("tsc: %.6f ns/tick (%.3f MHz) from 1 ms, %.6f from 200 ms\n",
		       r1, 1000.0 / r1, r2);
	}

	/* Selecting again starts a new baseline (the wait comes back). */
	CHECK(bp_clock_select(BP_CLOCK_TSC) == 0);
	bp_clock_calibrate(&c3);
	s = good_sample();
	e5 = check_sample(&c3, s, tight, "reselected");
	printf("tsc calibration errors (ns): 1 ms: %" PRId64 "; +200 ms: %" PRId64
	       "; recalibrated: %" PRId64 ", earlier sample %" PRId64
	       "; reselected: %" PRId64 "\n", e1, e2, e3, e4, e5);
}

/* Counter: two threads, strictly increasing in each, no duplicates. */
#define COUNTER_THREADS 2

struct counter_arg {
	uint64_t *v;
	long n;
	pthread_barrier_t *start;
};

static void *counter_thread(void *p)
{
	struct counter_arg *a = p;
	long i;

	pthread_barrier_wait(a->start);
	for (i = 0; i < a->n; i++)
		a->v[i] = bp_clock_now();
	return NULL;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static void test_counter_threads(void)
{
	long n = quick ? 50000 : 500000;
	long total = n * COUNTER_THREADS, i, bad = 0, dup = 0;
	uint64_t *all = calloc((size_t)total, sizeof(*all));
	struct counter_arg args[COUNTER_THREADS];
	pthread_t tid[COUNTER_THREADS];
	pthread_barrier_t start;
	uint64_t before, after;
	int t;

	CHECK(all != NULL);
	if (!all)
		return;
	CHECK(bp_clock_select(BP_CLOCK_COUNTER) == 0);
	pthread_barrier_init(&start, NULL, COUNTER_THREADS);
	before = bp_clock_now();
	for (t = 0; t < COUNTER_THREADS; t++) {
		args[t].v = all + (long)t * n;
		args[t].n = n;
		args[t].start = &start;
		CHECK(pthread_create(&tid[t], NULL, counter_thread, &args[t]) == 0);
	}
	for (t = 0; t < COUNTER_THREADS; t++)
		pthread_join(tid[t], NULL);
	after = bp_clock_now();
	pthread_barrier_destroy(&start);

	for (t = 0; t < COUNTER_THREADS; t++)
		for (i = 1; i < n; i++)
			if (args[t].v[i] <= args[t].v[i - 1])
				bad++;
	qsort(all, (size_t)total, sizeof(*all), cmp_u64);
	for (i = 1; i < total; i++)
		if (all[i] == all[i - 1])
			dup++;
	CHECK(bad == 0);
	CHECK(dup == 0);
	/* Nobody else counted: the values are exactly the range between. */
	CHECK_U64(all[0], ==, before + 1);
	CHECK_U64(all[total - 1], ==, before + (uint64_t)total);
	CHECK_U64(after, ==, before + (uint64_t)total + 1);
	free(all);
}

/* The hot path and the calibration from a signal handler. */
static volatile sig_atomic_t in_handler_ok;
static uint64_t handler_raw;

static void on_signal(int sig)
{
	struct bp_clock_calib c;

	(void)sig;
	handler_raw = bp_clock_now();
	bp_clock_calibrate(&c);
	in_handler_ok = c.clock_id == (uint32_t)bp_clock_selected() &&
			bp_clock_to_ns(&c, handler_raw) != 0;
}

static void test_signal_handler(void)
{
	size_t i;

	signal(SIGUSR1, on_signal);
	for (i = 0; i < NIDS; i++) {
		uint64_t before, after;

		if (bp_clock_select(all_ids[i]) != 0)
			continue;
		in_handler_ok = 0;
		before = bp_clock_now();
		raise(SIGUSR1);
		after = bp_clock_now();
		CHECK(in_handler_ok);
		CHECK_U64(before, <=, handler_raw);
		CHECK_U64(handler_raw, <=, after);
	}
	signal(SIGUSR1, SIG_DFL);
}

int main(void)
{
	quick = getenv("BPRINT_TEST_QUICK") != NULL;

	test_names();
	test_table();
	test_default_and_select();
	test_monotonic();
	test_ns_clocks_identity();
	test_to_ns_arithmetic();
	test_tsc_calibration();
	test_counter_threads();
	test_signal_handler();

	if (check_summary("clock_test"))
		return 1;
	printf("clock_test: ok\n");
	return 0;
}
