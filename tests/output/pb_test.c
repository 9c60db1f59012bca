/*
 * The protobuf writer of the Perfetto exporter (src/output/pb.c) against
 * encodings from the protobuf wire-format documentation ("Encoding"):
 * 150 in field 1 is 08 96 01, "testing" in field 2 is 12 07 74 65 73 74
 * 69 6e 67, a message {1: 150} in field 3 is 1a 03 08 96 01; plus int64
 * -2 (ten bytes), a double, and a nested body of 200 bytes, whose length
 * takes two bytes (c8 01) and makes pb_end() move the body up.
 */
#include "output/pb.h"

#include <stdio.h>
#include <string.h>

static int fails;

static void expect(const char *what, const struct bp_out_buf *b, const unsigned char *want, size_t n)
{
	if (b->oom || b->len != n || memcmp(b->p, want, n)) {
		fails++;
		printf("FAIL: %s: %zu bytes:", what, b->len);
		for (size_t i = 0; i < b->len && i < 16; i++)
			printf(" %02x", b->p[i]);
		printf("\n");
	} else {
		printf("ok: %s\n", what);
	}
}

int main(void)
{
	static const unsigned char v150[] = { 0x08, 0x96, 0x01 };
	static const unsigned char testing[] = { 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g' };
	static const unsigned char nested[] = { 0x1a, 0x03, 0x08, 0x96, 0x01 };
	static const unsigned char minus2[] = { 0x20, 0xfe, 0xff, 0xff, 0xff, 0xff,
						0xff, 0xff, 0xff, 0xff, 0x01 };
	static const unsigned char one[] = { 0x29, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f };	/* 1.0 */
	unsigned char big[3 + 200];
	struct bp_out_buf b = { 0 };
	size_t at;

	pb_uint(&b, 1, 150);
	expect("varint 150 in field 1", &b, v150, sizeof(v150));
	b.len = 0;
	pb_str(&b, 2, "testing");
	expect("string in field 2", &b, testing, sizeof(testing));
	b.len = 0;
	at = pb_begin(&b, 3);
	pb_uint(&b, 1, 150);
	pb_end(&b, at);
	expect("nested message in field 3", &b, nested, sizeof(nested));
	b.len = 0;
	pb_int(&b, 4, -2);
	expect("int64 -2 in field 4", &b, minus2, sizeof(minus2));
	b.len = 0;
	pb_double(&b, 5, 1.0);
	expect("double 1.0 in field 5", &b, one, sizeof(one));
	b.len = 0;
	big[0] = 0x0a;
	big[1] = 0xc8;
	big[2] = 0x01;
	for (int i = 0; i < 100; i++) {
		big[3 + 2 * i] = 0x08;
		big[4 + 2 * i] = (unsigned char)(i % 128);
	}
	at = pb_begin(&b, 1);
	for (int i = 0; i < 100; i++)
		pb_uint(&b, 1, (uint64_t)(i % 128));
	pb_end(&b, at);
	expect("nested body of 200 bytes", &b, big, sizeof(big));
	if (pb_varint_size(0) != 1 || pb_varint_size(127) != 1 || pb_varint_size(128) != 2 ||
	    pb_varint_size(UINT64_MAX) != 10) {
		fails++;
		printf("FAIL: pb_varint_size\n");
	}
	bp_out_free(&b);
	printf(fails ? "%d failure(s)\n" : "all passed\n", fails);
	return fails != 0;
}
