/*
 * JSON text (output/json.h).
 */
#include "output/json.h"

#include "output/buf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t bp_utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07u;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static unsigned char *json_u04x(unsigned char *q, unsigned c)
{
	static const char hex[] = "0123456789abcdef";

	*q++ = '\\', *q++ = 'u', *q++ = '0', *q++ = '0';
	*q++ = (unsigned char)hex[c >> 4 & 15], *q++ = (unsigned char)hex[c & 15];
	return q;
}

/* Printable ASCII but for the quote and the backslash: copied as it is. */
static inline bool plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

/* Are the 8 bytes at s all plain()?  Tested a word at a time (a byte
 * below 0x20, a byte with its top bit, or one equal to '"', '\\' or DEL,
 * by the borrow of a subtraction), where messages are mostly plain. */
static inline bool plain8(const unsigned char *s)
{
	const uint64_t ones = 0x0101010101010101u, tops = 0x8080808080808080u;
	uint64_t x, quote, slash, del;

	memcpy(&x, s, 8);
	quote = x ^ (ones * '"');
	slash = x ^ (ones * '\\');
	del = x ^ (ones * 0x7f);
	return !((x | ((x - ones * 0x20) & ~x) | ((quote - ones) & ~quote) |
		  ((slash - ones) & ~slash) | ((del - ones) & ~del)) & tops);
}

#if defined(__x86_64__)
/* The same of 16 bytes, with SSE2 (which every x86-64 has): a signed
 * byte below 0x20 is a control or one with its top bit. */
typedef signed char bytes16 __attribute__((vector_size(16)));
#define PLAIN_BLOCK 16u
static inline bool plain_block(const unsigned char *s)
{
	bytes16 v;

	memcpy(&v, s, 16);
	return !__builtin_ia32_pmovmskb128((v < 0x20) | (v == 0x7f) | (v == '"') | (v == '\\'));
}
#else
#define PLAIN_BLOCK 8u
#define plain_block plain8
#endif

/* The room is reserved once, for the longest escape of every byte (six,
 * \u00XX), and the bytes written straight into it: report --json escapes
 * every message, so this loop is its inner one. */
void bp_json_buf_str(struct bp_out_buf *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char *start, *q;

	if (n > (SIZE_MAX - 2) / 6 || !(start = bp_out_room(out, 6 * n + 2))) {
		out->oom = true;
		return;
	}
	q = start;
	*q++ = '"';
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len, run;

		for (run = i; run + PLAIN_BLOCK <= n && plain_block(s + run); run += PLAIN_BLOCK)
			;
		/* the last block again, overlapping what was tested: the
		 * tail of a plain string at once */
		if (run < n && run + PLAIN_BLOCK > n && n >= PLAIN_BLOCK &&
		    plain_block(s + n - PLAIN_BLOCK))
			run = n;
		if (run < n && run + 8 > n && n >= 8 && plain8(s + n - 8))
			run = n;
		for (; run < n && plain(s[run]); run++)
			;
		if (run > i) {
			memcpy(q, s + i, run - i);
			q += run - i;
			i = run;
		} else if (c == '"' || c == '\\') {
			*q++ = '\\', *q++ = c;
			i++;
		} else if (c == '\n') {
			*q++ = '\\', *q++ = 'n';
			i++;
		} else if (c == '\t') {
			*q++ = '\\', *q++ = 't';
			i++;
		} else if (c < 0x80) {
			q = json_u04x(q, c);	/* other controls and DEL */
			i++;
		} else if ((len = bp_utf8_len(s + i, n - i)) > 0) {
			memcpy(q, s + i, len);
			q += len;
			i += len;
		} else {
			q = json_u04x(q, c);	/* not UTF-8: the byte's value */
			i++;
		}
	}
	*q++ = '"';
	out->len += (size_t)(q - start);
}

void bp_json_str(FILE *out, const char *str, size_t n)
{
	static struct bp_out_buf b;	/* reused: one string at a time */

	b.len = 0;
	bp_json_buf_str(&b, str, n);
	if (b.oom)
		fputs("null", out);
	else
		fwrite(b.p, 1, b.len, out);
}

void bp_json_cstr(FILE *out, const char *s)
{
	bp_json_str(out, s ? s : "", s ? strlen(s) : 0);
}

/* d as the shortest of %.15g .. %.17g that reads back the same, into buf
 * (40 bytes); its length. */
static size_t shortest_double(char *buf, size_t size, double d)
{
	int n = 0;

	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(buf, size, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	return n > 0 ? (size_t)n : 0;
}

void bp_json_buf_double(struct bp_out_buf *out, double d, bool as_float)
{
	char buf[48];
	size_t n;

	if (!isfinite(d)) {
		bp_out_puts(out, "null");
		return;
	}
	n = shortest_double(buf, sizeof(buf) - 2, d);
	bp_out_put(out, buf, n);
	if (as_float && !memchr(buf, '.', n) && !memchr(buf, 'e', n))
		bp_out_put(out, ".0", 2);
}

void bp_json_double(FILE *out, double d)
{
	char buf[40];

	if (!isfinite(d)) {
		fputs("null", out);
		return;
	}
	shortest_double(buf, sizeof(buf), d);
	fputs(buf, out);
}
