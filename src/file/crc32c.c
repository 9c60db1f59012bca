/*
 * CRC32C (crc32c.h): eight bytes a step with eight tables (slicing by
 * 8), or the processor's crc32 instruction where it has one (SSE 4.2).
 * Both give the same value; crc32c_test checks them against each other
 * and against the standard check value.
 */
#include "file/crc32c.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define POLY 0x82f63b78u	/* 0x1EDC6F41, reflected */

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void make_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int k = 1; k < 8; k++)
			table[k][i] = (table[k - 1][i] >> 8) ^ table[0][table[k - 1][i] & 0xff];
}

static uint32_t crc_tables(uint32_t c, const unsigned char *p, size_t n)
{
	pthread_once(&table_once, make_table);
	while (n >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		w ^= c;
		c = table[7][w & 0xff] ^ table[6][(w >> 8) & 0xff] ^ table[5][(w >> 16) & 0xff] ^
		    table[4][(w >> 24) & 0xff] ^ table[3][(w >> 32) & 0xff] ^
		    table[2][(w >> 40) & 0xff] ^ table[1][(w >> 48) & 0xff] ^ table[0][w >> 56];
		p += 8;
		n -= 8;
	}
	while (n--)
		c = (c >> 8) ^ table[0][(c ^ *p++) & 0xff];
	return c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
__attribute__((target("sse4.2")))
static uint32_t crc_sse42(uint32_t c, const unsigned char *p, size_t n)
{
	uint64_t c64 = c;

	while (n >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		c64 = __builtin_ia32_crc32di(c64, w);
		p += 8;
		n -= 8;
	}
	c = (uint32_t)c64;
	while (n--)
		c = __builtin_ia32_crc32qi(c, *p++);
	return c;
}

static int have_sse42(void)
{
	static _Atomic int have = -1;	/* every thread finds the same */
	int h = atomic_load_explicit(&have, memory_order_relaxed);

	if (h < 0) {
		__builtin_cpu_init();	/* a constructor may ask before libgcc's runs */
		h = __builtin_cpu_supports("sse4.2") ? 1 : 0;
		atomic_store_explicit(&have, h, memory_order_relaxed);
	}
	return h;
}
#else
static uint32_t crc_sse42(uint32_t c, const unsigned char *p, size_t n)
{
	return crc_tables(c, p, n);
}

static int have_sse42(void)
{
	return 0;
}
#endif

/* For crc32c_test: the portable way, whatever the processor has. */
uint32_t bp_crc32c_portable(uint32_t crc, const void *p, size_t n);
uint32_t bp_crc32c_portable(uint32_t crc, const void *p, size_t n)
{
	return ~crc_tables(~crc, p, n);
}

uint32_t bp_crc32c(uint32_t crc, const void *p, size_t n)
{
	return ~(have_sse42() ? crc_sse42(~crc, p, n) : crc_tables(~crc, p, n));
}
