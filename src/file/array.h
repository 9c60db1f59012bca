/*
 * file/array.h - growable arrays of the reading library (tables of the
 * reader, rings and lists of the drainer): one helper, so that every
 * table grows and zeroes its new room the same way.
 */
#ifndef BP_FILE_ARRAY_H
#define BP_FILE_ARRAY_H

#include <stdlib.h>
#include <string.h>

/*
 * The array p (room for *cap elements of elem bytes) with room for need:
 * p itself if it has it, else a larger copy (at least twice the room) whose
 * new elements are zero, *cap updated.  NULL when out of memory: p is left
 * as it was, and still the caller's to free.
 */
static inline void *bp_array_grow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 8;
	void *q;

	if (need <= *cap)
		return p;
	while (n < need)
		n *= 2;
	if (n > SIZE_MAX / elem || !(q = realloc(p, n * elem)))
		return NULL;
	memset((char *)q + *cap * elem, 0, (n - *cap) * elem);
	*cap = n;
	return q;
}

#endif /* BP_FILE_ARRAY_H */
