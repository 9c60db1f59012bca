/*
 * crc32c_test: the chunk checksum (file/crc32c.h) is CRC32C: the standard
 * check value, and the same value from the processor's instruction (where
 * the library uses it) as from the tables, at every length and alignment,
 * in one piece or in any two.
 */
#include "file/crc32c.h"
#include "check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

uint32_t bp_crc32c_portable(uint32_t crc, const void *p, size_t n);

int main(void)
{
	static unsigned char buf[4096 + 16];
	uint64_t x = 0x9e3779b97f4a7c15ull;

	CHECK_EQ(bp_crc32c(0, "123456789", 9), 0xe3069283u);
	CHECK_EQ(bp_crc32c_portable(0, "123456789", 9), 0xe3069283u);
	CHECK_EQ(bp_crc32c(0, "", 0), 0);
	for (size_t i = 0; i < sizeof(buf); i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		buf[i] = (unsigned char)x;
	}
	for (size_t len = 0; len <= 300; len++)
		for (size_t at = 0; at < 16; at++) {
			uint32_t whole = bp_crc32c(0, buf + at, len);
			size_t cut = len / 3;

			CHECK_EQ(whole, bp_crc32c_portable(0, buf + at, len));
			CHECK_EQ(whole, bp_crc32c(bp_crc32c(0, buf + at, cut), buf + at + cut, len - cut));
		}
	CHECK_EQ(bp_crc32c(0, buf, 4096), bp_crc32c_portable(0, buf, 4096));
	/* one bit changed anywhere changes it */
	for (size_t bit = 0; bit < 8 * 64; bit++) {
		uint32_t before = bp_crc32c(0, buf, 64);

		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		CHECK(bp_crc32c(0, buf, 64) != before);
		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
	}
	printf("crc32c: ok\n");
	return 0;
}
