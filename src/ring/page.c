/*
 * ring/page.c - a page read out of its ring (ring.h: bp_ring_page_begin,
 * bp_ring_page_next, bp_ring_page_records): the records of a copy, with the
 * checks the cursor reader makes in the ring (record_len(), geom.h), but no
 * seqlock: the copy is the caller's and does not change.
 */
#include "ring/geom.h"

/* A field of a copied page header (plain memory, no atomics). */
static uint64_t header_u64(const unsigned char *page, size_t off)
{
	uint64_t v;

	memcpy(&v, page + off, sizeof(v));
	return v;
}

int bp_ring_page_begin(struct bp_ring_page_iter *it, const void *page, uint32_t page_size,
		       uint64_t next_rec)
{
	const unsigned char *p = page;
	uint64_t first;
	uint32_t commit;

	memset(it, 0, sizeof(*it));
	if (!page || !page_size_ok(page_size))
		return BP_RING_EINVAL;
	memcpy(&commit, p + offsetof(struct bp_ring_page, commit), sizeof(commit));
	first = header_u64(p, offsetof(struct bp_ring_page, first_rec));
	if (first < next_rec || commit > page_size - BP_RING_PAGE_HDR_BYTES || (commit & 3u))
		return BP_RING_ECORRUPT;
	it->rec = p + BP_RING_PAGE_HDR_BYTES;
	it->commit = commit;
	it->seq = header_u64(p, offsetof(struct bp_ring_page, seq));
	it->base_ts = header_u64(p, offsetof(struct bp_ring_page, base_ts));
	it->next_rec = first;
	it->disc_pending = header_u64(p, offsetof(struct bp_ring_page, discarded_before));
	return BP_RING_OK;
}

int bp_ring_page_next(struct bp_ring_page_iter *it, struct bp_ring_event *ev, void *buf,
		      size_t cap)
{
	/* Every turn moves off on by a whole record or returns. */
	while (it->off < it->commit) {
		const unsigned char *rec = it->rec + it->off;
		int got;
		uint32_t len = static_record(rec, it->commit - it->off, &it->base_ts, ev, &got);

		if (!len)
			return BP_RING_ECORRUPT;
		if (!got) {
			it->off += len;
			continue;
		}
		if (buf && ev->payload_len > cap)
			return BP_RING_ENOSPC;
		if (buf)
			ev->payload = memcpy(buf, ev->payload, ev->payload_len);
		record_taken(ev, it->seq, &it->next_rec, &it->disc_pending);
		it->off += len;
		return 1;
	}
	return 0;
}

uint64_t bp_ring_page_records(const void *page, uint32_t page_size)
{
	struct bp_ring_page_iter it;
	struct bp_ring_event ev;
	uint64_t n = 0;

	if (bp_ring_page_begin(&it, page, page_size, 0) != BP_RING_OK)
		return 0;
	while (bp_ring_page_next(&it, &ev, NULL, 0) == 1)
		n++;
	return n;
}
