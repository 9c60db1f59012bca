/*
 * The catalogue (reading.h): what the file holds, found by walking its
 * chunks (valid.c's walk) from the header on.  Sites and libraries chunks
 * go to the tables (tables.c); a ring chunk or a pages chunk makes or
 * extends the source of its ring (identified by the ring chunk's index);
 * an end chunk, or the accounts chunk the header names, gives the rings'
 * final counters.  Nothing but the chunk headers is read until records
 * are asked for.
 *
 * catalogue_update() is the one step that changes it: at open, at every
 * bp_trace_refresh(), and when a record names a site the tables lack in a
 * file not closed.  The walk resumes where it stopped, at the first of the
 * trailing offsets that held no complete chunk; chunks that were still
 * being written are looked at again; lists are parsed past what was
 * parsed.  The accounts are settled after it (accounts.c).
 */
#include "file/reading.h"

#include "file/array.h"
#include "file/compact.h"
#include "file/valid.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- sources ------------------------------------------------------------ */

struct source *catalogue_source(struct bp_trace *t, uint64_t key, bool create)
{
	struct source *s;
	struct source **grown;

	for (size_t i = 0; i < t->nsrc; i++)
		if (t->src[i]->info.key == key)
			return t->src[i];
	if (!create)
		return NULL;
	grown = bp_array_grow(t->src, &t->src_cap, t->nsrc + 1, sizeof(*t->src));
	if (!grown)
		return NULL;
	t->src = grown;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->info.key = key;
	s->cpu = -1;
	t->src[t->nsrc++] = s;
	return s;
}

static void set_comm(struct source *s, const char comm[16])
{
	size_t len = strnlen(comm, 16);

	memcpy(s->info.comm, comm, len);
	s->info.comm[len] = '\0';
}

/* ---- chunks ------------------------------------------------------------- */

static int add_ring(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
{
	struct bp_file_ring h;
	struct source *s;
	int rc;

	if ((rc = reader_pread(t, off, &h, sizeof(h))) != BP_TRACE_OK)
		return rc;
	if (h.ring_bytes > c->size - BP_FILE_RING_OFFSET || h.ring_bytes < BP_RING_CTL_BYTES) {
		reader_problem(t, "ring chunk at %llu: bad ring size", (unsigned long long)off);
		return BP_TRACE_OK;
	}
	s = catalogue_source(t, c->index, true);
	if (!s)
		return BP_TRACE_ENOMEM;
	if (s->ring.chunk_off)
		return BP_TRACE_OK;	/* two rings claim one index: keep the first */
	s->ring.chunk_off = off;
	s->ring.bytes = h.ring_bytes;
	s->info.tid = (int32_t)h.tid;
	s->info.level = h.level;
	s->info.state = atomic_load_explicit(&h.state, memory_order_relaxed);
	s->info.dropped = atomic_load_explicit(&h.dropped, memory_order_relaxed);
	set_comm(s, h.comm);
	s->dry = false;
	return BP_TRACE_OK;
}

/* A pages chunk's header h (the type 6/8 fields read only for those) is sane. */
static bool pages_geometry_ok(const struct bp_file_cpages *h, const struct bp_file_chunk *c)
{
	if (h->page_size < BP_RING_PAGE_MIN || h->page_size > MAX_PAGE ||
	    (h->page_size & (h->page_size - 1)) || h->npages == 0)
		return false;
	if (c->type == BP_CHUNK_PAGES)
		return (uint64_t)h->npages * h->page_size <= c->size - BP_FILE_PAGES_OFFSET;
	/* types 6 and 8: type 4's header, with data_bytes in its reserved bytes */
	return h->data_bytes >= BP_COMPACT_ENTRY_HDR &&
	       h->data_bytes <= c->size - BP_FILE_PAGES_OFFSET &&
	       (uint64_t)h->npages * BP_COMPACT_ENTRY_HDR <= h->data_bytes;
}

/* The ring's counters a pages chunk carries: newer than the accounts'. */
static void pages_counters(struct source *s, const struct bp_file_cpages *h, bool compact)
{
	uint64_t waits = compact ? h->block_waits : 0, wait_ns = compact ? h->block_ns : 0;

	if (s->counters != COUNTERS_END) {
		if (h->written >= s->info.written)
			s->info.written = h->written;
		if (h->discarded >= s->info.discarded)
			s->info.discarded = h->discarded;
	}
	/* Block-mode waits: only the pages chunks carry them (the latest wins). */
	if (waits >= s->info.block_waits && wait_ns >= s->info.block_ns) {
		s->info.block_waits = waits;
		s->info.block_ns = wait_ns;
	}
}

static int add_pages(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
{
	bool compact = c->type != BP_CHUNK_PAGES;
	struct bp_file_cpages h;
	struct pages_chunk pc;
	unsigned char first[24];	/* the first page's seq .. first_rec */
	struct source *s;
	int rc;

	if ((rc = reader_pread(t, off, &h, sizeof(h))) != BP_TRACE_OK)
		return rc;
	if (!pages_geometry_ok(&h, c)) {
		reader_problem(t, "pages chunk at %llu: bad geometry", (unsigned long long)off);
		return BP_TRACE_OK;
	}
	if ((rc = reader_pread(t, off + BP_FILE_PAGES_OFFSET, first, sizeof(first))) != BP_TRACE_OK)
		return rc;
	s = catalogue_source(t, h.ring_index, true);
	if (!s)
		return BP_TRACE_ENOMEM;
	memset(&pc, 0, sizeof(pc));
	pc.off = off;
	memcpy(&pc.first_seq, first, sizeof(pc.first_seq));
	memcpy(&pc.first_rec, first + 16, sizeof(pc.first_rec));
	pc.page_size = h.page_size;
	pc.npages = h.npages;
	pc.type = c->type;
	pc.data_bytes = compact ? h.data_bytes : 0;
	pc.copied_before = compact ? h.copied_before : 0;
	pc.nrec = UINT64_MAX;
	if ((rc = stream_add_chunk(t, s, &pc)) != BP_TRACE_OK)
		return rc;
	s->info.tid = (int32_t)h.tid;
	s->info.level = h.level;
	set_comm(s, h.comm);
	pages_counters(s, &h, compact);
	s->info.page_size = h.page_size;
	s->dry = false;
	if (s->phase == SOURCE_DONE && !s->dead)
		s->phase = SOURCE_STREAMED;
	return BP_TRACE_OK;
}

/* Entry e of an end or accounts chunk into its source. */
static int add_counters_entry(struct bp_trace *t, const struct bp_file_end_ring *r, bool end)
{
	struct source *s;

	if (!r->ring_index)
		return BP_TRACE_OK;	/* an accounts slot not filled */
	s = catalogue_source(t, r->ring_index, true);
	if (!s)
		return BP_TRACE_ENOMEM;
	if (!end && s->counters == COUNTERS_END)
		return BP_TRACE_OK;
	if (!s->stream.nchunks && !s->ring.chunk_off) {
		s->info.tid = (int32_t)r->tid;
		s->info.level = r->level;
		s->phase = SOURCE_DONE;	/* a ring that never had a page copied */
	}
	if (end || r->written > s->info.written)
		s->info.written = r->written;
	if (end || r->discarded > s->info.discarded)
		s->info.discarded = r->discarded;
	s->info.dropped = r->dropped;
	s->info.lost_by_drainer = r->lost_records;
	s->info.not_copied = 0;
	s->copied = r->copied;
	s->counters = end ? COUNTERS_END : COUNTERS_ACCOUNTS;
	return BP_TRACE_OK;
}

/*
 * The end chunk (final counters), or the accounts chunk the header names
 * (the same entries, as far as a drainer that did not finish got): the
 * records it never copied are not_copied.  An end chunk wins.
 */
static int add_counters(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
{
	bool end = c->type == BP_CHUNK_END;
	struct bp_file_end h;
	uint64_t room;
	int rc;

	if ((rc = reader_pread(t, off, &h, sizeof(h))) != BP_TRACE_OK)
		return rc;
	room = (c->size - BP_FILE_END_HDR_BYTES) / BP_FILE_END_RING_BYTES;
	if (h.count > room) {
		reader_problem(t, "end chunk at %llu: bad count", (unsigned long long)off);
		return BP_TRACE_OK;
	}
	for (uint32_t i = 0; i < h.count; i++) {
		struct bp_file_end_ring r;

		if ((rc = reader_pread(t, off + BP_FILE_END_HDR_BYTES + (uint64_t)i * sizeof(r), &r,
				       sizeof(r))) != BP_TRACE_OK ||
		    (rc = add_counters_entry(t, &r, end)) != BP_TRACE_OK)
			return rc;
	}
	if (!end)
		t->info.accounted = 1;
	return BP_TRACE_OK;
}

static int accept_chunk(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
{
	switch (c->type) {
	case BP_CHUNK_SITES:
	case BP_CHUNK_LIBS:
		return tables_add_list(t, off, c->size, c->type);
	case BP_CHUNK_RING:
		return add_ring(t, off, c);
	case BP_CHUNK_PAGES:
	case BP_CHUNK_CPAGES:
	case BP_CHUNK_DPAGES:
		return add_pages(t, off, c);
	case BP_CHUNK_END:
		return add_counters(t, off, c);
	case BP_CHUNK_ACCOUNTS:
		/* only the one in force; older ones were moved to a bigger chunk */
		return off == t->info.accounts_off ? add_counters(t, off, c) : BP_TRACE_OK;
	default:
		return BP_TRACE_OK;
	}
}

/* ---- the walk ----------------------------------------------------------- */

static void remember_pending(struct bp_trace *t, uint64_t off)
{
	for (size_t i = 0; i < t->npending; i++)
		if (t->pending[i] == off)
			return;
	if (t->npending < MAX_PENDING)
		t->pending[t->npending++] = off;
}

/* Walk from t->walk_pos to the end of the file: *taken, the chunks accepted. */
static int walk(struct bp_trace *t, size_t *taken)
{
	struct bp_chunk_walk w = { t->fd, t->walk_pos, t->size };
	uint64_t bad_from = UINT64_MAX;
	struct bp_file_chunk c;
	enum bp_chunk_seen seen;
	int rc;

	while ((seen = bp_chunk_walk_look(&w, &c)) != BP_CHUNK_SEEN_END) {
		if (seen == BP_CHUNK_SEEN_NONE) {
			if (bad_from == UINT64_MAX)
				bad_from = w.off;
			w.off = reader_next_data(t, w.off + BP_FILE_ALIGN);
			continue;
		}
		if (seen == BP_CHUNK_SEEN_COMPLETE) {
			if ((rc = accept_chunk(t, w.off, &c)) < 0)
				return rc;
			(*taken)++;
		} else {
			remember_pending(t, w.off);
		}
		bp_chunk_walk_pass(&w, seen, &c);
		bad_from = UINT64_MAX;
	}
	/* Resume at the trailing run of offsets that held no chunk (yet). */
	t->walk_pos = bad_from != UINT64_MAX ? bad_from : w.off;
	return BP_TRACE_OK;
}

/* The chunks that were still being written: complete now?  *taken as walk(). */
static int revisit_pending(struct bp_trace *t, size_t *taken)
{
	struct bp_file_chunk c;
	size_t i = 0;
	int rc;

	while (i < t->npending) {
		uint64_t off = t->pending[i];
		enum bp_chunk_seen seen = bp_chunk_look(t->fd, off, t->size, &c);

		if (seen == BP_CHUNK_SEEN_WRITING || seen == BP_CHUNK_SEEN_SKIP) {
			i++;
			continue;
		}
		t->pending[i] = t->pending[--t->npending];
		if (seen == BP_CHUNK_SEEN_COMPLETE) {
			if ((rc = accept_chunk(t, off, &c)) < 0)
				return rc;
			(*taken)++;
		}
	}
	return BP_TRACE_OK;
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

	for (size_t i = 0; i < t->nlists; i++)
		if ((rc = tables_parse_list(t, &t->lists[i])) < 0)
			return rc;
	if (!want_site || !tables_site(t, want_site)) {
		if ((rc = reader_measure(t)) == BP_TRACE_OK &&
		    ((rc = revisit_pending(t, &taken)) < 0 || (rc = walk(t, &taken)) < 0))
			return want_site ? BP_TRACE_EIO : rc;
		if (rc != BP_TRACE_OK && !want_site)
			return rc;
	}
	tables_sort_sites(t);
	if (taken || !want_site)
		accounts_update(t);
	return BP_TRACE_OK;
}
