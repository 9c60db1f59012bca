/*
 * tracer_dynamic: formats that are not plain literals.  A format in a
 * char array (not a compile-time constant: a derived site, see
 * tracer_fmtcache.c), trace_puts() of a runtime string (copied at
 * trace time: changing the string afterwards changes nothing) and of a
 * literal, a format with more than the plan's 32 arguments, and %s
 * strings longer than a page: cut to what one record (and the reader's
 * message buffer) holds, but always an exact prefix, marked as cut with
 * the whole length, NUL-terminated, with message_len == strlen(message).
 * Expectations come from vsnprintf().
 */
#include "tracer_check.h"

#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"

#define NEXPECT 32

struct want {
	char *text;
	int prefix_ok;	/* a truncated prefix of text is acceptable */
	size_t min_len;	/* ... but at least this long */
};

static struct want want[NEXPECT];
static int nwant;

__attribute__((format(printf, 3, 4)))
static void expect(int prefix_ok, size_t min_len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	CHECK(n >= 0 && nwant < NEXPECT);
	want[nwant].text = malloc((size_t)n + 1);
	CHECK(want[nwant].text != NULL);
	va_start(ap, fmt);
	vsnprintf(want[nwant].text, (size_t)n + 1, fmt, ap);
	va_end(ap);
	want[nwant].prefix_ok = prefix_ok;
	want[nwant].min_len = min_len;
	nwant++;
}

static void tail_dynamic(const char *fmt, int a, const char *s)
{
	trace_printk(fmt, a, s);
}

int main(void)
{
	char fmt[64], runtime[64], page[3 * 4096 + 1], fits[2000 + 1];
	struct bprint_reader *r;
	struct bprint_event ev = BPRINT_EVENT_INIT;
	int i = 0, rc;

	/* 1. A format in a char array. */
	strcpy(fmt, "dynamic a=%d s=%s x=%#llx");
	trace_printk(fmt, 42, "str", 0xdeadbeefcafeull);
	expect(0, 0, "dynamic a=%d s=%s x=%#llx", 42, "str", 0xdeadbeefcafeull);
	/* ... and one that changes between calls at the same site. */
	tail_dynamic("first %d %s", 1, "one");
	expect(0, 0, "first %d %s", 1, "one");
	tail_dynamic("second [%5d] [%-4s]", 2, "two");
	expect(0, 0, "second [%5d] [%-4s]", 2, "two");
	strcpy(fmt, "no arguments at all");
	trace_printk(fmt);
	expect(0, 0, "%s", "no arguments at all");

	/* 2. trace_puts: a runtime string (copied now), then a literal. */
	strcpy(runtime, "runtime text 1");
	trace_puts(runtime);
	expect(0, 0, "%s", "runtime text 1");
	strcpy(runtime, "CHANGED");
	trace_puts("a literal line");
	expect(0, 0, "%s", "a literal line");

	/* 3. More arguments than a plan holds (33 to 40): text at trace time. */
	trace_printk("%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
		     "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
		     "%d %d %d %d %d %d %d %s",
		     1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
		     17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
		     33, 34, 35, 36, 37, 38, 39, "forty");
	expect(0, 0, "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
		     "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
		     "%d %d %d %d %d %d %d %s",
		     1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
		     17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
		     33, 34, 35, 36, 37, 38, 39, "forty");
	/* Exactly 32 still goes through the plan. */
	trace_printk("%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
		     "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		     1ull << 40, 2ull, 3ull, 4ull, 5ull, 6ull, 7ull, 8ull, 9ull, 10ull, 11ull, 12ull,
		     13ull, 14ull, 15ull, 16ull, 17ull, 18ull, 19ull, 20ull, 21ull, 22ull, 23ull,
		     24ull, 25ull, 26ull, 27ull, 28ull, 29ull, 30ull, 31ull, ~0ull);
	expect(0, 0, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
		     "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		     1ull << 40, 2ull, 3ull, 4ull, 5ull, 6ull, 7ull, 8ull, 9ull, 10ull, 11ull, 12ull,
		     13ull, 14ull, 15ull, 16ull, 17ull, 18ull, 19ull, 20ull, 21ull, 22ull, 23ull,
		     24ull, 25ull, 26ull, 27ull, 28ull, 29ull, 30ull, 31ull, ~0ull);

	/* 4. Long strings: one that fits a record, and three pages that cannot. */
	for (size_t k = 0; k < sizeof(fits) - 1; k++)
		fits[k] = (char)('A' + k % 26);
	fits[sizeof(fits) - 1] = '\0';
	trace_printk("fits <%s> end", fits);
	expect(0, 0, "fits <%s> end", fits);
	for (size_t k = 0; k < sizeof(page) - 1; k++)
		page[k] = (char)('a' + (k * 7) % 26);
	page[sizeof(page) - 1] = '\0';
	trace_printk("long %d <%s> end", 7, page);
	expect(1, 1000, "long %d <%s> end", 7, page);
	trace_puts(page);
	expect(1, 1000, "%s", page);
	strcpy(fmt, "dyn long <%s>");
	trace_printk(fmt, page);
	expect(1, 1000, "dyn long <%s>", page);
	/* Precision bounds the copy: only 10 bytes of the page. */
	trace_printk("prec <%.10s>", page);
	expect(0, 0, "prec <%.10s>", page);
	/* A sane record after the long ones. */
	trace_printk("after %d", 99);
	expect(0, 0, "after %d", 99);

	r = bprint_read_begin();
	CHECK(r != NULL);
	while ((rc = bprint_read_next(r, &ev)) == 1) {
		size_t len = strlen(ev.message);

		if (i >= nwant)
			FAIL("unexpected extra record \"%s\"", ev.message);
		CHECK_EQ(ev.message_len, len);
		if (!want[i].prefix_ok) {
			CHECK_STREQ(ev.message, want[i].text);
		} else {
			long kept = tc_cut_prefix(ev.message, len, want[i].text);

			if (kept < (long)want[i].min_len)
				FAIL("record %d: \"%.40s...%s\" (%zu bytes) is not a prefix of the "
				     "%zu expected, marked cut", i, ev.message,
				     len > 40 ? ev.message + len - 40 : "", len,
				     strlen(want[i].text));
			printf("record %d: long text cut to %ld of %zu bytes, marked\n", i, kept,
			       strlen(want[i].text));
		}
		i++;
	}
	CHECK_EQ(rc, 0);
	bprint_read_end(r);
	CHECK_EQ(i, nwant);
	for (int k = 0; k < nwant; k++)
		free(want[k].text);
	printf("%d records as expected\n", i);
	return 0;
}
