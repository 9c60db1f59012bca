/*
 * reader/reading.h - the trace-file reader's one struct (struct bp_trace of
 * bprint/reader.h), which holds its parts, each with its header and job:
 *
 *   catalogue.h      catalogue.c: the chunk walk (struct catalogue_walk),
 *                    ring chunks reused; the one step that changes it,
 *                    catalogue_update().  catalogue_chunks.c: what each
 *                    chunk the walk accepts adds (rings and pages chunks
 *                    become sources, counters chunks their counters)
 *   tables.h         tables.c: the sites and libraries lists, parsed into
 *                    tables (struct bp_tables)
 *   source.h         struct source: stream_source.c, a source's pages
 *                    chunks (stream files), page by page; ring_source.c,
 *                    its ring chunk (live files), mapped.  A source says
 *                    what happened (enum source_step) and changes nothing
 *                    else
 *   accounts.h       accounts.c: each ring's counters, settled at every
 *                    catalogue update and as records are read, so that
 *                    the accessors only read them
 *   (this file)      open.c: open and close, the header, what the other
 *                    files share (problems, bounded reads, holes);
 *                    merge.c: the next record of all sources in time
 *                    order, the event and its message
 *
 * The calls go one way: merge.c reads the sources and hands what they
 * report to the catalogue; the catalogue makes sources, fills the tables
 * and settles the accounts; the sources call none of them.  Following
 * bp_trace_next(): merge.c takes the oldest record in hand and refills
 * its source from stream_source.c or ring_source.c, which read pages
 * through ring/ (bp_ring_next, bp_ring_page_next).
 */
#ifndef BP_FILE_READING_H
#define BP_FILE_READING_H

#include "file/layout.h"
#include "reader/catalogue.h"
#include "reader/keymap.h"
#include "reader/kernel_source.h"
#include "reader/reader.h"
#include "reader/source.h"
#include "reader/tables.h"
#include "trace/clock.h"
#include "trace/merge.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_trace_layout;

/* ---- the reader --------------------------------------------------------- */

struct bp_trace {
	uint64_t serial;		/* first: bp_trace_serial() reads it in line */
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
	/* the catalogue: its chunk walk (catalogue.h) */
	struct catalogue_walk walk;
	bool read_checked;		/* accounts_check_read() ran */
	bool unknown_site_said;		/* a closed file's record of a site it lacks */
	bool header_said;		/* a header crc or calibration: said */
	uint32_t missing_libs;		/* the header's (1.3) */
	/* the tables (tables.h) */
	struct bp_tables tables;
	/* the catalogue: sources */
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
	/* %pS and %ps (reader/symbols.h), made when first needed */
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
	/* bp_trace_defer_checks(): its block's check, not made yet (NULL: none) */
	bool defer_checks;
	struct source *unchecked;
	struct site_entry *unchecked_site;
	/* bp_trace_next_run(): the run's source and each record's site; an
	 * error met after records of a run, for the next call */
	int run_err;
	struct source *run_src;
	struct site_entry *run_site[BP_TRACE_RUN_MAX];
	char msg[BP_MSG_MAX];
};

_Static_assert(offsetof(struct bp_trace, serial) == 0, "bp_trace_serial() reads the first 8 bytes");

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

/* The site of id, NULL if the tables lack it. */
static inline struct site_entry *tables_site(const struct bp_trace *t, uint32_t id)
{
	return tables_lookup(&t->tables, id);
}

#endif /* BP_FILE_READING_H */
