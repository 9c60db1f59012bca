/*
 * A window of a watched trace written as a stream file (drain.h,
 * bp_drain_write_window(); bprint record --trigger).
 *
 * The watcher (bp_drain_watch()) kept copies of some pages of each ring;
 * this writes them as the drainer writes a stream, with the drainer's own
 * writer (drain_out.c) on a second struct bp_drain_file that shares the
 * live file's header and lists but has rings of its own: each made of the
 * kept pages, encoded as dense page entries in chunks, the gaps between
 * their records' indexes counted as overwritten (in the accounts and, by
 * the reader, in place), the counts cut at the last record, as a copy of
 * a program that runs on is.  The stream is thus complete in the
 * reader's terms: every record it says was written is in it or counted.
 *
 *	kept pages (watcher)                 window stream (path)
 *	ring 0: | p7 | p8 | p9 (partial) |  ->  | hdr | accounts | libs | sites |
 *	ring 2: | p3 | p5 |                     | pages 0 | pages 2 | end |
 */
#include "drainer/drain_file.h"

#include "file/compact.h"
#include "file/dense.h"
#include "file/layout.h"
#include "ring/ring.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Ring r of the window: the live ring src's identity, no pages yet. */
static int window_ring(struct bp_drain_file *w, struct drain_ring *r, struct bp_file_ring *head,
		       const struct drain_ring *src)
{
	uint32_t ps = src->page_size;

	r->index = src->index;
	r->chunk = head;	/* what drain_out.c reads of it: tid, level, comm, dropped */
	if (src->released || !src->chunk) {
		head->tid = src->tid;
		head->level = src->level;
		memcpy(head->comm, src->comm, sizeof(head->comm));
		atomic_store_explicit(&head->dropped, src->dropped, memory_order_relaxed);
	} else {
		head->tid = src->chunk->tid;
		head->level = src->chunk->level;
		memcpy(head->comm, src->chunk->comm, sizeof(head->comm));
		atomic_store_explicit(&head->dropped,
				      atomic_load_explicit(&src->chunk->dropped, memory_order_relaxed),
				      memory_order_relaxed);
	}
	r->ready = true;
	r->cut = true;
	r->page_size = ps;
	r->st.page_size = ps;
	r->st.mode = BP_RING_OVERWRITE;
	r->batch_cap = w->batch_pages;
	if ((uint64_t)r->batch_cap * ps > (8u << 20))
		r->batch_cap = (uint32_t)((8u << 20) / ps);
	if (r->batch_cap == 0)
		r->batch_cap = 1;
	r->batch_len = (size_t)bp_file_align_up(BP_FILE_PAGES_OFFSET +
						(uint64_t)r->batch_cap * bp_compact_entry_max(ps));
	r->batch = aligned_alloc(64, r->batch_len);
	if (!r->batch) {
		drain_fail(w, "out of memory");
		return -1;
	}
	return 0;
}

/*
 * Ring r's kept pages into the stream, a chunk per batch.  Record indexes
 * are renumbered from the window's start (each page's first_rec, in our
 * copy, less the first page's, or less expect_rec when it is known): the
 * records before the window are not missing from it, while a gap inside
 * it, or right before its first page, is counted as overwritten.
 */
static int window_pages(struct bp_drain_file *w, struct drain_ring *r,
			const struct bp_drain_window_ring *wr, unsigned char *copy)
{
	uint64_t expect = wr->expect_rec, base = UINT64_MAX;

	for (size_t i = 0; i < wr->npages; i++) {
		const size_t at = offsetof(struct bp_ring_page, first_rec);
		uint64_t first, nrec;

		memcpy(copy, wr->pages[i], r->page_size);
		memcpy(&first, copy + at, sizeof(first));
		if (base == UINT64_MAX)
			base = expect != UINT64_MAX && expect <= first ? expect : first;
		nrec = bp_ring_page_records(copy, r->page_size);
		if (expect != UINT64_MAX && first > expect) {
			r->lost_records += first - expect;
			r->lost_pages++;
		}
		expect = first + nrec;
		first = first >= base ? first - base : 0;
		memcpy(copy + at, &first, sizeof(first));
		r->batch_used += bp_dense_encode_page(copy, r->page_size,
						      r->batch + BP_FILE_PAGES_OFFSET + r->batch_used);
		r->batch_recs += nrec;
		r->nbatch++;
		/* the chunk's counts: what the stream holds up to its end */
		r->st.written = r->copied + r->batch_recs + r->lost_records;
		if (r->nbatch == r->batch_cap && drain_out_pages(w, r) != 0)
			return -1;
	}
	return drain_out_pages(w, r);
}

/* The window's counts, as finish() in drain.c sums a stream's. */
static void window_counts(struct bp_drain_file *w)
{
	for (size_t i = 0; i < w->nrings; i++) {
		struct bp_file_end_ring er;

		drain_ring_sum(&w->rings[i], &w->res, &er);
	}
	w->res.rings = w->nrings;
}

int bp_drain_window_result(struct bp_drain_file *df, const char *path,
			   const struct bp_drain_window_ring *rings, size_t nrings,
			   struct bp_drain_result *res)
{
	struct bp_drain_file *w = calloc(1, sizeof(*w));
	struct bp_file_ring *heads = calloc(nrings ? nrings : 1, sizeof(*heads));
	int rc = -1;

	memset(res, 0, sizeof(*res));
	if (!w || !heads || !(w->rings = calloc(nrings ? nrings : 1, sizeof(*w->rings)))) {
		snprintf(res->error, sizeof(res->error), "out of memory");
		goto out;
	}
	w->hdr = df->hdr;
	w->fd = -1;
	w->out.fd = -1;
	w->out.end = BP_FILE_HEADER_BYTES;
	w->running = true;
	w->batch_pages = 64;
	for (size_t i = 0; i < nrings; i++) {
		if (rings[i].ring >= df->nrings || !df->rings[rings[i].ring].page_size ||
		    window_ring(w, &w->rings[w->nrings], &heads[w->nrings], &df->rings[rings[i].ring]) != 0)
			continue;
		w->nrings++;
	}
	if (w->failed || bp_drain_start(w, path, 64) != 0)
		goto out;
	for (size_t i = 0; i < df->nlists; i++) {
		struct drain_list l = df->lists[i];

		l.copied = 0;
		if (drain_out_list(w, &l) != 0)
			goto out;
	}
	for (size_t i = 0, k = 0; i < nrings; i++) {
		unsigned char *copy;
		int prc;

		if (rings[i].ring >= df->nrings || !df->rings[rings[i].ring].page_size)
			continue;
		if (!(copy = malloc(w->rings[k].page_size))) {
			drain_fail(w, "out of memory");
			goto out;
		}
		prc = window_pages(w, &w->rings[k++], &rings[i], copy);
		free(copy);
		if (prc != 0)
			goto out;
	}
	window_counts(w);
	if (drain_out_end(w) == 0 && !w->failed && !w->truncated)
		rc = 0;
out:
	if (w) {
		if (w->out.fd >= 0)
			close(w->out.fd);
		if (rc != 0 && !w->res.error[0] && !res->error[0])
			snprintf(w->res.error, sizeof(w->res.error), "%s: the window could not be written",
				 path);
		if (!res->error[0])
			*res = w->res;
		for (size_t i = 0; w->rings && i < nrings; i++)
			free(w->rings[i].batch);
		free(w->rings);
	}
	free(w);
	free(heads);
	return rc;
}
