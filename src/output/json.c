/*
 * JSON text (output/json.h).
 */
#include "output/json.h"

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

void bp_json_str(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	putc('"', out);
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len;

		if (c == '"' || c == '\\') {
			putc('\\', out);
			putc(c, out);
			i++;
		} else if (c == '\n') {
			fputs("\\n", out);
			i++;
		} else if (c == '\t') {
			fputs("\\t", out);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(out, "\\u%04x", c);
			i++;
		} else if ((len = utf8_len(s + i, n - i)) > 0) {
			fwrite(s + i, 1, len, out);
			i += len;
		} else {
			fprintf(out, "\\u%04x", c);
			i++;
		}
	}
	putc('"', out);
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
