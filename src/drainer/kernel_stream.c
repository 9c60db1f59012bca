/*
 * The kernel stream's writer of bprint/record.h (`bprint record
 * --kernel`, docs/kernel-stream.md): the kernel formats chunk built from
 * the formats the caller reads out of tracefs, the kernel pages chunks
 * from its batches of trace_pipe_raw pages, both appended to a drainer's
 * stream (bp_drain_put_chunk()), and the facts about the kernel's pages
 * and clocks the caller needs.  What to read from tracefs, and when, is
 * the caller's.
 */
#include <bprint/record.h>

#include "file/kernel_layout.h"
#include "file/layout.h"
#include "trace/clock.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

_Static_assert(BP_KFORMATS_HEADER_PAGE == BP_KERNEL_REC_HEADER_PAGE &&
		       BP_KFORMATS_EVENT == BP_KERNEL_REC_EVENT,
	       "the public kinds are the format's");

/* bprint's clocks and the kernel's trace_clock of the same time */
static const struct {
	const char *bprint, *kernel;
} kernel_clocks[] = {
	{ "tsc", "x86-tsc" }, { "mono", "mono" }, { "mono_raw", "mono_raw" }, { "boot", "boot" },
};

const char *bp_record_kernel_clock(const char *clock)
{
	for (size_t i = 0; clock && i < sizeof(kernel_clocks) / sizeof(kernel_clocks[0]); i++)
		if (!strcmp(kernel_clocks[i].bprint, clock))
			return kernel_clocks[i].kernel;
	return NULL;
}

/* ---- the formats chunk ------------------------------------------------- */

struct bp_kformats {
	unsigned char *p;
	size_t len, cap;
};

struct bp_kformats *bp_kformats_new(void)
{
	return calloc(1, sizeof(struct bp_kformats));
}

void bp_kformats_free(struct bp_kformats *g)
{
	if (g) {
		free(g->p);
		free(g);
	}
}

int bp_kformats_add(struct bp_kformats *g, unsigned kind, const char *system, const char *text)
{
	struct bp_file_krec r = { 0, kind, (uint32_t)strlen(system) + 1, (uint32_t)strlen(text) + 1 };
	size_t bytes = (BP_KERNEL_REC_BYTES + r.system_len + r.text_len + 3) & ~(size_t)3;

	if (g->len + bytes > g->cap) {
		size_t cap = (g->len + bytes) * 2;
		unsigned char *p = realloc(g->p, cap);

		if (!p)
			return -1;
		g->p = p;
		g->cap = cap;
	}
	r.rec_bytes = (uint32_t)bytes;
	memset(g->p + g->len, 0, bytes);
	memcpy(g->p + g->len, &r, sizeof(r));
	memcpy(g->p + g->len + BP_KERNEL_REC_BYTES, system, r.system_len);
	memcpy(g->p + g->len + BP_KERNEL_REC_BYTES + r.system_len, text, r.text_len);
	g->len += bytes;
	return 0;
}

int bp_drain_put_kformats(struct bp_drain_file *f, const struct bp_kformats *g, uint32_t ncpus,
			  uint32_t page_size, const char *clock, int32_t root_pid)
{
	struct bp_file_kformats h;
	enum bp_clock_id id;
	const char *trace_clock = bp_record_kernel_clock(clock);
	uint64_t size;
	unsigned char *chunk;
	int rc;

	if (!trace_clock || bp_clock_parse(clock, &id) != 0)
		return -1;
	size = (BP_KERNEL_DATA_OFFSET + g->len + BP_FILE_ALIGN - 1) / BP_FILE_ALIGN * BP_FILE_ALIGN;
	if (!(chunk = calloc(1, size)))
		return -1;
	memset(&h, 0, sizeof(h));
	h.used = (uint32_t)g->len;
	h.ncpus = ncpus;
	h.page_size = page_size;
	h.clock = (uint32_t)id;
	snprintf(h.trace_clock, sizeof(h.trace_clock), "%s", trace_clock);
	h.root_pid = (uint64_t)(int64_t)root_pid;
	h.long_size = (uint32_t)sizeof(long);
	memcpy(chunk, &h, sizeof(h));
	if (g->len)
		memcpy(chunk + BP_KERNEL_DATA_OFFSET, g->p, g->len);
	rc = bp_drain_put_chunk(f, BP_CHUNK_KFORMATS, chunk, size);
	free(chunk);
	return rc;
}

/* ---- the pages chunks -------------------------------------------------- */

size_t bp_kpages_size(uint32_t npages, uint32_t page_size)
{
	return (BP_KERNEL_DATA_OFFSET + (size_t)npages * page_size + BP_FILE_ALIGN - 1) /
	       BP_FILE_ALIGN * BP_FILE_ALIGN;
}

void *bp_kpages_page(void *batch, uint32_t i, uint32_t page_size)
{
	return (unsigned char *)batch + BP_KERNEL_DATA_OFFSET + (size_t)i * page_size;
}

int bp_drain_put_kpages(struct bp_drain_file *f, void *batch, uint32_t cpu, uint32_t npages,
			uint32_t page_size, uint64_t seq, uint64_t missed, uint64_t missed_pages)
{
	struct bp_file_kpages h;
	uint64_t size = bp_kpages_size(npages, page_size);

	memset(&h, 0, sizeof(h));
	h.cpu = cpu;
	h.npages = npages;
	h.page_size = page_size;
	h.seq = seq;
	h.missed = missed;
	h.missed_pages = missed_pages;
	memcpy(batch, &h, sizeof(h));
	memset(bp_kpages_page(batch, npages, page_size), 0,
	       size - BP_KERNEL_DATA_OFFSET - (uint64_t)npages * page_size);
	return bp_drain_put_chunk(f, BP_CHUNK_KPAGES, batch, size);
}

int bp_kernel_page_missed(const void *page, uint32_t page_size, uint64_t *count)
{
	const unsigned char *p = page;
	uint64_t commit = 0, len;

	*count = 0;
	memcpy(&commit, p + 8, sizeof(long));
	if (!(commit & BP_KERNEL_MISSED_EVENTS))
		return 0;
	len = commit & BP_KERNEL_COMMIT_MASK;
	if ((commit & BP_KERNEL_MISSED_STORED) && 8 + sizeof(long) * 2 + len <= page_size) {
		memcpy(count, p + 8 + sizeof(long) + len, sizeof(long));
		return 1;
	}
	return 2;
}
