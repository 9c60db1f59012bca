/*
 * fuzz_dense: the dense page entries of type 7 (src/file/dense.h), as a
 * reader meets them in a damaged stream file, and the encoder on any page.
 * The input is
 *
 *   byte 0      bits 0-1: page size 256, 512, 1024 or 4096;
 *               bit 7: the rest is a ring page to encode, else an entry
 *   then        the entry (or the page, zero-filled to the page size)
 *
 * An entry is copied into an allocation of exactly its size and decoded
 * into a page of exactly page_size bytes, so ASan reports any read or
 * write out of bounds.  An entry that decodes must give a page that
 * encodes and decodes back to the same bytes up to its commit, with zeroes
 * after; a page to encode must round trip exactly the same way.  The
 * decoder must also agree with the plain reading of the rules
 * (tests/file/dense_reference.h): the same verdict, the same page.  Every
 * page, decoded or given, is also read with the ring's page iterator, as
 * the reader reads streamed pages.
 * Seeds: fuzz/corpus/fuzz_dense/ (fuzz/gen-corpus.py).
 */
#include "file/dense.h"
#include "file/dense_reference.h"
#define CHECK_ABORTS
#include "check.h"
#include "ring/ring.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* page (commit within it) encodes, and decodes to itself. */
static void round_trip(const unsigned char *page, uint32_t ps)
{
	unsigned char *e = malloc(bp_compact_entry_max(ps)), *dec = malloc(ps);
	uint32_t commit;
	size_t len;

	CHECK(e && dec);
	memcpy(&commit, page + offsetof(struct bp_ring_page, commit), 4);
	len = bp_dense_encode_page(page, ps, e);
	CHECK(len <= bp_compact_entry_max(ps) && bp_compact_entry_len(e, ps) == len);
	if (commit <= ps - BP_RING_PAGE_HDR_BYTES) {
		CHECK(bp_dense_decode_page(e, len, ps, dec) == 0);
		CHECK(!memcmp(dec, page, BP_RING_PAGE_HDR_BYTES + commit));
		for (uint32_t i = BP_RING_PAGE_HDR_BYTES + commit; i < ps; i++)
			CHECK(dec[i] == 0);
	} else {
		CHECK(bp_dense_decode_page(e, len, ps, dec) != 0);
	}
	free(e);
	free(dec);
}

/*
 * The ring's page iterator (ring.h) over any page, as the reader reads
 * every streamed page: it ends, with no more records than 8-byte slots,
 * and agrees with bp_ring_page_records().
 */
static void iterate(const unsigned char *page, uint32_t ps)
{
	static uint32_t buf[BP_RING_REC_MAX_WORDS];
	struct bp_ring_page_iter it;
	struct bp_ring_event ev;
	uint64_t n = 0;
	int rc;

	if (bp_ring_page_begin(&it, page, ps, 0) != BP_RING_OK) {
		CHECK(bp_ring_page_records(page, ps) == 0);
		return;
	}
	while ((rc = bp_ring_page_next(&it, &ev, buf, sizeof(buf))) == 1) {
		CHECK(ev.payload_len <= ps && ev.payload == buf);
		CHECK(++n <= ps / BP_RING_REC_HDR_BYTES);
	}
	CHECK(rc == 0 || rc == BP_RING_ECORRUPT);
	CHECK(bp_ring_page_records(page, ps) == n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t sizes[] = { 256, 512, 1024, 4096 };
	uint32_t ps;
	unsigned char *in, *page, *ref;
	int rc;

	if (size < 1)
		return 0;
	ps = sizes[data[0] & 3];
	page = malloc(ps);
	CHECK(page);
	if (data[0] & 0x80) {
		memset(page, 0, ps);
		memcpy(page, data + 1, size - 1 < ps ? size - 1 : ps);
		iterate(page, ps);
		round_trip(page, ps);
		free(page);
		return 0;
	}
	in = malloc(size - 1 ? size - 1 : 1);
	ref = malloc(ps);
	CHECK(in && ref);
	memcpy(in, data + 1, size - 1);
	rc = bp_dense_decode_page(in, size - 1, ps, page);
	/* the decoder's fast paths against the plain reading of the rules */
	CHECK(ref_dense_decode_page(in, size - 1, ps, ref) == rc);
	CHECK(rc != 0 || !memcmp(page, ref, ps));
	if (rc == 0) {
		iterate(page, ps);
		round_trip(page, ps);
	}
	free(in);
	free(ref);
	free(page);
	return 0;
}
