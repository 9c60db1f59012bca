/*
 * accounts_rollback FILE: make a stream file look as if bprint record had
 * been killed between writing its last pages chunk and updating the
 * accounts (docs/file-format.md, types 7 and 8), for tool_account.sh.
 *
 * A real kill falls in that window only by chance, so the test makes the
 * case: the entry of the last pages chunk's ring in the accounts chunk the
 * header names gets back the `copied` it had before that chunk (the
 * chunk's copied_before).  Everything else is left as the drainer wrote
 * it.  Exit 0 done, 1 nothing to roll back (no accounts, no pages chunk,
 * the ring not in the accounts), 2 an error.
 */
#include "file/layout.h"
#include "file/valid.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int rd(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct bp_file_header h;
	struct bp_file_cpages last;
	struct bp_file_end acct;
	struct stat st;
	uint64_t off = BP_FILE_HEADER_BYTES, size;
	int fd, found = 0;

	memset(&last, 0, sizeof(last));

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
	for (uint32_t i = 0; i < acct.count && i < 1u << 20; i++) {
		uint64_t at = h.accounts + BP_FILE_END_HDR_BYTES + (uint64_t)i * BP_FILE_END_RING_BYTES;
		struct bp_file_end_ring e;

		if (rd(fd, &e, sizeof(e), at) != 0)
			return 2;
		if (e.ring_index != last.ring_index)
			continue;
		printf("ring %llu: copied %llu -> %llu\n", (unsigned long long)e.ring_index,
		       (unsigned long long)e.copied, (unsigned long long)last.copied_before);
		e.copied = last.copied_before;
		if (pwrite(fd, &e, sizeof(e), (off_t)at) != (ssize_t)sizeof(e)) {
			perror(argv[1]);
			return 2;
		}
		return close(fd) == 0 ? 0 : 2;
	}
	return 1;
}
