/*
 * file/bytes.h - loads and stores of native integers at any address, for
 * the code that parses or builds the bytes of a trace file (a record head
 * in a page, a field of a copied header): memcpy, which compilers turn
 * into one move, so that no pointer to an unaligned integer is made.
 */
#ifndef BP_FILE_BYTES_H
#define BP_FILE_BYTES_H

#include <stdint.h>
#include <string.h>

static inline uint32_t bp_ld32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t bp_ld64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void bp_st32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

#endif /* BP_FILE_BYTES_H */
