/*
 * %f and %F against glibc.  bp_vsnprintf() prints these itself (emit_float.c,
 * exact 128-bit arithmetic) rather than through the C library, so they get
 * a test of their own: random bit patterns, decimal-looking values, exact
 * binary ties (k + 0.5, k / 2^n) where rounding to even matters, subnormals
 * and the edges, at every precision from none to past the exact range, with
 * random flags and widths.  Then every float conversion with widths and
 * precisions above 512, which emit_float.c pads and fills with zeros itself
 * instead of asking the C library for buffers that large.
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

static char hwant[1 << 18], hgot[1 << 18];

static void huge_cases(void)
{
	static const char *const fm[] = {
		"%*.*f", "%-*.*e", "%0*.*g", "%#*.*g", "%+0*.*a", "% *.*E", "%#0*.*G", "%0*.*f",
		"%-#*.*A", "%*.*F",
	};
	static const double dv[] = {
		0.0, -0.0, 1.5, -2.25e-300, 1e308, 3.14159, INFINITY, -NAN, DBL_TRUE_MIN,
		123456789.125, 1e-5, 0.1, -DBL_MAX,
	};
	static const int wp[][2] = {
		{ 600, 3 }, { 0, 700 }, { 900, 900 }, { -800, 2 }, { 3000, 1500 }, { 10, 2000 },
		{ 5, 100000 }, { 700, 0 }, { 200000, 5 }, { 513, -1 }, { 0, 513 },
	};

	for (size_t i = 0; i < sizeof(fm) / sizeof(fm[0]); i++) {
		char lf[16];
		size_t n = strlen(fm[i]);

		/* the same conversion with L */
		snprintf(lf, sizeof(lf), "%.*sL%c", (int)n - 1, fm[i], fm[i][n - 1]);
		for (size_t j = 0; j < sizeof(dv) / sizeof(dv[0]); j++) {
			for (size_t k = 0; k < sizeof(wp) / sizeof(wp[0]); k++) {
				long double l = (long double)dv[j] * 3;
				int w = wp[k][0], p = wp[k][1], gw, bw;

				gw = snprintf(hwant, sizeof(hwant), fm[i], w, p, dv[j]);
				bw = bp_snprintf(hgot, sizeof(hgot), fm[i], w, p, dv[j]);
				CHECK_MSG(gw == bw && strcmp(hwant, hgot) == 0,
					"\"%s\" width %d precision %d of %a: glibc %d, bprint %d",
					fm[i], w, p, dv[j], gw, bw);
				for (int big = 0; big < 2; big++, l *= 1e4000L) {
					gw = snprintf(hwant, sizeof(hwant), lf, w, p, l);
					bw = bp_snprintf(hgot, sizeof(hgot), lf, w, p, l);
					CHECK_MSG(gw == bw && strcmp(hwant, hgot) == 0,
						"\"%s\" width %d precision %d of %La: glibc %d, "
						"bprint %d", lf, w, p, l, gw, bw);
				}
			}
		}
	}
}

int main(int argc, char **argv)
{
	static const char flagset[] = "-+ #0";
	long cases = (long)test_scale(500000);
	char fmt[64], want[512], got[512];

	rng = argc > 1 ? strtoull(argv[1], NULL, 0) : 20260901;
	printf("float_fixed: seed %" PRIu64 ", %ld cases\n", rng, cases);
	for (long i = 0; i < cases && check_failures < 20; i++) {
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
		CHECK_MSG(gw == bw && strcmp(want, got) == 0,
			"case %ld: \"%s\" of %a: glibc %d \"%s\", bprint %d \"%s\"", i, fmt, d,
			gw, want, bw, got);
	}
	huge_cases();
	return t_exit_status("float_fixed");
}
