/* Wall-clock offset of a trace (wallclock.h). */
#include "output/wallclock.h"

#include "reader/reader.h"
#include "trace/clock.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int bp_out_wallclock_offset(const struct bp_trace_info *info, int64_t *offset_ns)
{
	const struct bp_clock_desc *d = bp_clock_desc((enum bp_clock_id)info->clock);

	if (!d || !d->dated)
		return -1;
	if (info->start_realtime_ns == 0 || info->start_realtime_ns > INT64_MAX ||
	    info->start_mono_ns > INT64_MAX)
		return -1;	/* an old or damaged header */
	*offset_ns = (int64_t)info->start_realtime_ns - (int64_t)info->start_mono_ns;
	return 0;
}

int bp_trace_wallclock_offset(const struct bp_trace *t, int64_t *offset_ns)
{
	return bp_out_wallclock_offset(bp_trace_info(t), offset_ns);
}

/* The second's text: date and time, and the zone. */
static void date_second(struct bp_out_date_cache *c, int64_t sec, bool utc)
{
	time_t t = (time_t)sec;
	struct tm tm;
	long off;

	if (!(utc ? gmtime_r(&t, &tm) : localtime_r(&t, &tm)))
		memset(&tm, 0, sizeof(tm));
	c->len = strftime(c->head, sizeof(c->head), "%Y-%m-%dT%H:%M:%S", &tm);
	off = utc ? 0 : tm.tm_gmtoff;
	if (utc)
		snprintf(c->zone, sizeof(c->zone), "Z");
	else
		snprintf(c->zone, sizeof(c->zone), "%c%02ld:%02ld", off < 0 ? '-' : '+',
			 (off < 0 ? -off : off) / 3600 % 100, (off < 0 ? -off : off) / 60 % 60);
	c->sec = sec;
	c->have = true;
}

size_t bp_out_date(struct bp_out_date_cache *c, char *buf, size_t size, int64_t unix_ns,
		   bool utc)
{
	int64_t sec = unix_ns / 1000000000, ns = unix_ns % 1000000000;
	int n;

	if (ns < 0)
		sec--, ns += 1000000000;
	if (!c->have || c->sec != sec)
		date_second(c, sec, utc);
	n = snprintf(buf, size, "%.*s.%09lld%s", (int)c->len, c->head, (long long)ns, c->zone);
	return n < 0 ? 0 : (size_t)n;
}
