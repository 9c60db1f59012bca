/*
 * %f and %F against glibc.  bp_vsnprintf() prints these itself (emit.c,
 * exact 128-bit arithmetic) rather than through the C library, so they get
 * a test of their own: random bit patterns, decimal-looking values, exact
 * binary ties (k + 0.5, k / 2^n) where rounding to even matters, subnormals
 * and the edges, at every precision from none to past the exact range, with
 * random flags and widths.
 *
 *   float_fixed [SEED]   (BPRINT_TEST_QUICK=1 cuts the count)
 */
#include "format/fmt_test.h"

#include <bprint/format.h>

#include <float.h>
#include <inttypes.h>
#include <math.h>

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

static uint64_t rng;

static uint64_t next(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double value(void)
{
	static const double edge[] = {
		0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.375, 1e-7, 9.5, 99.5, 0.05,
		0.005, 2.675, 1e15, 1e16, 1e17, 1e22, 1e23, 1.7976931348623157e308,
		DBL_MIN, DBL_TRUE_MIN, DBL_EPSILON, 4503599627370495.5, 9007199254740993.0,
		18446744073709551615.0, 1e38, 3.4e38, 1e39, INFINITY, -INFINITY, NAN,
	};
	uint64_t b = next();
	double d;

	switch (next() % 6) {
	case 0:
		return edge[next() % (sizeof(edge) / sizeof(edge[0]))];
	case 1:
		memcpy(&d, &b, sizeof(d));
		return d;
	case 2:	/* an exact binary fraction: ties at some precision */
		return ldexp((double)(int64_t)(b % 2000001) - 1000000, -(int)(next() % 30));
	case 3:	/* decimal-looking */
		return (double)((int64_t)(b % 20000001) - 10000000) / pow(10, (double)(next() % 12));
	case 4:	/* any magnitude the exact path may take */
		return ldexp((double)(b >> 11), (int)(next() % 200) - 150);
	default:
		return ldexp((double)(b >> 11) / 9007199254740992.0, (int)(next() % 2100) - 1075);
	}
}

int main(int argc, char **argv)
{
	static const char flagset[] = "-+ #0";
	long cases = t_quick() ? 50000 : 500000;
	char fmt[64], want[512], got[512];

	rng = argc > 1 ? strtoull(argv[1], NULL, 0) : 20260901;
	printf("float_fixed: seed %" PRIu64 ", %ld cases\n", rng, cases);
	for (long i = 0; i < cases && t_failures < 20; i++) {
		double d = value();
		int n = 0, gw, bw;

		fmt[n++] = '%';
		for (int f = 0; f < 5; f++)
			if (next() % 4 == 0)
				fmt[n++] = flagset[f];
		if (next() % 3 == 0)
			n += snprintf(fmt + n, sizeof(fmt) - (size_t)n, "%d", (int)(next() % 40));
		if (next() % 4 != 0)
			n += snprintf(fmt + n, sizeof(fmt) - (size_t)n, ".%d", (int)(next() % 32));
		if (next() % 8 == 0)
			fmt[n++] = 'l';
		fmt[n++] = next() % 4 == 0 ? 'F' : 'f';
		fmt[n] = '\0';

		gw = snprintf(want, sizeof(want), fmt, d);
		bw = bp_snprintf(got, sizeof(got), fmt, d);
		T_CHECK(gw == bw && strcmp(want, got) == 0,
			"case %ld: \"%s\" of %a: glibc %d \"%s\", bprint %d \"%s\"", i, fmt, d,
			gw, want, bw, got);
	}
	return t_exit_status("float_fixed");
}
