/*
 * Compact page entries (compact.h): why a separate file - the drainer
 * encodes, the reader decodes, and a property test drives both directly.
 * The decoder reads untrusted bytes: every varint is bounded to 5 bytes,
 * every length is checked against the entry and the page before use.
 */
#include "file/compact.h"

#include "file/bytes.h"
#include "file/varint.h"
#include "ring/view.h"

#include <string.h>

void bp_entry_begin(const unsigned char *page, uint32_t page_size, unsigned char *out,
		    uint32_t *commit)
{
	memcpy(out, page, BP_RING_PAGE_HDR_BYTES);
	*commit = bp_ld32(out + offsetof(struct bp_ring_page, commit));
	if (*commit > page_size - BP_RING_PAGE_HDR_BYTES)
		*commit = page_size - BP_RING_PAGE_HDR_BYTES;
}

size_t bp_entry_end(unsigned char *out, uint32_t enc)
{
	memcpy(out + BP_RING_PAGE_HDR_BYTES, &enc, 4);
	return BP_COMPACT_ENTRY_HDR + enc;
}

size_t bp_entry_raw(const unsigned char *page, uint32_t commit, unsigned char *out)
{
	/* Records that do not tile commit: keep the bytes as they are. */
	memcpy(out + BP_COMPACT_ENTRY_HDR, page + BP_RING_PAGE_HDR_BYTES, commit);
	bp_entry_end(out, commit | BP_COMPACT_RAW);
	return BP_COMPACT_ENTRY_HDR + commit;
}

int bp_entry_open(const unsigned char *in, size_t len, uint32_t page_size, unsigned char *page,
		  const unsigned char **rec, const unsigned char **rec_end, uint32_t *commit)
{
	uint32_t room, enc, n;

	if (page_size < BP_RING_PAGE_MIN || len < BP_COMPACT_ENTRY_HDR)
		return -1;
	room = page_size - BP_RING_PAGE_HDR_BYTES;
	*commit = bp_ld32(in + offsetof(struct bp_ring_page, commit));
	enc = bp_ld32(in + BP_RING_PAGE_HDR_BYTES);
	n = enc & BP_COMPACT_LEN_MASK;
	if (*commit > room || n != len - BP_COMPACT_ENTRY_HDR)
		return -1;
	memcpy(page, in, BP_RING_PAGE_HDR_BYTES);
	*rec = in + BP_COMPACT_ENTRY_HDR;
	*rec_end = *rec + n;
	if (!(enc & BP_COMPACT_RAW))
		return 0;
	if (n != *commit)
		return -1;
	memcpy(page + BP_RING_PAGE_HDR_BYTES, *rec, n);
	memset(page + BP_RING_PAGE_HDR_BYTES + n, 0, room - n);
	return 1;
}

int bp_entry_close(unsigned char *page, uint32_t page_size, uint32_t off, uint32_t commit)
{
	if (off != commit)
		return -1;
	memset(page + BP_RING_PAGE_HDR_BYTES + off, 0, page_size - BP_RING_PAGE_HDR_BYTES - off);
	return 0;
}

size_t bp_compact_encode_page(const unsigned char *restrict page, uint32_t page_size,
			      unsigned char *restrict out)
{
	const unsigned char *rec = page + BP_RING_PAGE_HDR_BYTES, *end;
	unsigned char *o = out + BP_COMPACT_ENTRY_HDR;
	uint32_t commit, prev = 0, plen = 0;

	bp_entry_begin(page, page_size, out, &commit);
	end = rec + commit;
	while (rec != end) {
		uint32_t head, len;

		/*
		 * The same 16-byte record again with a delta below 128 (a loop
		 * tracing one site): one compare of head and delta together, and
		 * the next record's address does not wait for the load.
		 */
		if (plen == 16) {
			while ((size_t)(end - rec) >= 16) {
				uint64_t hd;

				memcpy(&hd, rec, 8);
				hd ^= prev;
				if ((hd << 32 | hd >> 32) >= 0x80)	/* a rotate */
					break;
				o[0] = 0;
				o[1] = (unsigned char)(hd >> 32);
				memcpy(o + 2, rec + 8, 8);
				o += 10;
				rec += 16;
			}
			if (rec == end)
				break;
		}
		if (!(len = bp_ring_rec_span(rec, (size_t)(end - rec), &head)))
			goto raw;
		o = bp_varint_put(o, head ^ prev);
		o = bp_varint_put(o, bp_ld32(rec + 4));
		if (len == 16)
			memcpy(o, rec + 8, 8);	/* the common case, a fixed-size copy */
		else
			memcpy(o, rec + 8, len - 8);
		o += len - 8;
		rec += len;
		prev = head;
		plen = len;
	}
	return bp_entry_end(out, (uint32_t)(o - out - BP_COMPACT_ENTRY_HDR));
raw:
	return bp_entry_raw(page, commit, out);
}

size_t bp_compact_entry_len(const unsigned char *hdr, uint32_t page_size)
{
	uint32_t n = bp_ld32(hdr + BP_RING_PAGE_HDR_BYTES) & BP_COMPACT_LEN_MASK;

	if (n > bp_compact_enc_max(page_size))
		return 0;
	return BP_COMPACT_ENTRY_HDR + n;
}

int bp_compact_decode_page(const unsigned char *in, size_t len, uint32_t page_size,
			   unsigned char *page)
{
	const unsigned char *p, *end;
	unsigned char *rec = page + BP_RING_PAGE_HDR_BYTES;
	uint32_t commit, off = 0, prev = 0;
	int rc = bp_entry_open(in, len, page_size, page, &p, &end, &commit);

	if (rc != 0)
		return rc > 0 ? 0 : -1;
	while (p != end) {
		uint64_t x, delta;
		uint32_t head, rlen;

		if (bp_varint_get(&p, end, &x, BP_VARINT_LAST32) != 0)
			return -1;
		head = (uint32_t)x ^ prev;
		if (!(rlen = bp_ring_head_span(head, commit - off)))
			return -1;
		if (bp_varint_get(&p, end, &delta, BP_VARINT_LAST32) != 0 ||
		    (size_t)(end - p) < rlen - BP_RING_REC_HDR_BYTES)
			return -1;
		memcpy(rec + off, &head, 4);
		memcpy(rec + off + 4, &(uint32_t){ (uint32_t)delta }, 4);
		if (rlen == 16)
			memcpy(rec + off + 8, p, 8);	/* the common case, a fixed-size copy */
		else
			memcpy(rec + off + 8, p, rlen - BP_RING_REC_HDR_BYTES);
		p += rlen - BP_RING_REC_HDR_BYTES;
		off += rlen;
		prev = head;
	}
	return bp_entry_close(page, page_size, off, commit);
}
