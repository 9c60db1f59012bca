/*
 * ring/page.c - a page read out of its ring (ring.h: bp_ring_page_begin,
 * bp_ring_page_next, bp_ring_page_records): the records of a copy, with the
 * checks the cursor reader makes in the ring (bp_ring_record_len(),
 * view.h), but no seqlock: the copy is the caller's and does not change.
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
		uint32_t len = bp_ring_static_record(rec, it->commit - it->off, &it->base_ts, ev,
						     &got);

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
		bp_ring_record_taken(ev, it->seq, &it->next_rec, &it->disc_pending);
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

/*
 * Give the data record at off of the record area rec (to bytes of
 * records) the user bit bit and the word word before its payload, if it
 * lacks the bit and room (the 4 bytes) is left in the page's record area
 * of area bytes.  Records after it move up by 4 bytes.  Returns to as it
 * grew.
 */
static uint32_t prefix_record(unsigned char *rec, uint32_t off, uint32_t to, uint32_t area,
			      uint32_t bit, uint32_t word)
{
	uint32_t head, len, user;

	/* the first data record: past the time extends in front of it */
	for (;;) {
		if (off + BP_RING_REC_HDR_BYTES > to)
			return to;
		memcpy(&head, rec + off, sizeof(head));
		if (!(len = bp_ring_record_len(head, to - off)))
			return to;
		if (((head >> BP_RING_HEAD_TYPE_SHIFT) & BP_RING_HEAD_TYPE_MASK) !=
		    BP_RING_TYPE_TIME_EXTEND)
			break;
		off += len;
	}
	user = head >> BP_RING_HEAD_USER_SHIFT;
	if ((user & bit) || to + 4 > area || (head & BP_RING_HEAD_LEN_MASK) + 1 > BP_RING_HEAD_LEN_MASK)
		return to;
	memmove(rec + off + BP_RING_REC_HDR_BYTES + 4, rec + off + BP_RING_REC_HDR_BYTES,
		to - off - BP_RING_REC_HDR_BYTES);
	memcpy(rec + off + BP_RING_REC_HDR_BYTES, &word, sizeof(word));
	head = (head & ~BP_RING_HEAD_LEN_MASK) + ((head & BP_RING_HEAD_LEN_MASK) + 1);
	head |= bit << BP_RING_HEAD_USER_SHIFT;
	memcpy(rec + off, &head, sizeof(head));
	return to + 4;
}

int bp_ring_page_cut(void *page, uint32_t page_size, uint64_t first, uint64_t end,
		     uint32_t prefix_bit, uint32_t prefix_word)
{
	unsigned char *p = page, *rec = p + BP_RING_PAGE_HDR_BYTES;
	const uint32_t area = page_size - BP_RING_PAGE_HDR_BYTES;
	struct bp_ring_page_iter it;
	struct bp_ring_event ev;
	uint32_t from = 0, to = 0;
	uint64_t base, next, zero = 0;
	int rc = bp_ring_page_begin(&it, page, page_size, 0), got;

	if (rc != BP_RING_OK)
		return rc;
	base = it.base_ts;
	next = it.next_rec;
	while ((got = bp_ring_page_next(&it, &ev, NULL, 0)) == 1 && ev.index < end) {
		if (ev.index < first) {
			/* dropped: the next record reads from here, on the same
			 * base (only time extends move it, and they are kept) */
			from = to = it.off;
			base = it.base_ts;
			next = ev.index + 1;
			continue;
		}
		to = it.off;
	}
	if (got < 0)
		return got;
	memmove(rec, rec + from, to - from);
	to -= from;
	if (from && prefix_bit)
		to = prefix_record(rec, 0, to, area, prefix_bit, prefix_word);
	memset(rec + to, 0, area - to);
	memcpy(p + offsetof(struct bp_ring_page, commit), &to, sizeof(to));
	if (from) {
		memcpy(p + offsetof(struct bp_ring_page, base_ts), &base, sizeof(base));
		memcpy(p + offsetof(struct bp_ring_page, first_rec), &next, sizeof(next));
		memcpy(p + offsetof(struct bp_ring_page, discarded_before), &zero, sizeof(zero));
	}
	return BP_RING_OK;
}
