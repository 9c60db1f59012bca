/*
 * bp_export_decodable(): which formats the trace.dat exporter writes as
 * bprint events (libtraceevent decodes them as bprint does) and which as
 * text.  The cases are the ones trace-cmd 3.1.6 was seen to get wrong.
 */
#include "output/export.h"

#include <stdio.h>

static int fails;

static void check(const char *fmt, int want)
{
	int got = bp_export_decodable(fmt);

	if (got != want) {
		printf("FAIL: \"%s\": %s, expected %s\n", fmt ? fmt : "(NULL)", got ? "decodable" : "text",
		       want ? "decodable" : "text");
		fails++;
	}
}

int main(void)
{
	static const char *yes[] = {
		"", "plain", "%d %i %u %x %X %o", "%ld %lu %lx", "%lld %llu %llx", "%zu %zd %zx",
		"%#x %#o %#lx %08x %.5d %5d", "%*d %.*d %0*x", "%s %8s %.3s %.*s %*s", "%p", "%p.",
		"%p %p", "100%%", "tab\there", "quote \" backslash \\", "\xc3\xa9 utf-8",
	};
	static const char *no[] = {
		"%-8s", "%-5d", "% d", "%+d", "%hd", "%hu", "%hhd", "%hhu", "%c", "%jd", "%td",
		"%f", "%e", "%g", "%a", "%Lf", "%n", "%pS", "%ps", "%px", "%p1", "%p_x", "%10p",
		"%#p", "%*p", "%5%", "%y", "%1$d", "abc%", "%lc", "line\nbreak", "bell\a",
		"del\x7f", "%08s", "%#s",
	};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		check(yes[i], 1);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		check(no[i], 0);
	check(NULL, 0);
	if (fails) {
		printf("%d failure(s)\n", fails);
		return 1;
	}
	printf("all passed\n");
	return 0;
}
