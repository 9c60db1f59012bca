/*
 * tracer_filter: per-site switches.
 *
 *   tracer_filter            bprint_disable()/bprint_enable() by file, line,
 *                            func, fmt and bare globs: the counts they return
 *                            (sites changed), the sites' flags, and that a
 *                            disabled site records nothing; bprint_off/on.
 *   tracer_filter env-only   BPRINT_FILTER="+func:only_*,-fmt:*skip*"
 *   tracer_filter env-minus  BPRINT_FILTER="-func:off_*,-file:tracer_filter_other.c"
 *   tracer_filter env-off    BPRINT_DISABLE=1
 */
#include "tracer_check.h"

#include <fnmatch.h>
#include <stdbool.h>

void other_fn(int round);

enum { ALPHA, BETA, BETA2, ONLY1, ONLYSKIP, ONLY2, OFF1, LINE, OTHER, NTAGS };
static const char *const tags[NTAGS] = {
	"alpha", "beta", "beta-second", "only-one", "only-skip", "only-two", "off-one",
	"line-target", "other-file",
};
static int target_line;

static void filt_alpha(int r) { trace_printk("alpha r=%d", r); }
static void filt_beta(int r)
{
	trace_printk("beta r=%d", r);
	trace_printk("beta-second r=%d", r);
}
static void only_one(int r)
{
	trace_printk("only-one r=%d", r);
	trace_printk("only-skip r=%d", r);
}
static void only_two(int r) { trace_printk("only-two r=%d", r); }
static void off_one(int r) { trace_printk("off-one r=%d", r); }
static void line_target(int r)
{
	trace_printk("line-target r=%d", r); target_line = __LINE__;
}

static void run_all(int round)
{
	filt_alpha(round);
	filt_beta(round);
	only_one(round);
	only_two(round);
	off_one(round);
	line_target(round);
	other_fn(round);
}

struct got {
	int round;
	bool seen[NTAGS];
};

static void collect(const struct bprint_event *ev, void *ctx)
{
	struct got *g = ctx;
	char expect[64];

	for (int t = 0; t < NTAGS; t++) {
		tc_expect(expect, sizeof(expect), "%s r=%d", tags[t], g->round);
		if (!strcmp(ev->message, expect)) {
			if (g->seen[t])
				FAIL("\"%s\" twice", ev->message);
			g->seen[t] = true;
			return;
		}
	}
	FAIL("unexpected record \"%s\" in round %d", ev->message, g->round);
}

/* Run every site once; check which recorded against want (a bit per tag). */
static void round_check(int line, int round, unsigned want)
{
	struct got g;

	memset(&g, 0, sizeof(g));
	g.round = round;
	run_all(round);
	tc_drain(collect, &g);
	for (int t = 0; t < NTAGS; t++)
		if (g.seen[t] != !!(want & (1u << t)))
			FAIL("(from line %d) round %d: site \"%s\" %s", line, round, tags[t],
			     g.seen[t] ? "recorded but should be disabled"
				       : "did not record but should be enabled");
}
#define ROUND(r, want) round_check(__LINE__, r, want)
#define BIT(t) (1u << (t))
#define ALL ((1u << NTAGS) - 1)

/* Sites of this executable whose file (or its base name) matches glob, and are enabled. */
static int count_sites(const char *glob, int enabled)
{
	int n = 0;

	for (struct bprint_site *s = __start_bprint_sites; s < __stop_bprint_sites;
	     s = (struct bprint_site *)(void *)((char *)s + 8)) {
		const char *base;

		if (s->magic != BPRINT__SITE_MAGIC)
			continue;
		base = strrchr(s->file, '/');
		base = base ? base + 1 : s->file;
		if ((!fnmatch(glob, s->file, 0) || !fnmatch(glob, base, 0)) &&
		    (enabled < 0 || (s->enabled != 0) == enabled))
			n++;
	}
	return n;
}

static void api_test(void)
{
	char pat[128];
	int total;

	CHECK(bprint_is_on());
	ROUND(1, ALL);
	CHECK(target_line > 0);
	total = count_sites("*", 1);
	CHECK_OP(total, >=, NTAGS);

	CHECK_EQ(bprint_disable("func:filt_beta"), 2);
	CHECK_EQ(bprint_disable("func:filt_beta"), 0);	/* no change the second time */
	CHECK_EQ(bprint_disable("fmt:*alph?*"), 1);
	tc_expect(pat, sizeof(pat), "line:tracer_filter.c:%d", target_line);
	CHECK_EQ(bprint_disable(pat), 1);
	tc_expect(pat, sizeof(pat), "line:*/tracer_filter.c:%d", target_line);
	CHECK_EQ(bprint_disable(pat), 0);		/* full path: same site, already off */
	tc_expect(pat, sizeof(pat), "line:tracer_filter.c:%d", target_line + 1000);
	CHECK_EQ(bprint_disable(pat), 0);		/* no site there */
	CHECK_EQ(bprint_disable("func:no_such_function_*"), 0);
	ROUND(2, ALL & ~(BIT(ALPHA) | BIT(BETA) | BIT(BETA2) | BIT(LINE)));

	CHECK_EQ(bprint_enable("filt_*"), 3);		/* bare pattern: a function glob */
	CHECK_EQ(bprint_disable("file:tracer_filter_other.c"), 1);
	CHECK_EQ(bprint_disable("file:tracer_filter_other.c"), 0);
	ROUND(3, ALL & ~(BIT(OTHER) | BIT(LINE)));

	/* Everything off by file glob: the count is every enabled site. */
	CHECK_EQ(count_sites("*", 1), total - 2);
	CHECK_EQ(bprint_disable("file:*"), total - 2);
	CHECK_EQ(count_sites("*", 1), 0);
	ROUND(4, 0);
	CHECK_EQ(bprint_enable("*"), total);
	CHECK_EQ(count_sites("*", 0), 0);
	ROUND(5, ALL);

	/*
	 * The global switch: off, every site's own byte says off too (a call
	 * costs a disabled site's load and branch, never a call out of line),
	 * and on brings back each site's state.
	 */
	bprint_off();
	CHECK(!bprint_is_on());
	CHECK_EQ(count_sites("*", 1), 0);
	ROUND(6, 0);
	bprint_on();
	CHECK(bprint_is_on());
	CHECK_EQ(count_sites("*", 1), total);
	ROUND(7, ALL);

	/* The global switch does not touch per-site state, nor the reverse. */
	CHECK_EQ(bprint_disable("only_*"), 2 + 1);
	bprint_off();
	bprint_on();
	CHECK_EQ(count_sites("*", 1), total - 3);
	ROUND(8, ALL & ~(BIT(ONLY1) | BIT(ONLYSKIP) | BIT(ONLY2)));
	CHECK_EQ(bprint_enable("func:only_*"), 3);
	ROUND(9, ALL);

	/*
	 * Filters changed while off: counted as changes of the sites' own
	 * state, which none of them shows before the switch comes back on.
	 */
	bprint_off();
	CHECK_EQ(bprint_disable("func:filt_beta"), 2);
	CHECK_EQ(bprint_disable("func:filt_beta"), 0);
	CHECK_EQ(count_sites("*", 1), 0);
	CHECK_EQ(bprint_enable("func:filt_beta"), 2);
	CHECK_EQ(bprint_disable("func:filt_alpha"), 1);
	CHECK_EQ(count_sites("*", 1), 0);
	ROUND(10, 0);
	bprint_on();
	CHECK_EQ(count_sites("*", 1), total - 1);
	ROUND(11, ALL & ~BIT(ALPHA));
	CHECK_EQ(bprint_enable("*"), 1);
	ROUND(12, ALL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "api";

	if (!strcmp(mode, "api")) {
		api_test();
	} else if (!strcmp(mode, "env-only")) {
		ROUND(1, BIT(ONLY1) | BIT(ONLY2));
		CHECK_EQ(bprint_enable("func:filt_alpha"), 1);
		ROUND(2, BIT(ONLY1) | BIT(ONLY2) | BIT(ALPHA));
	} else if (!strcmp(mode, "env-minus")) {
		ROUND(1, ALL & ~(BIT(OFF1) | BIT(OTHER)));
		CHECK_EQ(bprint_enable("off_one"), 1);
		ROUND(2, ALL & ~BIT(OTHER));
	} else if (!strcmp(mode, "env-off")) {
		CHECK(!bprint_is_on());
		CHECK_EQ(count_sites("*", 1), 0);
		ROUND(1, 0);
		bprint_on();
		ROUND(2, ALL);
	} else {
		FAIL("unknown mode %s", mode);
	}
	printf("filter %s: ok\n", mode);
	return 0;
}
