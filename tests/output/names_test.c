/*
 * The exporters' event names (src/output/names.c): a site's function; a
 * short format for a site without one (cut at 47 bytes or at a control
 * character); "trace_printk" for a format that was not a constant;
 * "unknown site" for none.
 */
#include "output/names.h"

#include <bprint.h>

#include <stdio.h>
#include <string.h>

static int fails;

static void expect(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want)) {
		fails++;
		printf("FAIL: %s: \"%s\", not \"%s\"\n", what, got, want);
	} else {
		printf("ok: %s: \"%s\"\n", what, got);
	}
}

int main(void)
{
	struct bprint_site s = { .format = "x=%d", .file = "a.c", .func = "handler" };
	char buf[BP_OUT_NAME_MAX];

	expect("function", bp_out_site_name(&s, buf), "handler");
	s.func = "";
	expect("no function: the format", bp_out_site_name(&s, buf), "x=%d");
	s.format = "a format that is much longer than forty-seven bytes, cut";
	expect("a long format", bp_out_site_name(&s, buf),
	       "a format that is much longer than forty-seven b");
	s.format = "two\nlines %d";
	expect("cut at a newline", bp_out_site_name(&s, buf), "two");
	s.format = "\n%d";
	expect("nothing before a newline", bp_out_site_name(&s, buf), "trace_printk");
	s.format = NULL;
	expect("not a constant", bp_out_site_name(&s, buf), "trace_printk");
	expect("no site", bp_out_site_name(NULL, buf), "unknown site");
	printf(fails ? "%d failure(s)\n" : "all passed\n", fails);
	return fails != 0;
}
