/*
 * drainer/drain_file.h - the drainer's one struct (struct bp_drain_file of
 * drain.h), shared by its three parts:
 *   drain.c      the live file: its chunks walked, the passes and the end;
 *   drain_ring.c its rings: set up, their pages copied and encoded, and
 *                handed back to the process once their thread exited;
 *   drain_out.c  the stream file: chunks, header and accounts written,
 *                and what a failed write stops.
 */
#ifndef BP_FILE_DRAIN_FILE_H
#define BP_FILE_DRAIN_FILE_H

#include "drainer/drain.h"
#include "file/layout.h"
#include "file/mapping.h"
#include "ring/ring.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One ring of the live file, and what is copied of it. */
struct drain_ring {
	uint64_t index;			/* chunk index in the live file */
	uint64_t off;			/* and the chunk's offset */
	struct bp_mapping map;		/* the ring chunk, read-write (we consume) */
	struct bp_file_ring *chunk;	/* its header, in the mapping; NULL once released */
	void *mem;			/* the ring, in the mapping */
	size_t bytes;			/* its bytes, 0 if the chunk says too many */
	bool ready;			/* formatted, and set up for copying */
	bool dead;			/* damaged or out of memory: left alone */
	bool released;			/* exited and copied, handed back to the process
					 * (or never mapped): chunk and mem are gone */
	bool cut;			/* its writer runs on: the counts end at the copy */
	bool stop_set;			/* the last page to copy is fixed: stop_seq */
	uint64_t stop_seq;
	uint32_t tid, level;		/* the chunk's, kept when it was released */
	char comm[16];
	uint64_t dropped;
	uint32_t page_size, npages;
	struct bp_ring_stats st;	/* the counters last seen */
	/* the copy */
	uint64_t next_seq;		/* next page to copy */
	uint64_t expect_rec;		/* first_rec the next page should have */
	uint64_t lost_records, lost_pages;
	uint64_t copied;		/* records in the pages chunks written */
	uint64_t acct_written;		/* written as the accounts last had it */
	/* bp_drain_resume(): carried, a ring of the stream resumed (not
	 * found in the live file yet: released); resumed, until the first
	 * page after resume_bound, the index after the last record the
	 * killed drainer copied (pages below it are not copied again) */
	bool carried, resumed;
	uint64_t resume_bound;
	/* the dense pages chunk being filled */
	unsigned char *batch;		/* chunk header, then page entries */
	size_t batch_len;
	size_t batch_used;		/* bytes of entries after the chunk header */
	uint64_t batch_recs;		/* records in them */
	uint32_t nbatch, batch_cap;	/* pages in it, most it takes */
	uint32_t min_batch;		/* discard mode: pages worth a chunk */
	uint64_t waiting_since;		/* when fewer than min_batch first waited */
	unsigned char *scratch;		/* one page, for bp_ring_copy_page() */
};

/* A sites or libraries chunk of the live file, copied as it grows. */
struct drain_list {
	uint32_t type;			/* BP_CHUNK_SITES or _LIBS */
	struct bp_mapping map;		/* the chunk, read-only */
	const struct bp_file_list *list;
	uint64_t size;
	uint32_t copied;		/* bytes of records copied so far */
};

/* The stream file being written. */
struct drain_out {
	char path[PATH_MAX];
	int fd;
	uint64_t end;			/* where the next chunk goes */
	uint64_t end_written;		/* the header's end as last written */
	uint64_t index;			/* chunks written */
	uint64_t acct_off;		/* the accounts chunk in force */
	uint32_t acct_cap, acct_count;	/* its entries: room, in use */
	uint32_t stop_reason;		/* BP_FILE_STOP_*: writes failed, only watching */
	int stop_errno;
	uint64_t stop_record;
	uint64_t calib_seq;		/* the live calibration last copied into the header */
	struct bp_file_header head;	/* the header as last written (its crcs: 1.4) */
};

struct bp_drain_file {
	/* the live file */
	char path[PATH_MAX];
	int fd;
	pid_t pid;
	struct bp_file_header *hdr;	/* its header, mapped read-only */
	uint64_t scan_off;		/* the chunk walk resumes here */
	uint64_t stall_since;		/* a chunk not complete first seen then */
	struct drain_ring *rings;
	size_t nrings, rings_cap;
	struct drain_list *lists;
	size_t nlists, lists_cap;
	/* ring chunks handed back to the process (a new index there is a new
	 * ring), and ring chunks the walk found being written (fresh: a ring
	 * once complete; the process's rings faulted in ahead wait so) */
	struct drain_reused { uint64_t off, index; bool fresh; } *reused;
	size_t nreused, reused_cap;
	uint32_t batch_pages;		/* pages per chunk, at most */
	/* the stream file */
	struct drain_out out;
	/* the outcome */
	struct bp_drain_result res;
	bool failed;			/* res.error says why */
	bool truncated;			/* the stream could not be written to the end */
	bool remove_live;		/* unlink the live file when it is closed */
	bool done;			/* both files closed */
	bool observe;			/* BP_DRAIN_OBSERVE: the live file is never written */
	bool running;			/* BP_DRAIN_RUNNING (or OBSERVE) */
	bool ending;			/* running, and finishing: copy up to the heads
					 * of now, not after writers that run on */
	bp_drain_page_fn watch;		/* watching (bp_drain_watch()): pages go here */
	void *watch_arg;
};

/* ---- drain_ring.c ------------------------------------------------------- */

/*
 * Copy what ring r has completed (and, final or its thread exited, its
 * head page; an exited ring copied to its end is then handed back).
 * Returns the pages copied, or -1 on an output error.
 */
long drain_ring(struct bp_drain_file *df, struct drain_ring *r, bool final);

/* Ring r's current page, partial, to the watcher. */
void drain_ring_head(struct bp_drain_file *df, struct drain_ring *r);

/* Writes stopped: keep the accounts' counters up with the rings, and hand
 * exited rings back. */
void drain_acct_watch(struct bp_drain_file *df);

/* ---- drain_out.c -------------------------------------------------------- */

/* The drain cannot go on: the first reason wins. */
__attribute__((format(printf, 2, 3)))
void drain_fail(struct bp_drain_file *df, const char *fmt, ...);

/* The stream's header: the live one, with our flags, end and accounts. */
int drain_out_header(struct bp_drain_file *df, uint32_t flags);

/* The header's end, if chunks went out since it was last written. */
void drain_out_end_hint(struct bp_drain_file *df);

/* The live file's calibration, if it changed since it was last copied. */
void drain_out_calibration(struct bp_drain_file *df);

/* A new accounts chunk with room for need entries at least, in force. */
int drain_out_accounts(struct bp_drain_file *df, size_t need);

/* Rewrite ring r's entry in the accounts (and their count, when it grows). */
void drain_out_account(struct bp_drain_file *df, struct drain_ring *r);

/* The records list l gained since the last copy, as a chunk of their own. */
int drain_out_list(struct bp_drain_file *df, struct drain_list *l);

/* Ring r's batch of page entries as a dense pages chunk, then its entry. */
int drain_out_pages(struct bp_drain_file *df, struct drain_ring *r);

/* The end chunk (every ring's final counters), then the final header. */
int drain_out_end(struct bp_drain_file *df);

/* Ring r's counters as the end and accounts chunks keep them. */
void drain_ring_entry(const struct drain_ring *r, struct bp_file_end_ring *er);
/* Ring r's entry (drain_ring_entry()) into res's sums; the entry, to the caller. */
void drain_ring_sum(const struct drain_ring *r, struct bp_drain_result *res,
		    struct bp_file_end_ring *er);

#endif /* BP_FILE_DRAIN_FILE_H */
