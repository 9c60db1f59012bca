/*
 * file/valid.h - the file-validity rules (docs/file-format.md), in one
 * place for every reader of a trace file: the drainer of a live file and
 * the trace-file reader alike.  A trace file is untrusted input: nothing
 * here trusts an offset or a size it was not given the bounds of.
 */
#ifndef BP_FILE_VALID_H
#define BP_FILE_VALID_H

#include "file/layout.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The first have bytes of a file, h: NULL if it is a header this bprint
 * reads (magic, size, byte order, major version, word size, header size
 * and alignment), else a one-line reason, in buf or a constant.  Meant for
 * a header being filled in by its writer too (mapped): the magic, which
 * the writer stores last, is read before the rest.
 */
const char *bp_valid_header(const struct bp_file_header *h, size_t have, char *buf, size_t len);

/* A valid header (above) that is a live file's: not a stream, a pid. */
bool bp_valid_live(const struct bp_file_header *h);

/*
 * Is c (a copy of the bytes at off) a chunk header a reader may take:
 * magic, a known type, a size that is a whole number of align units and
 * ends inside a file of file_size bytes?  Its state is not looked at.
 */
bool bp_valid_chunk(const struct bp_file_chunk *c, uint64_t off, uint64_t file_size);

/* Why bytes c at off are not a chunk header a reader may take. */
enum bp_chunk_flaw {
	BP_CHUNK_FLAW_NONE,		/* they are one */
	BP_CHUNK_FLAW_ZERO,		/* all zero: a hole, or a chunk not allocated yet */
	BP_CHUNK_FLAW_MAGIC,		/* no chunk magic: not a chunk header at all */
	BP_CHUNK_FLAW_TYPE,		/* the magic, with a type this bprint does not know */
	BP_CHUNK_FLAW_SIZE,		/* the magic, with a size not a whole number of aligns */
	BP_CHUNK_FLAW_PAST_END,		/* the magic, ending past the end of the file */
};
enum bp_chunk_flaw bp_chunk_flaw(const struct bp_file_chunk *c, uint64_t off, uint64_t file_size);

/*
 * A chunk's state (BP_CHUNK_*), loaded with acquire: it pairs with the
 * writer's release store of BP_CHUNK_COMPLETE (writer.c, chunk_publish),
 * so that what the reader reads of the chunk after seeing it complete is
 * what the writer filled in before.  For a copy of the header (pread),
 * the acquire still orders the reads of the body after that of the state.
 */
uint32_t bp_chunk_state(const struct bp_file_chunk *c);

/* ---- checksums (format 1.3) -------------------------------------------- */

/*
 * The crc of a stream file's chunk (docs/file-format.md, "Chunks"): CRC32C
 * of its header but state and crc (bytes 0-15 and 24-31), then of its
 * bytes after the header (size - 32 of them), except for an accounts
 * chunk, whose entries are rewritten in place: its header alone.
 * bp_chunk_crc_start() is the header's part; a reader that reads the body
 * in pieces goes on with bp_crc32c() when bp_chunk_crc_body() says so.
 */
uint32_t bp_chunk_crc_start(const struct bp_file_chunk *c);

static inline bool bp_chunk_crc_body(const struct bp_file_chunk *c)
{
	return c->type != BP_CHUNK_ACCOUNTS;
}

/* The whole crc of the chunk at p (size bytes, header first). */
uint32_t bp_chunk_crc(const void *p, uint64_t size);

/* Does the header say its chunks carry checksums (a stream of 1.3 or later)? */
static inline bool bp_file_has_crc(uint32_t flags, uint32_t minor)
{
	return (flags & BP_FILE_F_STREAM) && (flags & BP_FILE_F_CRC) && minor >= BP_FILE_MINOR_CRC;
}

/* ---- walking the chunks ------------------------------------------------ */

/* What a walker finds at an offset of a trace file. */
enum bp_chunk_seen {
	BP_CHUNK_SEEN_END,		/* no room for a chunk from here to the file's end */
	BP_CHUNK_SEEN_NONE,		/* no chunk header a reader may take: damage, a
					 * header being filled in, or a read error */
	BP_CHUNK_SEEN_WRITING,		/* a valid header of a chunk still being written */
	BP_CHUNK_SEEN_COMPLETE,		/* complete: what it holds may be read */
	BP_CHUNK_SEEN_SKIP,		/* abandoned (or a state this bprint does not know):
					 * skip it whole */
};

/*
 * Look at offset off of fd (a file of file_size bytes, as measured): what
 * is there, and in *c a copy of the chunk header (meaningful unless END or
 * NONE).  The state is loaded with acquire (bp_chunk_state()), so that a
 * COMPLETE chunk's contents may be read after it.
 */
enum bp_chunk_seen bp_chunk_look(int fd, uint64_t off, uint64_t file_size,
				 struct bp_file_chunk *c);

/*
 * The walk over a file's chunks that the drainer and the reader both make
 * (docs/file-format.md, "Chunks"): look at off, act on what is seen, pass
 * it.  Passing a valid chunk header (WRITING, COMPLETE, SKIP) goes to its
 * end; passing NONE goes one align on, resynchronising after damage (a
 * reader may jump further: a hole holds no chunk).
 */
struct bp_chunk_walk {
	int fd;
	uint64_t off;			/* where the next look is */
	uint64_t file_size;		/* as last measured */
};

static inline enum bp_chunk_seen bp_chunk_walk_look(const struct bp_chunk_walk *w,
						    struct bp_file_chunk *c)
{
	return bp_chunk_look(w->fd, w->off, w->file_size, c);
}

static inline void bp_chunk_walk_pass(struct bp_chunk_walk *w, enum bp_chunk_seen seen,
				      const struct bp_file_chunk *c)
{
	w->off += seen == BP_CHUNK_SEEN_NONE || seen == BP_CHUNK_SEEN_END ? BP_FILE_ALIGN : c->size;
}

#endif /* BP_FILE_VALID_H */
