/*
 * tracer_runtime_args: a runtime format that asks for more arguments than
 * the call passed reads only those it passed (the call site knows how
 * many, and of which kinds), whatever the kinds the format asks for; the
 * missing ones print as 0, "(null)" or 0.000000, as the format's
 * conversions print a zero word.  Once through va_list this read past the
 * arguments (ASan: stack-buffer-underflow; the release build recorded
 * stack contents): run under ASan in CI.
 *
 * Calls with up to 32 and more than 32 arguments, with integers, doubles
 * (past the 8 passed in registers, so that the ones on the stack are the
 * last there are) and a long double; each runtime format twice (the
 * second call finds it in the format cache), and the expectation made by
 * glibc from the same format with the missing arguments given as zeros.
 */
#include "tracer_check.h"

#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"

#define NWANT 32

static char *want[NWANT];
static int nwant;

__attribute__((format(printf, 1, 2)))
static void expect(const char *fmt, ...)
{
	va_list ap;
	char buf[4096];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	CHECK(nwant < NWANT);
	want[nwant++] = strdup(buf);
}

static char fmt[1024];

/* A runtime format the compiler cannot see. */
static const char *runtime(const char *text)
{
	snprintf(fmt, sizeof(fmt), "%s", text);
	return fmt;
}

static void fewer_than_asked(void)
{
	for (int round = 0; round < 2; round++) {
		trace_printk(runtime("a %d b %d c %d d %s e %f f %lld g %p"), 1, 2);
		expect("a %d b %d c %d d %s e %f f %lld g %p", 1, 2, 0, "(null)", 0.0, 0LL,
		       (void *)0);
		/* 10 doubles: 8 in registers, 2 on the stack; the format asks for 12 */
		trace_printk(runtime("%.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f"),
			     1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0);
		expect("%.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f",
		       1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 0.0, 0.0);
		/* a string argument: the call goes out of line at once */
		trace_printk(runtime("%s %s %d"), "one");
		expect("%s %s %d", "one", "(null)", 0);
		/* a long double, and more asked for */
		trace_printk(runtime("%.2Lf %d %.2Lf %d"), 1.25L, 7);
		expect("%.2Lf %d %.2Lf %d", 1.25L, 7, 0.0L, 0);
		/* no argument at all */
		trace_printk(runtime("none %d %s %f"));
		expect("none %d %s %f", 0, "(null)", 0.0);
	}
}

/*
 * A format that inlining makes a constant: the call site's format is a
 * parameter (a runtime format to its site), which the optimizer knows to
 * be a literal; the site and its path must still agree.
 */
static inline __attribute__((always_inline)) void wrapper(const char *f, int x, const char *s)
{
	trace_printk(f, x);
	trace_printk(f, x, s);
}

static void inlined_constant(void)
{
	wrapper("wrapped %d", 5, "s");
	expect("wrapped %d", 5);
	expect("wrapped %d", 5);
	wrapper("wrapped %d %s", 6, "six");
	expect("wrapped %d %s", 6, "(null)");
	expect("wrapped %d %s", 6, "six");
}

/* 40 passed, 48 asked for: more than a plan holds, still bounded. */
static void more_than_a_plan(void)
{
	char text[512] = "";

	for (int i = 0; i < 48; i++)
		strcat(text, i ? " %d" : "%d");
	trace_printk(runtime(text), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
		     19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38,
		     39, 40);
	expect(text, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
	       23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 0, 0, 0, 0, 0,
	       0, 0, 0);
	/* and 64, the most a call takes, with as many asked for */
	trace_printk("%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
		     "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
		     "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d",
		     1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
		     23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42,
		     43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62,
		     63, 64);
	expect("%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
	       "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
	       "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d",
	       1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
	       23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42,
	       43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62,
	       63, 64);
}

static void check_event(const struct bprint_event *ev, void *ctx)
{
	int *i = ctx;

	if (*i >= nwant)
		FAIL("unexpected record \"%s\"", ev->message);
	CHECK_STREQ(ev->message, want[*i]);
	(*i)++;
}

int main(void)
{
	int got = 0;

	fewer_than_asked();
	more_than_a_plan();
	inlined_constant();
	CHECK_EQ(tc_drain(check_event, &got), nwant);
	CHECK_EQ(got, nwant);
	for (int i = 0; i < nwant; i++)
		free(want[i]);
	printf("tracer_runtime_args: %d calls, each read only as far as it passed\n", got);
	return 0;
}
