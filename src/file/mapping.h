/*
 * file/mapping.h - a byte range of a trace file, mapped: mmap() takes an
 * offset that is a multiple of the system page, the file's chunks are
 * aligned to the file's own align (4096), which may be smaller.  The
 * reader maps live rings read-only, the drainer maps rings read-write (it
 * is their consumer) and lists read-only.
 */
#ifndef BP_FILE_MAPPING_H
#define BP_FILE_MAPPING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

struct bp_mapping {
	unsigned char *base;		/* what mmap() returned, NULL = none */
	size_t len;			/* bytes mapped from base */
};

/*
 * Map [off, off + len) of fd with prot (MAP_SHARED).  Returns the address
 * of byte off, or NULL (errno set) with m->base NULL; bp_unmap(m) undoes it.
 */
static inline unsigned char *bp_map_range(int fd, uint64_t off, uint64_t len, int prot,
					  struct bp_mapping *m)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t start = off & ~(uint64_t)((pg > 0 ? (uint64_t)pg : 4096u) - 1);
	uint64_t total = off - start + len;
	void *p;

	m->base = NULL;
	m->len = 0;
	if (total > SIZE_MAX)
		return NULL;
	p = mmap(NULL, (size_t)total, prot, MAP_SHARED, fd, (off_t)start);
	if (p == MAP_FAILED)
		return NULL;
	m->base = p;
	m->len = (size_t)total;
	return m->base + (off - start);
}

static inline void bp_unmap(struct bp_mapping *m)
{
	if (m->base)
		munmap(m->base, m->len);
	m->base = NULL;
	m->len = 0;
}

#endif /* BP_FILE_MAPPING_H */
