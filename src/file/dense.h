/*
 * file/dense.h - the page entries of "dense pages" chunks (type 8,
 * docs/file-format.md), what `bprint record` writes since format 1.1.
 *
 * A loop tracing one site fills a page with records whose head words are
 * equal, whose time deltas grow by about the same step and whose arguments
 * differ little from the previous record of the same site.  Coding each of
 * those as a small difference (varints, zigzag) takes the seed's 16-byte
 * record to 4 bytes, where type 6 needs 11.  The decoder needs no site
 * table: the reference of a record is found by its head word alone.  The
 * entry's frame (page header, enc, raw pages) is type 6's (file/compact.h).
 */
#ifndef BP_FILE_DENSE_H
#define BP_FILE_DENSE_H

#include "file/compact.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Encode the ring page at page (page_size bytes, header first) as a dense
 * page entry at out, which has room for bp_compact_entry_max(page_size)
 * bytes.  A page that changes meanwhile gives a wrong entry, never a read
 * or write out of bounds.  Returns the entry's bytes.
 */
size_t bp_dense_encode_page(const unsigned char *restrict page, uint32_t page_size,
			    unsigned char *restrict out);

/*
 * Decode the dense entry of len bytes at in into page (page_size bytes):
 * the ring page as it was up to its commit, zeroes after.  Returns 0, or -1
 * if the entry breaks a rule of docs/file-format.md (page then unspecified).
 * The entry's length comes from bp_compact_entry_len(), as for type 6.
 */
int bp_dense_decode_page(const unsigned char *in, size_t len, uint32_t page_size,
			 unsigned char *page);

/*
 * Decode an entry of a type 6 (compact) or type 8 (dense) pages chunk, as
 * bp_compact_decode_page() or bp_dense_decode_page() does.  -1 for any
 * other chunk_type.  Here, above both codecs.
 */
int bp_page_entry_decode(uint32_t chunk_type, const unsigned char *in, size_t len,
			 uint32_t page_size, unsigned char *page);

#endif /* BP_FILE_DENSE_H */
