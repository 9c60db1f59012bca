/*
 * The drainer's stream file (drain_file.h): chunks appended with pwrite(),
 * the header, and the accounts chunk rewritten in place
 * (docs/file-format.md, types 5, 7 and 8).
 *
 * A write that fails (the disk is full, most likely) stops the stream: no
 * more chunks, but the header and the accounts, written over bytes the
 * file already has, can still be updated, so the drain goes on watching
 * the rings and the file ends by saying where and why it stops.
 */
#include "drainer/drain_file.h"

#include "file/checksums.h"
#include "file/valid.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void drain_fail(struct bp_drain_file *df, const char *fmt, ...)
{
	va_list ap;

	if (df->failed)
		return;
	df->failed = true;
	va_start(ap, fmt);
	vsnprintf(df->res.error, sizeof(df->res.error), fmt, ap);
	va_end(ap);
}

static uint64_t copied_total(const struct bp_drain_file *df)
{
	uint64_t n = 0;

	for (size_t i = 0; i < df->nrings; i++)
		n += df->rings[i].copied;
	return n;
}

/* A write failed with err: the stream stops here and says so. */
static void out_stopped(struct bp_drain_file *df, int err)
{
	struct drain_out *o = &df->out;

	if (o->stop_reason)
		return;
	o->stop_reason = err == ENOSPC || err == EDQUOT || err == EFBIG ? BP_FILE_STOP_FULL
									: BP_FILE_STOP_IO;
	o->stop_errno = err;
	o->stop_record = copied_total(df);
	df->truncated = true;
	if (!df->res.error[0])
		snprintf(df->res.error, sizeof(df->res.error), "%.60s (truncated at record %llu)",
			 strerror(err), (unsigned long long)o->stop_record);
}

/* Append len bytes at the stream's end. */
static int stream_write(struct bp_drain_file *df, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t off = df->out.end;
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(df->out.fd, p + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			out_stopped(df, n < 0 ? errno : ENOSPC);
			return -1;
		}
		done += (size_t)n;
	}
	df->out.end += len;
	df->res.bytes += len;
	return 0;
}

/* Rewrite len bytes at off, inside what the stream already has. */
static int out_at(struct bp_drain_file *df, const void *p, size_t len, uint64_t off)
{
	if (pwrite(df->out.fd, p, len, (off_t)off) == (ssize_t)len)
		return 0;
	out_stopped(df, errno);
	return -1;
}

/* Fill the chunk header at buf (size bytes, a multiple of align) and append it. */
static int out_chunk(struct bp_drain_file *df, void *buf, uint32_t type, uint64_t size)
{
	struct bp_file_chunk *c = buf;

	memcpy(c->magic, BP_CHUNK_MAGIC, 4);
	c->type = type;
	c->size = size;
	atomic_store_explicit(&c->state, BP_CHUNK_COMPLETE, memory_order_relaxed);
	c->index = ++df->out.index;
	c->crc = bp_chunk_crc(buf, size);	/* here, in the copier: never on the call path */
	return stream_write(df, buf, (size_t)size);
}

/*
 * Write the stream's header, o->head, whole, with its checksums (format
 * 1.4: the fields written once, each calibration slot, the whole header):
 * every change of it goes through here, so that the header on disk always
 * has the crc of what it holds.  A reader that reads it while it is
 * rewritten reads again (docs/file-format.md).
 */
static int head_write(struct drain_out *o)
{
	static const struct bp_clock_calib unfilled;
	struct bp_file_header *h = &o->head;

	uint64_t now = atomic_load_explicit(&h->calib_seq, memory_order_relaxed) & 1u;

	h->fixed_crc = bp_header_fixed_crc(h);
	/* The slot in force was copied whole (the seqlock); the other one, as
	 * the live file had it, may be half written there: it keeps the live
	 * file's crc, which then does not match, and a reader leaves it. */
	/* a slot never filled (a process killed before its first
	 * calibration) stays so: no crc for zeros */
	if (h->calib_crc[now] || memcmp(&h->calib[now], &unfilled, sizeof(unfilled)))
		h->calib_crc[now] = bp_calib_crc(&h->calib[now]);
	h->header_crc = bp_header_crc(h);
	return pwrite(o->fd, h, sizeof(*h), 0) == (ssize_t)sizeof(*h) ? 0 : -1;
}

int bp_drain_put_chunk(struct bp_drain_file *df, uint32_t type, void *buf, uint64_t size)
{
	if (df->done || df->out.fd < 0 || df->out.stop_reason || size < BP_CHUNK_HDR_BYTES ||
	    size % BP_FILE_ALIGN)
		return -1;
	return out_chunk(df, buf, type, size);
}

int drain_out_header(struct bp_drain_file *df, uint32_t flags)
{
	struct drain_out *o = &df->out;
	struct bp_file_header *h = &o->head;

	memcpy(h, df->hdr, sizeof(*h));
	h->minor = BP_FILE_MINOR;	/* what we write: chunks with checksums */
	h->header_crc = 0;		/* a live file's own crcs are made again */
	memset(&h->control, 0, sizeof(h->control));	/* the live process's, not the trace's */
	atomic_store_explicit(&h->flags, flags | BP_FILE_F_CRC, memory_order_relaxed);
	atomic_store_explicit(&h->end, o->end, memory_order_relaxed);
	h->accounts = o->acct_off;
	h->stop_reason = o->stop_reason;
	h->stop_errno = (uint32_t)o->stop_errno;
	h->stop_record = o->stop_record;
	if (head_write(o) != 0) {
		drain_fail(df, "%s: %s", o->path, strerror(errno));
		return -1;
	}
	o->end_written = o->end;
	o->calib_seq = atomic_load_explicit(&h->calib_seq, memory_order_relaxed);
	return 0;
}

void drain_out_end_hint(struct bp_drain_file *df)
{
	struct drain_out *o = &df->out;
	uint64_t end = o->end;

	if (end == o->end_written)
		return;
	atomic_store_explicit(&o->head.end, end, memory_order_relaxed);
	if (head_write(o) == 0)
		o->end_written = end;
}

/*
 * A reader of the stream while the copy goes on (bprint report, tail)
 * converts timestamps with the header's calibration, which the traced
 * process refreshes as it runs (a TSC's rate is known only after a while):
 * the stream's copy follows the live one's: both slots, calib_seq and
 * the crcs in one write of the header.  A reader that reads it half
 * written finds its header_crc wrong and reads it again (1.4).
 */
void drain_out_calibration(struct bp_drain_file *df)
{
	struct drain_out *o = &df->out;
	struct bp_clock_calib calib[2];
	uint64_t seq = atomic_load_explicit(&df->hdr->calib_seq, memory_order_acquire), again;

	if (seq == o->calib_seq || o->fd < 0)
		return;
	memcpy(calib, (const void *)df->hdr->calib, sizeof(calib));
	/* the writer updates the slot it does not select, then the sequence */
	again = atomic_load_explicit(&df->hdr->calib_seq, memory_order_acquire);
	if (again != seq)
		return;	/* it moved meanwhile: the next pass copies it */
	/* one write of the header: both slots, the sequence and the crcs */
	memcpy(o->head.calib, calib, sizeof(calib));
	memcpy(o->head.calib_crc, (const void *)df->hdr->calib_crc, sizeof(o->head.calib_crc));
	atomic_store_explicit(&o->head.calib_seq, seq, memory_order_relaxed);
	if (head_write(o) != 0)
		return;
	o->calib_seq = seq;
}

/* ---- accounts and end --------------------------------------------------- */

/*
 * The accounts chunk: the end chunk's entries, one per ring, rewritten in
 * place after every pages chunk (docs/file-format.md, type 7), so that a
 * stream whose drainer died still says what it held.  The first one is
 * written right after the header; a ring beyond its room moves the
 * accounts to a bigger chunk at the end, named by the header.
 */
#define ACCT_ROOM ((16384u - BP_FILE_END_HDR_BYTES) / BP_FILE_END_RING_BYTES)

void drain_ring_entry(const struct drain_ring *r, struct bp_file_end_ring *er)
{
	memset(er, 0, sizeof(*er));
	er->ring_index = r->index;
	er->tid = r->released ? r->tid : r->chunk->tid;
	er->level = r->released ? r->level : r->chunk->level;
	if (r->ready) {
		er->written = r->st.written;
		er->discarded = r->st.discarded;
	}
	er->dropped = r->released ? r->dropped
				  : atomic_load_explicit(&r->chunk->dropped, memory_order_relaxed);
	er->lost_records = r->lost_records;
	er->lost_pages = r->lost_pages;
	er->copied = r->copied;
	/* A writer that runs on after the copy (a cut, drain.h's
	 * BP_DRAIN_RUNNING): the stream's count of written records ends with
	 * its last record; the records after it are the next copy's. */
	if (r->cut)
		er->written = er->copied + er->lost_records + er->discarded;
	/* A writer killed between a record's commit and the store of its
	 * written count leaves the count one short of the records copied:
	 * what was copied or lost was written (the reader's rule too). */
	if (er->copied + er->lost_records + er->discarded > er->written)
		er->written = er->copied + er->lost_records + er->discarded;
}

void drain_ring_sum(const struct drain_ring *r, struct bp_drain_result *res,
		    struct bp_file_end_ring *er)
{
	drain_ring_entry(r, er);
	res->written += er->written;
	res->discarded += er->discarded;
	res->dropped += er->dropped;
	res->lost_records += er->lost_records;
	res->lost_pages += er->lost_pages;
	res->copied += er->copied;
}

/* An end or accounts chunk with room for room entries, the first n rings'. */
static unsigned char *counters_chunk(struct bp_drain_file *df, size_t room, size_t n,
				     uint64_t *size)
{
	unsigned char *buf;

	*size = bp_file_align_up(BP_FILE_END_HDR_BYTES + (uint64_t)room * BP_FILE_END_RING_BYTES);
	buf = calloc(1, (size_t)*size);
	if (!buf) {
		drain_fail(df, "out of memory");
		return NULL;
	}
	((struct bp_file_end *)(void *)buf)->count = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		struct bp_file_end_ring er;

		drain_ring_entry(&df->rings[i], &er);
		memcpy(buf + BP_FILE_END_HDR_BYTES + i * BP_FILE_END_RING_BYTES, &er, sizeof(er));
	}
	return buf;
}

int drain_out_accounts(struct bp_drain_file *df, size_t need)
{
	struct drain_out *o = &df->out;
	size_t room = o->acct_cap ? o->acct_cap : ACCT_ROOM;
	uint64_t off = o->end, size;
	unsigned char *buf;
	int rc;

	while (room < need)
		room *= 2;
	if (!(buf = counters_chunk(df, room, o->acct_count, &size)))
		return -1;
	rc = out_chunk(df, buf, BP_CHUNK_ACCOUNTS, size);
	free(buf);
	if (rc != 0)
		return -1;
	o->acct_off = off;
	o->acct_cap = (uint32_t)((size - BP_FILE_END_HDR_BYTES) / BP_FILE_END_RING_BYTES);
	o->head.accounts = off;
	if (head_write(o) == 0)
		return 0;
	out_stopped(df, errno);
	return -1;
}

void drain_out_account(struct bp_drain_file *df, struct drain_ring *r)
{
	struct drain_out *o = &df->out;
	size_t i = (size_t)(r - df->rings);
	struct bp_file_end_ring er;
	uint32_t count = (uint32_t)i + 1;

	if (!o->acct_off ||
	    (i >= o->acct_cap && (o->stop_reason || drain_out_accounts(df, i + 1) != 0)))
		return;
	drain_ring_entry(r, &er);
	if (out_at(df, &er, sizeof(er),
		   o->acct_off + BP_FILE_END_HDR_BYTES + i * BP_FILE_END_RING_BYTES) != 0)
		return;
	r->acct_written = er.written;
	if (count > o->acct_count &&
	    out_at(df, &count, sizeof(count), o->acct_off + offsetof(struct bp_file_end, count)) == 0)
		o->acct_count = count;
}

int drain_out_end(struct bp_drain_file *df)
{
	uint64_t size;
	unsigned char *buf;
	int rc;

	if (df->out.stop_reason)	/* no end chunk: the accounts and the header say where it stopped */
		return drain_out_header(df, BP_FILE_F_STREAM);
	if (!(buf = counters_chunk(df, df->nrings, df->nrings, &size)))
		return -1;
	if (out_chunk(df, buf, BP_CHUNK_END, size) == 0)
		rc = drain_out_header(df, BP_FILE_F_STREAM | BP_FILE_F_CLOSED);
	else
		rc = drain_out_header(df, BP_FILE_F_STREAM);
	free(buf);
	return rc;
}

/* ---- lists and pages ---------------------------------------------------- */

int drain_out_list(struct bp_drain_file *df, struct drain_list *l)
{
	uint32_t used = atomic_load_explicit(&l->list->used, memory_order_acquire);
	uint64_t size;
	unsigned char *buf;
	int rc;

	if (used <= l->copied || used > l->size - BP_FILE_LIST_HDR_BYTES || (used & 3u))
		return 0;
	size = bp_file_align_up(BP_FILE_LIST_HDR_BYTES + (uint64_t)(used - l->copied));
	buf = calloc(1, (size_t)size);
	if (!buf) {
		drain_fail(df, "out of memory");
		return -1;
	}
	((struct bp_file_list *)(void *)buf)->used = used - l->copied;
	memcpy(buf + BP_FILE_LIST_HDR_BYTES,
	       (const unsigned char *)l->list + BP_FILE_LIST_HDR_BYTES + l->copied,
	       used - l->copied);
	rc = out_chunk(df, buf, l->type, size);
	free(buf);
	if (rc == 0)
		l->copied = used;
	return rc;
}

int drain_out_pages(struct bp_drain_file *df, struct drain_ring *r)
{
	struct bp_file_cpages *pc = (void *)r->batch;
	size_t used = BP_FILE_PAGES_OFFSET + r->batch_used;
	uint64_t size = bp_file_align_up(used);
	int rc;

	if (!r->nbatch)
		return 0;
	memset(r->batch + BP_CHUNK_HDR_BYTES, 0, BP_FILE_PAGES_OFFSET - BP_CHUNK_HDR_BYTES);
	memset(r->batch + used, 0, (size_t)(size - used));
	pc->tid = r->chunk->tid;
	pc->level = r->chunk->level;
	memcpy(pc->comm, r->chunk->comm, sizeof(pc->comm));
	pc->comm[sizeof(pc->comm) - 1] = '\0';
	pc->ring_index = r->index;
	pc->page_size = r->page_size;
	pc->npages = r->nbatch;
	pc->written = r->st.written;
	pc->discarded = r->st.discarded;
	pc->data_bytes = r->batch_used;
	pc->block_waits = r->st.block_waits;
	pc->block_ns = r->st.block_ns;
	pc->copied_before = r->copied;
	rc = out_chunk(df, r->batch, BP_CHUNK_DPAGES, size);
	df->res.pages += r->nbatch;
	if (rc == 0) {
		r->copied += r->batch_recs;
		drain_out_account(df, r);	/* after the chunk: the accounts never claim more */
	}
	r->batch_recs = 0;
	r->nbatch = 0;
	r->batch_used = 0;
	return rc;
}
