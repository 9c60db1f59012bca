/*
 * Dense page entries (dense.h): why a file of its own - one codec, shared
 * by the drainer (encoder) and the reader (decoder), driven directly by a
 * property test and a fuzzer.  The decoder reads untrusted bytes: every
 * varint is bounded (file/varint.h), every length is checked against the
 * entry and the page before use, and a record's reference is always a
 * record the decoder itself wrote earlier in the same page.
 */
#include "file/dense.h"

#include "file/bytes.h"
#include "file/varint.h"
#include "ring/view.h"

#include <stdbool.h>
#include <string.h>

#define NSLOT (1u << BP_DENSE_SLOT_BITS)

static inline uint32_t slot_of(uint32_t head)
{
	return head * BP_DENSE_HASH_MUL >> (32 - BP_DENSE_SLOT_BITS);
}

static inline size_t varint_len(uint32_t v)
{
	return v < 1u << 7 ? 1 : v < 1u << 14 ? 2 : v < 1u << 21 ? 3 : v < 1u << 28 ? 4 : 5;
}

/*
 * The payload words of rec (pay bytes) against ref's (NULL: zeroes), into
 * o, if they take at most pay bytes.  Returns the end, or NULL.
 */
static unsigned char *put_words(unsigned char *o, const unsigned char *rec,
				const unsigned char *ref, uint32_t pay)
{
	unsigned char *budget = o + pay;

	for (uint32_t i = 0; i < pay; i += 4) {
		uint32_t z = bp_zigzag(bp_ld32(rec + i) - (ref ? bp_ld32(ref + i) : 0));

		if ((size_t)(budget - o) < BP_VARINT_MAX && varint_len(z) > (size_t)(budget - o))
			return NULL;
		o = bp_varint_put32(o, z);
	}
	return o;
}

/* One record at rec (len bytes, head checked) of the page at base. */
static unsigned char *put_record(unsigned char *o, const unsigned char *base,
				 const unsigned char *rec, uint32_t len, const uint32_t *slots,
				 uint32_t prev_head, uint32_t prev_delta)
{
	uint32_t head = bp_ld32(rec), r;
	const unsigned char *ref = NULL;
	unsigned char *tag = o, *pay, *w;

	if (head == prev_head) {
		ref = rec - len + BP_RING_REC_HDR_BYTES;	/* the slot names the record before */
	} else {
		r = slots[slot_of(head)];
		if (r && bp_ld32(base + r - 1) == head)
			ref = base + r - 1 + BP_RING_REC_HDR_BYTES;
	}
	/* v = 0 for now: the bit does not change the tag's length */
	o = bp_varint_put(o, (uint64_t)(head ^ prev_head) << 1);
	o = bp_varint_put32(o, bp_zigzag(bp_ld32(rec + 4) - prev_delta));
	pay = o;
	w = put_words(pay, rec + BP_RING_REC_HDR_BYTES, ref, len - BP_RING_REC_HDR_BYTES);
	if (w)
		return w;
	*tag |= 1;	/* verbatim */
	memcpy(pay, rec + BP_RING_REC_HDR_BYTES, len - BP_RING_REC_HDR_BYTES);
	return pay + len - BP_RING_REC_HDR_BYTES;
}

/*
 * A run of records of len bytes with the head word of the one before rec
 * (at rec - len) whose differences take a byte each: tag 0, time, one byte
 * a word; no table lookup (the reference is the record before).  Returns
 * where the run stopped; *o and *prev_delta follow it.  Inline, so that
 * the caller's len == 16 makes a loop of its own for the common record.
 */
static inline __attribute__((always_inline)) const unsigned char *
put_run(const unsigned char *restrict rec, const unsigned char *end, uint32_t head, uint32_t len,
	unsigned char *restrict *o, uint32_t *prev_delta)
{
	unsigned char *restrict out = *o;
	uint32_t pd = *prev_delta;

	while ((size_t)(end - rec) >= len && bp_ld32(rec) == head) {
		uint32_t delta = bp_ld32(rec + 4), z = bp_zigzag(delta - pd), i;

		/* bytes may be written past the run: the room of a record */
		out[0] = 0;	/* tag: same head, words */
		out[1] = (unsigned char)z;
		for (i = BP_RING_REC_HDR_BYTES; i < len; i += 4) {
			uint32_t zw = bp_zigzag(bp_ld32(rec + i) - bp_ld32(rec + i - len));

			z |= zw;
			out[2 + (i - BP_RING_REC_HDR_BYTES) / 4] = (unsigned char)zw;
		}
		if (z >= 0x80)
			break;
		out += 2 + (len - BP_RING_REC_HDR_BYTES) / 4;
		pd = delta;
		rec += len;
	}
	*o = out;
	*prev_delta = pd;
	return rec;
}

size_t bp_dense_encode_page(const unsigned char *restrict page, uint32_t page_size,
			    unsigned char *restrict out)
{
	const unsigned char *base = page + BP_RING_PAGE_HDR_BYTES, *rec = base, *end;
	unsigned char *o = out + BP_COMPACT_ENTRY_HDR;
	uint32_t slots[NSLOT] = { 0 };	/* record offset + 1; 0 = empty */
	uint32_t commit, prev_head = 0, prev_delta = 0;
	bool run = false;	/* the last record took a byte a field: try a run */

	bp_entry_begin(page, page_size, out, &commit);
	end = base + commit;
	while (rec != end) {
		unsigned char *at;
		uint32_t head, len;

		if (run) {
			uint32_t plen = bp_ring_head_bytes(prev_head);

			if (plen == 16)
				rec = put_run(rec, end, prev_head, 16, &o, &prev_delta);
			else
				rec = put_run(rec, end, prev_head, plen, &o, &prev_delta);
			/* the slot of prev_head names the run's last record */
			slots[slot_of(prev_head)] = (uint32_t)(rec - base) - plen + 1;
			if (rec == end)
				break;
		}
		if (!(len = bp_ring_rec_span(rec, (size_t)(end - rec), &head)))
			goto raw;
		at = o;
		o = put_record(o, base, rec, len, slots, prev_head, prev_delta);
		run = (size_t)(o - at) == 2 + (len - BP_RING_REC_HDR_BYTES) / 4;
		slots[slot_of(head)] = (uint32_t)(rec - base) + 1;
		prev_head = head;
		prev_delta = bp_ld32(rec + 4);
		rec += len;
	}
	return bp_entry_end(out, (uint32_t)(o - out - BP_COMPACT_ENTRY_HDR));
raw:
	return bp_entry_raw(page, commit, out);
}

/* The payload words of the record at rec (pay bytes) against ref's. */
static int get_words(const unsigned char **p, const unsigned char *end, unsigned char *rec,
		     const unsigned char *ref, uint32_t pay)
{
	for (uint32_t i = 0; i < pay; i += 4) {
		uint64_t z;

		if (bp_varint_get(p, end, &z, BP_VARINT_LAST32) != 0)
			return -1;
		bp_st32(rec + i, (ref ? bp_ld32(ref + i) : 0) + bp_unzigzag((uint32_t)z));
	}
	return 0;
}

/*
 * put_run()'s records back: while the entry has tag 0 and a byte a field
 * for records of len bytes with head, after the record before base + *off
 * (of that head: it is their reference).  Returns where it stopped; *off
 * and *prev_delta follow it.
 */
static inline __attribute__((always_inline)) const unsigned char *
get_run(const unsigned char *p, const unsigned char *end, unsigned char *base, uint32_t *off,
	uint32_t commit, uint32_t head, uint32_t len, uint32_t *prev_delta)
{
	const uint32_t nb = 2 + (len - BP_RING_REC_HDR_BYTES) / 4;
	uint32_t at = *off, pd = *prev_delta;

	while ((size_t)(end - p) >= nb && commit - at >= len && p[0] == 0) {
		unsigned char *rec = base + at;
		unsigned hi = 0;
		uint32_t i;

		for (i = 1; i < nb; i++)
			hi |= p[i];
		if (hi & 0x80)
			break;
		pd += bp_unzigzag(p[1]);
		bp_st32(rec, head);
		bp_st32(rec + 4, pd);
		for (i = BP_RING_REC_HDR_BYTES; i < len; i += 4)
			bp_st32(rec + i, bp_ld32(rec + i - len) + bp_unzigzag(p[2 + (i - 8) / 4]));
		p += nb;
		at += len;
	}
	*off = at;
	*prev_delta = pd;
	return p;
}

int bp_dense_decode_page(const unsigned char *in, size_t len, uint32_t page_size,
			 unsigned char *page)
{
	const unsigned char *p, *end;
	unsigned char *base = page + BP_RING_PAGE_HDR_BYTES;
	uint32_t slots[NSLOT] = { 0 };
	uint32_t commit, off = 0, prev_head = 0, prev_delta = 0;
	int rc = bp_entry_open(in, len, page_size, page, &p, &end, &commit);

	if (rc != 0)
		return rc > 0 ? 0 : -1;
	while (p != end) {
		unsigned char *rec;
		const unsigned char *ref = NULL;
		uint64_t x, z;
		uint32_t head, rlen, delta, r;

		if (prev_head) {
			uint32_t plen = bp_ring_head_bytes(prev_head);

			if (plen == 16)
				p = get_run(p, end, base, &off, commit, prev_head, 16, &prev_delta);
			else
				p = get_run(p, end, base, &off, commit, prev_head, plen, &prev_delta);
			slots[slot_of(prev_head)] = off - plen + 1;
			if (p == end)
				break;
		}
		rec = base + off;
		if (bp_varint_get(&p, end, &x, BP_VARINT_LAST33) != 0)
			return -1;
		head = (uint32_t)(x >> 1) ^ prev_head;
		if (!(rlen = bp_ring_head_span(head, commit - off)) ||
		    bp_varint_get(&p, end, &z, BP_VARINT_LAST32) != 0)
			return -1;
		delta = prev_delta + bp_unzigzag((uint32_t)z);
		bp_st32(rec, head);
		bp_st32(rec + 4, delta);
		if (x & 1) {
			if ((size_t)(end - p) < rlen - BP_RING_REC_HDR_BYTES)
				return -1;
			memcpy(rec + BP_RING_REC_HDR_BYTES, p, rlen - BP_RING_REC_HDR_BYTES);
			p += rlen - BP_RING_REC_HDR_BYTES;
		} else {
			r = slots[slot_of(head)];
			if (r && bp_ld32(base + r - 1) == head)
				ref = base + r - 1 + BP_RING_REC_HDR_BYTES;
			if (get_words(&p, end, rec + BP_RING_REC_HDR_BYTES, ref,
				      rlen - BP_RING_REC_HDR_BYTES) != 0)
				return -1;
		}
		slots[slot_of(head)] = off + 1;
		off += rlen;
		prev_head = head;
		prev_delta = delta;
	}
	return bp_entry_close(page, page_size, off, commit);
}

int bp_page_entry_decode(uint32_t chunk_type, const unsigned char *in, size_t len,
			 uint32_t page_size, unsigned char *page)
{
	if (chunk_type == BP_CHUNK_CPAGES)
		return bp_compact_decode_page(in, len, page_size, page);
	if (chunk_type == BP_CHUNK_DPAGES)
		return bp_dense_decode_page(in, len, page_size, page);
	return -1;
}
