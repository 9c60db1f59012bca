/*
 * bench/pages: what `bprint record` writes per event, and what encoding a
 * page costs it, for the dense pages of type 7 against the compact pages
 * of type 6 (docs/file-format.md), side by side in one run.
 *
 * For each message of bench/peers/msgs.h (the seed and NanoLog's set) it
 * fills a ring with the real ring writer: the block bp_bin_printf() packs
 * for the arguments of call i, the site id in the user bits (the CPU
 * prefix of a page's first record as the tracer writes it), and a clock
 * that advances 9 to 14 ticks a record (a loop tracing flat out: about
 * 10 ns a record, ns clock).  The completed 4 KiB pages are copied out as
 * the drainer copies them, then each codec encodes all of them, several
 * runs, and every entry is decoded and compared with its page.
 *
 * Printed per message: bytes per event of each codec (the entries, plus
 * the pages chunks' 128-byte header and padding to 4 KiB for chunks of
 * 256 pages), the ratio compact / dense, and the median encode time per
 * page and per record of each.
 *
 *   build/bench/bench-pages [runs]
 */
#include <bprint/format.h>

#include "bench.h"
#include "file/compact.h"
#include "file/dense.h"
#include "file/layout.h"
#include "peers/msgs.h"
#include "ring/ring.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PS 4096u
#define NPAGES 257u			/* 256 completed pages and the head */
#define CHUNK_PAGES 256u
#define REC_CPU (1u << 19)		/* BP_REC_CPU, docs/trace-format.md */

struct codec {
	const char *name;
	size_t (*encode)(const unsigned char *restrict, uint32_t, unsigned char *restrict);
	int (*decode)(const unsigned char *, size_t, uint32_t, unsigned char *);
};

static const struct codec codecs[2] = {
	{ "type 6", bp_compact_encode_page, bp_compact_decode_page },
	{ "type 7", bp_dense_encode_page, bp_dense_decode_page },
};

static unsigned char ring[BP_RING_CTL_BYTES + NPAGES * PS] __attribute__((aligned(64)));
static unsigned char pages[NPAGES][PS];
static unsigned char *out;
static size_t out_stride;

/* The block of call i of message m into bin; its words. */
static size_t block(const char *m, size_t i, uint32_t *bin, size_t words)
{
#define PACK(name) \
	if (!strcmp(m, #name)) \
		return bp_bin_printf(bin, words, ARGS_##name(i));
	PEER_MSGS(PACK)
#undef PACK
	return 0;
}

/* Fill the ring with message m (site id); the completed pages and records. */
static unsigned fill(const char *m, uint32_t site, uint64_t *records)
{
	struct bp_ring_writer w;
	struct bp_ring_stats st;
	uint64_t ts = 1000, rng = 88172645463325252ull, seq_before = 0;
	uint32_t bin[64];
	unsigned n = 0;

	if (bp_ring_init(ring, sizeof(ring), PS, BP_RING_DISCARD) != BP_RING_OK ||
	    bp_ring_writer_init(&w, ring, sizeof(ring)) != BP_RING_OK)
		exit(2);
	for (size_t i = 0;; i++) {
		size_t words = block(m, i, bin + 1, 63);
		uint32_t user = site, *p;

		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		ts += 9 + rng % 6;
		bp_ring_stats(ring, sizeof(ring), &st);
		if (st.head_seq != seq_before) {	/* a new page: the CPU prefix */
			seq_before = st.head_seq;
			user |= REC_CPU;
		}
		bin[0] = 1;
		p = bp_ring_reserve(&w, (uint32_t)(words + (user & REC_CPU ? 1 : 0)) * 4, user, ts);
		if (!p)
			break;	/* discard mode: the ring is full */
		memcpy(p, user & REC_CPU ? bin : bin + 1, (words + (user & REC_CPU ? 1 : 0)) * 4);
		bp_ring_commit(&w);
	}
	bp_ring_stats(ring, sizeof(ring), &st);
	*records = 0;
	for (uint64_t seq = 1; seq < st.head_seq && n < NPAGES; seq++, n++) {
		uint32_t commit, off = 0, head;

		if (bp_ring_copy_page(ring, sizeof(ring), seq, pages[n]) != BP_RING_OK)
			exit(2);
		memcpy(&commit, pages[n] + offsetof(struct bp_ring_page, commit), 4);
		for (; off < commit; off += (head & BP_RING_HEAD_LEN_MASK) * 4, ++*records)
			memcpy(&head, pages[n] + BP_RING_PAGE_HDR_BYTES + off, 4);
	}
	return n;
}

/* Encode the n pages with c into out; the bytes of all entries. */
static size_t encode_all(const struct codec *c, unsigned n)
{
	size_t bytes = 0;

	for (unsigned i = 0; i < n; i++)
		bytes += c->encode(pages[i], PS, out + (size_t)i * out_stride);
	__asm__ volatile("" ::: "memory");
	return bytes;
}

static int check_all(const struct codec *c, unsigned n)
{
	static unsigned char dec[PS];

	for (unsigned i = 0; i < n; i++) {
		const unsigned char *e = out + (size_t)i * out_stride;
		uint32_t commit;

		memcpy(&commit, pages[i] + offsetof(struct bp_ring_page, commit), 4);
		if (c->decode(e, bp_compact_entry_len(e, PS), PS, dec) != 0 ||
		    memcmp(dec, pages[i], BP_RING_PAGE_HDR_BYTES + commit))
			return -1;
	}
	return 0;
}

/* On disk: the entries in chunks of CHUNK_PAGES, each header + padding. */
static double on_disk(size_t entry_bytes, unsigned n)
{
	unsigned chunks = (n + CHUNK_PAGES - 1) / CHUNK_PAGES;
	double per = (double)entry_bytes / n * CHUNK_PAGES;

	return (double)chunks * (double)bp_file_align_up((uint64_t)(BP_FILE_PAGES_OFFSET + per));
}

int main(int argc, char **argv)
{
	static const char *msgs[] = {
#define NAME(name) #name,
		PEER_MSGS(NAME)
#undef NAME
	};
	int runs = argc > 1 ? atoi(argv[1]) : 15;
	double seed_dense = 0;
	int bad = 0;

	if (runs < 1)
		runs = 1;
	out_stride = bp_compact_entry_max(PS);
	out = malloc(out_stride * NPAGES);
	if (!out)
		return 2;
	printf("bytes per event on disk and encode cost per 4 KiB page, %d runs, median\n", runs);
	printf("%-12s %7s | %8s %8s %6s | %9s %9s %8s %8s\n", "message", "rec B", "type 6",
	       "type 7", "6/7", "ns/page 6", "ns/page 7", "ns/rec 6", "ns/rec 7");
	for (size_t m = 0; m < sizeof(msgs) / sizeof(msgs[0]); m++) {
		uint64_t records;
		unsigned n = fill(msgs[m], (uint32_t)m + 1, &records);
		double bpe[2], ns[2];

		for (int k = 0; k < 2; k++) {
			double t[64];
			size_t bytes = 0;

			for (int r = 0; r < runs && r < 64; r++) {
				double t0 = bench_now_ns();

				bytes = encode_all(&codecs[k], n);
				t[r] = (bench_now_ns() - t0) / n;
			}
			ns[k] = bench_median(t, runs < 64 ? runs : 64);
			bpe[k] = on_disk(bytes, n) / (double)records;
			if (check_all(&codecs[k], n) != 0) {
				fprintf(stderr, "%s: %s did not round trip\n", msgs[m], codecs[k].name);
				bad = 1;
			}
		}
		if (m == 0)
			seed_dense = bpe[1];
		printf("%-12s %7.1f | %8.2f %8.2f %6.2f | %9.0f %9.0f %8.2f %8.2f\n", msgs[m],
		       (double)(n * (PS - BP_RING_PAGE_HDR_BYTES)) / (double)records, bpe[0], bpe[1],
		       bpe[0] / bpe[1], ns[0], ns[1], ns[0] * n / (double)records,
		       ns[1] * n / (double)records);
	}
	printf("target: seed on disk <= 7.0 B/event with type 7: %.2f, %s\n", seed_dense,
	       seed_dense <= 7.0 ? "holds" : "MISSED");
	free(out);
	return bad;
}
