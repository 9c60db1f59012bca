/*
 * JSON text (output/json.h).
 */
#include "output/json.h"

#include "output/buf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The length of the well-formed UTF-8 sequence at s (n bytes left), 0 if
 * there is none: overlong forms, surrogates and code points past U+10FFFF
 * are not well-formed. */
static size_t utf8_len(const unsigned char *s, size_t n)
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

static void json_u04x(struct bp_out_buf *out, unsigned c)
{
	static const char hex[] = "0123456789abcdef";
	char u[6] = { '\\', 'u', '0', '0', hex[c >> 4 & 15], hex[c & 15] };

	bp_out_put(out, u, sizeof(u));
}

void bp_json_buf_str(struct bp_out_buf *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	bp_out_byte(out, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len;

		if (c == '"' || c == '\\') {
			bp_out_byte(out, '\\');
			bp_out_byte(out, c);
			i++;
		} else if (c == '\n') {
			bp_out_puts(out, "\\n");
			i++;
		} else if (c == '\t') {
			bp_out_puts(out, "\\t");
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			json_u04x(out, c);
			i++;
		} else if ((len = utf8_len(s + i, n - i)) > 0) {
			bp_out_put(out, s + i, len);
			i += len;
		} else {
			json_u04x(out, c);	/* not UTF-8: the byte's value */
			i++;
		}
	}
	bp_out_byte(out, '"');
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

void bp_json_double(FILE *out, double d)
{
	char buf[40];

	if (!isfinite(d)) {
		fputs("null", out);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	fputs(buf, out);
}
