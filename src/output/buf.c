/* The exporters' byte buffer (buf.h). */
#include "output/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned char *bp_out_reserve(struct bp_out_buf *b, size_t n)
{
	size_t cap;
	unsigned char *p;

	if (b->oom)
		return NULL;
	if (b->len + n <= b->cap)
		return b->p + b->len;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n)
		cap *= 2;
	if (!(p = realloc(b->p, cap))) {
		b->oom = true;
		return NULL;
	}
	b->p = p;
	b->cap = cap;
	return p + b->len;
}

void bp_out_puts(struct bp_out_buf *b, const char *s)
{
	bp_out_put(b, s, strlen(s));
}

void bp_out_putf(struct bp_out_buf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;
	unsigned char *p;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		bp_out_put(b, tmp, (size_t)n);
		return;
	}
	if (!(p = bp_out_reserve(b, (size_t)n + 1)))
		return;
	va_start(ap, fmt);
	vsnprintf((char *)p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void bp_out_u64(struct bp_out_buf *b, uint64_t v)
{
	/* two digits a division: every record's time, id and fields go
	 * through here */
	static const char pairs[201] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	static const uint64_t tens[20] = {
		1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u,
		1000000000u, 10000000000u, 100000000000u, 1000000000000u, 10000000000000u,
		100000000000000u, 1000000000000000u, 10000000000000000u, 100000000000000000u,
		1000000000000000000u, 10000000000000000000u,
	};
	unsigned char *d;
	size_t n;

	if (v < 10) {
		bp_out_byte(b, (unsigned char)('0' + v));
		return;
	}
	/* the digits: log10 from the bits (1233 / 4096 ~ log10(2)), then
	 * one comparison, not a division a digit */
	n = (size_t)((64 - __builtin_clzll(v)) * 1233 >> 12);
	n += v >= tens[n];
	if (!(d = bp_out_room(b, n)))
		return;
	b->len += n;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		d[--n] = (unsigned char)pairs[2 * r + 1];
		d[--n] = (unsigned char)pairs[2 * r];
	}
	if (v >= 10) {
		d[1] = (unsigned char)pairs[2 * v + 1];
		d[0] = (unsigned char)pairs[2 * v];
	} else {
		d[0] = (unsigned char)('0' + v);
	}
}

void bp_out_i64(struct bp_out_buf *b, int64_t v)
{
	if (v < 0) {
		bp_out_byte(b, '-');
		bp_out_u64(b, (uint64_t)0 - (uint64_t)v);
	} else {
		bp_out_u64(b, (uint64_t)v);
	}
}

void bp_out_free(struct bp_out_buf *b)
{
	free(b->p);
	*b = (struct bp_out_buf){ 0 };
}
