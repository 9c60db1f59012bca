/*
 * Every buffer size, for every user (the method of the kernel's
 * lib/test_printf.c).  For each case of the table, glibc's vsnprintf gives
 * the expected text; then, for every size from 0 to length + 1:
 *   - bp_vsnprintf() and bp_bstr_printf() return the full length, write the
 *     exact prefix that fits and a NUL after it, and nothing outside
 *     buf[0 .. size-1] (guard bytes on both sides, and a PROT_NONE page
 *     right after the guard so a wild write faults);
 * and for every word count from 0 to needed + 1, bp_vbin_printf() and
 * bp_vbin_printf_plan() return the same count, write nothing past `words`,
 * and produce the identical block whenever it fits.
 */
#include "format/fmt_test.h"

#include <bprint/format.h>

#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

#define BIG 8192
#define GUARD 16
#define MAXWORDS 2048

static struct t_guard out_page, bin_page;
static unsigned long ncases, ncalls;

static int untouched(const unsigned char *p, size_t n, unsigned char byte)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != byte)
			return 0;
	return 1;
}

/* A buffer of size bytes with GUARD bytes each side, ending at the guard page. */
static char *out_buffer(size_t size)
{
	unsigned char *area = t_guard_at(&out_page, GUARD + size + GUARD);

	memset(area, 0x7e, GUARD + size + GUARD);
	return (char *)area + GUARD;
}

static void check_text(int line, const char *fmt, const char *user, size_t size,
		       const char *buf, int ret, const char *want, int wlen)
{
	const unsigned char *b = (const unsigned char *)buf;
	size_t keep = size ? ((size_t)wlen < size - 1 ? (size_t)wlen : size - 1) : 0;

	if (ret != wlen) {
		FAIL("line %d: %s(size %zu, \"%s\") returned %d, want %d", line, user, size, fmt, ret, wlen);
		return;
	}
	if (!untouched(b - GUARD, GUARD, 0x7e))
		FAIL("line %d: %s(size %zu, \"%s\") wrote before the buffer", line, user, size, fmt);
	if (!untouched(b + size, GUARD, 0x7e))
		FAIL("line %d: %s(size %zu, \"%s\") wrote past size", line, user, size, fmt);
	if (size == 0)
		return;
	if (memcmp(buf, want, keep) != 0 || buf[keep] != '\0') {
		FAIL("line %d: %s(size %zu, \"%s\") wrote the wrong prefix", line, user, size, fmt);
		fprintf(stderr, "  want ");
		t_escape(stderr, want, keep);
		fprintf(stderr, "\n  got  ");
		t_escape(stderr, buf, keep + 1);
		fputc('\n', stderr);
	}
}

static uint32_t *bin_buffer(size_t words)
{
	unsigned char *area = t_guard_at(&bin_page, words * 4 + GUARD);

	memset(area, 0xa5, words * 4 + GUARD);
	return (uint32_t *)area;
}

static void check_block(int line, const char *fmt, const char *user, size_t words,
			const uint32_t *bin, size_t ret, size_t need, const uint32_t *ref)
{
	if (ret != need)
		FAIL("line %d: %s(words %zu, \"%s\") returned %zu, want %zu", line, user, words, fmt, ret, need);
	if (!untouched((const unsigned char *)(bin + words), GUARD, 0xa5))
		FAIL("line %d: %s(words %zu, \"%s\") wrote past words", line, user, words, fmt);
	if (words >= need && memcmp(bin, ref, need * 4) != 0)
		FAIL("line %d: %s(words %zu, \"%s\") block differs from the one packed with room to spare",
		       line, user, words, fmt);
}

/*
 * Every size, except in quick mode (sanitizers) for long outputs: the first
 * and last 256 sizes and every 61st in between.
 */
static size_t next_size(size_t size, int wlen)
{
	size_t len = (size_t)wlen;

	if (!test_quick() || len <= 512 || size < 256 || size + 256 >= len)
		return size + 1;
	return size + 61 < len - 256 ? size + 61 : len - 256;
}

static void vcheck(int line, const char *fmt, va_list ap)
{
	static char want[BIG];
	static uint32_t ref[MAXWORDS];
	struct bp_arg_plan plan;
	int wlen, plan_rc;
	size_t need;
	va_list c;

	ncases++;
	va_copy(c, ap);
	wlen = vsnprintf(want, sizeof(want), fmt, c);
	va_end(c);
	if (wlen < 0 || wlen >= BIG) {
		FAIL("line %d: glibc: %d for \"%s\"", line, wlen, fmt);
		return;
	}

	for (size_t size = 0; size <= (size_t)wlen + 1; size = next_size(size, wlen)) {
		char *buf = out_buffer(size);
		int ret;

		va_copy(c, ap);
		ret = bp_vsnprintf(buf, size, fmt, c);
		va_end(c);
		check_text(line, fmt, "bp_vsnprintf", size, buf, ret, want, wlen);
		ncalls++;
	}
	va_copy(c, ap);
	CHECK_MSG(bp_vsnprintf(NULL, 0, fmt, c) == wlen, "line %d: bp_vsnprintf(NULL, 0, \"%s\")", line, fmt);
	va_end(c);

	/* The reference block, packed with room to spare. */
	memset(ref, 0, sizeof(ref));
	va_copy(c, ap);
	need = bp_vbin_printf(ref, MAXWORDS, fmt, c);
	va_end(c);
	if (need >= MAXWORDS) {
		FAIL("line %d: block of %zu words for \"%s\"", line, need, fmt);
		return;
	}
	plan_rc = bp_format_compile(fmt, &plan);
	CHECK_MSG(plan_rc == 0, "line %d: bp_format_compile(\"%s\") = %d", line, fmt, plan_rc);

	for (size_t words = 0; words <= need + 1; words++) {
		uint32_t *bin = bin_buffer(words);
		size_t ret;

		va_copy(c, ap);
		ret = bp_vbin_printf(bin, words, fmt, c);
		va_end(c);
		check_block(line, fmt, "bp_vbin_printf", words, bin, ret, need, ref);
		if (plan_rc == 0) {
			bin = bin_buffer(words);
			va_copy(c, ap);
			ret = bp_vbin_printf_plan(bin, words, &plan, c);
			va_end(c);
			check_block(line, fmt, "bp_vbin_printf_plan", words, bin, ret, need, ref);
		}
		ncalls += 2;
	}

	for (size_t size = 0; size <= (size_t)wlen + 1; size = next_size(size, wlen)) {
		char *buf = out_buffer(size);
		int ret = bp_bstr_printf(buf, size, fmt, ref, need);

		check_text(line, fmt, "bp_bstr_printf", size, buf, ret, want, wlen);
		ncalls++;
	}
	CHECK_MSG(bp_bstr_printf(NULL, 0, fmt, ref, need) == wlen, "line %d: bp_bstr_printf(NULL, 0, \"%s\")",
		line, fmt);
}

/* Table entries are checked by the compiler against their arguments... */
static void check(int line, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcheck(line, fmt, ap);
	va_end(ap);
}

/* ...except the corners that glibc defines and the compiler warns about. */
static void check_nf(int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcheck(line, fmt, ap);
	va_end(ap);
}

#define T(...) check(__LINE__, __VA_ARGS__)
#define TNF(...) check_nf(__LINE__, __VA_ARGS__)

static const char long200[] =
	"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789"
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789abcdefghij"
	"klmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

static void table(void)
{
	void *p = (void *)(uintptr_t)0xffffc90000a1b2c3ULL;
	char nul_tail[3] = { 'x', 'y', 'z' };	/* no NUL: only read with precision <= 3 */

	/* literal text, %% */
	T("%s", "");
	T("Hello, world");
	T("%%");
	T("100%% sure, %d%%", 42);
	T("%%%%%%");
	TNF("%5%|%-5%|%05%");
	T("\t\n\x7f\xc3\xa9\xff");

	/* %d %i: flags, width, precision */
	T("%d %i", 0, 0);
	T("%d|%d|%d|%d", 1, -1, INT_MAX, INT_MIN);
	T("%5d|%-5d|%05d|%+d|% d|%+5d|% 05d", 42, 42, 42, 42, 42, -42, 42);
	TNF("%-+05d|%0-5d|%+ d|% +d", 7, 7, 7, 7);
	T("%.0d|%.0d|%5.0d|%-5.0d|%+.0d|% .0d", 0, 1, 0, 0, 0, 0);
	TNF("%.3d|%.10d|%8.3d|%-8.3d|%08.3d|%.3d", 5, -5, 5, -5, 5, INT_MIN);
	T("%*d|%-*d|%*d|%.*d|%.*d|%*.*d", 6, 1, 6, 2, -6, 3, 4, 4, -1, 5, -8, 3, 6);
	TNF("%hhd|%hhd|%hhd|%hhi", 127, 128, 300, -129);
	TNF("%hd|%hd|%hd|%hi", 32767, 32768, 70000, -32769);
	T("%ld|%ld|%ld", 0L, LONG_MAX, LONG_MIN);
	T("%lld|%lld|%+lld|%020lld", LLONG_MAX, LLONG_MIN, 1LL, -1LL);
	T("%jd|%zd|%td", INTMAX_MIN, (ssize_t)-1, (ptrdiff_t)PTRDIFF_MAX);
	T("%-25lld|%25lld|%.25lld", LLONG_MIN, LLONG_MIN, LLONG_MIN);

	/* %u %o %x %X */
	TNF("%u|%u|%u|%+u|% u", 0u, 1u, UINT_MAX, 5u, 5u);
	T("%o|%#o|%#o|%#.0o|%.0o|%#5o|%#-5o|%#05o|%#.3o", 0u, 0u, 8u, 0u, 0u, 8u, 8u, 8u, 8u);
	TNF("%x|%X|%#x|%#X|%#x|%#.0x|%#08x|%#-8x|%08.3x", 0xbeefu, 0xbeefu, 0xbeefu, 0xbeefu, 0u, 0u,
	  0x1fu, 0x1fu, 0x1fu);
	TNF("%hhu|%hhx|%hho|%hu|%hx|%ho", 255u, 256u, 511u, 65535u, 65536u, 65537u);
	T("%lu|%lx|%lo|%lX", ULONG_MAX, ULONG_MAX, ULONG_MAX, 0xabcdef0123456789UL);
	T("%llu|%llx|%#llo|%#llX", ULLONG_MAX, 0x8000000000000000ULL, ULLONG_MAX, 1ULL);
	T("%ju|%jx|%zu|%zx|%tx|%to", UINTMAX_MAX, (uintmax_t)0, SIZE_MAX, (size_t)0x1234, (ptrdiff_t)-1,
	  (ptrdiff_t)8);
	T("%.20x|%-#20x|%#20.10x|%*x|%-*X|%.*o", 0xabcu, 0xabcu, 0xabcu, 12, 0xabcu, 12, 0xabcu, 15, 7u);

	/* %c */
	T("%c%c%c", 'a', 'b', 'c');
	T("%c|%5c|%-5c|%*c|%-*c|%*c", 'x', 'y', 'z', 4, 'w', 4, 'v', -4, 'u');
	T("[%c]", 0);	/* an embedded NUL */
	T("%c%c%c", 255, 256 + 'A', -1);
	T("%c%d%c%s%c", 'a', 1, 'b', "str", 'c');

	/* %s */
	T("%s|%s|%s", "", "a", "hello world");
	T("%10s|%-10s|%.3s|%10.3s|%-10.3s|%.0s|%.s", "abc", "abc", "abcdef", "abcdef", "abcdef", "x", "y");
	T("%*s|%-*s|%*s|%.*s|%.*s|%*.*s", 8, "r", 8, "l", -8, "neg", 2, "trunc", -1, "all", 7, 3, "both");
	T("%s", long200);
	T("%.100s|%.199s|%.200s|%.201s|%250s", long200, long200, long200, long200, long200);
	TNF("%s|%.6s|%.5s|%.0s|%10s|%-10.7s", (char *)NULL, (char *)NULL, (char *)NULL, (char *)NULL,
	  (char *)NULL, (char *)NULL);
	T("%.3s|%.2s|%.*s", nul_tail, nul_tail, 3, nul_tail);
	T("%s%s%s%s", "a", "", "\xc3\xa9", "tab\there");

	/* %p */
	T("%p|%p|%p", p, (void *)0, (void *)1);
	T("%20p|%-20p|%20p|%-20p", p, p, (void *)0, (void *)0);
	TNF("%+p|% p|%+p", p, p, (void *)0);
	T("%p", (void *)UINTPTR_MAX);
	TNF("%#p|%010p|%.20p|%#020p|%.0p", p, p, p, p, (void *)0);

	/* floats: f F e E g G a A, double and long double */
	T("%f|%F|%e|%E|%g|%G|%a|%A", 3.14159, 3.14159, 3.14159, 3.14159, 3.14159, 3.14159, 3.14159, 3.14159);
	T("%f|%e|%g|%a", 0.0, -0.0, 0.0, -0.0);
	T("%f|%F|%e|%g|%a|%A", INFINITY, -INFINITY, INFINITY, -INFINITY, INFINITY, -INFINITY);
	T("%f|%F|%e|%G|%a|%A", NAN, -NAN, NAN, -NAN, NAN, NAN);
	T("%10.3f|%-10.3f|%010.3f|%+.3f|% .3f|%#.0f|%.0f|%.0f|%.0f", 2.5, 2.5, -2.5, 2.5, 2.5, 2.5, 2.5, 3.5,
	  0.5);
	T("%.20f|%.40e|%.17g|%.0e|%#.0e|%#g|%#.3g|%g|%g", 0.1, 0.1, 0.1, 12345.0, 12345.0, 1.0, 1.0, 1e-5,
	  123456789.0);
	T("%f|%e|%g|%a", DBL_MAX, DBL_MAX, DBL_MIN, DBL_TRUE_MIN);
	T("%.3a|%.0a|%#.0a|%20a|%-20A|%020a", 1.0, 1.5, 1.0, -1.0, 255.5, 0.1);
	T("%*.*f|%-*.*e|%.*g|%*g", 12, 4, 3.14159, 12, 2, 3.14159, -1, 3.14159, -9, 2.0);
	T("%lf|%le|%lg|%la", 1.5, 1.5, 1.5, 1.5);
	T("%Lf|%Le|%Lg|%La|%LA", 3.14159265358979323846L, 3.14159265358979323846L, 1e-4000L, 1.0L, LDBL_MAX);
	T("%Lf", LDBL_MAX);	/* 4941 characters: sampled sizes in quick mode */
	T("%.30Lf|%+.3Le|%-12.5Lg|%012La", 1.0L / 3, -1e4000L, LDBL_MIN, LDBL_TRUE_MIN);
	T("%Lf|%Le|%Lg|%La", (long double)INFINITY, -(long double)NAN, -0.0L, (long double)NAN);
	T("%.300f", 1e-300);
	T("%f %e", 1e300, 1e-300);

	/* mixed: every slot kind in one call, interleaved with text */
	T("%s:%d %08x %-10s|%5.2f", "main.c", 42, 0xbeefu, "left", 3.14159);
	T("This is the timer interrupt: %llu", 4295892411ULL);
	TNF("a%cb%hhdc%sd%lde%pf%Lfg%.*sh%fi", 'x', 1, "str", 2L, p, 1.5L, 2, "abcdef", 2.5);
	T("%c%c%c%c%c%d", '1', '2', '3', '4', '5', 6);
	T("%c%s%c%s%c%lld", 'a', "", 'b', "cc", 'c', 1LL);
	T("%*.*s|%*c|%-*.*d|%.*Lf", 10, 3, "abcdef", 3, 'c', 8, 4, 12, 3, 1.0L);
	T("%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
	  15, 16);
	T("%.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f", 0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65,
	  0.75, 0.85, 0.95);
	T("%-300d|%300s|%.300d", 1, "x", -2);
}

int main(void)
{
	t_guard_init(&out_page, 2 * BIG + 4 * GUARD);
	t_guard_init(&bin_page, MAXWORDS * 4 + GUARD);
	table();
	printf("buffer_sizes: %lu cases, %lu calls\n", ncases, ncalls);
	t_guard_free(&out_page);
	t_guard_free(&bin_page);
	return t_exit_status("buffer_sizes");
}
