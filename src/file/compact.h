/*
 * file/compact.h - the page entries of "compact pages" chunks (type 6,
 * docs/file-format.md).
 *
 * A ring page of small records is mostly repeated head words and small
 * time deltas: the drainer of `bprint record` writes each record's head
 * word as a varint of its XOR with the previous one and its delta as a
 * varint, so that a 16-byte record takes about 10 bytes on disk.  The
 * encoder and the decoder live here, shared by the drainer and the reader,
 * so that both sides agree on one implementation of the rules.
 */
#ifndef BP_FILE_COMPACT_H
#define BP_FILE_COMPACT_H

#include <stddef.h>
#include <stdint.h>

#define BP_COMPACT_ENTRY_HDR	44u		/* page header (40) + enc (4) */
#define BP_COMPACT_RAW		0x80000000u	/* enc: records stored verbatim */
#define BP_COMPACT_LEN_MASK	0x7fffffffu

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

#endif /* BP_FILE_COMPACT_H */
