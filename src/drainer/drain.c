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
 * the head pages, and the end chunk and the final header go out.  This
 * file walks the live file (steps 1 and 2) and runs the passes; step 3,
 * each ring's pages copied and encoded, is drain_ring.c's; what is written
 * to the stream, and how, is drain_out.c's (drain_file.h).
 *
 *	live file (child)                      stream file (us)
 *	| hdr | libs | sites | ring A | ring B |  ->  | hdr | accounts | libs | sites | pages A | pages B | ... | end |
 */
#include "drainer/drain_file.h"

#include "file/array.h"
#include "file/layout.h"
#include "file/mapping.h"
#include "file/valid.h"
#include "ring/view.h"
#include "trace/clock.h"
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

/* ---- walking the live file --------------------------------------------- */

/* Map a chunk of the live file, trying again at once if mmap fails. */
static unsigned char *map_chunk(struct bp_drain_file *df, uint64_t off, uint64_t size, int prot,
				struct bp_mapping *map)
{
	unsigned char *p = NULL;

	for (int tries = 0; tries < 3 && !p; tries++)
		p = bp_map_range(df->fd, off, size, prot, map);
	return p;
}

/*
 * A ring chunk the drainer cannot map, at the end: its ring is counted
 * (tid, level and counters read with pread) as a ring none of whose
 * records could be copied, so that the stream says what it lacks.
 */
static void ring_unreadable(struct bp_drain_file *df, struct drain_ring *r, uint64_t off)
{
	struct bp_file_ring rc;
	_Alignas(8) unsigned char ctl[BP_RING_CTL_BYTES];	/* the control block, copied */

	if (pread(df->fd, &rc, sizeof(rc), (off_t)off) == (ssize_t)sizeof(rc)) {
		r->tid = rc.tid;
		r->level = rc.level;
		r->dropped = atomic_load_explicit(&rc.dropped, memory_order_relaxed);
	}
	if (pread(df->fd, ctl, sizeof(ctl), (off_t)(off + BP_FILE_RING_OFFSET)) ==
		    (ssize_t)sizeof(ctl) && bp_ring_ctl_magic(ctl) == BP_RING_MAGIC) {
		bp_ring_ctl_counts(ctl, &r->st.written, &r->st.discarded);
		r->ready = true;	/* drain_ring_entry() takes its counters */
	}
	r->released = true;	/* nothing more to do with it */
}

/*
 * A new complete chunk at off: a ring to drain, or a list to copy.  False
 * when it cannot be mapped now (the caller looks again at the next pass);
 * at the end (final), a ring is counted as unreadable instead.
 */
/*
 * A ring of the resumed stream (bp_drain_resume()) that the live file
 * has at index: it goes on from what the stream holds of it, in its own
 * slot (its accounts entry).  NULL if there is none.
 */
static struct drain_ring *carried_ring(struct bp_drain_file *df, uint64_t index)
{
	for (size_t i = 0; i < df->nrings; i++) {
		struct drain_ring *r = &df->rings[i];

		if (r->carried && r->released && r->index == index) {
			r->carried = false;
			r->released = false;
			r->ready = false;
			r->resumed = true;
			return r;
		}
	}
	return NULL;
}

static bool add_chunk(struct bp_drain_file *df, uint64_t off, const struct bp_file_chunk *c,
		      bool final)
{
	struct bp_mapping map;
	unsigned char *p;
	void *grown;

	if (c->type == BP_CHUNK_RING) {
		struct drain_ring *r;

		if (c->size <= BP_FILE_RING_OFFSET)
			return true;
		p = map_chunk(df, off, c->size, df->observe ? PROT_READ : PROT_READ | PROT_WRITE,
			      &map);
		if ((!p && !final) ||
		    !(grown = bp_array_grow(df->rings, &df->rings_cap, df->nrings + 1, sizeof(*df->rings)))) {
			bp_unmap(&map);
			return false;
		}
		df->rings = grown;
		r = carried_ring(df, c->index);
		if (!r) {
			r = &df->rings[df->nrings++];
			memset(r, 0, sizeof(*r));
		}
		r->index = c->index;
		r->off = off;
		if (!p) {
			ring_unreadable(df, r, off);
			return true;
		}
		r->map = map;
		r->chunk = (struct bp_file_ring *)(void *)p;
		r->mem = p + BP_FILE_RING_OFFSET;
		r->bytes = r->chunk->ring_bytes <= c->size - BP_FILE_RING_OFFSET
				   ? (size_t)r->chunk->ring_bytes : 0;
		if (!r->bytes)
			r->dead = true;
	} else if (c->type == BP_CHUNK_SITES || c->type == BP_CHUNK_LIBS) {
		struct drain_list *l;

		if (!(p = map_chunk(df, off, c->size, PROT_READ, &map)))
			return final;	/* at the end: lost (three mmaps in a row failed) */
		if (!(grown = bp_array_grow(df->lists, &df->lists_cap, df->nlists + 1, sizeof(*df->lists)))) {
			bp_unmap(&map);
			return false;
		}
		df->lists = grown;
		l = &df->lists[df->nlists++];
		l->type = c->type;
		l->map = map;
		l->list = (const struct bp_file_list *)(const void *)p;
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
 * A fresh one (a ring chunk the walk passed while it was being written:
 * a ring faulted in ahead waits so until a thread takes it, and a spare
 * one taken for that has its index changed already) holds a ring once it
 * is complete, whatever its index.
 */
static void watch_reused(struct bp_drain_file *df, uint64_t size)
{
	size_t i = 0;

	while (i < df->nreused) {
		struct drain_reused *u = &df->reused[i];
		struct bp_file_chunk c;
		uint32_t state;

		/* D2: index first, state second; pairs with the process's C2. */
		if (pread(df->fd, &c, sizeof(c), (off_t)u->off) != (ssize_t)sizeof(c) ||
		    (c.index == u->index && !u->fresh) ||
		    pread(df->fd, &state, sizeof(state),
			  (off_t)(u->off + offsetof(struct bp_file_chunk, state))) !=
			    (ssize_t)sizeof(state) ||
		    state != BP_CHUNK_COMPLETE) {
			i++;
			continue;
		}
		atomic_store_explicit(&c.state, state, memory_order_relaxed);
		if (c.type == BP_CHUNK_RING && bp_valid_chunk(&c, u->off, size) &&
		    !add_chunk(df, u->off, &c, false)) {
			i++;	/* not mapped: again at the next pass */
			continue;
		}
		*u = df->reused[--df->nreused];
	}
}

/* Watch the ring chunk at off, being written, until it is complete. */
static bool watch_fresh(struct bp_drain_file *df, uint64_t off, const struct bp_file_chunk *c)
{
	void *grown = bp_array_grow(df->reused, &df->reused_cap, df->nreused + 1,
				    sizeof(*df->reused));

	if (!grown)
		return false;
	df->reused = grown;
	df->reused[df->nreused++] = (struct drain_reused){ off, c->index, true };
	return true;
}

/* Step 1: new chunks.  final: the writer is gone, skip what it left unfinished. */
static void scan_chunks(struct bp_drain_file *df, bool final)
{
	struct bp_chunk_walk w = { df->fd, df->scan_off, 0 };
	struct bp_file_chunk c;
	enum bp_chunk_seen seen;
	struct stat st;

	if (fstat(df->fd, &st) != 0)
		return;
	w.file_size = (uint64_t)st.st_size;
	watch_reused(df, w.file_size);
	while ((seen = bp_chunk_walk_look(&w, &c)) != BP_CHUNK_SEEN_END) {
		if (seen == BP_CHUNK_SEEN_WRITING && c.type == BP_CHUNK_RING && !final) {
			/* A ring chunk being written, maybe for long (a ring
			 * faulted in ahead of its thread): watched, passed. */
			if (!watch_fresh(df, w.off, &c))
				break;	/* no memory to watch it: wait here */
		} else if (seen == BP_CHUNK_SEEN_NONE || seen == BP_CHUNK_SEEN_WRITING) {
			/* Being allocated right now, or left behind by a failure. */
			uint64_t now = bp_clock_read_ns(CLOCK_MONOTONIC);

			if (!final) {
				if (!df->stall_since)
					df->stall_since = now;
				if (now - df->stall_since < STALL_NS)
					break;
			}
		} else if (seen == BP_CHUNK_SEEN_COMPLETE && !add_chunk(df, w.off, &c, final)) {
			break;	/* not mapped: again at the next pass */
		}
		df->stall_since = 0;
		bp_chunk_walk_pass(&w, seen, &c);
	}
	df->scan_off = w.off;
}

/* One pass over the file; returns the pages copied, -1 on an output error. */
static long pass(struct bp_drain_file *df, bool final)
{
	long work = 0;

	scan_chunks(df, final);
	if (df->out.stop_reason) {
		drain_acct_watch(df);
		return 0;
	}
	for (size_t i = 0; i < df->nlists && !df->watch; i++)
		if (drain_out_list(df, &df->lists[i]) != 0)
			return df->out.stop_reason ? 0 : -1;
	for (size_t i = 0; i < df->nrings; i++) {
		long n = drain_ring(df, &df->rings[i], final);

		if (n < 0)
			return df->out.stop_reason ? 0 : -1;
		work += n;
	}
	return work;
}

static void close_file(struct bp_drain_file *df)
{
	for (size_t i = 0; i < df->nrings; i++) {
		bp_unmap(&df->rings[i].map);
		free(df->rings[i].batch);
		free(df->rings[i].scratch);
	}
	for (size_t i = 0; i < df->nlists; i++)
		bp_unmap(&df->lists[i].map);
	free(df->rings);
	free(df->lists);
	free(df->reused);
	df->reused = NULL;
	df->nreused = 0;
	df->rings = NULL;
	df->lists = NULL;
	df->nrings = df->nlists = 0;
	if (df->hdr)
		munmap(df->hdr, BP_FILE_HEADER_BYTES);
	df->hdr = NULL;
	if (df->fd >= 0)
		close(df->fd);
	if (df->out.fd >= 0)
		close(df->out.fd);
	df->fd = df->out.fd = -1;
	if (df->remove_live)
		unlink(df->path);
	df->done = true;
}

/* The process is gone (or we stop): the rest, the end chunk, the header. */
static void finish(struct bp_drain_file *df)
{
	df->ending = df->running;
	while (pass(df, true) > 0)
		;
	for (size_t i = 0; i < df->nrings; i++)
		df->rings[i].cut = df->running;
	for (size_t i = 0; i < df->nrings; i++) {
		struct bp_file_end_ring er;

		drain_ring_sum(&df->rings[i], &df->res, &er);
		/* what the accounts say is missing (docs/file-format.md, type 7) */
		if (er.written > er.discarded + er.lost_records + er.copied)
			df->res.not_copied += er.written - er.discarded - er.lost_records - er.copied;
	}
	df->res.memory_rings += atomic_load_explicit(&df->hdr->memory_rings, memory_order_relaxed);
	df->res.memory_records += atomic_load_explicit(&df->hdr->memory_records,
						       memory_order_relaxed);
	df->res.missing_sites += atomic_load_explicit(&df->hdr->missing_sites, memory_order_relaxed);
	df->res.truncated += df->out.stop_reason != 0;
	if (df->out.stop_reason && !df->res.stop_reason) {
		df->res.stop_reason = df->out.stop_reason;
		df->res.stop_errno = df->out.stop_errno;
	}
	drain_out_end(df);
	close_file(df);
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

/* live's fields zeroed, its size kept; 0, or -1 for live without its size */
static int live_clear(struct bp_record_live *live)
{
	uint32_t size = live->size;

	if (size < BP_RECORD_LIVE_SIZE_1)
		return -1;
	memset((char *)live + sizeof(size), 0,
	       (size < sizeof(*live) ? size : sizeof(*live)) - sizeof(size));
	return 0;
}

int bp_drain_open(const char *live_path, struct bp_drain_file **out, struct bp_record_live *live)
{
	int fd;

	*out = NULL;
	if (live_clear(live) != 0)
		return BP_TRACE_EINVAL;
	fd = open(live_path, O_RDWR | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);	/* no FIFO blocks us */
	if (fd < 0) {
		if ((errno == EMFILE || errno == ENFILE || errno == ENOMEM) &&
		    live->size >= offsetof(struct bp_record_live, reserved))
			live->open_errno = errno;
		return 0;
	}
	return bp_drain_open_fd(fd, live_path, 0, out, live);
}

int bp_drain_open_fd(int fd, const char *name, unsigned flags, struct bp_drain_file **out,
		     struct bp_record_live *live)
{
	struct bp_file_header *h;
	struct bp_drain_file *df;

	*out = NULL;
	if (live_clear(live) != 0) {
		close(fd);
		return BP_TRACE_EINVAL;
	}
	if (!(h = map_header(fd, &live->mtime_ns))) {
		close(fd);
		return 0;
	}
	if (!(df = calloc(1, sizeof(*df)))) {
		munmap(h, BP_FILE_HEADER_BYTES);
		close(fd);
		return -1;
	}
	snprintf(df->path, sizeof(df->path), "%s", name);
	df->observe = (flags & BP_DRAIN_OBSERVE) != 0;
	df->running = (flags & (BP_DRAIN_OBSERVE | BP_DRAIN_RUNNING)) != 0;
	df->pid = (pid_t)h->pid;
	df->fd = fd;
	df->hdr = h;
	df->scan_off = BP_FILE_HEADER_BYTES;
	df->out.fd = -1;
	df->out.end = BP_FILE_HEADER_BYTES;
	live->pid = (int32_t)df->pid;
	live->start_realtime_ns = h->start_realtime_ns;
	*out = df;
	return 1;
}

int bp_drain_start(struct bp_drain_file *df, const char *out_path, unsigned batch_pages)
{
	struct drain_out *o = &df->out;
	const char *why;

	df->batch_pages = batch_pages ? batch_pages : 64;
	snprintf(o->path, sizeof(o->path), "%s", out_path);
	o->fd = bp_open_output(o->path, BP_OPEN_REPLACE | BP_OPEN_PRIVATE, &why);
	if (o->fd < 0) {
		int err = errno;	/* the caller may try again for EMFILE */

		drain_fail(df, "%s: %s", o->path, why ? why : strerror(err));
		errno = err;
		return -1;
	}
	df->res.files = 1;
	if (drain_out_header(df, BP_FILE_F_STREAM) != 0)
		return -1;
	drain_out_accounts(df, 0);	/* on failure the file says it stopped */
	return 0;
}

/* The offset after the last whole chunk of the stream at fd, and that
 * chunk's index. */
static uint64_t stream_end(int fd, uint64_t *index)
{
	struct bp_chunk_walk w = { fd, BP_FILE_HEADER_BYTES, 0 };
	struct bp_file_chunk c;
	enum bp_chunk_seen seen;
	struct stat st;
	uint64_t end = BP_FILE_HEADER_BYTES;

	*index = 0;
	if (fstat(fd, &st) != 0)
		return end;
	w.file_size = (uint64_t)st.st_size;
	while ((seen = bp_chunk_walk_look(&w, &c)) == BP_CHUNK_SEEN_COMPLETE) {
		bp_chunk_walk_pass(&w, seen, &c);
		end = w.off;
		*index = c.index;
	}
	return end;
}

int bp_drain_resume(struct bp_drain_file *df, const char *out_path, unsigned batch_pages,
		    const struct bp_drain_carry *carry, size_t ncarry)
{
	struct drain_out *o = &df->out;
	struct bp_file_header old;
	void *grown;

	df->batch_pages = batch_pages ? batch_pages : 64;
	snprintf(o->path, sizeof(o->path), "%s", out_path);
	o->fd = open(o->path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (o->fd < 0) {
		drain_fail(df, "%s: %s", o->path, strerror(errno));
		return -1;
	}
	if (pread(o->fd, &old, sizeof(old), 0) != (ssize_t)sizeof(old) ||
	    !(old.flags & BP_FILE_F_STREAM) || (old.flags & BP_FILE_F_CLOSED) ||
	    old.pid != df->hdr->pid || old.start_realtime_ns != df->hdr->start_realtime_ns) {
		drain_fail(df, "%s: not the unfinished stream of %s", o->path, df->path);
		return -1;
	}
	o->end = stream_end(o->fd, &o->index);
	if (ftruncate(o->fd, (off_t)o->end) != 0) {
		drain_fail(df, "%s: %s", o->path, strerror(errno));
		return -1;
	}
	if (ncarry && !(grown = bp_array_grow(df->rings, &df->rings_cap, ncarry, sizeof(*df->rings)))) {
		drain_fail(df, "out of memory");
		return -1;
	}
	if (ncarry)
		df->rings = grown;
	for (size_t i = 0; i < ncarry; i++) {
		struct drain_ring *r = &df->rings[df->nrings++];

		memset(r, 0, sizeof(*r));
		r->index = carry[i].ring_index;
		r->tid = (uint32_t)carry[i].tid;
		r->level = carry[i].level;
		r->dropped = carry[i].dropped;
		r->st.written = carry[i].written;
		r->st.discarded = carry[i].discarded;
		r->lost_records = carry[i].lost_records;
		r->copied = carry[i].copied;
		r->resume_bound = carry[i].bound;
		r->carried = r->released = r->ready = true;
	}
	df->res.files = 1;
	o->acct_count = (uint32_t)df->nrings;	/* the carried entries, in the new accounts */
	if (drain_out_header(df, BP_FILE_F_STREAM) != 0)
		return -1;
	drain_out_accounts(df, df->nrings);	/* on failure the file says it stopped */
	return 0;
}

long bp_drain_pass(struct bp_drain_file *df)
{
	long n = pass(df, false);

	if (n < 0 || df->failed)
		return -1;
	if (df->watch)
		return n;	/* no stream */
	drain_out_end_hint(df);
	drain_out_calibration(df);
	return n;
}

void bp_drain_watch(struct bp_drain_file *df, bp_drain_page_fn fn, void *arg)
{
	df->watch = fn;
	df->watch_arg = arg;
}

long bp_drain_pass_heads(struct bp_drain_file *df)
{
	long n = bp_drain_pass(df);

	if (n < 0)
		return n;
	for (size_t i = 0; i < df->nrings; i++)
		drain_ring_head(df, &df->rings[i]);
	return n;
}

void bp_drain_calibration(const struct bp_drain_file *df, struct bp_drain_clock *calib)
{
	for (;;) {
		uint64_t seq = atomic_load_explicit(&df->hdr->calib_seq, memory_order_acquire);

		memcpy(calib, (const void *)&df->hdr->calib[seq & 1], sizeof(df->hdr->calib[0]));
		/* the writer updates the slot not in force, then the sequence */
		if (atomic_load_explicit(&df->hdr->calib_seq, memory_order_acquire) == seq)
			return;
	}
}

int bp_drain_finish(struct bp_drain_file *df, bool remove_live)
{
	if (!df->done) {
		df->remove_live = remove_live;
		finish(df);
	}
	return df->failed || df->truncated ? -1 : 0;
}

const struct bp_drain_result *bp_drain_result(const struct bp_drain_file *df)
{
	return &df->res;
}

void bp_drain_free(struct bp_drain_file *df)
{
	if (!df)
		return;
	if (!df->done)
		close_file(df);	/* remove_live is still false */
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

