/*
 * Caller-allocated structs that begin with their size (struct bprint_event,
 * struct bprint_thread_stats; include/bprint.h): the library fills its own
 * full copy, then hands over only what fits in the caller's size, so that
 * a program compiled against an older, smaller struct is never written past
 * its end, and one compiled against a newer struct keeps its zeroes in the
 * fields this library does not know.
 */
#ifndef BP_TRACE_SIZED_H
#define BP_TRACE_SIZED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* dst gets size as its size and the first min(size, ours) bytes of src after it. */
static inline void bp_sized_put(void *dst, uint32_t size, const void *src, size_t ours)
{
	size_t n = size < ours ? size : ours;

	memcpy(dst, &size, sizeof(size));
	if (n > sizeof(size))
		memcpy((char *)dst + sizeof(size), (const char *)src + sizeof(size),
		       n - sizeof(size));
}

#endif /* BP_TRACE_SIZED_H */
