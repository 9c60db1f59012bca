/*
 * What each complete chunk adds to the catalogue (reading.h), once the
 * walk of catalogue.c accepts it: its checksum checked (a stream of 1.3
 * or later), then by type: sites and libraries lists to the tables
 * (tables.c), a ring chunk or a pages chunk to the source of its ring, an
 * end chunk or the accounts chunk in force to the rings' counters.  Apart
 * from catalogue.c, which decides where chunks are and when to look at
 * them again; this reads one chunk's headers and says what they hold.
 */
#include "reader/reading.h"
#include "reader/catalogue.h"

#include "file/checksums.h"
#include "file/compact.h"
#include "file/crc32c.h"
#include "file/valid.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void set_comm(struct source *s, const char comm[16])
{
	size_t len = strnlen(comm, 16);

	memcpy(s->info.comm, comm, len);
	s->info.comm[len] = '\0';
}

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
	/* its thread's name and dropped count (1.4), final once the writer
	 * is done (before, a reader may see them rewritten under it) */
	if (t->info.minor >= BP_FILE_MINOR_HCRC && t->writer_gone &&
	    h.names_crc != bp_ring_names_crc(&h))
		reader_problem(t, "ring chunk at %llu: its thread's name and counts do not match "
			       "their checksum", (unsigned long long)off);
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
		if (h->written >= s->claimed)
			s->claimed = h->written;
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
	if (h.discarded > h.written)
		reader_problem(t, "pages chunk at %llu: %llu records discarded of %llu written",
			       (unsigned long long)off, (unsigned long long)h.discarded,
			       (unsigned long long)h.written);
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
	pc.written = h.written;
	pc.discarded = h.discarded;
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

/* No counter of a ring reaches 2^56: a record a nanosecond for two years.
 * Above it, a counter is damage (an accounts chunk's entries, rewritten
 * in place, carry no checksum: their high bits are checked here). */
#define COUNT_BITS 56

/* Entry e of an end or accounts chunk into its source. */
static int add_counters_entry(struct bp_trace *t, const struct bp_file_end_ring *r, bool end)
{
	struct source *s;

	if (!r->ring_index)
		return BP_TRACE_OK;	/* an accounts slot not filled */
	if ((r->written | r->discarded | r->copied | r->lost_records) >> COUNT_BITS)
		reader_problem(t, "%s chunk: ring %llu counts %llu records written, more than "
			       "any thread writes (2^%d)", end ? "end" : "accounts",
			       (unsigned long long)r->ring_index, (unsigned long long)r->written,
			       COUNT_BITS);
	else if (r->discarded > r->written || r->copied > r->written - r->discarded ||
	    r->lost_records > r->written - r->discarded - r->copied)
		reader_problem(t, "%s chunk: ring %llu counts more records (%llu copied, %llu lost, "
			       "%llu discarded) than were written (%llu)", end ? "end" : "accounts",
			       (unsigned long long)r->ring_index, (unsigned long long)r->copied,
			       (unsigned long long)r->lost_records, (unsigned long long)r->discarded,
			       (unsigned long long)r->written);
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
	if (end || r->written > s->claimed)
		s->claimed = r->written;
	if (end || r->written > s->info.written)
		s->info.written = r->written;
	if (end || r->discarded > s->info.discarded)
		s->info.discarded = r->discarded;
	s->info.dropped = r->dropped;
	s->info.lost_by_drainer = r->lost_records;
	s->info.not_copied = 0;
	s->copied = r->copied;
	s->acct_written = r->written;
	s->acct_discarded = r->discarded;
	s->counters = end ? COUNTERS_END : COUNTERS_ACCOUNTS;
	return BP_TRACE_OK;
}

/*
 * The end chunk (final counters), or the accounts chunk the header names
 * (the same entries, as far as a drainer that did not finish got): the
 * records it never copied are not_copied.  An end chunk wins.
 */
int catalogue_add_counters(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
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

/* A stream of 1.3 or later: the chunk's bytes against its crc (valid.h). */
static int check_crc(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
{
	enum { PIECE = 64 * 1024 };
	uint32_t crc = bp_chunk_crc_start(c);
	unsigned char *buf;
	int rc = BP_TRACE_OK;

	if (bp_chunk_crc_body(c) && c->size > BP_CHUNK_HDR_BYTES) {
		if (!(buf = malloc(PIECE)))
			return BP_TRACE_ENOMEM;
		for (uint64_t at = BP_CHUNK_HDR_BYTES; at < c->size && rc == BP_TRACE_OK;) {
			size_t n = c->size - at < PIECE ? (size_t)(c->size - at) : PIECE;

			if ((rc = reader_pread(t, off + at, buf, n)) == BP_TRACE_OK)
				crc = bp_crc32c(crc, buf, n);
			at += n;
		}
		free(buf);
		if (rc == BP_TRACE_ENOMEM || rc == BP_TRACE_EIO)
			return rc;
	}
	if (rc != BP_TRACE_OK || crc != c->crc)
		reader_problem(t, "chunk at %llu (type %u): checksum mismatch, its contents are damaged",
			       (unsigned long long)off, c->type);
	return BP_TRACE_OK;
}

/*
 * A live file's chunk header against its crc (1.4: its fixed fields, a
 * ring chunk's tid, level and ring_bytes too); before 1.4 the crc field
 * of a live file's chunk is 0.
 */
static int check_live_crc(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
{
	struct bp_file_ring r;
	int rc;

	if (t->info.minor < BP_FILE_MINOR_HCRC) {
		if (c->crc)
			reader_problem(t, "chunk at %llu: a checksum in a live file of format 1.%u",
				       (unsigned long long)off, t->info.minor);
		return BP_TRACE_OK;
	}
	memcpy(&r.chunk, c, sizeof(*c));
	if (c->type == BP_CHUNK_RING && c->size >= sizeof(r) &&
	    (rc = reader_pread(t, off + sizeof(*c), (unsigned char *)&r + sizeof(*c),
			       sizeof(r) - sizeof(*c))) != BP_TRACE_OK)
		return rc == BP_TRACE_EFORMAT ? BP_TRACE_OK : rc;
	if (bp_live_chunk_crc(&r.chunk) != c->crc)
		reader_problem(t, "chunk at %llu (type %u): header checksum mismatch",
			       (unsigned long long)off, c->type);
	return BP_TRACE_OK;
}

/* Does a chunk of this type belong in this kind of file?  A traced program
 * writes rings, sites and libraries; a drainer all but rings. */
static bool kind_fits(const struct bp_trace *t, uint32_t type)
{
	bool stream = t->info.flags & BP_TRACE_F_STREAM;

	if (type == BP_CHUNK_SITES || type == BP_CHUNK_LIBS)
		return true;
	return stream ? type != BP_CHUNK_RING : type == BP_CHUNK_RING;
}

int catalogue_accept_chunk(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
{
	int rc;

	if (bp_file_has_crc(t->info.flags, t->info.minor) && (rc = check_crc(t, off, c)) < 0)
		return rc;
	if (!(t->info.flags & BP_TRACE_F_STREAM) && (rc = check_live_crc(t, off, c)) < 0)
		return rc;
	if (!kind_fits(t, c->type) && !t->walk.kind_said) {
		t->walk.kind_said = true;
		reader_problem(t, "chunk at %llu: a %s's chunk (type %u) in a %s file",
			       (unsigned long long)off, c->type == BP_CHUNK_RING ? "live file" : "stream",
			       c->type, t->info.flags & BP_TRACE_F_STREAM ? "stream" : "live");
	}
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
		return catalogue_add_counters(t, off, c);
	case BP_CHUNK_KFORMATS:
	case BP_CHUNK_KPAGES:
		return kernel_add_chunk(t, off, c);
	case BP_CHUNK_ACCOUNTS:
		/* only the one in force; older ones were moved to a bigger chunk */
		if (off != t->info.accounts_off)
			return BP_TRACE_OK;
		t->walk.accounts_found = true;
		return catalogue_add_counters(t, off, c);
	default:
		return BP_TRACE_OK;
	}
}
