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

/*
 * A chunk's state (BP_CHUNK_*), loaded with acquire: it pairs with the
 * writer's release store of BP_CHUNK_COMPLETE (writer.c, chunk_publish),
 * so that what the reader reads of the chunk after seeing it complete is
 * what the writer filled in before.  For a copy of the header (pread),
 * the acquire still orders the reads of the body after that of the state.
 */
uint32_t bp_chunk_state(const struct bp_file_chunk *c);

#endif /* BP_FILE_VALID_H */
