/*
 * A source's pages chunks (reading.h): the pages `bprint record` copied
 * out of a ring, in page-seq order.  Each page is pread() (and decoded,
 * for compact and dense chunks) into a private page and read with the
 * ring's page iterator (bp_ring_page_begin/next): the copied pages get the
 * checks of a live ring, first_rec never goes backwards from one page to
 * the next, and the records no page holds (first_rec gaps) are counted as
 * overwritten by the merge.  A page seen already (seq not above the last
 * one read) or a hole (seq 0) is skipped; a damaged page or chunk is a
 * problem that ends the page or the chunk, not the stream.
 */
#include "reader/reading.h"

#include "file/array.h"
#include "file/bytes.h"
#include "file/compact.h"
#include "file/dense.h"

#include <stdlib.h>
#include <string.h>

/* A page buffer for streamed pages of page_size; pages of another size
 * start over (their records are not compared with the earlier ones'). */
static bool page_init(struct stream_source *ss, uint32_t page_size)
{
	if (ss->page_buf && ss->page_ps == page_size)
		return true;
	if (ss->page_ps != page_size)	/* not a buffer given back at the stream's end */
		ss->expect_rec = 0;
	free(ss->page_buf);
	ss->page_buf = malloc(page_size);
	ss->page_ps = ss->page_buf ? page_size : 0;
	return ss->page_buf != NULL;
}

/*
 * Room for a compact or dense entry of a page_size page: one buffer for
 * every source of t (an entry is read and decoded in one call), so that a
 * trace of many threads does not hold an entry's room per thread.
 */
static bool entry_init(struct bp_trace *t, uint32_t page_size)
{
	if (t->entry_buf && t->entry_buf_ps == page_size)
		return true;
	free(t->entry_buf);
	t->entry_buf = malloc(bp_compact_entry_max(page_size));
	t->entry_buf_ps = t->entry_buf ? page_size : 0;
	return t->entry_buf != NULL;
}

/* The page being read breaks the ring's rules: skip the rest of it. */
static void page_damaged(struct bp_trace *t, struct source *s)
{
	reader_problem(t, "thread %d: damaged page in the stream", s->info.tid);
	s->info.corrupt = 1;
	s->stream.in_page = false;
	s->stream.expect_rec = 0;	/* the rest of the stream may still be good */
}

/* Page seq is in page_buf: read it from now on.  1, or 0 if it is damaged. */
static int page_start(struct bp_trace *t, struct source *s, uint64_t seq, uint32_t page_size)
{
	struct stream_source *ss = &s->stream;

	ss->fed_seq = seq;
	if (bp_ring_page_begin(&ss->it, ss->page_buf, page_size, ss->expect_rec) != BP_RING_OK) {
		page_damaged(t, s);
		return 0;
	}
	ss->in_page = true;
	return 1;
}

/* A compact or dense chunk whose entries cannot be delimited any more. */
static int chunk_damaged(struct bp_trace *t, struct source *s, const struct pages_chunk *pc)
{
	reader_problem(t, "thread %d: damaged compact pages chunk", s->info.tid);
	s->info.corrupt = 1;
	s->stream.page = pc->npages;	/* its earlier pages stand */
	return 0;
}

/*
 * The next entry of compact or dense chunk pc, decoded into page_buf.
 * One pread() an entry, not two (its header, then the whole): the first
 * read takes a quarter more than the last entry was long (a stream's
 * entries are alike), and only a longer entry reads the rest.  A reader
 * of a stream of small entries spent a tenth of its time in the second
 * call (hist on bench-analysis's tick stream: 41,206 calls for 30 MB).
 * 1: a page to read; 0: skipped (a hole, a page seen already, a damaged
 * page, or the end of a damaged chunk); < 0: error.
 */
static int feed_entry(struct bp_trace *t, struct source *s, const struct pages_chunk *pc)
{
	struct stream_source *ss = &s->stream;
	uint64_t at = pc->off + BP_FILE_PAGES_OFFSET + ss->entry_off, seq, left;
	unsigned char *entry;
	size_t len, got;
	int rc;

	if (!entry_init(t, pc->page_size))
		return BP_TRACE_ENOMEM;
	entry = t->entry_buf;
	if (ss->entry_off > pc->data_bytes ||
	    (left = pc->data_bytes - ss->entry_off) < BP_COMPACT_ENTRY_HDR)
		return chunk_damaged(t, s, pc);
	/* the first read holds the header at least, which says the length */
	_Static_assert(BP_COMPACT_ENTRY_HDR <= 64, "a first read of 64 bytes holds the header");
	got = (size_t)ss->entry_guess + ss->entry_guess / 4 + 64;
	if (got > bp_compact_entry_max(pc->page_size))
		got = bp_compact_entry_max(pc->page_size);
	if (got > left)
		got = (size_t)left;
	if ((rc = reader_pread(t, at, entry, got)) != BP_TRACE_OK)
		return rc;
	len = bp_compact_entry_len(entry, pc->page_size);
	if (!len || len > left)
		return chunk_damaged(t, s, pc);
	seq = bp_ld64(entry);
	ss->page++;
	ss->entry_off += len;
	ss->entry_guess = (uint32_t)len;
	if (seq == 0 || seq <= ss->fed_seq)
		return 0;	/* a hole, or a page seen already */
	if (len > got && (rc = reader_pread(t, at + got, entry + got, len - got)) != BP_TRACE_OK)
		return rc;
	if (bp_page_entry_decode(pc->type, entry, len, pc->page_size, ss->page_buf) != 0) {
		reader_problem(t, "thread %d: damaged page in the stream", s->info.tid);
		s->info.corrupt = 1;
		return 0;
	}
	return page_start(t, s, seq, pc->page_size);
}

/* After a page that was never written (seq 0): the first page that may be data. */
static uint32_t skip_hole(struct bp_trace *t, const struct pages_chunk *pc, uint32_t next)
{
	uint64_t base = pc->off + BP_FILE_PAGES_OFFSET;
	uint64_t d = reader_next_data(t, base + (uint64_t)next * pc->page_size);
	uint64_t at = (d - base) / pc->page_size;	/* the page holding d */

	return at >= pc->npages ? pc->npages : at > next ? (uint32_t)at : next;
}

/* The next page of type 4 chunk pc into page_buf: 1, 0 (skipped) or < 0. */
static int feed_page(struct bp_trace *t, struct source *s, const struct pages_chunk *pc)
{
	struct stream_source *ss = &s->stream;
	uint64_t at = pc->off + BP_FILE_PAGES_OFFSET + (uint64_t)ss->page * pc->page_size, seq;
	int rc;

	if ((rc = reader_pread(t, at, ss->page_buf, 8)) != BP_TRACE_OK)
		return rc;
	seq = bp_ld64(ss->page_buf);
	ss->page++;
	if (seq == 0)
		ss->page = skip_hole(t, pc, ss->page);	/* a hole costs one lseek */
	if (seq == 0 || seq <= ss->fed_seq)
		return 0;	/* a page seen already, or never written */
	if ((rc = reader_pread(t, at, ss->page_buf, pc->page_size)) != BP_TRACE_OK)
		return rc;
	return page_start(t, s, seq, pc->page_size);
}

/* The next streamed page, ready to read.  1: one; 0: none left; < 0: error. */
static int next_page(struct bp_trace *t, struct source *s)
{
	struct stream_source *ss = &s->stream;

	while (ss->chunk < ss->nchunks) {
		const struct pages_chunk *pc = &ss->chunks[ss->chunk];
		int rc;

		if (ss->page >= pc->npages) {
			ss->chunk++;
			ss->page = 0;
			ss->entry_off = 0;
			continue;
		}
		if (!page_init(ss, pc->page_size))
			return BP_TRACE_ENOMEM;
		rc = pc->type == BP_CHUNK_PAGES ? feed_page(t, s, pc) : feed_entry(t, s, pc);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int stream_next(struct bp_trace *t, struct source *s)
{
	struct stream_source *ss = &s->stream;
	int rc;

	if (ss->in_page) {
		/* in place: page_buf holds the page until the record is taken */
		rc = bp_ring_page_next(&ss->it, &s->ev, NULL, 0);
		if (rc == 1)
			return SOURCE_GOT;
		if (rc < 0) {
			page_damaged(t, s);
			return SOURCE_AGAIN;
		}
		ss->in_page = false;
		ss->expect_rec = ss->it.next_rec;
	}
	rc = next_page(t, s);
	if (rc < 0) {
		if (rc == BP_TRACE_ENOMEM || rc == BP_TRACE_EIO)
			return rc;
		reader_problem(t, "thread %d: pages chunk outside the file", s->info.tid);
		s->info.corrupt = 1;
		ss->chunk = ss->nchunks;
	}
	if (rc == 0) {
		/* Its last page read and its records taken: the buffer goes back
		 * (made again if a refresh adds pages), so that a trace's memory
		 * holds a page for the threads still being read, not for every
		 * thread that ever traced. */
		free(ss->page_buf);
		ss->page_buf = NULL;
		s->phase = SOURCE_RING;
	}
	return SOURCE_AGAIN;
}

int stream_add_chunk(struct bp_trace *t, struct source *s, const struct pages_chunk *pc)
{
	struct stream_source *ss = &s->stream;
	struct pages_chunk *grown;
	size_t i;

	(void)t;
	grown = bp_array_grow(ss->chunks, &ss->chunks_cap, ss->nchunks + 1, sizeof(*grown));
	if (!grown)
		return BP_TRACE_ENOMEM;
	ss->chunks = grown;
	/* Sorted by first seq; chunks come in order, so this is an append. */
	for (i = ss->nchunks; i > ss->chunk && grown[i - 1].first_seq > pc->first_seq; i--)
		grown[i] = grown[i - 1];
	grown[i] = *pc;
	ss->nchunks++;
	return BP_TRACE_OK;
}

/* ---- counting ----------------------------------------------------------- */

/* One decoded page's data records into pc: their count, and the index
 * after its last one (first_rec counts the ring's records before it). */
static void count_page(struct pages_chunk *pc, const unsigned char *page)
{
	uint64_t n = bp_ring_page_records(page, pc->page_size);

	pc->nrec += n;
	if (n)
		pc->end_rec = bp_ld64(page + offsetof(struct bp_ring_page, first_rec)) + n;
}

/*
 * Count the data records of pages chunk pc (pc->nrec) and find the index
 * after its last one (pc->end_rec, 0 if none) by decoding its pages as
 * reading would (a page that does not decode counts nothing: reading
 * skips it too).  Bounded by the chunk's npages and data_bytes.
 */
void stream_count_chunk(struct bp_trace *t, struct pages_chunk *pc)
{
	size_t entry_max = bp_compact_entry_max(pc->page_size);
	unsigned char *entry = malloc(entry_max), *page = malloc(pc->page_size);
	uint64_t base = pc->off + BP_FILE_PAGES_OFFSET, pos = 0;

	pc->nrec = 0;
	pc->end_rec = 0;
	for (uint32_t i = 0; entry && page && i < pc->npages; i++) {
		size_t len;

		if (pc->type == BP_CHUNK_PAGES) {
			if (reader_pread(t, base + (uint64_t)i * pc->page_size, page, pc->page_size) !=
			    BP_TRACE_OK)
				break;
			if (bp_ld64(page))
				count_page(pc, page);
			continue;
		}
		if (pos > pc->data_bytes || pc->data_bytes - pos < BP_COMPACT_ENTRY_HDR ||
		    reader_pread(t, base + pos, entry, BP_COMPACT_ENTRY_HDR) != BP_TRACE_OK)
			break;
		len = bp_compact_entry_len(entry, pc->page_size);
		if (!len || len > entry_max || len > pc->data_bytes - pos)
			break;	/* where reading stops too */
		if (bp_ld64(entry) && reader_pread(t, base + pos, entry, len) == BP_TRACE_OK &&
		    bp_page_entry_decode(pc->type, entry, len, pc->page_size, page) == 0)
			count_page(pc, page);
		pos += len;
	}
	free(entry);
	free(page);
}

void stream_free(struct stream_source *ss)
{
	free(ss->page_buf);
	free(ss->chunks);
}
