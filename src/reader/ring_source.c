/*
 * A source's ring chunk (reading.h): a live file's ring, mapped read-only
 * and read in place with a snapshot cursor (bp_ring_next), after what the
 * source's pages chunks held (records whose index was returned already
 * are skipped).  Pages behind the cursor are dropped from the mapping, a
 * batch at a time, so that resident memory stays at a few pages per ring
 * whatever the ring's size.
 */
#include "reader/reading.h"

#include "ring/view.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Bytes of ring pages read through the mapping before they are dropped
 * together: one madvise() (and one TLB flush) per batch instead of per
 * ring page, while resident memory stays at a few pages per ring. */
#define DROP_BATCH	(128u * 1024u)

bool ring_map(struct bp_trace *t, struct source *s)
{
	struct ring_source *rs = &s->ring;
	const unsigned char *chunk;

	if (rs->map.base)
		return true;
	if (rs->chunk_off + BP_FILE_RING_OFFSET + rs->bytes > t->size) {
		s->dead = true;
		return false;
	}
	chunk = bp_map_range(t->fd, rs->chunk_off, BP_FILE_RING_OFFSET + rs->bytes, PROT_READ,
			     &rs->map);
	if (!chunk) {
		reader_problem(t, "ring of thread %d: cannot map it: %s", s->info.tid,
			       strerror(errno));
		s->dead = true;
		return false;
	}
	rs->mem = chunk + BP_FILE_RING_OFFSET;
	rs->closed = t->info.flags & BP_TRACE_F_CLOSED;
	return true;
}

/* Drop [lo, hi) from the mapping, except the control block's OS pages and
 * [clo, chi) (the page being read). */
static void drop_range(const struct ring_source *rs, uintptr_t pg, uintptr_t lo, uintptr_t hi,
		       uintptr_t clo, uintptr_t chi)
{
	uintptr_t keep_ctl = ((uintptr_t)rs->mem + BP_RING_CTL_BYTES + pg - 1) & ~(pg - 1);

	if (lo < keep_ctl)
		lo = keep_ctl;
	if (hi > (uintptr_t)rs->map.base + rs->map.len)
		hi = (uintptr_t)rs->map.base + rs->map.len;
	/* [lo, hi) minus [clo, chi): at most two pieces */
	if (clo > lo && clo < hi) {
		madvise((void *)lo, clo - lo, MADV_DONTNEED);
		lo = chi;
	} else if (chi > lo && chi < hi) {
		lo = chi;
	} else if (clo <= lo && chi >= hi) {
		return;
	}
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* Drop the OS pages of ring pages seq [from, now) from the mapping, except
 * those they share with page now (being read) and with the control block. */
static void drop_behind(const struct bp_trace *t, const struct source *s, uint64_t from,
			uint64_t now)
{
	const struct ring_source *rs = &s->ring;
	uintptr_t pg = t->os_page, data = (uintptr_t)rs->mem + BP_RING_CTL_BYTES;
	uintptr_t ps = s->info.page_size, np = s->info.npages;
	uintptr_t first, count, clo, chi;

	if (!ps || np < 2 || !from || from >= now)
		return;
	if (now - from >= np)
		from = now - np + 1;	/* every slot but now's */
	first = (uintptr_t)((from - 1) % np);
	count = (uintptr_t)(now - from);
	clo = (data + (uintptr_t)((now - 1) % np) * ps) & ~(pg - 1);
	chi = (data + (uintptr_t)((now - 1) % np) * ps + ps + pg - 1) & ~(pg - 1);
	/* the slots from first on, then those wrapped to the ring's start */
	drop_range(rs, pg, (data + first * ps) & ~(pg - 1),
		   (data + (first + count < np ? first + count : np) * ps + pg - 1) & ~(pg - 1),
		   clo, chi);
	if (first + count > np)
		drop_range(rs, pg, data & ~(pg - 1),
			   (data + (first + count - np) * ps + pg - 1) & ~(pg - 1), clo, chi);
}

/* A record of a new ring page: the pages read behind it go back, in batches. */
static void page_reached(const struct bp_trace *t, struct source *s)
{
	struct ring_source *rs = &s->ring;
	uint64_t batch = DROP_BATCH / (s->info.page_size | 1u) + 1;

	if (s->ev.page_seq == rs->last_page)
		return;
	if (!rs->drop_from || s->ev.page_seq < rs->drop_from) {
		rs->drop_from = s->ev.page_seq;
	} else if (s->ev.page_seq - rs->drop_from >= batch) {
		drop_behind(t, s, rs->drop_from, s->ev.page_seq);
		rs->drop_from = s->ev.page_seq;
	}
	rs->last_page = s->ev.page_seq;
}

/*
 * Is s's mapped ring chunk still s's ring, after a record was read from
 * it?  A live file that reuses the chunk for another ring stores its state
 * "being written", then a release fence, before it changes the ring (C2 in
 * src/writer/writer_rings.c): a record read from a changed ring finds that
 * state, or a new index (ring_next() then reports SOURCE_REUSED).
 */
static bool ring_still(const struct source *s)
{
	const struct bp_file_chunk *c = (const void *)(s->ring.mem - BP_FILE_RING_OFFSET);

	atomic_thread_fence(memory_order_acquire);	/* the record's bytes before the check */
	return atomic_load_explicit(&c->state, memory_order_relaxed) == BP_CHUNK_COMPLETE &&
	       __atomic_load_n(&c->index, __ATOMIC_RELAXED) == s->info.key;
}

enum ring_look {
	RING_READY,			/* the cursor is set */
	RING_EMPTY,			/* not formatted yet, or reused: nothing for now */
	RING_DAMAGED,
};

/*
 * Set s's cursor, its counters first.  The tracer publishes a ring chunk
 * complete, then formats the ring in it, its magic stored last
 * (src/trace/thread.c): until then the control block is all 0 (a new
 * chunk, or a reused one: docs/file-format.md), and the ring is empty.
 * Any other ring that fails the ring's checks is damage: a magic neither
 * 0 nor the ring's, or 0 beside a head page taken (seen with acquire, and
 * the magic still 0 after it: no format explains it), or 0 in the ring of
 * a thread that exited (it formatted its ring before its first record).
 * The magic is read before the chunk's state and index, as C2 pairs them,
 * so that a ring reused under the reader is no damage; and a format that
 * ended in between sends it to look again.
 */
static enum ring_look look_at_ring(struct source *s, unsigned flags)
{
	struct ring_source *rs = &s->ring;
	uint32_t magic;

	for (int look = 0; look < 2; look++) {
		ring_load_counters(s);
		if (s->info.npages && bp_ring_cursor_init(rs->mem, rs->bytes, &rs->cur,
							  flags) == BP_RING_OK)
			return RING_READY;
		magic = bp_ring_ctl_magic(rs->mem);
		if (!ring_still(s))
			return RING_EMPTY;	/* reused: the next read says so */
		if (magic == BP_RING_MAGIC)
			continue;		/* formatted in between, or damaged */
		if (magic != 0 || s->info.state == BP_RING_EXITED)
			return RING_DAMAGED;
		if (!bp_ring_ctl_head(rs->mem))
			return RING_EMPTY;	/* not formatted yet */
		if (bp_ring_ctl_magic(rs->mem) == 0 && ring_still(s))
			return RING_DAMAGED;
	}
	return magic == BP_RING_MAGIC ? RING_DAMAGED : RING_EMPTY;
}

int ring_next(struct bp_trace *t, struct source *s)
{
	struct ring_source *rs = &s->ring;
	int rc;

	if (!rs->mem && (!rs->chunk_off || !ring_map(t, s))) {
		s->phase = SOURCE_DONE;
		return SOURCE_AGAIN;
	}
	if (!rs->cursor_ready) {
		switch (look_at_ring(s, t->writer_dead ? BP_RING_CURSOR_FROZEN
						       : BP_RING_CURSOR_SNAPSHOT)) {
		case RING_READY:
			rs->cursor_ready = true;
			break;
		case RING_EMPTY:
			s->dry = true;
			return SOURCE_STOP;
		case RING_DAMAGED:
			reader_problem(t, "thread %d: damaged ring (its control block)",
				       s->info.tid);
			s->info.corrupt = 1;
			s->dead = true;
			return SOURCE_STOP;
		}
	}
	rc = bp_ring_next(rs->mem, rs->bytes, &rs->cur, &s->ev, s->buf, sizeof(s->buf));
	if (rc != 0 && !rs->cur.frozen && !ring_still(s)) {	/* reused under us: neither s's record nor damage */
		return SOURCE_REUSED;
	}
	if (rc == 1) {
		page_reached(t, s);
		/* below next_index: returned from a streamed page already */
		return s->ev.index < s->next_index ? SOURCE_AGAIN : SOURCE_GOT;
	}
	if (rc < 0) {
		reader_problem(t, "thread %d: damaged ring", s->info.tid);
		s->info.corrupt = 1;
		s->dead = true;
		return SOURCE_STOP;
	}
	s->dry = true;	/* caught up: a live writer may add more */
	return SOURCE_STOP;
}

/*
 * Does the slot of page seq, the oldest, hold what a writer recycling it
 * for the page after the head leaves there: seq 0 (after its W1), or
 * already that page's seq (after W2, before head moved on: W3)?
 */
static bool oldest_recycled(const struct ring_source *rs, uint64_t seq, uint32_t npages)
{
	const struct bp_ring_page *p = bp_ring_page_slot(rs->mem, rs->bytes, seq);
	uint64_t s = p ? bp_ring_slot_seq(p) : 1;

	return s == 0 || s == seq + npages;
}

/*
 * The first stored-record index s's mapped ring still holds (a flight
 * recorder's oldest page) into *first, UINT64_MAX if no page is found,
 * UINT64_MAX - 1 if the oldest page's slot holds another page (damage,
 * once the writer is gone); false if the ring is empty or not a ring (it
 * holds nothing to count).
 */
bool ring_first_kept(const struct source *s, uint64_t *first)
{
	const struct ring_source *rs = &s->ring;
	struct bp_ring_stats st;
	struct bp_ring_page_info pi;
	uint64_t seq;

	*first = UINT64_MAX;
	if (bp_ring_stats(rs->mem, rs->bytes, &st) != BP_RING_OK || !st.head_seq)
		return false;
	seq = st.head_seq >= st.npages ? st.head_seq - st.npages + 1 : 1;
	/* at most npages probes (head may be UINT64_MAX in a damaged ring) */
	for (uint32_t k = 0; k < st.npages && seq + k <= st.head_seq; k++) {
		if (bp_ring_page_info(rs->mem, rs->bytes, seq + k, &pi) == BP_RING_OK) {
			*first = pi.first_rec;
			break;
		}
		/* Not there: its slot may be being recycled (seq 0) while the
		 * writer runs, or was when it died; any other seq is damage,
		 * and so is a slot recycled in the ring of a thread that
		 * exited, or in a file closed cleanly: no writer was cut short
		 * in the middle of a page switch there. */
		if (rs->closed || s->info.state != BP_RING_ALIVE ||
		    !oldest_recycled(rs, seq + k, st.npages))
			*first = UINT64_MAX - 1;
		if (*first == UINT64_MAX - 1)
			break;
	}
	return true;
}

void ring_load_counters(struct source *s)
{
	struct bp_ring_stats rs;

	if (!s->ring.mem || s->counters != COUNTERS_RING)
		return;
	if (bp_ring_stats(s->ring.mem, s->ring.bytes, &rs) == BP_RING_OK) {
		s->info.written = s->claimed = rs.written;
		s->info.discarded = rs.discarded;
		s->info.block_waits = rs.block_waits;
		s->info.block_ns = rs.block_ns;
		s->info.page_size = rs.page_size;
		s->info.npages = rs.npages;
	}
	accounts_settle(s);
}

uint64_t ring_end_index(const struct source *s)
{
	const struct ring_source *rs = &s->ring;
	struct bp_ring_stats st;
	struct bp_ring_page_info pi;
	unsigned char *page;
	uint64_t end = 0;

	if (bp_ring_stats(rs->mem, rs->bytes, &st) != BP_RING_OK || !st.head_seq ||
	    bp_ring_page_info(rs->mem, rs->bytes, st.head_seq, &pi) != BP_RING_OK ||
	    !(page = malloc(st.page_size)))
		return 0;
	if (bp_ring_copy_page(rs->mem, rs->bytes, st.head_seq, page) == BP_RING_OK)
		end = pi.first_rec + bp_ring_page_records(page, st.page_size);
	free(page);
	return end;
}
