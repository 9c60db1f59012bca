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

/*
 * The decoder.  A page is a loop of one site (tag 0) or a few sites taking
 * turns, and most varints are a byte, so the work a record is kept to:
 * get_same() decodes a loop's records with the record before as their
 * reference (no slot table) and get_record() any record; both check the
 * entry's end once a record, not once a varint: where the rest of the
 * entry holds the longest coding of what is read next (5 bytes a varint,
 * 3 more for the last one's 8-byte load), bp_varint_get8() reads without
 * end checks, and only the last few records of an entry take the checked
 * bp_varint_get().
 * Both refuse exactly what the rules refuse, nothing more: each record is
 * decoded as the plain reading of docs/file-format.md decodes it (the test
 * dense_differential holds the two together).
 *
 * The slot of the previous record is written late, when a record of
 * another head comes (or never, on a page of one site): until then only a
 * record of the same head could look it up, and that one's reference is
 * the record before in any case.
 */

/* Room for n varints read with bp_varint_get8(): the last loads 8 bytes. */
#define VARINTS_ROOM(n) ((size_t)(n) * BP_VARINT_MAX + 8 - BP_VARINT_MAX)

/* bp_unzigzag() of a one-byte varint (0-127), looked up: two loads where
 * the arithmetic takes five instructions. */
static const uint32_t unzigzag7[128] = {
#define UNZZ2(b) (b) >> 1u, ~((b) >> 1u)
#define UNZZ8(b) UNZZ2(b), UNZZ2((b) + 2), UNZZ2((b) + 4), UNZZ2((b) + 6)
#define UNZZ32(b) UNZZ8(b), UNZZ8((b) + 8), UNZZ8((b) + 16), UNZZ8((b) + 24)
	UNZZ32(0u), UNZZ32(32u), UNZZ32(64u), UNZZ32(96u)
#undef UNZZ32
#undef UNZZ8
#undef UNZZ2
};

/*
 * A difference (time, payload word): the varint of its zigzag at p, as
 * bp_varint_get8() reads it, unzigzagged into *d.  The end, or NULL.
 */
static inline __attribute__((always_inline)) const unsigned char *
get_diff8(const unsigned char *p, uint32_t *d)
{
	uint64_t z;

	if (__builtin_expect(p[0] < 0x80, 1)) {
		*d = unzigzag7[p[0]];
		return p + 1;
	}
	if ((p = bp_varint_get8(p, &z, 32)))
		*d = bp_unzigzag((uint32_t)z);
	return p;
}

/* The reference of a record that has none: its payload's words are 0. */
static const unsigned char no_ref[BP_RING_REC_MAX_WORDS * 4];

/* Payload words (pay bytes) into rec against ref's, each varint checked. */
static __attribute__((noinline)) const unsigned char *
get_words_checked(const unsigned char *p, const unsigned char *end, unsigned char *rec,
		  const unsigned char *ref, uint32_t pay)
{
	uint64_t z;

	for (uint32_t i = 0; i < pay; i += 4) {
		if (bp_varint_get(&p, end, &z, BP_VARINT_LAST32) != 0)
			return NULL;
		bp_st32(rec + i, bp_ld32(ref + i) + bp_unzigzag((uint32_t)z));
	}
	return p;
}

/*
 * The same, unchecked where the entry has room for them all.  Inline, so
 * that the callers' constant pay makes the common records a straight line.
 */
static inline __attribute__((always_inline)) const unsigned char *
get_words(const unsigned char *p, const unsigned char *end, unsigned char *rec,
	  const unsigned char *ref, uint32_t pay)
{
	uint32_t d;

	if (__builtin_expect((size_t)(end - p) < VARINTS_ROOM(pay / 4), 0))
		return get_words_checked(p, end, rec, ref, pay);
#pragma GCC unroll 4
	for (uint32_t i = 0; i < pay; i += 4) {
		if (!(p = get_diff8(p, &d)))
			return NULL;
		bp_st32(rec + i, bp_ld32(ref + i) + d);
	}
	return p;
}

/*
 * Which of w0, w1, w2 is word i of a payload in get_same(): up to 3 words
 * are carried from record to record in registers (named variables: an
 * array stays in memory), as a reload of the words just stored would put
 * a store's forwarding into every record's path.
 */
#define SAME_REG_WORDS 3u

static inline __attribute__((always_inline)) uint32_t *
same_word(uint32_t i, uint32_t *w0, uint32_t *w1, uint32_t *w2)
{
	return i == 0 ? w0 : i == 1 ? w1 : w2;
}

/*
 * Records of len bytes with head, after the record before base + *off (of
 * that head: their reference), while the entry has tag 0 and room for the
 * longest coding of one.  The loop's records whose fields take a byte each
 * (what the encoder's put_run() writes) are told by one test of a load.
 * Stops before a record whose time or words have a varint too long
 * (get_record() then refuses it).  Returns where it stopped; *off and
 * *prev_delta follow it.  Inline, so that the callers' constant lengths
 * make loops of their own for the common records.
 */
static inline __attribute__((always_inline)) const unsigned char *
get_same(const unsigned char *p, const unsigned char *end, unsigned char *base, uint32_t *off,
	 uint32_t commit, uint32_t head, uint32_t len, uint32_t *prev_delta)
{
	const uint32_t pay = len - BP_RING_REC_HDR_BYTES, nw = pay / 4, nb = 2 + nw;
	const size_t room = 1 + VARINTS_ROOM(1 + nw);
	/* tag 0 and bit 7 clear in the other nb - 1 bytes */
	const uint64_t run_mask = nb <= 8 ? 0xff | (0x8080808080808080ull & (~0ull >> (64 - 8 * nb)))
					  : 0;
	const bool in_regs = nw <= SAME_REG_WORDS;
	uint32_t at = *off, pd = *prev_delta, w0 = 0, w1 = 0, w2 = 0;

	if (in_regs)
		for (uint32_t i = 0; i < nw; i++)
			*same_word(i, &w0, &w1, &w2) = bp_ld32(base + at - pay + 4 * i);
	while ((size_t)(end - p) >= room && commit - at >= len) {
		unsigned char *rec = base + at, *words = rec + BP_RING_REC_HDR_BYTES;
		const unsigned char *q;
		uint32_t n0 = 0, n1 = 0, n2 = 0, dt;
		uint64_t b;

		memcpy(&b, p, sizeof(b));	/* room >= 9 bytes */
		if (nb <= 8 && !(b & run_mask)) {
			pd += unzigzag7[p[1]];
			bp_st32(rec, head);
			bp_st32(rec + 4, pd);
			for (uint32_t i = 0; i < nw; i++) {
				uint32_t d = unzigzag7[p[2 + i]];

				if (in_regs)
					bp_st32(words + 4 * i, *same_word(i, &w0, &w1, &w2) += d);
				else
					bp_st32(words + 4 * i, bp_ld32(words + 4 * i - len) + d);
			}
			p += nb;
			at += len;
			continue;
		}
		if ((unsigned char)b != 0 || !(q = get_diff8(p + 1, &dt)))
			break;
		bp_st32(rec, head);
		bp_st32(rec + 4, pd + dt);
		for (uint32_t i = 0; i < nw && q; i++) {
			uint32_t d, v;

			if (!(q = get_diff8(q, &d)))
				break;
			if (in_regs)
				v = *same_word(i, &n0, &n1, &n2) = *same_word(i, &w0, &w1, &w2) + d;
			else
				v = bp_ld32(words + 4 * i - len) + d;
			bp_st32(words + 4 * i, v);
		}
		if (!q)
			break;
		w0 = n0;	/* the record is whole: its words are the next one's */
		w1 = n1;
		w2 = n2;
		pd += dt;
		p = q;
		at += len;
	}
	*off = at;
	*prev_delta = pd;
	return p;
}

/*
 * The record at base + *off from the entry at p (ending at end): its head
 * from the previous record's, *prev_head, and so on; slots with *prev_head's
 * late.  fast: the entry has room for the record's tag and time.  Returns
 * the entry after it, or NULL.
 */
static inline __attribute__((always_inline)) const unsigned char *
get_record(const unsigned char *p, const unsigned char *end, unsigned char *base,
	   uint32_t *slots, uint32_t commit, uint32_t *off, uint32_t *prev_head,
	   uint32_t *prev_delta, bool fast)
{
	unsigned char *rec = base + *off;
	const unsigned char *ref;
	uint64_t x, z;
	uint32_t head, rlen, r, dt;

	if (fast ? !(p = bp_varint_get8(p, &x, 33)) : !(p = bp_varint_get_bits(p, end, &x, 33)))
		return NULL;
	head = (uint32_t)(x >> 1) ^ *prev_head;
	if (!(rlen = bp_ring_head_span(head, commit - *off)))
		return NULL;
	if (fast ? !(p = get_diff8(p, &dt)) : !(p = bp_varint_get_bits(p, end, &z, 32)))
		return NULL;
	if (!fast)
		dt = bp_unzigzag((uint32_t)z);
	if (head != *prev_head && *prev_head)	/* the late slot */
		slots[slot_of(*prev_head)] = *off - bp_ring_head_bytes(*prev_head) + 1;
	*prev_delta += dt;
	bp_st32(rec, head);
	bp_st32(rec + 4, *prev_delta);
	*off += rlen;
	*prev_head = head;
	if (x & 1) {
		if ((size_t)(end - p) < rlen - BP_RING_REC_HDR_BYTES)
			return NULL;
		memcpy(rec + BP_RING_REC_HDR_BYTES, p, rlen - BP_RING_REC_HDR_BYTES);
		return p + rlen - BP_RING_REC_HDR_BYTES;
	}
	if (!x)
		ref = rec - rlen + BP_RING_REC_HDR_BYTES;	/* the same head: the record before */
	else if ((r = slots[slot_of(head)]) && bp_ld32(base + r - 1) == head)
		ref = base + r - 1 + BP_RING_REC_HDR_BYTES;
	else
		ref = no_ref;
	if (rlen == 16)
		return get_words(p, end, rec + BP_RING_REC_HDR_BYTES, ref, 8);
	if (rlen == 20)
		return get_words(p, end, rec + BP_RING_REC_HDR_BYTES, ref, 12);
	return get_words(p, end, rec + BP_RING_REC_HDR_BYTES, ref, rlen - BP_RING_REC_HDR_BYTES);
}

/* Where get_same() stopped. */
struct same_end {
	const unsigned char *p;
	uint32_t off, prev_delta;
};

/*
 * get_same() for records of head, in a function of its own (a run takes
 * many records; the caller's loop keeps its registers), with the common
 * lengths' loops apart.
 */
static __attribute__((noinline)) struct same_end
get_same_run(const unsigned char *p, const unsigned char *end, unsigned char *base, uint32_t off,
	     uint32_t commit, uint32_t head, uint32_t prev_delta)
{
	uint32_t len = bp_ring_head_bytes(head);

	if (len == 16)
		p = get_same(p, end, base, &off, commit, head, 16, &prev_delta);
	else if (len == 20)
		p = get_same(p, end, base, &off, commit, head, 20, &prev_delta);
	else
		p = get_same(p, end, base, &off, commit, head, len, &prev_delta);
	return (struct same_end){ p, off, prev_delta };
}

/* get_record() near the end of an entry, out of the way of the loop. */
static __attribute__((noinline)) const unsigned char *
get_record_checked(const unsigned char *p, const unsigned char *end, unsigned char *base,
		   uint32_t *slots, uint32_t commit, uint32_t *off, uint32_t *prev_head,
		   uint32_t *prev_delta)
{
	return get_record(p, end, base, slots, commit, off, prev_head, prev_delta, false);
}

int bp_dense_decode_page(const unsigned char *in, size_t len, uint32_t page_size,
			 unsigned char *page)
{
	unsigned char *base = page + BP_RING_PAGE_HDR_BYTES;
	const unsigned char *p, *end, *o_rec, *o_end;
	uint32_t slots[NSLOT] = { 0 };	/* record offset + 1; 0 = empty */
	uint32_t commit, off = 0, prev_head = 0, prev_delta = 0, t_off, t_head, t_delta, o_commit;
	int rc = bp_entry_open(in, len, page_size, page, &o_rec, &o_end, &o_commit);

	if (rc != 0)
		return rc > 0 ? 0 : -1;
	p = o_rec;	/* copies, whose addresses are not taken: registers */
	end = o_end;
	commit = o_commit;
	while ((size_t)(end - p) >= VARINTS_ROOM(2)) {
		if (p[0] == 0 && prev_head) {	/* the record before's head again */
			struct same_end r = get_same_run(p, end, base, off, commit, prev_head,
							 prev_delta);

			p = r.p;
			off = r.off;
			prev_delta = r.prev_delta;
			if ((size_t)(end - p) < VARINTS_ROOM(2))
				break;
		}
		p = get_record(p, end, base, slots, commit, &off, &prev_head, &prev_delta, true);
		if (!p)
			return -1;
	}
	/* the last records: their own copy of the state, so that the loop's
	 * stays in registers */
	t_off = off;
	t_head = prev_head;
	t_delta = prev_delta;
	while (p != end)
		if (!(p = get_record_checked(p, end, base, slots, commit, &t_off, &t_head, &t_delta)))
			return -1;
	return bp_entry_close(page, page_size, t_off, commit);
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
