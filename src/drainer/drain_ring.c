/*
 * The drainer's copy of the rings (drain_file.h): each ring of the live
 * file set up, its completed pages (and, at the end, its head page)
 * encoded into batches of dense page entries, consumed_seq published, and
 * an exited ring handed back to the process once it is copied.  Step 3 of
 * a pass of drain.c; apart from it because drain.c walks the live file and
 * runs the passes, and this is the part that talks to the ring's writers.
 */
#include "drainer/drain_file.h"

#include "file/array.h"
#include "file/dense.h"
#include "file/layout.h"
#include "ring/view.h"
#include "trace/clock.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PASS_PAGES_MAX 1024u		/* pages per ring per pass: keeps rings fair */

/* ---- one ring: set up, watched, handed back ---------------------------- */

static bool ring_setup(struct bp_drain_file *df, struct drain_ring *r)
{
	if (bp_ring_stats(r->mem, r->bytes, &r->st) != BP_RING_OK)
		return false;	/* not formatted yet */
	r->page_size = r->st.page_size;
	r->npages = r->st.npages;
	r->batch_cap = df->batch_pages;
	if ((uint64_t)r->batch_cap * r->page_size > (8u << 20))
		r->batch_cap = (uint32_t)((8u << 20) / r->page_size);
	if (r->batch_cap > 1024)
		r->batch_cap = 1024;
	if (r->batch_cap == 0)
		r->batch_cap = 1;
	r->min_batch = r->npages / 8 < r->batch_cap ? r->npages / 8 : r->batch_cap;
	if (r->min_batch == 0)
		r->min_batch = 1;
	r->batch_len = (size_t)bp_file_align_up(BP_FILE_PAGES_OFFSET +
						(uint64_t)r->batch_cap *
							bp_compact_entry_max(r->page_size));
	r->batch = aligned_alloc(64, r->batch_len);
	r->scratch = aligned_alloc(64, ((size_t)r->page_size + 63) & ~(size_t)63);
	if (!r->batch || !r->scratch) {
		drain_fail(df, "out of memory");
		r->dead = true;
		return false;
	}
	/* Block-mode writers wait for us from now on (ring.h). */
	if (!df->observe)
		bp_ring_consumer_attach(r->mem, r->bytes, (uint64_t)getpid());
	/* A drainer that restarts resumes after what its predecessor consumed;
	 * one that attaches to a running process takes all the ring holds. */
	r->next_seq = df->running ? 1 : r->st.consumed_seq + 1;
	r->expect_rec = UINT64_MAX;	/* unknown until the first page, unless from the start */
	if (r->next_seq == 1)
		r->expect_rec = 0;
	/* One a killed drainer copied part of (bp_drain_resume()): from the
	 * oldest page the ring holds, as a page it consumed but did not write
	 * may still be there; the pages it wrote are skipped (drain_page()). */
	if (r->resumed) {
		r->next_seq = r->st.head_seq >= r->npages ? r->st.head_seq - r->npages + 1 : 1;
		r->expect_rec = r->resume_bound;
	}
	r->ready = true;
	df->res.rings++;
	return true;
}

/* Has r's thread exited (no record will come, the last ones are there)? */
static bool ring_exited(const struct drain_ring *r)
{
	/* D3: acquire, pairs with the process's release store of "exited" (C3
	 * in src/writer/writer_rings.c): the thread's last records are visible. */
	return atomic_load_explicit(&r->chunk->state, memory_order_acquire) == BP_RING_EXITED;
}

/*
 * Ring r's thread has exited and every record of it is in the stream (or,
 * the writes stopped, counted as not copied by its accounts entry): hand
 * the chunk back to the process, which may reuse it for a new ring
 * (docs/file-format.md, "Ring chunks reused"), free what we kept for it,
 * and watch the chunk's header for that new ring (watch_reused()).
 */
static void ring_release(struct bp_drain_file *df, struct drain_ring *r)
{
	void *grown = bp_array_grow(df->reused, &df->reused_cap, df->nreused + 1,
				    sizeof(*df->reused));

	if (!grown)
		return;	/* not watched, so not handed back: the process takes a new chunk */
	df->reused = grown;
	df->reused[df->nreused++] = (struct drain_reused){ r->off, r->index, false };
	if (bp_ring_stats(r->mem, r->bytes, &r->st) == BP_RING_OK)
		drain_out_account(df, r);	/* the final counters, whatever was copied last */
	r->tid = r->chunk->tid;
	r->level = r->chunk->level;
	memcpy(r->comm, r->chunk->comm, sizeof(r->comm));
	r->dropped = atomic_load_explicit(&r->chunk->dropped, memory_order_relaxed);
	r->released = true;	/* drain_ring_entry() uses the three above from now on */
	/* D1: our reads of the ring before the process may reuse it; pairs with
	 * its acquire load of "copied" (C1 in src/writer/writer_rings.c).  An
	 * observer hands nothing back: the process keeps the ring's records. */
	if (!df->observe)
		atomic_store_explicit(&r->chunk->state, BP_RING_COPIED, memory_order_release);
	bp_unmap(&r->map);
	free(r->batch);
	free(r->scratch);
	r->batch = r->scratch = NULL;
	r->chunk = NULL;
	r->mem = NULL;
}

/* Writes stopped: keep the accounts' counters up with the rings; exited
 * rings, counted, are handed back all the same (nothing more will be
 * copied from them). */
void drain_acct_watch(struct bp_drain_file *df)
{
	for (size_t i = 0; i < df->nrings; i++) {
		struct drain_ring *r = &df->rings[i];
		bool exited;

		if (r->dead || r->released || (!r->ready && !ring_setup(df, r)))
			continue;
		exited = ring_exited(r);	/* before the counters: they are final then */
		if (bp_ring_stats(r->mem, r->bytes, &r->st) != BP_RING_OK)
			continue;
		if (r->st.written != r->acct_written)
			drain_out_account(df, r);
		if (exited)
			ring_release(df, r);
	}
}

/* ---- one ring's pages copied ------------------------------------------ */

/*
 * Records in completed page seq (pi its header) of a discard or block
 * ring: the next page's first_rec less its own.  first_rec counts the
 * records stored before a page starts, and no record is stored into a
 * page once the writer has left it, so the difference is exact, and it
 * spares a second walk over every record of the page (which took as long
 * as encoding it).  The next page is there: it is at most the head, and
 * its slot cannot be reused before seq is consumed.  A ring the program
 * damaged gets the walk instead.
 */
static uint64_t page_records(const struct drain_ring *r, uint64_t seq,
			     const struct bp_ring_page_info *pi, const unsigned char *page)
{
	struct bp_ring_page_info next;

	if (bp_ring_page_info(r->mem, r->bytes, seq + 1, &next) == BP_RING_OK &&
	    next.first_rec >= pi->first_rec &&
	    next.first_rec - pi->first_rec <= pi->commit / BP_RING_REC_HDR_BYTES)
		return next.first_rec - pi->first_rec;
	return bp_ring_page_records(page, r->page_size);
}

/*
 * Discard mode: a completed page the consumer has not released never
 * changes, so it is encoded straight from the live mapping (no copy first),
 * and consumed_seq is published page by page as soon as a page is encoded,
 * so that a writer waiting for room gets it without waiting for the batch
 * or the write.  Each page is checked before (bp_ring_page_info) and after
 * (seq unchanged: only a second consumer could break that); a page that
 * changed anyway becomes a hole (its entry zeroed but for its length,
 * which readers skip) and is counted as lost.  Returns the pages written,
 * -1 on error.
 */
static long write_direct(struct bp_drain_file *df, struct drain_ring *r, uint64_t last)
{
	uint64_t seq, n = 0;

	for (seq = r->next_seq; seq <= last; seq++) {
		const struct bp_ring_page *pg = bp_ring_page_slot(r->mem, r->bytes, seq);
		struct bp_ring_page_info pi;
		unsigned char *e = r->batch + BP_FILE_PAGES_OFFSET + r->batch_used;
		uint64_t nrec;
		size_t len;

		if (bp_ring_page_info(r->mem, r->bytes, seq, &pi) != BP_RING_OK)
			break;	/* write what was valid; the caller looks again */
		len = bp_dense_encode_page((const unsigned char *)pg, r->page_size, e);
		nrec = page_records(r, seq, &pi, (const unsigned char *)pg);
		/* R3: the encoder's reads of the page before the re-check of its seq. */
		if (!bp_ring_page_unchanged(pg, seq)) {
			memset(e, 0, BP_RING_PAGE_HDR_BYTES);
			memset(e + BP_COMPACT_ENTRY_HDR, 0, len - BP_COMPACT_ENTRY_HDR);
			r->lost_pages++;
			nrec = 0;
		}
		r->batch_recs += nrec;
		/* the encoder's reads before the writer may reuse the page (R5) */
		if (!df->observe)
			bp_ring_consumed(r->mem, r->bytes, seq);
		r->batch_used += len;
		r->nbatch++;
		n++;
	}
	r->next_seq = seq;
	if (n && drain_out_pages(df, r) != 0)
		return -1;
	return (long)n;
}

/*
 * Every pages chunk costs its 128-byte header padded to a whole align unit,
 * so a chunk of one page takes two on disk.  A drainer that wakes every few
 * microseconds would find a page or two each time; in discard mode it
 * waits for min_batch full pages (an eighth of the ring at most, so the
 * writer still has room), or for pages older than BATCH_WAIT_NS.
 */
#define BATCH_WAIT_NS (50 * 1000 * 1000ull)

static bool batch_due(struct drain_ring *r, uint64_t ready)
{
	uint64_t now;

	if (ready >= r->min_batch) {
		r->waiting_since = 0;
		return true;
	}
	now = bp_clock_read_ns(CLOCK_MONOTONIC);
	if (!r->waiting_since)
		r->waiting_since = now;
	if (now - r->waiting_since < BATCH_WAIT_NS)
		return false;
	r->waiting_since = 0;
	return true;
}

/* What one step of drain_ring() left: go on, stop this pass, or fail. */
enum drain_step { DRAIN_NEXT, DRAIN_STOP, DRAIN_FAIL };

/*
 * Discard and block modes: the completed pages from next_seq up to the
 * head's predecessor, a batch at a time, straight into a chunk
 * (write_direct()), once a batch is due or at the end.
 */
static enum drain_step drain_direct(struct bp_drain_file *df, struct drain_ring *r,
				    uint64_t head, bool final, long *copied)
{
	uint64_t last = head - 1;
	long n;

	if (!final && !batch_due(r, head - r->next_seq))
		return DRAIN_STOP;
	if (drain_out_pages(df, r) != 0)
		return DRAIN_FAIL;
	if (last - r->next_seq + 1 > r->batch_cap)
		last = r->next_seq + r->batch_cap - 1;
	n = write_direct(df, r, last);
	if (n < 0)
		return DRAIN_FAIL;
	if (n == 0)
		return DRAIN_STOP;
	*copied += n;
	return DRAIN_NEXT;
}

/*
 * Page next_seq copied out (overwrite mode, or the head page at the end)
 * and encoded into the ring's batch; a page recycled under us is counted
 * lost, an empty head page ends the pass.
 */
static enum drain_step drain_page(struct bp_drain_file *df, struct drain_ring *r,
				  uint64_t head, long *copied)
{
	unsigned char *dst = r->scratch;
	uint64_t first, nrec;
	int rc = bp_ring_copy_page(r->mem, r->bytes, r->next_seq, dst);

	if (rc == BP_RING_ENOENT) {
		if (r->next_seq == head)
			return DRAIN_STOP;	/* an empty head page */
		r->lost_pages++;
		r->next_seq++;
		return bp_ring_stats(r->mem, r->bytes, &r->st) == BP_RING_OK ? DRAIN_NEXT
									   : DRAIN_STOP;
	}
	if (rc != BP_RING_OK) {
		r->dead = true;
		return DRAIN_STOP;
	}
	memcpy(&first, dst + offsetof(struct bp_ring_page, first_rec), sizeof(first));
	nrec = bp_ring_page_records(dst, r->page_size);
	if (r->resumed) {
		if (first + nrec <= r->resume_bound) {
			r->next_seq++;	/* the killed drainer wrote it */
			return DRAIN_NEXT;
		}
		/* records it consumed and never wrote, recycled since: lost */
		if (first > r->resume_bound)
			r->lost_records += first - r->resume_bound;
		r->expect_rec = first + nrec;
		r->resumed = false;
	}
	if (r->st.mode == BP_RING_OVERWRITE) {	/* only overwrite mode loses pages */
		if (r->expect_rec != UINT64_MAX && first > r->expect_rec)
			r->lost_records += first - r->expect_rec;
		r->expect_rec = first + nrec;
	}
	if (df->watch) {
		struct bp_drain_page p = { (size_t)(r - df->rings), r->next_seq, dst,
					   r->page_size, r->next_seq == head };

		df->watch(df->watch_arg, &p);
		r->copied += nrec;
		if (r->next_seq < head && !df->observe)
			bp_ring_consumed(r->mem, r->bytes, r->next_seq);	/* R5, as below */
		r->next_seq++;
		(*copied)++;
		return DRAIN_NEXT;
	}
	r->batch_recs += nrec;
	if (r->next_seq < head && !df->observe)
		/* our reads of the page before the writer may reuse it (R5) */
		bp_ring_consumed(r->mem, r->bytes, r->next_seq);
	r->next_seq++;
	r->batch_used += bp_dense_encode_page(dst, r->page_size,
					      r->batch + BP_FILE_PAGES_OFFSET + r->batch_used);
	r->nbatch++;
	(*copied)++;
	if (r->nbatch == r->batch_cap && drain_out_pages(df, r) != 0)
		return DRAIN_FAIL;
	return DRAIN_NEXT;
}

/*
 * Copy what ring r has completed (and, final or its thread exited, its
 * head page; an exited ring copied to its end is then handed back).
 * Returns the pages copied, or -1 on an output error.
 */
long drain_ring(struct bp_drain_file *df, struct drain_ring *r, bool final)
{
	long copied = 0;
	bool exited;

	if (r->dead || r->released || (!r->ready && !ring_setup(df, r)))
		return 0;
	exited = ring_exited(r);
	final = final || exited;
	if (!r->acct_written && r->st.written)
		drain_out_account(df, r);	/* a ring the accounts do not have yet */
	if (bp_ring_stats(r->mem, r->bytes, &r->st) != BP_RING_OK) {
		r->dead = true;
		return 0;
	}
	if (df->ending && !r->stop_set) {
		/* a writer that runs on is not followed past its page of now */
		r->stop_set = true;
		r->stop_seq = r->st.head_seq;
	}
	while (copied < (long)PASS_PAGES_MAX) {
		uint64_t head = r->st.head_seq;
		uint64_t oldest = head >= r->npages ? head - r->npages + 1 : 1;
		bool stop = r->stop_set && head >= r->stop_seq;
		enum drain_step step;

		if (stop)
			head = r->stop_seq;
		if (r->next_seq > head || (r->next_seq == head && !final)) {
			/* caught up: has the writer moved on meanwhile? */
			if (stop || copied == 0 || bp_ring_stats(r->mem, r->bytes, &r->st) != BP_RING_OK ||
			    r->st.head_seq == head)
				break;
			continue;
		}
		if (r->next_seq < oldest) {
			/* recycled before we got there (overwrite mode) */
			r->lost_pages += oldest - r->next_seq;
			r->next_seq = oldest;
		}
		if (r->st.mode != BP_RING_OVERWRITE && r->next_seq < head && !r->resumed &&
		    !df->watch)
			step = drain_direct(df, r, head, final, &copied);
		else
			step = drain_page(df, r, head, &copied);
		if (step == DRAIN_FAIL)
			return -1;
		if (step == DRAIN_STOP)
			break;
	}
	if (drain_out_pages(df, r) != 0)
		return -1;
	if (exited && copied < (long)PASS_PAGES_MAX)	/* all there was to copy */
		ring_release(df, r);
	return copied;
}

void drain_ring_head(struct bp_drain_file *df, struct drain_ring *r)
{
	struct bp_drain_page p;

	/* a writer that completed pages since the pass: those first, then its
	 * new current page (a few tries: one that fills pages flat out is
	 * caught up with at the next pass) */
	for (int tries = 0; tries < 4; tries++) {
		if (!df->watch || r->dead || r->released || !r->ready ||
		    bp_ring_stats(r->mem, r->bytes, &r->st) != BP_RING_OK)
			return;
		if (r->next_seq < r->st.head_seq) {
			if (drain_ring(df, r, false) < 0)
				return;
			continue;
		}
		if (r->next_seq != r->st.head_seq ||
		    bp_ring_copy_page(r->mem, r->bytes, r->st.head_seq, r->scratch) != BP_RING_OK)
			return;	/* nothing written yet, or recycled under us */
		p = (struct bp_drain_page){ (size_t)(r - df->rings), r->st.head_seq, r->scratch,
					    r->page_size, true };
		df->watch(df->watch_arg, &p);
		return;
	}
}
