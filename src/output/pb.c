/* The protobuf wire-format writer of the Perfetto exporter (pb.h). */
#include "output/pb.h"

#include <stdlib.h>
#include <string.h>

static bool reserve(struct bp_out_buf *b, size_t more)
{
	return !b->oom && bp_out_room(b, more) != NULL;
}

size_t pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p = (uint8_t)v;
}

void pb_varint(struct bp_out_buf *b, uint64_t v)
{
	size_t n = pb_varint_size(v);

	if (!reserve(b, n))
		return;
	put_varint(b->p + b->len, v);
	b->len += n;
}

static void tag(struct bp_out_buf *b, uint32_t field, uint32_t wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

void pb_uint(struct bp_out_buf *b, uint32_t field, uint64_t v)
{
	tag(b, field, PB_VARINT);
	pb_varint(b, v);
}

void pb_int(struct bp_out_buf *b, uint32_t field, int64_t v)
{
	pb_uint(b, field, (uint64_t)v);
}

void pb_double(struct bp_out_buf *b, uint32_t field, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	tag(b, field, PB_FIXED64);
	if (!reserve(b, 8))
		return;
	for (int i = 0; i < 8; i++)
		b->p[b->len++] = (uint8_t)(u >> (8 * i));	/* little-endian on the wire */
}

void pb_bytes(struct bp_out_buf *b, uint32_t field, const void *s, size_t n)
{
	tag(b, field, PB_LEN);
	pb_varint(b, n);
	if (!reserve(b, n))
		return;
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
}

void pb_str(struct bp_out_buf *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s ? s : "", s ? strlen(s) : 0);
}

size_t pb_begin(struct bp_out_buf *b, uint32_t field)
{
	tag(b, field, PB_LEN);
	return b->len;
}

void pb_end(struct bp_out_buf *b, size_t at)
{
	size_t body, n;

	if (b->oom)
		return;
	body = b->len - at;
	n = pb_varint_size(body);
	if (!reserve(b, n))
		return;
	memmove(b->p + at + n, b->p + at, body);
	put_varint(b->p + at, body);
	b->len += n;
}
