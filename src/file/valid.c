/*
 * file/valid.c - the file-validity rules (valid.h): what the drainer and
 * the reader accept of a header and of a chunk header.  The reasons are
 * the one-line messages users see ("bprint: FILE: reason").
 */
#include "file/valid.h"

#include "file/crc32c.h"

#include <bprint/format.h>
#include <bprint/reader.h>

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_ORDER BP_FILE_LITTLE_ENDIAN
#else
#define NATIVE_ORDER BP_FILE_BIG_ENDIAN
#endif

/* What a header holds past its magic: the reason it is not ours, or NULL. */
static const char *header_fields(const struct bp_file_header *h, char *buf, size_t len)
{
	if (h->byte_order != NATIVE_ORDER) {
		if (h->byte_order == BP_FILE_LITTLE_ENDIAN || h->byte_order == BP_FILE_BIG_ENDIAN)
			return BP_TRACE_MSG_BYTE_ORDER;
		bp_snprintf(buf, len, "corrupt header (byte order %u)", h->byte_order);
		return buf;
	}
	if (h->major > BP_FILE_MAJOR) {
		bp_snprintf(buf, len, "written by a newer bprint (format %u.%u); this bprint reads %u.x",
			    h->major, h->minor, BP_FILE_MAJOR);
		return buf;
	}
	if (h->major != BP_FILE_MAJOR) {
		bp_snprintf(buf, len, "corrupt header (format %u.%u)", h->major, h->minor);
		return buf;
	}
	if (h->word_size != 8) {
		bp_snprintf(buf, len, "word size %u not supported", h->word_size);
		return buf;
	}
	if (h->header_bytes != BP_FILE_HEADER_BYTES || h->align != BP_FILE_ALIGN) {
		bp_snprintf(buf, len, "corrupt header (header_bytes %u, align %u)", h->header_bytes,
			    h->align);
		return buf;
	}
	return NULL;
}

const char *bp_valid_header(const struct bp_file_header *h, size_t have, char *buf, size_t len)
{
	if (have < sizeof(h->magic) || memcmp(h->magic, BP_FILE_MAGIC, sizeof(h->magic)) != 0)
		return BP_TRACE_MSG_NOT_TRACE;
	/* The magic before the rest: pairs with the writer's release fence
	 * before it stores the magic (writer.c, fill_header). */
	atomic_thread_fence(memory_order_acquire);
	if (have < sizeof(*h))
		return BP_TRACE_MSG_TRUNCATED;
	return header_fields(h, buf, len);
}

bool bp_valid_live(const struct bp_file_header *h)
{
	return !(atomic_load_explicit(&h->flags, memory_order_relaxed) & BP_FILE_F_STREAM) &&
	       h->pid != 0;
}

bool bp_valid_chunk(const struct bp_file_chunk *c, uint64_t off, uint64_t file_size)
{
	return off <= file_size && !memcmp(c->magic, BP_CHUNK_MAGIC, 4) && c->type >= 1 &&
	       c->type <= BP_CHUNK_TYPE_MAX && c->size > 0 && c->size % BP_FILE_ALIGN == 0 &&
	       c->size <= file_size - off;
}

enum bp_chunk_flaw bp_chunk_flaw(const struct bp_file_chunk *c, uint64_t off, uint64_t file_size)
{
	static const unsigned char zero[sizeof(*c)];

	if (bp_valid_chunk(c, off, file_size))
		return BP_CHUNK_FLAW_NONE;
	if (!memcmp(c, zero, sizeof(*c)))
		return BP_CHUNK_FLAW_ZERO;
	if (memcmp(c->magic, BP_CHUNK_MAGIC, 4))
		return BP_CHUNK_FLAW_MAGIC;
	if (c->type < 1 || c->type > BP_CHUNK_TYPE_MAX)
		return BP_CHUNK_FLAW_TYPE;
	if (c->size == 0 || c->size % BP_FILE_ALIGN)
		return BP_CHUNK_FLAW_SIZE;
	return BP_CHUNK_FLAW_PAST_END;
}

uint32_t bp_chunk_state(const struct bp_file_chunk *c)
{
	return atomic_load_explicit(&c->state, memory_order_acquire);
}

enum bp_chunk_seen bp_chunk_look(int fd, uint64_t off, uint64_t file_size,
				 struct bp_file_chunk *c)
{
	ssize_t n;
	uint32_t state;

	if (off > file_size || file_size - off < BP_FILE_ALIGN)
		return BP_CHUNK_SEEN_END;
	do
		n = pread(fd, c, sizeof(*c), (off_t)off);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*c) || !bp_valid_chunk(c, off, file_size))
		return BP_CHUNK_SEEN_NONE;
	state = bp_chunk_state(c);
	return state == BP_CHUNK_COMPLETE ? BP_CHUNK_SEEN_COMPLETE
	       : state == BP_CHUNK_WRITING ? BP_CHUNK_SEEN_WRITING : BP_CHUNK_SEEN_SKIP;
}

uint32_t bp_chunk_crc_start(const struct bp_file_chunk *c)
{
	const unsigned char *p = (const unsigned char *)c;
	uint32_t crc = bp_crc32c(0, p, offsetof(struct bp_file_chunk, state));

	return bp_crc32c(crc, p + offsetof(struct bp_file_chunk, index), sizeof(c->index));
}

uint32_t bp_chunk_crc(const void *p, uint64_t size)
{
	const struct bp_file_chunk *c = p;
	uint32_t crc = bp_chunk_crc_start(c);

	if (bp_chunk_crc_body(c) && size > BP_CHUNK_HDR_BYTES)
		crc = bp_crc32c(crc, (const unsigned char *)p + BP_CHUNK_HDR_BYTES,
				(size_t)(size - BP_CHUNK_HDR_BYTES));
	return crc;
}
