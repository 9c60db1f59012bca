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
	char d[20];
	size_t i = sizeof(d);

	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	bp_out_put(b, d + i, sizeof(d) - i);
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
