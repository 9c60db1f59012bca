/*
 * file/checksums.h - what the checksums of format 1.4 cover
 * (docs/file-format.md, "Checksums (live files, 1.4)"), in one place for
 * the live writer, the copier and the reader: the header's fields written
 * once, the whole header of a stream, a calibration slot, a live chunk's
 * header.  Each is CRC32C (crc32c.h) of the bytes the format names.
 */
#ifndef BP_FILE_CHECKSUMS_H
#define BP_FILE_CHECKSUMS_H

#include "file/crc32c.h"
#include "file/layout.h"

#include <stddef.h>
#include <stdint.h>

/* The header's fields written once: magic to align, pid and the start
 * times, comm to the command line.  The magic is taken as it must be (the
 * writer stores it last, after this crc; a reader checks it first). */
static inline uint32_t bp_header_fixed_crc(const struct bp_file_header *h)
{
	const unsigned char *p = (const unsigned char *)h;
	size_t magic = sizeof(h->magic);
	uint32_t crc = bp_crc32c(0, BP_FILE_MAGIC, magic);

	crc = bp_crc32c(crc, p + magic, offsetof(struct bp_file_header, flags) - magic);

	crc = bp_crc32c(crc, p + offsetof(struct bp_file_header, pid),
			offsetof(struct bp_file_header, end) - offsetof(struct bp_file_header, pid));
	return bp_crc32c(crc, p + offsetof(struct bp_file_header, comm),
			 offsetof(struct bp_file_header, accounts) -
				 offsetof(struct bp_file_header, comm));
}

/* A stream's whole header, header_crc taken as 0 (h is a copy: plain reads). */
static inline uint32_t bp_header_crc(const struct bp_file_header *h)
{
	static const unsigned char zero[sizeof(h->header_crc)];
	const unsigned char *p = (const unsigned char *)h;
	size_t at = offsetof(struct bp_file_header, header_crc), after = at + sizeof(zero);
	uint32_t crc = bp_crc32c(0, p, at);

	crc = bp_crc32c(crc, zero, sizeof(zero));
	return bp_crc32c(crc, p + after, sizeof(*h) - after);
}

/* One calibration slot. */
static inline uint32_t bp_calib_crc(const struct bp_clock_calib *c)
{
	return bp_crc32c(0, c, sizeof(*c));
}

/*
 * A live chunk's header (1.4): bytes 0-15 and 24-31 of the chunk header,
 * then for a ring chunk its tid and level (32-39) and ring_bytes (64-71):
 * c must then be the start of a whole struct bp_file_ring.
 */
static inline uint32_t bp_live_chunk_crc(const struct bp_file_chunk *c)
{
	const unsigned char *p = (const unsigned char *)c;
	uint32_t crc = bp_crc32c(0, p, offsetof(struct bp_file_chunk, state));

	crc = bp_crc32c(crc, p + offsetof(struct bp_file_chunk, index), sizeof(c->index));
	if (c->type != BP_CHUNK_RING)
		return crc;
	crc = bp_crc32c(crc, p + offsetof(struct bp_file_ring, tid),
			offsetof(struct bp_file_ring, comm) - offsetof(struct bp_file_ring, tid));
	return bp_crc32c(crc, p + offsetof(struct bp_file_ring, ring_bytes),
			 sizeof(((const struct bp_file_ring *)0)->ring_bytes));
}

/* A ring chunk's comm and dropped (1.4), which its thread rewrites at exit. */
static inline uint32_t bp_ring_names_crc(const struct bp_file_ring *r)
{
	uint64_t dropped = atomic_load_explicit(&r->dropped, memory_order_relaxed);

	return bp_crc32c(bp_crc32c(0, r->comm, sizeof(r->comm)), &dropped, sizeof(dropped));
}

#endif /* BP_FILE_CHECKSUMS_H */
