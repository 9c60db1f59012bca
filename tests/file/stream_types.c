/*
 * stream_types: the reader still reads the pages chunks of earlier
 * drainers (type 4 pages, type 6 compact pages) as it reads what `bprint
 * record` writes now (type 8 dense pages), record for record.
 *
 *   stream_types BPRINT TRACED WORKDIR
 *
 * `bprint record` drains the traced program (two threads, a signal timer,
 * small pages: many chunks) into a stream file of type 8 chunks.  Each of
 * its dense chunks is then rewritten as a type 6 chunk (every page
 * re-encoded by the compact encoder) and as a type 4 chunk (the pages as
 * they are), into two more files.  All three must open without a problem
 * and give the same records: time, thread, ring index and message.
 */
#include "file/compact.h"
#include "file/dense.h"
#include "file/layout.h"
#include "reader/reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;

#define FAIL(...) do { fprintf(stderr, "FAIL: " __VA_ARGS__); fputc('\n', stderr); failures++; } while (0)

static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = NULL;
	long len;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
	    !(p = malloc((size_t)len + 1)) || fread(p, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(2);
	}
	fclose(f);
	*n = (size_t)len;
	return p;
}

/* A dense chunk c as a chunk of type `type` (4 or 6) at o; its size, 0 if damaged. */
static size_t rewrite(const unsigned char *c, uint32_t type, unsigned char *o)
{
	struct bp_file_cpages h;
	unsigned char *page, *d = o + BP_FILE_PAGES_OFFSET;
	size_t at = 0, used = 0, size;

	memcpy(&h, c, sizeof(h));
	page = malloc(h.page_size);
	for (uint32_t i = 0; page && i < h.npages; i++) {
		const unsigned char *e = c + BP_FILE_PAGES_OFFSET + at;
		size_t len = bp_compact_entry_len(e, h.page_size);
		uint64_t seq;

		if (!len || len > h.data_bytes - at)
			return 0;
		memcpy(&seq, e, 8);
		if (seq == 0)
			memset(page, 0, h.page_size);	/* a hole stays a hole */
		else if (bp_dense_decode_page(e, len, h.page_size, page) != 0)
			return 0;
		at += len;
		if (type == BP_CHUNK_PAGES) {
			memcpy(d + used, page, h.page_size);
			used += h.page_size;
		} else if (seq == 0) {
			memset(d + used, 0, BP_COMPACT_ENTRY_HDR);
			used += BP_COMPACT_ENTRY_HDR;
		} else {
			used += bp_compact_encode_page(page, h.page_size, d + used);
		}
	}
	free(page);
	size = (size_t)bp_file_align_up(BP_FILE_PAGES_OFFSET + used);
	memcpy(o, c, BP_FILE_PAGES_OFFSET);
	memset(d + used, 0, size - BP_FILE_PAGES_OFFSET - used);
	memcpy(o + offsetof(struct bp_file_chunk, type), &type, 4);
	memcpy(o + offsetof(struct bp_file_chunk, size), &(uint64_t){ size }, 8);
	memcpy(o + offsetof(struct bp_file_cpages, data_bytes),
	       &(uint64_t){ type == BP_CHUNK_PAGES ? 0 : used }, 8);
	return size;
}

/* in (n bytes) with every dense chunk as a chunk of `type`, into path; the chunks rewritten. */
static unsigned convert(const unsigned char *in, size_t n, uint32_t type, const char *path)
{
	unsigned char *out = malloc(n * 8 + BP_FILE_HEADER_BYTES);
	size_t off = BP_FILE_HEADER_BYTES, w = BP_FILE_HEADER_BYTES;
	unsigned dense = 0;
	FILE *f;

	memcpy(out, in, BP_FILE_HEADER_BYTES);
	while (off + BP_CHUNK_HDR_BYTES <= n) {
		struct bp_file_chunk c;
		size_t size;

		memcpy(&c, in + off, sizeof(c));
		if (memcmp(c.magic, BP_CHUNK_MAGIC, 4) || c.size == 0 || c.size % BP_FILE_ALIGN ||
		    c.size > n - off) {
			FAIL("the stream file has a bad chunk at %zu", off);
			break;
		}
		if (c.type == BP_CHUNK_DPAGES) {
			size = rewrite(in + off, type, out + w);
			if (!size) {
				FAIL("a dense chunk at %zu does not decode", off);
				break;
			}
			dense++;
		} else {
			memcpy(out + w, in + off, c.size);
			size = c.size;
		}
		/* as the drainers of types 4 and 6 wrote them: no checksum */
		memset(out + w + offsetof(struct bp_file_chunk, crc), 0, 4);
		w += size;
		off += c.size;
	}
	/* ... and their header: format 1.1, no checksums, the end where it is */
	{
		struct bp_file_header h;

		memcpy(&h, out, sizeof(h));
		h.minor = 1;
		atomic_store(&h.flags, atomic_load(&h.flags) & ~BP_FILE_F_CRC);
		h.fixed_crc = h.header_crc = h.calib_crc[0] = h.calib_crc[1] = 0;	/* 1.4's */
		atomic_store(&h.end, (uint64_t)w);
		memcpy(out, &h, sizeof(h));
	}
	f = fopen(path, "wb");
	if (!f || fwrite(out, 1, w, f) != w || fclose(f) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(2);
	}
	free(out);
	return dense;
}

struct rec {
	uint64_t raw_ts, index;
	int32_t tid;
	char msg[128];
};

static struct rec *read_all(const char *path, size_t *n)
{
	char err[256];
	struct bp_trace *t = bp_trace_open(path, BP_TRACE_OPEN_NO_SYMBOLS, err, sizeof(err), NULL);
	struct bp_trace_event ev = BP_TRACE_EVENT_INIT;
	struct rec *r = NULL;
	size_t cap = 0;
	const char *first;

	*n = 0;
	if (!t) {
		FAIL("%s: %s", path, err);
		return NULL;
	}
	while (bp_trace_next(t, &ev, 0) == 1) {
		if (*n == cap && !(r = realloc(r, (cap = cap ? 2 * cap : 1024) * sizeof(*r))))
			exit(2);
		memset(&r[*n], 0, sizeof(r[*n]));
		r[*n].raw_ts = ev.raw_ts;
		r[*n].index = ev.index;
		r[*n].tid = ev.tid;
		snprintf(r[*n].msg, sizeof(r[*n].msg), "%s", ev.message);
		++*n;
	}
	if (bp_trace_problems(t, &first))
		FAIL("%s: %u problems, first: %s", path, bp_trace_problems(t, &first), first);
	bp_trace_close(t);
	return r;
}

int main(int argc, char **argv)
{
	char p7[4096], p6[4096], p4[4096];
	struct rec *r7, *r6, *r4;
	size_t n, n7, n6, n4;
	unsigned char *in;
	pid_t pid;
	int st = -1;

	if (argc != 4)
		return 2;
	snprintf(p7, sizeof(p7), "%s/type7.dat", argv[3]);
	snprintf(p6, sizeof(p6), "%s/type6.dat", argv[3]);
	snprintf(p4, sizeof(p4), "%s/type4.dat", argv[3]);
	if (mkdir(argv[3], 0700) != 0 && errno != EEXIST)
		return 2;
	unlink(p7);
	pid = fork();
	if (pid == 0) {
		execl(argv[1], argv[1], "record", "-q", "-o", p7, "--buffer-size", "16K",
		      "--page-size", "1K", "--", argv[2], "--threads", "2", "--records", "1500",
		      "--timer", "100", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || st != 0) {
		fprintf(stderr, "bprint record: status %d\n", st);
		return 1;
	}
	in = slurp(p7, &n);
	if (convert(in, n, BP_CHUNK_CPAGES, p6) < 2 || convert(in, n, BP_CHUNK_PAGES, p4) < 2)
		FAIL("fewer than 2 dense pages chunks in the stream file");
	free(in);
	r7 = read_all(p7, &n7);
	r6 = read_all(p6, &n6);
	r4 = read_all(p4, &n4);
	if (n7 < 1500)
		FAIL("type 8: %zu records, expected at least 1500", n7);
	if (n6 != n7 || n4 != n7)
		FAIL("records: type 8 %zu, type 6 %zu, type 4 %zu", n7, n6, n4);
	for (size_t i = 0; i < n7 && i < n6 && i < n4; i++)
		if (memcmp(&r7[i], &r6[i], sizeof(r7[i])) || memcmp(&r7[i], &r4[i], sizeof(r7[i]))) {
			FAIL("record %zu differs: type 8 '%s', type 6 '%s', type 4 '%s'", i,
			     r7[i].msg, r6[i].msg, r4[i].msg);
			break;
		}
	free(r7);
	free(r6);
	free(r4);
	if (failures)
		return 1;
	printf("stream_types: %zu records alike in types 7, 6 and 4\n", n7);
	return 0;
}
