/*
 * tests/file/dense_reference.h - the dense page decoder as it was before
 * its fast paths (one checked varint at a time, the slot table at every
 * record), kept as the reference the faster decoder of src/file/dense.c
 * must agree with on every input: the same verdict (0 or -1) and, for an
 * entry that decodes, the same page.  Written straight from the rules of
 * docs/file-format.md, type 8; the frame is src/file/compact.c's.
 */
#ifndef BP_TESTS_DENSE_REFERENCE_H
#define BP_TESTS_DENSE_REFERENCE_H

#include "file/bytes.h"
#include "file/compact.h"
#include "file/varint.h"
#include "ring/view.h"

#include <string.h>

static inline uint32_t ref_slot_of(uint32_t head)
{
	return head * BP_DENSE_HASH_MUL >> (32 - BP_DENSE_SLOT_BITS);
}

static inline int ref_dense_decode_page(const unsigned char *in, size_t len, uint32_t page_size,
					unsigned char *page)
{
	const unsigned char *p, *end;
	unsigned char *base = page + BP_RING_PAGE_HDR_BYTES;
	uint32_t slots[1u << BP_DENSE_SLOT_BITS] = { 0 };
	uint32_t commit, off = 0, prev_head = 0, prev_delta = 0;
	int rc = bp_entry_open(in, len, page_size, page, &p, &end, &commit);

	if (rc != 0)
		return rc > 0 ? 0 : -1;
	while (p != end) {
		unsigned char *rec = base + off;
		const unsigned char *ref = NULL;
		uint64_t x, z;
		uint32_t head, rlen, r;

		if (bp_varint_get(&p, end, &x, BP_VARINT_LAST33) != 0)
			return -1;
		head = (uint32_t)(x >> 1) ^ prev_head;
		if (!(rlen = bp_ring_head_span(head, commit - off)) ||
		    bp_varint_get(&p, end, &z, BP_VARINT_LAST32) != 0)
			return -1;
		prev_delta += bp_unzigzag((uint32_t)z);
		bp_st32(rec, head);
		bp_st32(rec + 4, prev_delta);
		if (x & 1) {
			if ((size_t)(end - p) < rlen - BP_RING_REC_HDR_BYTES)
				return -1;
			memcpy(rec + BP_RING_REC_HDR_BYTES, p, rlen - BP_RING_REC_HDR_BYTES);
			p += rlen - BP_RING_REC_HDR_BYTES;
		} else {
			r = slots[ref_slot_of(head)];
			if (r && bp_ld32(base + r - 1) == head)
				ref = base + r - 1 + BP_RING_REC_HDR_BYTES;
			for (uint32_t i = BP_RING_REC_HDR_BYTES; i < rlen; i += 4) {
				if (bp_varint_get(&p, end, &z, BP_VARINT_LAST32) != 0)
					return -1;
				bp_st32(rec + i, (ref ? bp_ld32(ref + i - BP_RING_REC_HDR_BYTES) : 0) +
							 bp_unzigzag((uint32_t)z));
			}
		}
		slots[ref_slot_of(head)] = off + 1;
		off += rlen;
		prev_head = head;
	}
	return bp_entry_close(page, page_size, off, commit);
}

#endif /* BP_TESTS_DENSE_REFERENCE_H */
