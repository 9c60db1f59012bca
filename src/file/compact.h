/*
 * file/compact.h - the page entries of "compact pages" chunks (type 6,
 * docs/file-format.md).
 *
 * A ring page of small records is mostly repeated head words and small
 * time deltas: the drainer of `bprint record` wrote (before format 1.1,
 * which has the denser type 8) each record's head word as a varint of its
 * XOR with the previous one and its delta as a varint, so that a 16-byte
 * record takes about 10 bytes on disk.  The encoder and the decoder live
 * here, so that both sides agree on one implementation of the rules; the
 * reader keeps decoding the files of that time.
 *
 * The frame of an entry (page header, enc, raw records) is shared with the
 * dense pages of type 8 (file/dense.h), which code the records otherwise:
 * the helpers for it are here, and file/dense.h's bp_page_entry_decode()
 * picks the codec of a chunk type.
 */
#ifndef BP_FILE_COMPACT_H
#define BP_FILE_COMPACT_H

#include "file/layout.h"

#include <stddef.h>
#include <stdint.h>

#define BP_COMPACT_ENTRY_HDR	BP_FILE_ENTRY_HDR_BYTES	/* page header (40) + enc (4) */
#define BP_COMPACT_RAW		BP_FILE_ENTRY_RAW	/* enc: records stored verbatim */
#define BP_COMPACT_LEN_MASK	BP_FILE_ENTRY_LEN_MASK

/* Most bytes of records any page of page_size encodes to. */
static inline size_t bp_compact_enc_max(uint32_t page_size)
{
	return (size_t)page_size + page_size / 4;
}

/* Most bytes of one page entry (header included) for page_size. */
static inline size_t bp_compact_entry_max(uint32_t page_size)
{
	return BP_COMPACT_ENTRY_HDR + bp_compact_enc_max(page_size);
}

/*
 * Encode the ring page at page (page_size bytes, header first) as a page
 * entry at out, which has room for bp_compact_entry_max(page_size) bytes.
 * The page is read once, record by record, so a page that changes
 * meanwhile gives a wrong entry but never a read or write out of bounds.
 * Returns the entry's bytes.
 */
size_t bp_compact_encode_page(const unsigned char *restrict page, uint32_t page_size,
			      unsigned char *restrict out);

/*
 * Bytes of the entry whose first BP_COMPACT_ENTRY_HDR bytes are at hdr, or
 * 0 if no page of page_size encodes to an entry like that.
 */
size_t bp_compact_entry_len(const unsigned char *hdr, uint32_t page_size);

/*
 * Decode the entry of len bytes at in into page (page_size bytes): the ring
 * page as it was up to its commit, zeroes after.  Returns 0, or -1 if the
 * entry breaks a rule of docs/file-format.md (page then unspecified).
 */
int bp_compact_decode_page(const unsigned char *in, size_t len, uint32_t page_size,
			   unsigned char *page);

/* ---- the frame, for the codecs ---------------------------------------- */

/*
 * Start an entry at out for the page at page: its header, commit clamped
 * to the record area into *commit (a damaged page is then stored raw and
 * refused by the reader).
 */
void bp_entry_begin(const unsigned char *page, uint32_t page_size, unsigned char *out,
		    uint32_t *commit);

/* End the entry at out with enc bytes of coded records; its length. */
size_t bp_entry_end(unsigned char *out, uint32_t enc);

/* End it instead with the page's commit bytes of records, raw. */
size_t bp_entry_raw(const unsigned char *page, uint32_t commit, unsigned char *out);

/*
 * Check the frame of the entry of len bytes at in and copy its header into
 * page.  -1: broken; 1: raw, page decoded; 0: the caller decodes the
 * records, [*rec, *rec_end), up to *commit.
 */
int bp_entry_open(const unsigned char *in, size_t len, uint32_t page_size, unsigned char *page,
		  const unsigned char **rec, const unsigned char **rec_end, uint32_t *commit);

/* The records decoded to off: 0 if they end exactly at commit (the rest
 * of the page is zeroed), else -1. */
int bp_entry_close(unsigned char *page, uint32_t page_size, uint32_t off, uint32_t commit);

#endif /* BP_FILE_COMPACT_H */
