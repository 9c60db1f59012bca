/*
 * The text module against the C library: bprint_format_event() and the
 * cached prefix of bp_text_ftrace_prefix() must print what glibc's snprintf
 * prints for the documented formats (trace/text.h), for random events
 * (empty and 16-character names, negative and 10-digit tids, unknown,
 * 3-digit and 5-digit CPUs, times up to 2^64 ns, long function names), at
 * every buffer size from 0 to the full length, with guard bytes after the
 * buffer, as the kernel's test_printf checks truncation.
 */
#include "trace/text.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng = 88172645463325252ull;

static unsigned long long next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void random_string(char *s, size_t max)
{
	size_t n = next() % (max + 1);

	for (size_t i = 0; i < n; i++)
		s[i] = (char)(' ' + next() % 95);
	s[n] = '\0';
}

/* What glibc prints for ev in the ftrace form (trace/text.h). */
static int expected(char *buf, size_t size, const struct bprint_event *ev)
{
	const char *func = ev->site && ev->site->func ? ev->site->func : "?";
	const char *comm = ev->comm && ev->comm[0] ? ev->comm : "<...>";
	unsigned long long sec = ev->ns / 1000000000u, usec = ev->ns % 1000000000u / 1000u;

	if (ev->cpu < 0)
		return snprintf(buf, size, "%16.16s-%-7d [???] %5llu.%06llu: %s: %s", comm, ev->tid,
				sec, usec, func, ev->message);
	return snprintf(buf, size, "%16.16s-%-7d [%03d] %5llu.%06llu: %s: %s", comm, ev->tid,
			ev->cpu, sec, usec, func, ev->message);
}

/* The raw form's message: a newline, a carriage return and a backslash
 * written as \n, \r and \\ (one record, one line). */
static const char *escaped(const char *msg, char *buf, size_t size)
{
	size_t n = 0;

	for (; *msg && n + 3 < size; msg++) {
		if (*msg == '\n' || *msg == '\r' || *msg == '\\') {
			buf[n++] = '\\';
			buf[n++] = *msg == '\n' ? 'n' : *msg == '\r' ? 'r' : '\\';
		} else {
			buf[n++] = *msg;
		}
	}
	buf[n] = '\0';
	return buf;
}

static void check_sizes(const struct bprint_event *ev, enum bprint_output how)
{
	char want[512], got[512 + 8], esc[300];
	int n = how == BPRINT_OUTPUT_FTRACE ? expected(want, sizeof(want), ev)
		: how == BPRINT_OUTPUT_RAW
			? snprintf(want, sizeof(want), "%llu %d %d %u %s",
				   (unsigned long long)ev->ns, ev->tid, ev->cpu,
				   ev->site ? ev->site->id : 0u, escaped(ev->message, esc, sizeof(esc)))
			: snprintf(want, sizeof(want), "%s", ev->message);

	CHECK(n >= 0 && (size_t)n < sizeof(want));
	for (size_t size = 0; size <= (size_t)n + 1; size++) {
		memset(got, 'X', sizeof(got));
		CHECK_OP(bprint_format_event(got, size, ev, how), ==, n);
		for (size_t i = size; i < size + 8; i++)
			CHECK_OP(got[i], ==, 'X');	/* nothing past the buffer */
		if (size) {
			CHECK(strlen(got) == (size - 1 < (size_t)n ? size - 1 : (size_t)n));
			CHECK(memcmp(got, want, strlen(got)) == 0);
		}
	}
}

int main(void)
{
	static struct bp_text_cache cache;	/* one cache across every event */
	static struct bp_text_cache cache16 = { .comm16 = true };	/* names read as 16 bytes */
	char comm[24] = { 0 }, func[100], msg[120], want[512], got[512];
	struct bprint_site site;
	int events = 0;

	for (int round = 0; round < 20000; round++) {
		struct bprint_event ev = BPRINT_EVENT_INIT;

		random_string(comm, next() % 4 ? 16 : 20);
		random_string(func, next() % 8 ? 30 : 99);
		random_string(msg, 100);
		if (next() % 4 == 0 && msg[0])	/* a line break the raw form escapes */
			msg[next() % strlen(msg)] = next() % 2 ? '\n' : '\r';
		memset(&site, 0, sizeof(site));
		site.func = next() % 16 ? func : NULL;
		site.id = (uint32_t)(next() % 300000);
		ev.comm = next() % 16 ? comm : NULL;
		ev.site = next() % 32 ? &site : NULL;
		ev.message = msg;
		switch (next() % 4) {
		case 0: ev.tid = (int32_t)(next() % 100); break;
		case 1: ev.tid = (int32_t)next(); break;
		default: ev.tid = (int32_t)(next() % 4000000); break;
		}
		switch (next() % 5) {
		case 0: ev.cpu = -1; break;
		case 1: ev.cpu = (int32_t)(next() % 100000); break;
		default: ev.cpu = (int32_t)(next() % 64); break;
		}
		switch (next() % 4) {
		case 0: ev.ns = next(); break;
		case 1: ev.ns = next() % 100000000000000ull; break;	/* 100000 s */
		default: ev.ns = 1000000000000ull + next() % 5000000000ull; break;
		}
		if (round % 50 == 0) {
			check_sizes(&ev, BPRINT_OUTPUT_FTRACE);
			check_sizes(&ev, BPRINT_OUTPUT_RAW);
			check_sizes(&ev, BPRINT_OUTPUT_MSG);
		}
		/* the prefix with a cache kept from the previous events */
		{
			const char *f = ev.site && ev.site->func ? ev.site->func : "?";
			int n = expected(want, sizeof(want), &ev);
			size_t plen = (size_t)n - strlen(msg);
			size_t len = bp_text_ftrace_prefix(&cache, got, sizeof(got), &ev, f, strlen(f));

			CHECK_OP(len, ==, plen);
			CHECK(memcmp(got, want, plen) == 0 && got[plen] == '\0');
			len = bp_text_ftrace_prefix(&cache16, got, sizeof(got), &ev, f, strlen(f));
			CHECK_OP(len, ==, plen);
			CHECK(memcmp(got, want, plen) == 0 && got[plen] == '\0');
		}
		events++;
	}
	/* the header, against its documented text */
	{
		char h[512];
		size_t n = bp_text_header(h, sizeof(h), 16, 3, 2);

		CHECK(n == strlen(h));
		CHECK(strstr(h, "# tracer: bprint\n#\n# entries-written: 16   lost: 3   #P:2\n#\n") == h);
	}
	printf("text: %d events match glibc's snprintf, every buffer size checked on %d\n", events,
	       events / 50);
	return 0;
}
