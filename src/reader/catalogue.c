/*
 * The catalogue (reading.h): what the file holds, found by walking its
 * chunks (valid.c's walk) from the header on.  Sites and libraries chunks
 * go to the tables (tables.c); a ring chunk or a pages chunk makes or
 * extends the source of its ring (identified by the ring chunk's index);
 * an end chunk, or the accounts chunk the header names, gives the rings'
 * final counters.  What each chunk adds is catalogue_chunks.c's; this
 * file walks, judges what is not a complete chunk, and follows ring
 * chunks reused.  Nothing but the chunk headers is read until records
 * are asked for.
 *
 * catalogue_update() is the one step that changes it: at open, at every
 * bp_trace_refresh(), and when a record names a site the tables lack in a
 * file not closed.  The walk resumes where it stopped, at the first of the
 * trailing offsets that held no complete chunk; chunks that were still
 * being written are looked at again; lists are parsed past what was
 * parsed.  The accounts are settled after it (accounts.c).
 */
#include "reader/reading.h"
#include "reader/accounts.h"
#include "reader/catalogue.h"

#include "file/array.h"
#include "file/valid.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- sources ------------------------------------------------------------ */

struct source *catalogue_source(struct bp_trace *t, uint64_t key, bool create)
{
	size_t at = bp_keymap_find(&t->src_by_key, key);
	struct source *s;
	struct source **grown;

	if (at != SIZE_MAX)
		return t->src[at];
	if (!create)
		return NULL;
	grown = bp_array_grow(t->src, &t->src_cap, t->nsrc + 1, sizeof(*t->src));
	if (!grown)
		return NULL;
	t->src = grown;
	if (!bp_keymap_reserve(&t->src_by_key) || !(s = calloc(1, sizeof(*s))))
		return NULL;
	s->info.key = key;
	s->cpu = -1;
	bp_keymap_put(&t->src_by_key, key, t->nsrc);	/* room reserved: cannot fail */
	t->src[t->nsrc++] = s;
	return s;
}

/* ---- the walk ----------------------------------------------------------- */

static void remember_pending(struct bp_trace *t, uint64_t off)
{
	uint64_t *grown;

	for (size_t i = 0; i < t->walk.npending; i++)
		if (t->walk.pending[i] == off)
			return;
	/* no bound: every ring chunk of a live file may be given back at once */
	grown = bp_array_grow(t->walk.pending, &t->walk.pending_cap, t->walk.npending + 1, sizeof(*t->walk.pending));
	if (grown) {	/* out of memory: the chunk is not looked at again */
		t->walk.pending = grown;
		t->walk.pending[t->walk.npending++] = off;
	}
}

/*
 * May a live file have a run of zeros where a chunk should begin?  Only
 * where an allocation failed (the header counts what the file lacks) or
 * was not filled yet, by a process that did not close the file; and then
 * the run is zeros through (dirty: bytes other than zeros were found in
 * it, as in a chunk whose header alone was wiped).
 */
static bool live_gap_ok(const struct bp_trace *t, bool dirty)
{
	const struct bp_trace_info *in = &t->info;

	if (dirty || (in->flags & BP_TRACE_F_STREAM))
		return false;
	return !(in->flags & BP_TRACE_F_CLOSED) || in->memory_rings || in->missing_sites ||
	       t->missing_libs;
}

/*
 * Where a chunk should begin (at off), bytes c are not a chunk header the
 * reader takes.  A hole is what a live file may have (an allocation that
 * failed or was not filled yet: live_gap_ok()); anything else, or a hole
 * in a stream (written without holes), is damage.  Called once the run of
 * such offsets is known to end before a chunk, or the file is closed: at
 * the tail of a file still being written, a header may be half filled in.
 */
static void judge_gap(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c, bool dirty)
{
	static const char *const why[] = {
		[BP_CHUNK_FLAW_NONE] = "no chunk",
		[BP_CHUNK_FLAW_ZERO] = "nothing (a hole in a stream)",
		[BP_CHUNK_FLAW_MAGIC] = "no chunk header",
		[BP_CHUNK_FLAW_TYPE] = "a chunk of an unknown type",
		[BP_CHUNK_FLAW_SIZE] = "a chunk of a bad size",
		[BP_CHUNK_FLAW_PAST_END] = "a chunk that goes past the end of the file (truncated)",
	};
	enum bp_chunk_flaw f = bp_chunk_flaw(c, off, t->size);

	if (off < t->walk.gaps_judged)
		return;	/* said already, at an earlier refresh */
	t->walk.gaps_judged = off + BP_FILE_ALIGN;
	if (f == BP_CHUNK_FLAW_ZERO && live_gap_ok(t, dirty))
		return;
	if (f == BP_CHUNK_FLAW_ZERO && !(t->info.flags & BP_TRACE_F_STREAM)) {
		reader_problem(t, "at %llu, where a chunk should begin: nothing, in a file %s",
			       (unsigned long long)off, dirty ? "that has more after it"
						 : "closed with nothing missing");
		return;
	}
	reader_problem(t, "at %llu, where a chunk should begin: %s", (unsigned long long)off, why[f]);
}

/*
 * May what is at the file's tail, where a chunk should begin, be judged
 * now?  Yes in a closed file, or a live one whose writer is gone.  In a stream still being written (or whose
 * drainer was killed in a write) the last chunk may be cut short; in a
 * live file a header may be half filled in: anything but the magic with
 * a bad type or size is left for a later look.
 */
static bool tail_settled(const struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
{
	enum bp_chunk_flaw f = bp_chunk_flaw(c, off, t->size);

	if ((t->info.flags & BP_TRACE_F_CLOSED) ||
	    (!(t->info.flags & BP_TRACE_F_STREAM) && t->writer_gone))
		return true;
	/* a stream's header says where its drainer had written up to */
	return (t->info.flags & BP_TRACE_F_STREAM) &&
	       (off < t->info.end_hint || f == BP_CHUNK_FLAW_MAGIC || f == BP_CHUNK_FLAW_TYPE ||
		f == BP_CHUNK_FLAW_SIZE);
}

/* Is the ring of the chunk at off alive (1), not (0), or unreadable (-1)?
 * A reuse takes only an exited thread's ring. */
static int ring_alive(struct bp_trace *t, uint64_t off)
{
	uint32_t state;

	if (reader_pread(t, off + offsetof(struct bp_file_ring, state), &state, 4) != BP_TRACE_OK)
		return -1;
	return state == BP_RING_ALIVE;
}

/*
 * A chunk not complete: in a stream, damage (a drainer writes every chunk
 * whole and complete); in a live file, one being written (looked at
 * again later) or abandoned, unless its state is none of those, or it is
 * a ring chunk whose ring is formatted (the tracer formats a ring only in
 * a chunk complete).  But a live file of 1.3 stores a reused ring chunk's
 * state 0 before it clears the old ring's magic ("Ring chunks reused"):
 * there a ring in a chunk being written is one being reused.
 */
static int judge_pending(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
{
	uint32_t state = bp_chunk_state(c), magic = 0;
	int rc;

	if (t->info.flags & BP_TRACE_F_STREAM) {
		reader_problem(t, "chunk at %llu: state %u in a stream", (unsigned long long)off,
			       state);
		return BP_TRACE_OK;
	}
	if (state != BP_CHUNK_WRITING && state != BP_CHUNK_ABANDONED) {
		reader_problem(t, "chunk at %llu: state %u", (unsigned long long)off, state);
		return BP_TRACE_OK;
	}
	if (c->type == BP_CHUNK_RING && c->size > BP_FILE_RING_OFFSET + 4) {
		if ((rc = reader_pread(t, off + BP_FILE_RING_OFFSET, &magic, 4)) < 0 &&
		    rc != BP_TRACE_EFORMAT)
			return rc;
		/* a reuse's steps 1 and 2 go together: one is cut between them
		 * only in a file not closed */
		if (magic == BP_RING_MAGIC &&
		    (state != BP_CHUNK_WRITING || t->info.minor < BP_FILE_MINOR_REUSE ||
		     (t->info.flags & BP_TRACE_F_CLOSED) || ring_alive(t, off) != 0)) {
			reader_problem(t, "ring chunk at %llu: a ring in a chunk of state %u",
				       (unsigned long long)off, state);
			return BP_TRACE_OK;
		}
	}
	remember_pending(t, off);
	return BP_TRACE_OK;
}

/*
 * A stream of 1.4 numbers its chunks in file order from 1 (its copier
 * writes them one after the other): any other index is a chunk out of
 * place, a copy of another one most likely.
 */
static void check_index(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
{
	uint64_t want = t->walk.last_index + 1;

	if (!(t->info.flags & BP_TRACE_F_STREAM) || t->info.minor < BP_FILE_MINOR_HCRC)
		return;
	t->walk.last_index = c->index;
	if (c->index != want)
		reader_problem(t, "chunk at %llu: index %llu where %llu was next (a chunk out of "
			       "place)", (unsigned long long)off, (unsigned long long)c->index,
			       (unsigned long long)want);
}

/* Is the file from off on a hole that goes past the header's end, which
 * open's check of the tail says (its words for it)? */
static bool tail_hole(struct bp_trace *t, uint64_t off)
{
	return t->size > t->info.end_hint && lseek(t->fd, (off_t)off, SEEK_DATA) < 0 &&
	       errno == ENXIO;
}

/* Walk from t->walk.pos to the end of the file: *taken, the chunks accepted. */
static int walk(struct bp_trace *t, size_t *taken)
{
	struct bp_chunk_walk w = { t->fd, t->walk.pos, t->size };
	uint64_t bad_from = UINT64_MAX;
	struct bp_file_chunk c, bad;
	enum bp_chunk_seen seen;
	bool dirty = false;	/* the run of offsets without a chunk has more than zeros */
	int rc;

	while ((seen = bp_chunk_walk_look(&w, &c)) != BP_CHUNK_SEEN_END) {
		if (seen == BP_CHUNK_SEEN_NONE) {
			if (bad_from == UINT64_MAX) {
				bad_from = w.off;
				bad = c;
				dirty = false;
			}
			dirty = dirty || bp_chunk_flaw(&c, w.off, t->size) != BP_CHUNK_FLAW_ZERO;
			w.off = reader_next_data(t, w.off + BP_FILE_ALIGN);
			continue;
		}
		if (bad_from != UINT64_MAX)
			judge_gap(t, bad_from, &bad, dirty);
		check_index(t, w.off, &c);
		if (seen == BP_CHUNK_SEEN_COMPLETE) {
			if ((rc = catalogue_accept_chunk(t, w.off, &c)) < 0)
				return rc;
			(*taken)++;
		} else if ((rc = judge_pending(t, w.off, &c)) < 0) {
			return rc;
		}
		bp_chunk_walk_pass(&w, seen, &c);
		bad_from = UINT64_MAX;
	}
	/* Resume at the trailing run of offsets that held no chunk (yet). */
	t->walk.pos = bad_from != UINT64_MAX ? bad_from : w.off;
	if (bad_from != UINT64_MAX && tail_settled(t, bad_from, &bad) && !tail_hole(t, bad_from))
		judge_gap(t, bad_from, &bad, dirty);
	return BP_TRACE_OK;
}

/* The chunks that were still being written: complete now?  *taken as walk(). */
static int revisit_pending(struct bp_trace *t, size_t *taken)
{
	struct bp_file_chunk c;
	size_t i = 0;
	int rc;

	while (i < t->walk.npending) {
		uint64_t off = t->walk.pending[i];
		enum bp_chunk_seen seen = bp_chunk_look(t->fd, off, t->size, &c);

		if (seen == BP_CHUNK_SEEN_WRITING || seen == BP_CHUNK_SEEN_SKIP) {
			i++;
			continue;
		}
		t->walk.pending[i] = t->walk.pending[--t->walk.npending];
		if (seen == BP_CHUNK_SEEN_COMPLETE) {
			if ((rc = catalogue_accept_chunk(t, off, &c)) < 0)
				return rc;
			(*taken)++;
		}
	}
	return BP_TRACE_OK;
}

/* A stream with its end chunk lists every ring there: one the accounts
 * (or pages chunks) have and the end chunk has not is damage. */
static void check_counted(struct bp_trace *t)
{
	bool end = false;

	for (size_t i = 0; i < t->nsrc && !end; i++)
		end = t->src[i]->counters == COUNTERS_END;
	for (size_t i = 0; end && i < t->nsrc; i++)
		if (t->src[i]->counters != COUNTERS_END && !t->src[i]->uncounted_said) {
			t->src[i]->uncounted_said = true;
			reader_problem(t, "ring %llu is not in the end chunk",
				       (unsigned long long)t->src[i]->info.key);
		}
}

/*
 * A stream still being written: its accounts are rewritten in place as
 * the copy goes on, and their counts (what is not copied yet, as pages
 * not full hold it) are read again at every refresh.
 */
static int reread_accounts(struct bp_trace *t)
{
	struct bp_file_chunk c;

	if (!t->walk.accounts_found || (t->info.flags & BP_TRACE_F_CLOSED) ||
	    bp_chunk_look(t->fd, t->info.accounts_off, t->size, &c) != BP_CHUNK_SEEN_COMPLETE ||
	    c.type != BP_CHUNK_ACCOUNTS)
		return BP_TRACE_OK;
	return catalogue_add_counters(t, t->info.accounts_off, &c);
}

/* ---- ring chunks reused, retired rings (format 1.3) -------------------- */

/*
 * The live file reuses an exited thread's ring chunk for a new ring
 * (docs/file-format.md, "Ring chunks reused"), and counts in its header
 * the rings it reused while their records were in no other file.  Those
 * are one more source here, key 0 (no chunk has index 0), tid -1,
 * "(retired)": its stored records all overwritten.  A ring chunk whose
 * index changed under this reader (seen at an update, or by ring_next()
 * right after a record was read from it) holds a new ring: the old one is
 * over (left as read or, if it had exited, its counts moved into the
 * retired ring, which counts it now), and the chunk is looked at again as
 * a new one.  The only place that knows of reuse.
 */
/* The retired rings' source (key 0), made if create. */
static struct source *retired_source(struct bp_trace *t, bool create)
{
	struct source *r = catalogue_source(t, 0, false);

	if (r || !create || !(r = catalogue_source(t, 0, true)))
		return r;
	r->info.tid = -1;
	memcpy(r->info.comm, "(retired)", sizeof("(retired)"));
	r->info.state = BP_RING_EXITED;
	r->counters = COUNTERS_FROZEN;		/* the header's: accounts.c leaves them */
	r->phase = SOURCE_DONE;
	return r;
}

static void retired_counts(struct bp_trace *t)
{
	uint64_t c[3];	/* retired_rings and missing_libs, retired_written, retired_discarded */
	struct bp_trace_ring *in;
	struct source *r;

	if (reader_pread(t, offsetof(struct bp_file_header, retired_rings), c, sizeof(c)) !=
		    BP_TRACE_OK || !c[1] || !(r = retired_source(t, true)))
		return;
	in = &r->info;
	in->written = r->claimed = c[1];
	in->discarded = c[2] < c[1] ? c[2] : c[1];
	in->overwritten = c[1] - in->discarded > in->read ? c[1] - in->discarded - in->read : 0;
	r->first_kept = in->overwritten;	/* bp_trace_overwritten_estimate() */
}

void catalogue_ring_reused(struct bp_trace *t, struct source *s)
{
	struct source *r;

	s->dead = true;
	s->counters = COUNTERS_FROZEN;	/* as they were: the ring they counted is gone */
	remember_pending(t, s->ring.chunk_off);
	bp_unmap(&s->ring.map);		/* what it maps is another ring's now */
	s->ring.mem = NULL;
	s->ring.chunk_off = 0;
	if (s->info.state == BP_RING_EXITED && (r = retired_source(t, true))) {
		r->info.read += s->info.read;	/* the retired ring counts it now */
		memset(&s->info.written, 0, sizeof(s->info) - offsetof(struct bp_trace_ring, written));
		s->claimed = 0;
		s->ring_end = 0;	/* the old ring's: it would count its records again */
	}
	retired_counts(t);
}

/*
 * The ring chunks known to a reader following a live file, and the retired
 * ring.  A chunk of state 0 is being reused, or was given back after its
 * ring was counted as retired, with its index still the old one.  A
 * source with a record in hand (read before the chunk changed, and
 * checked then) is looked at again once the record is taken.
 */
static bool reused_rings(struct bp_trace *t)
{
	bool found = false;

	for (size_t i = 0; t->live && i < t->nsrc; i++) {
		struct source *s = t->src[i];
		struct bp_file_ring h;

		if (!s->ring.chunk_off || s->dead || s->has ||
		    reader_pread(t, s->ring.chunk_off, &h, sizeof(h)) != BP_TRACE_OK)
			continue;
		if (h.chunk.index == s->info.key &&
		    atomic_load_explicit(&h.chunk.state, memory_order_relaxed) == BP_CHUNK_COMPLETE)
			s->info.state = atomic_load_explicit(&h.state, memory_order_relaxed);
		else {
			catalogue_ring_reused(t, s);
			found = true;
		}
	}
	retired_counts(t);
	return found;
}

/* The file's size, as it is now. */
int reader_measure(struct bp_trace *t)
{
	struct stat st;

	if (fstat(t->fd, &st) != 0)
		return BP_TRACE_EIO;
	t->size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
	t->info.file_size = t->size;
	return BP_TRACE_OK;
}

int catalogue_update(struct bp_trace *t, uint32_t want_site)
{
	size_t taken = 0;
	int rc;

	if ((rc = tables_parse_lists(t)) < 0)
		return rc;
	if (!want_site || !tables_site(t, want_site)) {
		if ((rc = reader_measure(t)) == BP_TRACE_OK &&
		    ((rc = revisit_pending(t, &taken)) < 0 || (rc = walk(t, &taken)) < 0))
			return want_site ? BP_TRACE_EIO : rc;
		if (rc != BP_TRACE_OK && !want_site)
			return rc;
	}
	if (!want_site && (rc = reread_accounts(t)) < 0)
		return rc;
	tables_sort_sites(t);
	if (taken)
		check_counted(t);
	if (taken || !want_site) {
		accounts_update(t);
		/* after the accounts: the retired ring's are the header's.  A
		 * chunk cleared and taken again since the last look holds its
		 * new ring already: found now, not a refresh later. */
		if (reused_rings(t)) {
			size_t again = 0;

			if ((rc = revisit_pending(t, &again)) < 0)
				return rc;
			if (again)
				accounts_update(t);
		}
		t->merge_all = true;	/* new sources, or sources with more */
	}
	return BP_TRACE_OK;
}
