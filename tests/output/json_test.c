/*
 * The JSON string writer and the decimal writer of the exporters and of
 * report --json/--csv (src/output/json.c, buf.c), whose fast paths test
 * 16 and 8 bytes at a time and count digits from the bits, against plain
 * references written here a byte and a digit at a time: random strings of
 * every length to 80 (plain ASCII, with one byte to escape at each place,
 * UTF-8 well-formed and not), at every offset of a buffer that ends where
 * the string ends; every power of ten and its neighbours, and random
 * numbers, against snprintf(); doubles as --json writes them (read back
 * the same, and always with a fraction or exponent when asked).
 */
#include "output/buf.h"
#include "output/json.h"

#define CHECK_KEEP_GOING 20
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* The reference: well-formed UTF-8 kept, ", \, \n, \t escaped, every
 * other control, DEL and stray byte as \u00XX. */
static size_t utf8_ok(const unsigned char *s, size_t n)
{
	unsigned c = s[0], len, cp;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (unsigned i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static size_t reference(char *out, const unsigned char *s, size_t n)
{
	size_t o = 0, len;

	out[o++] = '"';
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];

		if (c == '"' || c == '\\')
			o += (size_t)sprintf(out + o, "\\%c", c), i++;
		else if (c == '\n')
			o += (size_t)sprintf(out + o, "\\n"), i++;
		else if (c == '\t')
			o += (size_t)sprintf(out + o, "\\t"), i++;
		else if (c < 0x20 || c == 0x7f)
			o += (size_t)sprintf(out + o, "\\u%04x", c), i++;
		else if (c < 0x80)
			out[o++] = (char)c, i++;
		else if ((len = utf8_ok(s + i, n - i)) > 0)
			memcpy(out + o, s + i, len), o += len, i += len;
		else
			o += (size_t)sprintf(out + o, "\\u%04x", c), i++;
	}
	out[o++] = '"';
	return o;
}

static unsigned rnd(void)
{
	static uint64_t x = 0x9e3779b97f4a7c15u;

	x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	return (unsigned)(x >> 11);
}

/* A byte of the kind k: plain, special, or part of UTF-8. */
static void fill(unsigned char *s, size_t n, unsigned kind)
{
	static const unsigned char special[] = { '"', '\\', '\n', '\t', 0, 1, 0x1f, 0x7f, 0x80, 0xff };
	static const unsigned char utf8[][4] = {
		{ 0xc3, 0xa9 }, { 0xe2, 0x82, 0xac }, { 0xf0, 0x9f, 0x98, 0x80 },
		{ 0xed, 0xa0, 0x80 } /* a surrogate: not well-formed */, { 0xc0, 0x80 } /* overlong */,
	};

	for (size_t i = 0; i < n; i++)
		s[i] = (unsigned char)(0x20 + rnd() % 0x5f);
	if (kind == 1 && n)
		s[rnd() % n] = special[rnd() % sizeof(special)];
	if (kind == 2 && n) {
		const unsigned char *u = utf8[rnd() % 5];
		size_t at = rnd() % n, len = u[0] >= 0xf0 ? 4 : u[0] >= 0xe0 ? 3 : 2;

		for (size_t i = 0; i < len && at + i < n; i++)
			s[at + i] = u[i];	/* cut at the end: not well-formed */
	}
}

static void strings(void)
{
	static unsigned char area[4096];
	static char want[6 * 100 + 2];
	struct bp_out_buf b = { 0 };

	for (size_t n = 0; n <= 80; n++) {
		for (unsigned round = 0; round < 60; round++) {
			/* the string ends at the end of the area: a read past it
			 * is one a sanitizer or a page boundary would catch */
			unsigned char *s = area + sizeof(area) - n - round % 3;
			size_t wn;

			fill(s, n, round % 3);
			wn = reference(want, s, n);
			b.len = 0;
			bp_json_buf_str(&b, (const char *)s, n);
			CHECK_MSG(!b.oom && b.len == wn && !memcmp(b.p, want, wn),
				  "length %zu, round %u: %.*s, want %.*s", n, round, (int)b.len,
				  (const char *)b.p, (int)wn, want);
		}
	}
	bp_out_free(&b);
}

static void decimal(uint64_t v)
{
	struct bp_out_buf b = { 0 };
	char want[32];
	int wn = snprintf(want, sizeof(want), "%llu", (unsigned long long)v);

	bp_out_u64(&b, v);
	CHECK_MSG(b.len == (size_t)wn && !memcmp(b.p, want, b.len), "%s: wrote %.*s", want,
		  (int)b.len, (const char *)b.p);
	b.len = 0;
	if (v <= INT64_MAX) {
		bp_out_i64(&b, -(int64_t)v);
		snprintf(want, sizeof(want), "%lld", -(long long)v);
		CHECK_MSG(b.len == strlen(want) && !memcmp(b.p, want, b.len), "%s: wrote %.*s", want,
			  (int)b.len, (const char *)b.p);
	}
	bp_out_free(&b);
}

static void numbers(void)
{
	uint64_t p = 1;

	for (int i = 0; i < 20; i++, p *= 10) {
		decimal(p - 1);
		decimal(p);
		decimal(p + 1);
	}
	decimal(UINT64_MAX);
	decimal((uint64_t)INT64_MAX);
	for (int i = 0; i < 100000; i++)
		decimal(((uint64_t)rnd() << 32 | rnd()) >> (rnd() % 64));
}

static void one_double(double d)
{
	struct bp_out_buf b = { 0 };

	for (int as_float = 0; as_float < 2; as_float++) {
		char *text;

		b.len = 0;
		bp_json_buf_double(&b, d, as_float);
		bp_out_byte(&b, 0);
		text = (char *)b.p;
		if (!isfinite(d)) {
			CHECK_STREQ(text, "null");
			continue;
		}
		CHECK_MSG(strtod(text, NULL) == d && signbit(strtod(text, NULL)) == signbit(d),
			  "%.17g written %s", d, text);
		if (as_float)
			CHECK_MSG(strpbrk(text, ".e"), "%.17g written %s: reads as an integer", d, text);
	}
	bp_out_free(&b);
}

int main(void)
{
	static const double ds[] = { 0.0, -0.0, 1.0, -3.0, 0.125, 1e300, -1e-300, 123456789012345678.0,
				     0.1, 2.5e-7, 1e21, NAN, INFINITY, -INFINITY };

	strings();
	numbers();
	for (size_t i = 0; i < sizeof(ds) / sizeof(ds[0]); i++)
		one_double(ds[i]);
	for (int i = 0; i < 10000; i++) {
		uint64_t bits = (uint64_t)rnd() << 32 | rnd();
		double d;

		memcpy(&d, &bits, sizeof(d));
		one_double(d);
	}
	return check_summary("json_test");
}
