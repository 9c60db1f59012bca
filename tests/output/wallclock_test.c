/*
 * output/wallclock: the offset rule (which clocks give dates) and the
 * ISO-8601 text of known instants (the epoch, a year later, one ns before
 * it), in UTC and in fixed POSIX zones east and west of it.
 */
#include "output/wallclock.h"

#include "reader/reader.h"
#include "trace/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int fails;

static void date_is(int64_t ns, bool utc, const char *want)
{
	struct bp_out_date_cache c = { 0 };
	char buf[64];
	size_t n = bp_out_date(&c, buf, sizeof(buf), ns, utc);

	if (strcmp(buf, want) || n != strlen(want)) {
		printf("FAIL: %lld ns (%s, TZ=%s): \"%s\", want \"%s\"\n", (long long)ns,
		       utc ? "utc" : "local", getenv("TZ"), buf, want);
		fails++;
	}
	/* the cache holds one second: another second, then back */
	bp_out_date(&c, buf, sizeof(buf), ns + 5000000000LL, utc);
	bp_out_date(&c, buf, sizeof(buf), ns, utc);
	if (strcmp(buf, want)) {
		printf("FAIL: %lld ns after the cache moved: \"%s\"\n", (long long)ns, buf);
		fails++;
	}
}

static void offset_is(const char *clock, uint64_t real, uint64_t mono, int want_rc, int64_t want)
{
	struct bp_trace_info info = { .clock_name = clock, .start_realtime_ns = real,
				      .start_mono_ns = mono, .clock = BP_CLOCK_NR };
	enum bp_clock_id id;
	int64_t off = 0;
	int rc;

	if (bp_clock_parse(clock, &id) == 0)
		info.clock = id;	/* as the reader hands it over */
	rc = bp_out_wallclock_offset(&info, &off);

	if (rc != want_rc || (rc == 0 && off != want)) {
		printf("FAIL: offset of %s: rc %d off %lld, want %d %lld\n", clock, rc,
		       (long long)off, want_rc, (long long)want);
		fails++;
	}
}

int main(void)
{
	const int64_t year = 365LL * 86400 * 1000000000;

	setenv("TZ", "UTC0", 1);
	tzset();
	date_is(0, true, "1970-01-01T00:00:00.000000000Z");
	date_is(year + 123456789, true, "1971-01-01T00:00:00.123456789Z");
	date_is(year - 1, true, "1970-12-31T23:59:59.999999999Z");
	date_is(-1, true, "1969-12-31T23:59:59.999999999Z");
	date_is(0, false, "1970-01-01T00:00:00.000000000+00:00");
	setenv("TZ", "UTC-2", 1);	/* POSIX: two hours east */
	tzset();
	date_is(0, false, "1970-01-01T02:00:00.000000000+02:00");
	date_is(0, true, "1970-01-01T00:00:00.000000000Z");
	setenv("TZ", "XYZ+5:30", 1);
	tzset();
	date_is(year, false, "1970-12-31T18:30:00.000000000-05:30");

	offset_is("mono", 1700000000000000000ull, 5000, 0, 1700000000000000000LL - 5000);
	offset_is("tsc", 1700000000000000000ull, 2000000000000ull, 0,
		  1700000000000000000LL - 2000000000000LL);
	offset_is("mono_raw", 10, 20, 0, -10);
	offset_is("boot", 1700000000000000000ull, 5000, -1, 0);
	offset_is("counter", 1700000000000000000ull, 5000, -1, 0);
	offset_is("unknown", 1700000000000000000ull, 5000, -1, 0);
	offset_is("mono", 0, 5000, -1, 0);	/* no realtime start recorded */
	if (fails)
		printf("%d failure(s)\n", fails);
	else
		printf("wallclock: all passed\n");
	return fails != 0;
}
