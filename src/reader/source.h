/*
 * reader/source.h - the reader's sources: one ring (thread x nesting
 * level) each, read from its pages chunks (stream_source.c), then from its
 * mapped ring chunk (ring_source.c), or a CPU's kernel pages
 * (kernel_source.h).  A source reads and says what happened (enum
 * source_step); it changes nothing outside itself: what the catalogue or
 * the accounts must do about it, their caller does (merge.c).
 */
#ifndef BP_READER_SOURCE_H
#define BP_READER_SOURCE_H

#include "file/mapping.h"
#include "reader/reader.h"
#include "ring/ring.h"
#include "trace/record.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_trace;
struct kernel_cpu;

#define MAX_PAGE	(1u << 22)		/* largest streamed page accepted */
#define MAX_PAYLOAD	(BP_RING_REC_MAX_WORDS * 4u)

/* One pages chunk of a source (types 4, 6, 8). */
struct pages_chunk {
	uint64_t off;			/* the chunk */
	uint64_t first_seq;		/* seq of its first page (sort key) */
	uint64_t first_rec;		/* and that page's first_rec */
	uint32_t page_size, npages;
	uint32_t type;			/* BP_CHUNK_PAGES, _CPAGES or _DPAGES */
	uint64_t data_bytes;		/* compact and dense: bytes of entries */
	uint64_t copied_before;		/* the ring's records in earlier chunks (1.1) */
	uint64_t written, discarded;	/* the ring's counters when it was copied */
	uint64_t nrec;			/* its records, UINT64_MAX until counted */
	uint64_t end_rec;		/* then: the index after its last, 0 = none */
};

/* A source's pages chunks, read page by page (stream_source.c). */
struct stream_source {
	struct pages_chunk *chunks;	/* sorted by first_seq */
	size_t nchunks, chunks_cap;
	size_t chunk;			/* the next chunk to read */
	uint32_t page;			/* the next page in it */
	uint64_t entry_off;		/* compact and dense: that page's entry, from the data */
	uint32_t entry_guess;		/* the last entry's length: the next one's first read */
	unsigned char *page_buf;	/* the page being read, decoded */
	uint32_t page_ps;		/* its size */
	struct bp_ring_page_iter it;	/* reads it (ring/ring.h) */
	bool in_page;			/* it has records left */
	uint64_t fed_seq;		/* seq of the last page read */
	uint64_t expect_rec;		/* the next page's first_rec may not be below */
};

/* A source's ring chunk, mapped and read in place (ring_source.c). */
struct ring_source {
	uint64_t chunk_off;		/* the ring chunk, 0 = none */
	uint64_t bytes;			/* the ring's bytes, after the chunk header */
	struct bp_mapping map;		/* of the chunk, none until mapped */
	const unsigned char *mem;	/* the ring, inside the mapping */
	struct bp_ring_cursor cur;
	bool cursor_ready;
	uint64_t last_page;		/* page seq of the last record read */
	uint64_t drop_from;		/* first page seq not dropped yet, 0 = none read */
	bool closed;			/* the file was closed cleanly when it was mapped */
};

/* Where a source's next record comes from. */
enum source_phase {
	SOURCE_STREAMED,		/* its pages chunks, first */
	SOURCE_RING,			/* then its ring chunk, past what the pages held */
	SOURCE_DONE,			/* neither has more (until a refresh adds some) */
	SOURCE_KERNEL,			/* a CPU's kernel pages (kernel_source.h) */
};

/* What a source's counters come from, besides the ring itself. */
enum source_counters {
	COUNTERS_RING,			/* the ring chunk's or the pages chunks' */
	COUNTERS_ACCOUNTS,		/* an accounts chunk: a drainer that did not finish */
	COUNTERS_END,			/* the end chunk: final */
	COUNTERS_FROZEN,		/* as they were: a ring whose live-file chunk was
					 * reused, or the header's retired rings
					 * (catalogue.c, format 1.3) */
};

/* One ring (thread x nesting level), identified by its ring chunk's index. */
struct source {
	struct bp_trace_ring info;	/* what bp_trace_ring_at() returns */
	struct stream_source stream;
	struct ring_source ring;
	struct source *first_of_tid;	/* the thread's first ring: its name */
	/* reading */
	enum source_phase phase;
	bool dry;			/* nothing more until the next refresh */
	bool dead;			/* ended by damage */
	bool has;			/* a record in hand: ev, buf */
	uint64_t next_index;		/* the index the next record should have */
	uint64_t gap_before;		/* records missing before the one in hand */
	int32_t cpu;			/* of its last record that said */
	/* accounts (accounts.c) */
	enum source_counters counters;
	uint64_t copied;		/* accounts: records in its pages chunks */
	uint64_t acct_written, acct_discarded;	/* accounts: the entry's counters */
	uint64_t acct_have;		/* accounts: every index below is in a chunk or lost */
	uint64_t first_kept;		/* the first stored-record index the file holds */
	uint64_t claimed;		/* written, as the file says (reading may find more) */
	uint64_t ring_end;		/* the index after its ring's last record, at the update */
	uint64_t first_gap;		/* records overwritten before the first one read */
	uint64_t oldest_rec;		/* first_rec of the oldest page the file holds, or UINT64_MAX */
	bool any_read;			/* a record was read: first_gap is set */
	bool uncounted_said;		/* not in the end chunk: said */
	bool entry_checked;		/* its accounts entry against its chunks */
	bool backwards_said;		/* its time ran backwards: said */
	bool bad_said;			/* a record not as its writer writes one: said */
	uint64_t last_ts;		/* of the record read before the one in hand */
	/* a kernel CPU's source (kernel_source.h): its pages, and the thread
	 * of the event in hand (the ring's tid and comm are the CPU's) */
	struct kernel_cpu *kcpu;
	int32_t ktid;
	bool kown;			/* it involves a thread of the traced tree */
	char kcomm[17];
	const unsigned char *kraw;	/* the event's bytes, in kcpu's page (exporters) */
	uint32_t kraw_len;
	/* the record in hand */
	struct bp_ring_event ev;
	struct bp_record_args args;	/* ev's payload in buf, split */
	uint32_t buf[MAX_PAYLOAD / 4];
};

/* What one step of reading a source found (a negative: BP_TRACE_ENOMEM or _EIO). */
enum source_step {
	SOURCE_AGAIN = 0,		/* look again: a page or phase changed */
	SOURCE_GOT = 1,			/* a record in ev and buf */
	SOURCE_STOP = 2,		/* nothing more for now (dry or dead) */
	SOURCE_REUSED = 3,		/* its ring chunk holds another ring now: the
					 * caller hands it to catalogue_ring_reused() */
};

/* stream_source.c */
int stream_add_chunk(struct bp_trace *t, struct source *s, const struct pages_chunk *pc);
int stream_next(struct bp_trace *t, struct source *s);
void stream_count_chunk(struct bp_trace *t, struct pages_chunk *pc);
void stream_free(struct stream_source *ss);

/* ring_source.c */
bool ring_map(struct bp_trace *t, struct source *s);
int ring_next(struct bp_trace *t, struct source *s);
bool ring_first_kept(const struct source *s, uint64_t *first);
/* The index after the last record s's mapped ring holds (0 if none). */
uint64_t ring_end_index(const struct source *s);
/* The writer's counters of s's ring, if it is mapped and no counters
 * chunk has the last word on them. */
void ring_load_counters(struct source *s);

/*
 * What a record taken from s settles: the counters that follow from what
 * was read (records read or known overwritten were written; for a stream
 * whose drainer did not finish, what it did not copy).  Called as read
 * and overwritten change, and after the writer's counters are loaded.
 */
static inline void accounts_settle(struct source *s)
{
	struct bp_trace_ring *in = &s->info;
	uint64_t floor = in->read + in->overwritten;

	if (s->ring_end > floor)
		floor = s->ring_end;	/* records there, read or not yet */

	if (s->counters == COUNTERS_ACCOUNTS) {
		/* Written but in no page: what neither the accounts (with the
		 * chunks written after their last update) nor this reader found. */
		uint64_t have = s->acct_have > floor ? s->acct_have : floor;
		uint64_t stored = in->written > in->discarded ? in->written - in->discarded : 0;

		in->not_copied = stored > have ? stored - have : 0;
		floor = have;
	}
	/* What was read, or lies below a record found, was written: a
	 * process killed between a record's commit and the store of the
	 * ring's written count leaves the count one short, and the drainer's
	 * copy of the count may be older than the pages it copied next. */
	if (floor + in->discarded + in->not_copied > in->written)
		in->written = floor + in->discarded + in->not_copied;
}

#endif /* BP_READER_SOURCE_H */
