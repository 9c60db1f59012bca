/*
 * file/reading.h - the trace-file reader's one struct (struct bp_trace of
 * bprint/reader.h) and its parts, shared by the reader's files, each one
 * job:
 *
 *   open.c           open and close; the header; what the other files
 *                    share (problems, bounded reads, holes)
 *   catalogue.c      the chunk walk, ring chunks reused; the one step
 *                    that changes the catalogue, catalogue_update()
 *   catalogue_chunks.c  what each chunk the walk accepts adds (rings and
 *                    pages chunks become sources, counters chunks their
 *                    counters)
 *   tables.c         the sites and libraries lists, parsed into tables
 *   stream_source.c  a source's pages chunks (stream files), page by page
 *   ring_source.c    a source's ring chunk (live files), mapped
 *   accounts.c       each ring's counters, settled at every catalogue
 *                    update and as records are read, so that the
 *                    accessors only read them
 *   merge.c          the next record of all sources in time order, the
 *                    event and its message
 *
 * Following bp_trace_next(): merge.c takes the oldest record in hand and
 * refills its source from stream_source.c or ring_source.c, which read
 * pages through ring/ (bp_ring_next, bp_ring_page_next).
 */
#ifndef BP_FILE_READING_H
#define BP_FILE_READING_H

#include "file/keymap.h"
#include "file/kernel_source.h"
#include "file/layout.h"
#include "file/mapping.h"
#include "file/reader.h"
#include "ring/ring.h"
#include "trace/clock.h"
#include "trace/merge.h"
#include "trace/record.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_trace_layout;

#define MAX_STRING	(64u * 1024u)		/* longest site string or path kept */
#define MAX_PAGE	(1u << 22)		/* largest streamed page accepted */
#define MAX_PAYLOAD	(BP_RING_REC_MAX_WORDS * 4u)

/* ---- sources ------------------------------------------------------------ */

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

/* ---- sites and libraries ------------------------------------------------ */

/*
 * A site as the reader keeps it: the public part first (bp_trace_site()
 * returns it), then what is derived from its format on its first record,
 * so that the report loop does not decode the same format for every
 * record.  (A site's layout for the exporters hangs here too.)
 */
struct site_entry {
	struct bp_trace_site ts;
	struct bprint_site site;	/* the same, as the runtime's printers take it
					 * (bp_trace_site_runtime()) */
	struct bp_site_layout *layout;	/* the site's parsed format, plan and fields
					 * (file/site_layout.h): made on first use,
					 * freed with the entry (tables_free); NULL
					 * if out of memory */
	bool layout_tried;
};

/* A sites or libraries chunk, parsed as far as its writer got. */
struct list_chunk {
	uint64_t off, size;
	uint32_t parsed;		/* bytes of records already parsed */
	uint32_t type;			/* BP_CHUNK_SITES or _LIBS */
	uint32_t crc;			/* a live file of 1.4: of the bytes parsed */
	bool crc_settled;		/* the crc matched up to parsed, or damage said */
};

/* ---- the reader --------------------------------------------------------- */

struct bp_trace {
	int fd;
	uint64_t size;			/* of the file, as last measured */
	size_t os_page;
	unsigned open_flags;
	struct bp_trace_info info;
	struct bp_clock_calib calib;	/* the header's slot in force */
	bool live;			/* refreshed: a writer may still be adding */
	bool writer_gone;		/* it is not: what the rings hold is final */
	bool writer_dead;		/* no process of its maps the file (at open):
					 * rings are read in place, unchecked by
					 * the seqlock (BP_RING_CURSOR_FROZEN) */
	/* the catalogue: chunk walk */
	uint64_t walk_pos;		/* resume here */
	uint64_t gaps_judged;		/* offsets below: gaps in the walk said already */
	bool accounts_found;		/* the accounts chunk the header names */
	bool read_checked;		/* accounts_check_read() ran */
	bool unknown_site_said;		/* a closed file's record of a site it lacks */
	bool kind_said;			/* a chunk of the other kind of file */
	bool header_said;		/* a header crc or calibration: said */
	uint32_t missing_libs;		/* the header's (1.3) */
	uint64_t last_index;		/* a stream of 1.4: the last chunk's index */
	uint64_t *pending;		/* chunks not complete yet, to look at again:
					 * at the tail, and ring chunks being reused */
	size_t npending, pending_cap;
	struct list_chunk *lists;
	size_t nlists, lists_cap;
	/* the catalogue: tables */
	struct site_entry **by_id;	/* index: site id */
	uint32_t by_id_cap, max_id;
	const struct bp_trace_site **sorted;	/* by id, rebuilt after new sites */
	size_t nsites;
	bool sites_added;		/* since sorted was built */
	struct bp_trace_lib *libs;
	size_t nlibs, libs_cap;
	struct source **src;
	size_t nsrc, src_cap;
	struct bp_keymap src_by_key;	/* info.key: position in src */
	struct bp_keymap first_by_tid;	/* info.tid: the first position in src (merge.c) */
	size_t tid_mapped;		/* src[0 .. tid_mapped) are in first_by_tid */
	unsigned char *entry_buf;	/* compact and dense: one entry, as read (stream_source.c) */
	uint32_t entry_buf_ps;		/* the page size it was made for */
	/* problems */
	unsigned problems;
	char first_problem[256];
	/* %pS and %ps (file/symbols.h), made when first needed */
	struct bp_symbols *sym;
	struct bp_pointer_hook hook;	/* print_symbol() on this reader */
	/* bp_trace_on_progress() */
	void (*progress)(void *arg, uint64_t records);
	void *progress_arg;
	uint64_t progress_every, progress_n;
	uint64_t progress_left;		/* records until the next call: no division a record */
	/* the merge (merge.c): the sources with a record in hand */
	struct bp_merge merge;
	size_t merge_cap;
	bool merge_all;			/* sources were added or woken: fill them all */
	size_t taken;			/* the source of the record last taken, or SIZE_MAX */
	uint64_t work;			/* bp_trace_work() */
	/* the kernel stream (kernel_source.h), NULL if none */
	struct bp_kernel *kernel;
	/* the record last returned */
	struct source *cur;
	char msg[BP_MSG_MAX];
};

/* ---- between the files -------------------------------------------------- */

/* Count a problem; the first one's text is kept (bp_trace_problems()). */
__attribute__((format(printf, 2, 3)))
void reader_problem(struct bp_trace *t, const char *fmt, ...);

/* Read n bytes at off, which must lie inside the file as last measured. */
int reader_pread(struct bp_trace *t, uint64_t off, void *buf, size_t n);

/* The next offset from off (aligned) that may hold data: holes skipped. */
uint64_t reader_next_data(struct bp_trace *t, uint64_t off);

/* Measure the file again (t->size, info.file_size). */
int reader_measure(struct bp_trace *t);

/* The pointer hook's print() for %pS and %ps (merge.c): the file's symbols. */
void reader_print_symbol(void *ctx, char letter, uint64_t address, char *buf, size_t size);

/* catalogue.c: the one step that changes the catalogue.  want_site: a
 * site id a record names and the tables lack (0: none); if re-parsing the
 * lists finds it, the file is not walked again. */
int catalogue_update(struct bp_trace *t, uint32_t want_site);

/* The source of ring chunk index key, made if create. */
struct source *catalogue_source(struct bp_trace *t, uint64_t key, bool create);

/* s's ring chunk holds another ring now (format 1.3, reuse): s is over,
 * and the chunk is looked at again at the next update. */
void catalogue_ring_reused(struct bp_trace *t, struct source *s);

/* catalogue_chunks.c: a complete chunk at off, its checksum checked, into
 * the catalogue by its type. */
int catalogue_accept_chunk(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c);

/* An end chunk, or an accounts chunk, at off: its entries into the
 * sources' counters (an end chunk's win). */
int catalogue_add_counters(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c);

/* tables.c */
int tables_parse_list(struct bp_trace *t, struct list_chunk *lc);
int tables_add_list(struct bp_trace *t, uint64_t off, uint64_t size, uint32_t type);
void tables_sort_sites(struct bp_trace *t);
void tables_free(struct bp_trace *t);
/* A site made by the reader itself (a kernel event's): 0, or BP_TRACE_ENOMEM. */
int tables_add_site(struct bp_trace *t, uint32_t id, const char *fmt, const char *file,
		    const char *func);
static inline struct site_entry *tables_site(const struct bp_trace *t, uint32_t id)
{
	return id < t->by_id_cap ? t->by_id[id] : NULL;
}

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

/* What one step of reading a source found (a negative: BP_TRACE_ENOMEM or _EIO). */
enum source_step {
	SOURCE_AGAIN = 0,		/* look again: a page or phase changed */
	SOURCE_GOT = 1,			/* a record in ev and buf */
	SOURCE_STOP = 2,		/* nothing more for now (dry or dead) */
};

/* accounts.c */
void accounts_update(struct bp_trace *t);
void accounts_check_read(struct bp_trace *t);
void accounts_ring_counters(struct source *s);

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

#endif /* BP_FILE_READING_H */
