/*
 * The drainer of `bprint record` (drain.h): live trace files in, stream
 * trace files out.
 *
 * One pass of the loop, per live file:
 *   1. walk the chunks that appeared since the last pass (in file order;
 *      a chunk still being allocated stops the walk until the next pass);
 *   2. copy the records that sites and libraries chunks gained;
 *   3. for every ring, encode each completed page (seq < head) as a
 *      dense page entry (dense.h), publish consumed_seq, and write the
 *      entries in batches as "dense pages" chunks, each followed by an
 *      update in place of the ring's entry in the accounts chunk.
 * The caller (the command's supervisor, tools/bprint/supervise.c) runs the
 * passes and decides when a file is finished: then a last pass also copies
 * the head pages, and the end chunk and the final header go out.
 *
 *	live file (child)                      stream file (us)
 *	| hdr | libs | sites | ring A | ring B |  ->  | hdr | accounts | libs | sites | pages A | pages B | ... | end |
 */
#include "file/drain.h"

#include "file/dense.h"
#include "file/layout.h"
#include "file/valid.h"
#include "ring/ring.h"
#include "trace/safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STALL_NS 1000000000ull		/* an unfilled chunk header is skipped after 1 s */
#define PASS_PAGES_MAX 1024u		/* pages per ring per pass: keeps rings fair */

struct dring {
	uint64_t index;			/* chunk index in the live file */
	uint64_t off;			/* and the chunk's offset */
	unsigned char *map;
	size_t map_len;
	struct bp_file_ring *rc;	/* NULL once released */
	void *mem;
	size_t bytes;
	bool ready, dead;
	bool released;			/* exited, copied, handed back (ring_release()) */
	uint32_t tid, level;		/* as the ring chunk had them when released */
	uint64_t dropped;
	uint32_t page_size, npages;
	uint64_t next_seq;		/* next page to copy */
	uint64_t expect_rec;		/* first_rec the next page should have */
	uint64_t lost_records, lost_pages;
	uint64_t copied;		/* records in the pages chunks written */
	uint64_t batch_recs;		/* records in the batch being filled */
	uint64_t acct_written;		/* written as the accounts last had it */
	struct bp_ring_stats st;	/* last counters seen */
	unsigned char *batch;		/* dense pages chunk being filled */
	size_t batch_len;
	size_t batch_used;		/* bytes of entries after the chunk header */
	unsigned char *scratch;		/* one page, for bp_ring_copy_page() */
	uint32_t nbatch, batch_cap;
	uint32_t min_batch;		/* discard mode: pages worth a chunk */
	uint64_t waiting_since;		/* when fewer than min_batch first waited */
};

/* A ring chunk handed back to the process: a new index there is a new ring. */
struct reused {
	uint64_t off, index;
};

struct dlist {
	uint32_t type;
	unsigned char *map;
	size_t map_len;
	const struct bp_file_list *l;
	uint64_t size;
	uint32_t copied;
};

struct dfile {
	char path[PATH_MAX];
	char out[PATH_MAX];
	int fd, ofd;
	pid_t pid;
	struct bp_file_header *hdr;	/* the live header, mapped read-only */
	uint64_t scan_off;
	uint64_t stall_since;
	struct dring *rings;
	size_t nrings, rcap;
	struct dlist *lists;
	size_t nlists, lcap;
	struct reused *reused;		/* ring chunks released, watched for a new ring */
	size_t nreused, ucap;
	uint64_t out_end, out_end_written, out_index;
	uint64_t acct_off;		/* the accounts chunk in force */
	uint32_t acct_cap, acct_count;	/* its entries: room, in use */
	uint32_t stop_reason;		/* BP_FILE_STOP_*: writes failed, only watching */
	int stop_errno;
	uint64_t stop_record;
	bool done;
};

struct drain {				/* one live file's drain: its context */
	struct bp_drain_result *res;
	uintptr_t sys_page;
	uint32_t batch_pages;
	bool remove_live;		/* unlink the live file when it is closed */
	bool failed;
	bool truncated;			/* the stream file could not be written to the end */
};

/* What bp_drain_open() hands out: the context, the file, its result. */
struct bp_drain_file {
	struct drain d;
	struct dfile f;
	struct bp_drain_result res;
};

static uint64_t now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((format(printf, 2, 3)))
static void fail(struct drain *d, const char *fmt, ...)
{
	va_list ap;

	if (d->failed)
		return;
	d->failed = true;
	va_start(ap, fmt);
	vsnprintf(d->res->error, sizeof(d->res->error), fmt, ap);
	va_end(ap);
}

static void *grow_array(void *p, size_t *cap, size_t n, size_t elem)
{
	size_t c;
	void *q;

	if (n < *cap)
		return p;
	c = *cap ? 2 * *cap : 16;
	q = realloc(p, c * elem);
	if (!q)
		return NULL;
	memset((char *)q + *cap * elem, 0, (c - *cap) * elem);
	*cap = c;
	return q;
}

/* Map [off, off + len) of fd, whatever the system page size. */
static void *map_range(struct drain *d, int fd, uint64_t off, uint64_t len, int prot,
		       unsigned char **base, size_t *map_len)
{
	uint64_t moff = off & ~(uint64_t)(d->sys_page - 1);
	void *p = mmap(NULL, (size_t)(off - moff + len), prot, MAP_SHARED, fd, (off_t)moff);

	if (p == MAP_FAILED)
		return NULL;
	*base = p;
	*map_len = (size_t)(off - moff + len);
	return (unsigned char *)p + (off - moff);
}

/* ---- output ------------------------------------------------------------ */

static uint64_t copied_total(const struct dfile *f)
{
	uint64_t n = 0;

	for (size_t i = 0; i < f->nrings; i++)
		n += f->rings[i].copied;
	return n;
}

/*
 * A write to f failed (the disk is full, most likely): f gets no more
 * chunks, but its header and accounts, written in place over bytes the
 * file already has, still can be updated.  The drain goes on watching the
 * rings so that the accounts end with the final written counts; the file
 * says where and why it stops (docs/file-format.md, header).
 */
static void out_stopped(struct drain *d, struct dfile *f, int err)
{
	if (f->stop_reason)
		return;
	f->stop_reason = err == ENOSPC || err == EDQUOT || err == EFBIG ? BP_FILE_STOP_FULL
									: BP_FILE_STOP_IO;
	f->stop_errno = err;
	f->stop_record = copied_total(f);
	d->truncated = true;
	if (!d->res->error[0])
		snprintf(d->res->error, sizeof(d->res->error), "%.60s (truncated at record %llu)",
			 strerror(err), (unsigned long long)f->stop_record);
}

static int out_write(struct drain *d, struct dfile *f, void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t off = f->out_end;
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(f->ofd, p + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			out_stopped(d, f, n < 0 ? errno : ENOSPC);
			return -1;
		}
		done += (size_t)n;
	}
	f->out_end += len;
	d->res->bytes += len;
	return 0;
}

/* Fill the chunk header at buf (size bytes, a multiple of align) and write it. */
static int out_chunk(struct drain *d, struct dfile *f, void *buf, uint32_t type, uint64_t size)
{
	struct bp_file_chunk *c = buf;

	memcpy(c->magic, BP_CHUNK_MAGIC, 4);
	c->type = type;
	c->size = size;
	atomic_store_explicit(&c->state, BP_CHUNK_COMPLETE, memory_order_relaxed);
	c->reserved = 0;
	c->index = ++f->out_index;
	return out_write(d, f, buf, (size_t)size);
}

/* The live header, as the stream's: flags and end are ours. */
static int out_header(struct drain *d, struct dfile *f, uint32_t flags)
{
	struct bp_file_header h;

	memcpy(&h, f->hdr, sizeof(h));
	atomic_store_explicit(&h.flags, flags, memory_order_relaxed);
	atomic_store_explicit(&h.end, f->out_end, memory_order_relaxed);
	h.accounts = f->acct_off;
	h.stop_reason = f->stop_reason;
	h.stop_errno = (uint32_t)f->stop_errno;
	h.stop_record = f->stop_record;
	if (pwrite(f->ofd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		fail(d, "%s: %s", f->out, strerror(errno));
		return -1;
	}
	f->out_end_written = f->out_end;
	return 0;
}

static void out_end_hint(struct dfile *f)
{
	uint64_t end = f->out_end;

	if (end != f->out_end_written &&
	    pwrite(f->ofd, &end, sizeof(end), offsetof(struct bp_file_header, end)) ==
		    (ssize_t)sizeof(end))
		f->out_end_written = end;
}

/* ---- accounts ---------------------------------------------------------- */

/*
 * The accounts chunk: the end chunk's entries, one per ring, rewritten in
 * place after every pages chunk (docs/file-format.md, type 7), so that a
 * stream whose drainer died still says what it held.  The first one is
 * written right after the header; a ring beyond its room moves the
 * accounts to a bigger chunk at the end, named by the header.
 */
#define ACCT_ROOM ((16384u - BP_FILE_END_HDR_BYTES) / BP_FILE_END_RING_BYTES)

/* Ring r's counters as the end and accounts chunks keep them. */
static void ring_entry(const struct dring *r, struct bp_file_end_ring *er)
{
	memset(er, 0, sizeof(*er));
	er->ring_index = r->index;
	er->tid = r->released ? r->tid : r->rc->tid;
	er->level = r->released ? r->level : r->rc->level;
	if (r->ready) {
		er->written = r->st.written;
		er->discarded = r->st.discarded;
	}
	er->dropped = r->released ? r->dropped
				  : atomic_load_explicit(&r->rc->dropped, memory_order_relaxed);
	er->lost_records = r->lost_records;
	er->lost_pages = r->lost_pages;
	er->copied = r->copied;
}

/* An end or accounts chunk with room for room entries, the first n of f's rings. */
static unsigned char *counters_chunk(struct drain *d, struct dfile *f, size_t room, size_t n,
				     uint64_t *size)
{
	unsigned char *buf;

	*size = bp_file_align_up(BP_FILE_END_HDR_BYTES + (uint64_t)room * BP_FILE_END_RING_BYTES);
	buf = calloc(1, (size_t)*size);
	if (!buf) {
		fail(d, "out of memory");
		return NULL;
	}
	((struct bp_file_end *)(void *)buf)->count = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		struct bp_file_end_ring er;

		ring_entry(&f->rings[i], &er);
		memcpy(buf + BP_FILE_END_HDR_BYTES + i * BP_FILE_END_RING_BYTES, &er, sizeof(er));
	}
	return buf;
}

static int out_at(struct drain *d, struct dfile *f, const void *p, size_t len, uint64_t off)
{
	if (pwrite(f->ofd, p, len, (off_t)off) == (ssize_t)len)
		return 0;
	out_stopped(d, f, errno);
	return -1;
}

/* A new accounts chunk with room for need entries at least, made the one in force. */
static int acct_new(struct drain *d, struct dfile *f, size_t need)
{
	size_t room = f->acct_cap ? f->acct_cap : ACCT_ROOM;
	uint64_t off = f->out_end, size;
	unsigned char *buf;
	int rc;

	while (room < need)
		room *= 2;
	if (!(buf = counters_chunk(d, f, room, f->acct_count, &size)))
		return -1;
	rc = out_chunk(d, f, buf, BP_CHUNK_ACCOUNTS, size);
	free(buf);
	if (rc != 0)
		return -1;
	f->acct_off = off;
	f->acct_cap = (uint32_t)((size - BP_FILE_END_HDR_BYTES) / BP_FILE_END_RING_BYTES);
	return out_at(d, f, &off, sizeof(off), offsetof(struct bp_file_header, accounts));
}

/* Rewrite ring r's entry (the count after it, when it grows). */
static void acct_put(struct drain *d, struct dfile *f, struct dring *r)
{
	size_t i = (size_t)(r - f->rings);
	struct bp_file_end_ring er;
	uint32_t count = (uint32_t)i + 1;

	if (!f->acct_off || (i >= f->acct_cap && (f->stop_reason || acct_new(d, f, i + 1) != 0)))
		return;
	ring_entry(r, &er);
	if (out_at(d, f, &er, sizeof(er),
		   f->acct_off + BP_FILE_END_HDR_BYTES + i * BP_FILE_END_RING_BYTES) != 0)
		return;
	r->acct_written = er.written;
	if (count > f->acct_count &&
	    out_at(d, f, &count, sizeof(count), f->acct_off + offsetof(struct bp_file_end, count)) == 0)
		f->acct_count = count;
}

static bool ring_setup(struct drain *d, struct dring *r);

static bool ring_exited(const struct dring *r);
static void ring_release(struct drain *d, struct dfile *f, struct dring *r);

/* Writes stopped: keep the accounts' counters up with the rings; exited
 * rings, counted, are handed back all the same (nothing more will be
 * copied from them). */
static void acct_watch(struct drain *d, struct dfile *f)
{
	for (size_t i = 0; i < f->nrings; i++) {
		struct dring *r = &f->rings[i];
		bool exited;

		if (r->dead || r->released || (!r->ready && !ring_setup(d, r)))
			continue;
		exited = ring_exited(r);	/* before the counters: they are final then */
		if (bp_ring_stats(r->mem, r->bytes, &r->st) != BP_RING_OK)
			continue;
		if (r->st.written != r->acct_written)
			acct_put(d, f, r);
		if (exited)
			ring_release(d, f, r);
	}
}

/* ---- lists ------------------------------------------------------------- */

static int copy_list(struct drain *d, struct dfile *f, struct dlist *l)
{
	uint32_t used = atomic_load_explicit(&l->l->used, memory_order_acquire);
	uint64_t size;
	unsigned char *buf;
	int rc;

	if (used <= l->copied || used > l->size - BP_FILE_LIST_HDR_BYTES || (used & 3u))
		return 0;
	size = bp_file_align_up(BP_FILE_LIST_HDR_BYTES + (uint64_t)(used - l->copied));
	buf = calloc(1, (size_t)size);
	if (!buf) {
		fail(d, "out of memory");
		return -1;
	}
	((struct bp_file_list *)(void *)buf)->used = used - l->copied;
	memcpy(buf + BP_FILE_LIST_HDR_BYTES,
	       (const unsigned char *)l->l + BP_FILE_LIST_HDR_BYTES + l->copied, used - l->copied);
	rc = out_chunk(d, f, buf, l->type, size);
	free(buf);
	if (rc == 0)
		l->copied = used;
	return rc;
}

/* ---- rings ------------------------------------------------------------- */

/* Data records in a copied page (time extends are not records). */
static uint64_t count_records(const unsigned char *page)
{
	const struct bp_ring_page *h = (const void *)page;

	return bp_page_count_records(page + BP_RING_PAGE_HDR_BYTES,
				     atomic_load_explicit(&h->commit, memory_order_relaxed));
}

static int flush_ring(struct drain *d, struct dfile *f, struct dring *r)
{
	struct bp_file_cpages *pc = (void *)r->batch;
	size_t used = BP_FILE_PAGES_OFFSET + r->batch_used;
	uint64_t size = bp_file_align_up(used);
	int rc;

	if (!r->nbatch)
		return 0;
	memset(r->batch + BP_CHUNK_HDR_BYTES, 0, BP_FILE_PAGES_OFFSET - BP_CHUNK_HDR_BYTES);
	memset(r->batch + used, 0, (size_t)(size - used));
	pc->tid = r->rc->tid;
	pc->level = r->rc->level;
	memcpy(pc->comm, r->rc->comm, sizeof(pc->comm));
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
	rc = out_chunk(d, f, r->batch, BP_CHUNK_DPAGES, size);
	d->res->pages += r->nbatch;
	if (rc == 0) {
		r->copied += r->batch_recs;
		acct_put(d, f, r);	/* after the chunk: the accounts never claim more */
	}
	r->batch_recs = 0;
	r->nbatch = 0;
	r->batch_used = 0;
	return rc;
}

static bool ring_setup(struct drain *d, struct dring *r)
{
	if (bp_ring_stats(r->mem, r->bytes, &r->st) != BP_RING_OK)
		return false;	/* not formatted yet */
	r->page_size = r->st.page_size;
	r->npages = r->st.npages;
	r->batch_cap = d->batch_pages;
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
		fail(d, "out of memory");
		r->dead = true;
		return false;
	}
	/* Block-mode writers wait for us from now on (ring.h). */
	bp_ring_consumer_attach(r->mem, r->bytes, (uint64_t)getpid());
	/* A drainer that restarts resumes after what its predecessor consumed. */
	r->next_seq = r->st.consumed_seq + 1;
	r->expect_rec = UINT64_MAX;	/* unknown until the first page, unless from the start */
	if (r->next_seq == 1)
		r->expect_rec = 0;
	r->ready = true;
	d->res->rings++;
	return true;
}

/* Where page seq sits in the live ring (geometry validated by bp_ring_stats). */
static unsigned char *slot_of(const struct dring *r, uint64_t seq)
{
	return (unsigned char *)r->mem + BP_RING_CTL_BYTES +
	       (size_t)((seq - 1) % r->npages) * r->page_size;
}

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
static uint64_t page_records(const struct dring *r, uint64_t seq,
			     const struct bp_ring_page_info *pi, const unsigned char *page)
{
	struct bp_ring_page_info next;

	if (bp_ring_page_info(r->mem, r->bytes, seq + 1, &next) == BP_RING_OK &&
	    next.first_rec >= pi->first_rec &&
	    next.first_rec - pi->first_rec <= pi->commit / BP_RING_REC_HDR_BYTES)
		return next.first_rec - pi->first_rec;
	return count_records(page);
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
static long write_direct(struct drain *d, struct dfile *f, struct dring *r, uint64_t last)
{
	struct bp_ring_ctl *ctl = r->mem;
	uint64_t seq, n = 0;

	for (seq = r->next_seq; seq <= last; seq++) {
		const struct bp_ring_page *pg = (const void *)slot_of(r, seq);
		struct bp_ring_page_info pi;
		unsigned char *e = r->batch + BP_FILE_PAGES_OFFSET + r->batch_used;
		uint64_t nrec;
		size_t len;

		if (bp_ring_page_info(r->mem, r->bytes, seq, &pi) != BP_RING_OK)
			break;	/* write what was valid; the caller looks again */
		len = bp_dense_encode_page((const unsigned char *)pg, r->page_size, e);
		nrec = page_records(r, seq, &pi, (const unsigned char *)pg);
		/* R3: the encoder's reads of the page before the re-check of its seq. */
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&pg->seq, memory_order_relaxed) != seq) {
			memset(e, 0, BP_RING_PAGE_HDR_BYTES);
			memset(e + BP_COMPACT_ENTRY_HDR, 0, len - BP_COMPACT_ENTRY_HDR);
			r->lost_pages++;
			nrec = 0;
		}
		r->batch_recs += nrec;
		/* R5: the encoder's reads before the writer may reuse the page. */
		atomic_store_explicit(&ctl->consumed_seq, seq, memory_order_release);
		r->batch_used += len;
		r->nbatch++;
		n++;
	}
	r->next_seq = seq;
	if (n && flush_ring(d, f, r) != 0)
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

static bool batch_due(struct dring *r, uint64_t ready)
{
	uint64_t now;

	if (ready >= r->min_batch) {
		r->waiting_since = 0;
		return true;
	}
	now = now_ns(CLOCK_MONOTONIC);
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
static enum drain_step drain_direct(struct drain *d, struct dfile *f, struct dring *r,
				    uint64_t head, bool final, long *copied)
{
	uint64_t last = head - 1;
	long n;

	if (!final && !batch_due(r, head - r->next_seq))
		return DRAIN_STOP;
	if (flush_ring(d, f, r) != 0)
		return DRAIN_FAIL;
	if (last - r->next_seq + 1 > r->batch_cap)
		last = r->next_seq + r->batch_cap - 1;
	n = write_direct(d, f, r, last);
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
static enum drain_step drain_page(struct drain *d, struct dfile *f, struct dring *r,
				  uint64_t head, long *copied)
{
	struct bp_ring_ctl *ctl = r->mem;
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
	nrec = count_records(dst);
	if (r->st.mode == BP_RING_OVERWRITE) {	/* only overwrite mode loses pages */
		if (r->expect_rec != UINT64_MAX && first > r->expect_rec)
			r->lost_records += first - r->expect_rec;
		r->expect_rec = first + nrec;
	}
	r->batch_recs += nrec;
	if (r->next_seq < head)
		/* R5: our reads of the page before the writer may reuse it. */
		atomic_store_explicit(&ctl->consumed_seq, r->next_seq, memory_order_release);
	r->next_seq++;
	r->batch_used += bp_dense_encode_page(dst, r->page_size,
					      r->batch + BP_FILE_PAGES_OFFSET + r->batch_used);
	r->nbatch++;
	(*copied)++;
	if (r->nbatch == r->batch_cap && flush_ring(d, f, r) != 0)
		return DRAIN_FAIL;
	return DRAIN_NEXT;
}

/* Has r's thread exited (no record will come, the last ones are there)? */
static bool ring_exited(const struct dring *r)
{
	/* D3: acquire, pairs with the process's release store of "exited" (C3
	 * in src/file/writer_rings.c): the thread's last records are visible. */
	return atomic_load_explicit(&r->rc->state, memory_order_acquire) == BP_RING_EXITED;
}

/*
 * Ring r's thread has exited and every record of it is in the stream (or,
 * the writes stopped, counted as not copied by its accounts entry): hand
 * the chunk back to the process, which may reuse it for a new ring
 * (docs/file-format.md, "Ring chunks reused"), free what we kept for it,
 * and watch the chunk's header for that new ring (watch_reused()).
 */
static void ring_release(struct drain *d, struct dfile *f, struct dring *r)
{
	struct reused *u = grow_array(f->reused, &f->ucap, f->nreused, sizeof(*f->reused));

	if (!u)
		return;	/* not watched, so not handed back: the process takes a new chunk */
	f->reused = u;
	f->reused[f->nreused++] = (struct reused){ r->off, r->index };
	if (bp_ring_stats(r->mem, r->bytes, &r->st) == BP_RING_OK)
		acct_put(d, f, r);	/* the final counters, whatever was copied last */
	r->tid = r->rc->tid;
	r->level = r->rc->level;
	r->dropped = atomic_load_explicit(&r->rc->dropped, memory_order_relaxed);
	r->released = true;	/* ring_entry() uses the three above from now on */
	/* D1: our reads of the ring before the process may reuse it; pairs with
	 * its acquire load of "copied" (C1 in src/file/writer_rings.c). */
	atomic_store_explicit(&r->rc->state, BP_RING_COPIED, memory_order_release);
	munmap(r->map, r->map_len);
	free(r->batch);
	free(r->scratch);
	r->map = r->batch = r->scratch = NULL;
	r->rc = NULL;
	r->mem = NULL;
}

/*
 * Copy what ring r has completed (and, final or its thread exited, its
 * head page; an exited ring copied to its end is then handed back).
 * Returns the pages copied, or -1 on an output error.
 */
static long drain_ring(struct drain *d, struct dfile *f, struct dring *r, bool final)
{
	long copied = 0;
	bool exited;

	if (r->dead || r->released || (!r->ready && !ring_setup(d, r)))
		return 0;
	exited = ring_exited(r);
	final = final || exited;
	if (!r->acct_written && r->st.written)
		acct_put(d, f, r);	/* a ring the accounts do not have yet */
	if (bp_ring_stats(r->mem, r->bytes, &r->st) != BP_RING_OK) {
		r->dead = true;
		return 0;
	}
	while (copied < (long)PASS_PAGES_MAX) {
		uint64_t head = r->st.head_seq;
		uint64_t oldest = head >= r->npages ? head - r->npages + 1 : 1;
		enum drain_step step;

		if (r->next_seq > head || (r->next_seq == head && !final)) {
			/* caught up: has the writer moved on meanwhile? */
			if (copied == 0 || bp_ring_stats(r->mem, r->bytes, &r->st) != BP_RING_OK ||
			    r->st.head_seq == head)
				break;
			continue;
		}
		if (r->next_seq < oldest) {
			/* recycled before we got there (overwrite mode) */
			r->lost_pages += oldest - r->next_seq;
			r->next_seq = oldest;
		}
		if (r->st.mode != BP_RING_OVERWRITE && r->next_seq < head)
			step = drain_direct(d, f, r, head, final, &copied);
		else
			step = drain_page(d, f, r, head, &copied);
		if (step == DRAIN_FAIL)
			return -1;
		if (step == DRAIN_STOP)
			break;
	}
	if (flush_ring(d, f, r) != 0)
		return -1;
	if (exited && copied < (long)PASS_PAGES_MAX)	/* all there was to copy */
		ring_release(d, f, r);
	return copied;
}

/* ---- walking the live file --------------------------------------------- */

/* Map a chunk of the live file, trying again at once if mmap fails. */
static void *map_chunk(struct drain *d, struct dfile *f, uint64_t off, uint64_t size, int prot,
		       unsigned char **base, size_t *len)
{
	void *p = NULL;

	for (int tries = 0; tries < 3 && !p; tries++)
		p = map_range(d, f->fd, off, size, prot, base, len);
	return p;
}

/*
 * A ring chunk the drainer cannot map, at the end: its ring is counted
 * (tid, level and counters read with pread) as a ring none of whose
 * records could be copied, so that the stream says what it lacks.
 */
static void ring_unreadable(struct dfile *f, struct dring *r, uint64_t off)
{
	struct bp_file_ring rc;
	struct bp_ring_ctl ctl;

	if (pread(f->fd, &rc, sizeof(rc), (off_t)off) == (ssize_t)sizeof(rc)) {
		r->tid = rc.tid;
		r->level = rc.level;
		r->dropped = atomic_load_explicit(&rc.dropped, memory_order_relaxed);
	}
	if (pread(f->fd, &ctl, sizeof(ctl), (off_t)(off + BP_FILE_RING_OFFSET)) ==
		    (ssize_t)sizeof(ctl) && ctl.magic == BP_RING_MAGIC) {
		r->st.written = atomic_load_explicit(&ctl.written, memory_order_relaxed);
		r->st.discarded = atomic_load_explicit(&ctl.discarded, memory_order_relaxed);
		r->ready = true;	/* ring_entry() takes its counters */
	}
	r->released = true;	/* nothing more to do with it */
}

/*
 * A new complete chunk at off: a ring to drain, or a list to copy.  False
 * when it cannot be mapped now (the caller looks again at the next pass);
 * at the end (final), a ring is counted as unreadable instead.
 */
static bool add_chunk(struct drain *d, struct dfile *f, uint64_t off, const struct bp_file_chunk *c,
		      bool final)
{
	unsigned char *base = NULL;
	size_t len = 0;
	void *p;

	if (c->type == BP_CHUNK_RING) {
		struct dring *r;

		if (c->size <= BP_FILE_RING_OFFSET)
			return true;
		p = map_chunk(d, f, off, c->size, PROT_READ | PROT_WRITE, &base, &len);
		if ((!p && !final) ||
		    !(f->rings = grow_array(f->rings, &f->rcap, f->nrings, sizeof(*f->rings))))
			return false;
		r = &f->rings[f->nrings++];
		memset(r, 0, sizeof(*r));
		r->index = c->index;
		r->off = off;
		if (!p) {
			ring_unreadable(f, r, off);
			return true;
		}
		r->map = base;
		r->map_len = len;
		r->rc = p;
		r->mem = (unsigned char *)p + BP_FILE_RING_OFFSET;
		r->bytes = r->rc->ring_bytes <= c->size - BP_FILE_RING_OFFSET
				   ? (size_t)r->rc->ring_bytes : 0;
		if (!r->bytes)
			r->dead = true;
	} else if (c->type == BP_CHUNK_SITES || c->type == BP_CHUNK_LIBS) {
		struct dlist *l;

		p = map_chunk(d, f, off, c->size, PROT_READ, &base, &len);
		if (!p)
			return final;	/* at the end: lost (three mmaps in a row failed) */
		if (!(f->lists = grow_array(f->lists, &f->lcap, f->nlists, sizeof(*f->lists)))) {
			munmap(base, len);
			return false;
		}
		l = &f->lists[f->nlists++];
		l->type = c->type;
		l->map = base;
		l->map_len = len;
		l->l = p;
		l->size = c->size;
		l->copied = 0;
	}
	return true;
}

/*
 * The ring chunks handed back: one whose index changed and whose state is
 * complete again holds a new ring (docs/file-format.md, "Ring chunks
 * reused").  The state is read after the index: the process stores it
 * "being written" before it changes the index, and "complete" after.
 */
static void watch_reused(struct drain *d, struct dfile *f, uint64_t size)
{
	size_t i = 0;

	while (i < f->nreused) {
		struct reused *u = &f->reused[i];
		struct bp_file_chunk c;
		uint32_t state;

		/* D2: index first, state second; pairs with the process's C2. */
		if (pread(f->fd, &c, sizeof(c), (off_t)u->off) != (ssize_t)sizeof(c) ||
		    c.index == u->index ||
		    pread(f->fd, &state, sizeof(state),
			  (off_t)(u->off + offsetof(struct bp_file_chunk, state))) !=
			    (ssize_t)sizeof(state) ||
		    state != BP_CHUNK_COMPLETE) {
			i++;
			continue;
		}
		atomic_store_explicit(&c.state, state, memory_order_relaxed);
		if (c.type == BP_CHUNK_RING && bp_valid_chunk(&c, u->off, size) &&
		    !add_chunk(d, f, u->off, &c, false)) {
			i++;	/* not mapped: again at the next pass */
			continue;
		}
		*u = f->reused[--f->nreused];
	}
}

/* Step 1: new chunks.  final: the writer is gone, skip what it left unfinished. */
static void scan_chunks(struct drain *d, struct dfile *f, bool final)
{
	struct stat st;
	uint64_t size;

	if (fstat(f->fd, &st) != 0)
		return;
	size = (uint64_t)st.st_size;
	watch_reused(d, f, size);
	while (f->scan_off + BP_CHUNK_HDR_BYTES <= size) {
		struct bp_file_chunk c;
		uint32_t state;

		if (pread(f->fd, &c, sizeof(c), (off_t)f->scan_off) != (ssize_t)sizeof(c))
			return;
		state = bp_chunk_state(&c);
		if (!bp_valid_chunk(&c, f->scan_off, size) || state == BP_CHUNK_WRITING) {
			/* Being allocated right now, or left behind by a failure. */
			uint64_t now = now_ns(CLOCK_MONOTONIC);

			if (!final) {
				if (!f->stall_since)
					f->stall_since = now;
				if (now - f->stall_since < STALL_NS)
					return;
			}
			f->stall_since = 0;
			f->scan_off += bp_valid_chunk(&c, f->scan_off, size) ? c.size : BP_FILE_ALIGN;
			continue;
		}
		f->stall_since = 0;
		if (state == BP_CHUNK_COMPLETE && !add_chunk(d, f, f->scan_off, &c, final))
			return;	/* not mapped: again at the next pass */
		f->scan_off += c.size;
	}
}

/* One pass over f; returns the pages copied, -1 on an output error. */
static long pass(struct drain *d, struct dfile *f, bool final)
{
	long work = 0;

	scan_chunks(d, f, final);
	if (f->stop_reason) {
		acct_watch(d, f);
		return 0;
	}
	for (size_t i = 0; i < f->nlists; i++)
		if (copy_list(d, f, &f->lists[i]) != 0)
			return f->stop_reason ? 0 : -1;
	for (size_t i = 0; i < f->nrings; i++) {
		long n = drain_ring(d, f, &f->rings[i], final);

		if (n < 0)
			return f->stop_reason ? 0 : -1;
		work += n;
	}
	return work;
}

static void close_file(struct drain *d, struct dfile *f)
{
	for (size_t i = 0; i < f->nrings; i++) {
		if (f->rings[i].map)
			munmap(f->rings[i].map, f->rings[i].map_len);
		free(f->rings[i].batch);
		free(f->rings[i].scratch);
	}
	free(f->reused);
	f->reused = NULL;
	f->nreused = 0;
	for (size_t i = 0; i < f->nlists; i++)
		munmap(f->lists[i].map, f->lists[i].map_len);
	free(f->rings);
	free(f->lists);
	f->rings = NULL;
	f->lists = NULL;
	f->nrings = f->nlists = 0;
	if (f->hdr)
		munmap(f->hdr, BP_FILE_HEADER_BYTES);
	f->hdr = NULL;
	if (f->fd >= 0)
		close(f->fd);
	if (f->ofd >= 0)
		close(f->ofd);
	f->fd = f->ofd = -1;
	if (d->remove_live)
		unlink(f->path);
	f->done = true;
}

/* The process is gone (or we stop): the rest, the end chunk, the header. */
static void finish(struct drain *d, struct dfile *f)
{
	uint64_t size;
	unsigned char *buf;

	while (pass(d, f, true) > 0)
		;
	for (size_t i = 0; i < f->nrings; i++) {
		struct bp_file_end_ring er;

		ring_entry(&f->rings[i], &er);
		d->res->written += er.written;
		d->res->discarded += er.discarded;
		d->res->dropped += er.dropped;
		d->res->lost_records += er.lost_records;
		d->res->lost_pages += er.lost_pages;
		d->res->copied += er.copied;
		/* what the accounts say is missing (docs/file-format.md, type 7) */
		if (er.written > er.discarded + er.lost_records + er.copied)
			d->res->not_copied += er.written - er.discarded - er.lost_records - er.copied;
	}
	d->res->memory_rings += atomic_load_explicit(&f->hdr->memory_rings, memory_order_relaxed);
	d->res->memory_records += atomic_load_explicit(&f->hdr->memory_records,
						       memory_order_relaxed);
	d->res->missing_sites += atomic_load_explicit(&f->hdr->missing_sites, memory_order_relaxed);
	d->res->truncated += f->stop_reason != 0;
	if (f->stop_reason && !d->res->stop_reason) {
		d->res->stop_reason = f->stop_reason;
		d->res->stop_errno = f->stop_errno;
	}
	if (f->stop_reason) {
		/* no end chunk: the accounts and the header say where it stopped */
		out_header(d, f, BP_FILE_F_STREAM);
		close_file(d, f);
		return;
	}
	if (!(buf = counters_chunk(d, f, f->nrings, f->nrings, &size))) {
		close_file(d, f);
		return;
	}
	if (out_chunk(d, f, buf, BP_CHUNK_END, size) == 0)
		out_header(d, f, BP_FILE_F_STREAM | BP_FILE_F_CLOSED);
	else
		out_header(d, f, BP_FILE_F_STREAM);
	free(buf);
	close_file(d, f);
}

/* ---- one live file into one stream ------------------------------------ */

/* The live file's header, mapped read-only, if it is a complete one. */
static struct bp_file_header *map_header(int fd, uint64_t *mtime_ns)
{
	struct bp_file_header *h;
	char why[128];
	struct stat st;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	*mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
	if (st.st_size < (off_t)BP_FILE_HEADER_BYTES)
		return NULL;	/* being created */
	h = mmap(NULL, BP_FILE_HEADER_BYTES, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return NULL;
	if (bp_valid_header(h, BP_FILE_HEADER_BYTES, why, sizeof(why)) || !bp_valid_live(h)) {
		munmap(h, BP_FILE_HEADER_BYTES);
		return NULL;	/* not filled in yet, or not a live file */
	}
	return h;
}

int bp_drain_open(const char *live_path, struct bp_drain_file **out, struct bp_drain_live *live)
{
	int fd = open(live_path, O_RDWR | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);	/* no FIFO blocks us */
	struct bp_file_header *h;
	struct bp_drain_file *df;

	*out = NULL;
	memset(live, 0, sizeof(*live));
	if (fd < 0)
		return 0;
	if (!(h = map_header(fd, &live->mtime_ns))) {
		close(fd);
		return 0;
	}
	if (!(df = calloc(1, sizeof(*df)))) {
		munmap(h, BP_FILE_HEADER_BYTES);
		close(fd);
		return -1;
	}
	df->d.res = &df->res;
	df->d.sys_page = (uintptr_t)sysconf(_SC_PAGESIZE);
	snprintf(df->f.path, sizeof(df->f.path), "%s", live_path);
	df->f.pid = (pid_t)h->pid;
	df->f.fd = fd;
	df->f.ofd = -1;
	df->f.hdr = h;
	df->f.scan_off = BP_FILE_HEADER_BYTES;
	df->f.out_end = BP_FILE_HEADER_BYTES;
	live->pid = df->f.pid;
	live->start_realtime_ns = h->start_realtime_ns;
	*out = df;
	return 1;
}

int bp_drain_start(struct bp_drain_file *df, const char *out_path, unsigned batch_pages)
{
	struct drain *d = &df->d;
	struct dfile *f = &df->f;
	const char *why;

	d->batch_pages = batch_pages ? batch_pages : 64;
	snprintf(f->out, sizeof(f->out), "%s", out_path);
	f->ofd = bp_open_output(f->out, BP_OPEN_REPLACE | BP_OPEN_PRIVATE, &why);
	if (f->ofd < 0) {
		fail(d, "%s: %s", f->out, why ? why : strerror(errno));
		return -1;
	}
	df->res.files = 1;
	if (out_header(d, f, BP_FILE_F_STREAM) != 0)
		return -1;
	acct_new(d, f, 0);	/* on failure the file says it stopped */
	return 0;
}

long bp_drain_pass(struct bp_drain_file *df)
{
	long n = pass(&df->d, &df->f, false);

	if (n < 0 || df->d.failed)
		return -1;
	out_end_hint(&df->f);
	return n;
}

int bp_drain_finish(struct bp_drain_file *df, bool remove_live)
{
	if (!df->f.done) {
		df->d.remove_live = remove_live;
		finish(&df->d, &df->f);
	}
	return df->d.failed || df->d.truncated ? -1 : 0;
}

const struct bp_drain_result *bp_drain_result(const struct bp_drain_file *df)
{
	return &df->res;
}

void bp_drain_free(struct bp_drain_file *df)
{
	if (!df)
		return;
	if (!df->f.done)
		close_file(&df->d, &df->f);	/* remove_live is still false */
	free(df);
}
/* ---- the calling thread ------------------------------------------------ */

/*
 * Ask the scheduler for short time slices for this thread (the EEVDF
 * scheduler's custom slice, Linux 6.12 and later; no privilege needed,
 * the thread gets no more CPU time than before).  A thread with a short
 * slice has an early deadline and runs soon after it wakes up, where the
 * default slice lets two writers tracing flat out on two cores keep the
 * drainer waiting for milliseconds while their rings fill.  Older kernels
 * ignore the runtime; a policy other than the default is left alone.
 */
void bp_drain_short_slices(void)
{
#if defined(__linux__) && defined(SYS_sched_setattr)
	struct {
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t priority;
		uint64_t runtime, deadline, period;
	} attr;
	int nice;

	if (sched_getscheduler(0) != SCHED_OTHER)
		return;
	errno = 0;
	nice = getpriority(PRIO_PROCESS, 0);
	if (errno)
		return;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.policy = SCHED_OTHER;
	attr.nice = nice;
	attr.runtime = 100000;	/* ns: the shortest slice allowed */
	(void)syscall(SYS_sched_setattr, 0, &attr, 0u);
#endif
}

