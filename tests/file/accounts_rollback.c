/*
 * accounts_rollback FILE: make a stream file look as if bprint record had
 * been killed between writing a pages chunk and updating the accounts
 * (docs/file-format.md, types 7 and 8), for tool_account.sh.
 *
 * A real kill falls in that window only by chance, so the test makes the
 * case.  The ring is the one of the file's last pages chunk, and the chunk
 * C to roll back past is that ring's last chunk that loses records (a
 * first_rec gap before one of its pages: the drainer fell behind in
 * overwrite mode), or its last chunk if none does.  The ring's entry in
 * the accounts chunk the header names gets back what the drainer had
 * written there before C:
 *  - copied: C's copied_before;
 *  - lost_records: less the records lost in the gaps of C and later;
 *  - written and discarded: those of the ring's chunk before C (the
 *    drainer writes a chunk and the accounts from one snapshot).
 * Prints "ring R: copied A -> B, lost X -> Y", with "(no chunk loses
 * records)" after it when the drainer kept up (no gap to roll past).
 * Exit 0 done, 1 nothing to roll back (no accounts, no pages chunk, the
 * ring not in the accounts),
 * 2 an error.
 */
#include "file/compact.h"
#include "file/dense.h"
#include "file/layout.h"
#include "file/valid.h"
#include "ring/ring.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_CHUNKS 65536

struct chunk {
	struct bp_file_cpages h;
	uint64_t off;
	uint64_t gaps;		/* records lost before its pages */
};

static int rd(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

/*
 * Add to c->gaps the first_rec gaps before each page of chunk c, *expect
 * the index after the ring's last record so far (UINT64_MAX: none yet).
 */
static int chunk_gaps(int fd, struct chunk *c, uint64_t *expect)
{
	uint32_t ps = c->h.page_size;
	size_t max = bp_compact_entry_max(ps);
	unsigned char *entry = malloc(max), *page = malloc(ps);
	uint64_t pos = 0, base = c->off + BP_FILE_PAGES_OFFSET;
	int rc = 0;

	for (uint32_t i = 0; entry && page && i < c->h.npages; i++) {
		uint64_t n, first;
		size_t len;

		if (rd(fd, entry, BP_COMPACT_ENTRY_HDR, base + pos) != 0 ||
		    !(len = bp_compact_entry_len(entry, ps)) || len > max ||
		    rd(fd, entry, len, base + pos) != 0 ||
		    bp_page_entry_decode(c->h.chunk.type, entry, len, ps, page) != 0) {
			rc = -1;
			break;
		}
		pos += len;
		memcpy(&first, page + offsetof(struct bp_ring_page, first_rec), sizeof(first));
		n = bp_ring_page_records(page, ps);
		if (!n)
			continue;
		if (*expect != UINT64_MAX && first > *expect)
			c->gaps += first - *expect;
		*expect = first + n;
	}
	if (!entry || !page)
		rc = -1;
	free(entry);
	free(page);
	return rc;
}

int main(int argc, char **argv)
{
	static struct chunk ring[MAX_CHUNKS];
	struct bp_file_header h;
	struct bp_file_cpages last;
	struct bp_file_end acct;
	struct stat st;
	uint64_t off = BP_FILE_HEADER_BYTES, size, expect = UINT64_MAX, gaps = 0;
	size_t n = 0, roll;
	int fd, found = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: accounts_rollback FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0 || fstat(fd, &st) != 0 || rd(fd, &h, sizeof(h), 0) != 0) {
		perror(argv[1]);
		return 2;
	}
	size = (uint64_t)st.st_size;
	/* the last pages chunk names the ring */
	while (off + BP_CHUNK_HDR_BYTES <= size) {
		struct bp_file_chunk c;

		if (rd(fd, &c, sizeof(c), off) != 0 || !bp_valid_chunk(&c, off, size))
			break;
		if ((c.type == BP_CHUNK_DPAGES || c.type == BP_CHUNK_CPAGES) &&
		    bp_chunk_state(&c) == BP_CHUNK_COMPLETE && rd(fd, &last, sizeof(last), off) == 0)
			found = 1;
		off += c.size;
	}
	if (!found || !h.accounts || rd(fd, &acct, sizeof(acct), h.accounts) != 0)
		return 1;
	/* that ring's chunks, in file order, with their gaps */
	for (off = BP_FILE_HEADER_BYTES; off + BP_CHUNK_HDR_BYTES <= size && n < MAX_CHUNKS;) {
		struct bp_file_chunk c;

		if (rd(fd, &c, sizeof(c), off) != 0 || !bp_valid_chunk(&c, off, size))
			break;
		if ((c.type == BP_CHUNK_DPAGES || c.type == BP_CHUNK_CPAGES) &&
		    bp_chunk_state(&c) == BP_CHUNK_COMPLETE &&
		    rd(fd, &ring[n].h, sizeof(ring[n].h), off) == 0 &&
		    ring[n].h.ring_index == last.ring_index) {
			ring[n].off = off;
			ring[n].gaps = 0;
			if (chunk_gaps(fd, &ring[n], &expect) != 0) {
				fprintf(stderr, "%s: chunk at %llu does not decode\n", argv[1],
					(unsigned long long)off);
				return 2;
			}
			n++;
		}
		off += c.size;
	}
	for (roll = n - 1; roll > 0 && !ring[roll].gaps; roll--)
		;
	if (!ring[roll].gaps)
		roll = n - 1;
	for (uint32_t i = 0; i < acct.count && i < 1u << 20; i++) {
		uint64_t at = h.accounts + BP_FILE_END_HDR_BYTES + (uint64_t)i * BP_FILE_END_RING_BYTES;
		struct bp_file_end_ring e;

		if (rd(fd, &e, sizeof(e), at) != 0)
			return 2;
		if (e.ring_index != last.ring_index)
			continue;
		/* the gaps the accounts count: a real kill may have left the
		 * last chunk out of them already */
		for (size_t k = roll; k < n; k++)
			if (ring[k].h.copied_before < e.copied)
				gaps += ring[k].gaps;
		if (gaps > e.lost_records) {
			fprintf(stderr, "%s: ring %llu: gaps %llu, but the accounts lost %llu\n",
				argv[1], (unsigned long long)e.ring_index,
				(unsigned long long)gaps, (unsigned long long)e.lost_records);
			return 2;
		}
		printf("ring %llu: copied %llu -> %llu, lost %llu -> %llu%s\n",
		       (unsigned long long)e.ring_index, (unsigned long long)e.copied,
		       (unsigned long long)ring[roll].h.copied_before,
		       (unsigned long long)e.lost_records,
		       (unsigned long long)(e.lost_records - gaps),
		       ring[roll].gaps ? "" : " (no chunk loses records)");
		e.copied = ring[roll].h.copied_before;
		e.lost_records -= gaps;
		if (roll > 0 && ring[roll - 1].h.written < e.written) {
			e.written = ring[roll - 1].h.written;
			e.discarded = ring[roll - 1].h.discarded;
		}
		if (pwrite(fd, &e, sizeof(e), (off_t)at) != (ssize_t)sizeof(e)) {
			perror(argv[1]);
			return 2;
		}
		return close(fd) == 0 ? 0 : 2;
	}
	return 1;
}
