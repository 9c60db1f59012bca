/*
 * Compact page entries (compact.h): why a separate file - the drainer
 * encodes, the reader decodes, and a property test drives both directly.
 * The decoder reads untrusted bytes: every varint is bounded to 5 bytes,
 * every length is checked against the entry and the page before use.
 */
#include "file/compact.h"

#include "ring/ring.h"

#include <string.h>

static inline unsigned char *put_varint(unsigned char *o, uint32_t v)
{
	if (__builtin_expect(v < 0x80, 1)) {
		*o = (unsigned char)v;
		return o + 1;
	}
	while (v >= 0x80) {
		*o++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*o++ = (unsigned char)v;
	return o;
}

/* A 32-bit varint from [*in, end): 0, or -1 if it is cut or too long. */
static inline int get_varint(const unsigned char **in, const unsigned char *end, uint32_t *v)
{
	const unsigned char *p = *in;
	uint32_t x = 0;

	if (__builtin_expect(p != end && *p < 0x80, 1)) {
		*v = *p;
		*in = p + 1;
		return 0;
	}
	for (unsigned shift = 0; shift < 35; shift += 7) {
		uint32_t b;

		if (p == end)
			return -1;
		b = *p++;
		if (shift == 28 && b > 0x0f)
			return -1;	/* more than 32 bits, or a 6th byte */
		x |= (b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*in = p;
			*v = x;
			return 0;
		}
	}
	return -1;
}

static inline uint32_t ld32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

size_t bp_compact_encode_page(const unsigned char *restrict page, uint32_t page_size,
			      unsigned char *restrict out)
{
	const uint32_t room = page_size - BP_RING_PAGE_HDR_BYTES;
	const unsigned char *rec = page + BP_RING_PAGE_HDR_BYTES, *end;
	unsigned char *o = out + BP_COMPACT_ENTRY_HDR;
	uint32_t commit, prev = 0, plen = 0, enc;

	memcpy(out, page, BP_RING_PAGE_HDR_BYTES);
	commit = ld32(out + offsetof(struct bp_ring_page, commit));
	if (commit > room)
		commit = room;	/* damaged: stored raw, the reader rejects it */
	end = rec + commit;
	while (rec != end) {
		uint32_t head, len;

		if ((size_t)(end - rec) < BP_RING_REC_HDR_BYTES)
			goto raw;
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
		head = ld32(rec);
		len = (head & BP_RING_HEAD_LEN_MASK) * 4u;
		if (len < BP_RING_REC_HDR_BYTES || len > (size_t)(end - rec))
			goto raw;
		o = put_varint(o, head ^ prev);
		o = put_varint(o, ld32(rec + 4));
		if (len == 16)
			memcpy(o, rec + 8, 8);	/* the common case, a fixed-size copy */
		else
			memcpy(o, rec + 8, len - 8);
		o += len - 8;
		rec += len;
		prev = head;
		plen = len;
	}
	enc = (uint32_t)(o - out - BP_COMPACT_ENTRY_HDR);
	memcpy(out + BP_RING_PAGE_HDR_BYTES, &enc, 4);
	return BP_COMPACT_ENTRY_HDR + enc;
raw:
	/* Records that do not tile commit: keep the bytes as they are. */
	memcpy(out + BP_COMPACT_ENTRY_HDR, page + BP_RING_PAGE_HDR_BYTES, commit);
	enc = commit | BP_COMPACT_RAW;
	memcpy(out + BP_RING_PAGE_HDR_BYTES, &enc, 4);
	return BP_COMPACT_ENTRY_HDR + commit;
}

size_t bp_compact_entry_len(const unsigned char *hdr, uint32_t page_size)
{
	uint32_t n = ld32(hdr + BP_RING_PAGE_HDR_BYTES) & BP_COMPACT_LEN_MASK;

	if (n > bp_compact_enc_max(page_size))
		return 0;
	return BP_COMPACT_ENTRY_HDR + n;
}

int bp_compact_decode_page(const unsigned char *in, size_t len, uint32_t page_size,
			   unsigned char *page)
{
	const unsigned char *p, *end;
	unsigned char *rec;
	uint32_t room, commit, enc, n, off = 0, prev = 0;

	if (page_size < BP_RING_PAGE_MIN || len < BP_COMPACT_ENTRY_HDR)
		return -1;
	room = page_size - BP_RING_PAGE_HDR_BYTES;
	commit = ld32(in + offsetof(struct bp_ring_page, commit));
	enc = ld32(in + BP_RING_PAGE_HDR_BYTES);
	n = enc & BP_COMPACT_LEN_MASK;
	if (commit > room || n != len - BP_COMPACT_ENTRY_HDR)
		return -1;
	memcpy(page, in, BP_RING_PAGE_HDR_BYTES);
	rec = page + BP_RING_PAGE_HDR_BYTES;
	p = in + BP_COMPACT_ENTRY_HDR;
	end = p + n;
	if (enc & BP_COMPACT_RAW) {
		if (n != commit)
			return -1;
		memcpy(rec, p, n);
		memset(rec + n, 0, room - n);
		return 0;
	}
	while (p != end) {
		uint32_t x, head, delta, rlen;

		if (get_varint(&p, end, &x) != 0)
			return -1;
		head = x ^ prev;
		rlen = (head & BP_RING_HEAD_LEN_MASK) * 4u;
		if (rlen < BP_RING_REC_HDR_BYTES || rlen > commit - off)
			return -1;
		if (get_varint(&p, end, &delta) != 0 ||
		    (size_t)(end - p) < rlen - BP_RING_REC_HDR_BYTES)
			return -1;
		memcpy(rec + off, &head, 4);
		memcpy(rec + off + 4, &delta, 4);
		if (rlen == 16)
			memcpy(rec + off + 8, p, 8);	/* the common case, a fixed-size copy */
		else
			memcpy(rec + off + 8, p, rlen - BP_RING_REC_HDR_BYTES);
		p += rlen - BP_RING_REC_HDR_BYTES;
		off += rlen;
		prev = head;
	}
	if (off != commit)
		return -1;
	memset(rec + off, 0, room - off);
	return 0;
}
