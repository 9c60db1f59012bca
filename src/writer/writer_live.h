/*
 * writer/writer_live.h - what the two halves of the live-file writer share
 * (internal to src/writer/; the API is writer/writer.h).
 *
 *   writer.c        the file: creating it (a fork child's too), its
 *                   header and calibration, chunk allocation, exit
 *   writer_lists.c  the sites and libraries chunks
 *   writer_rings.c  the ring chunks: handing them to the tracer, taking
 *                   them back at thread exit, reusing them
 *                   (docs/file-format.md, "Ring chunks reused")
 *   writer_pool.c   ring chunks faulted in ahead of the threads
 *                   (writer_pool.h)
 *
 * Everything here may run in a signal handler unless it says otherwise.
 */
#ifndef BP_FILE_WRITER_LIVE_H
#define BP_FILE_WRITER_LIVE_H

#include "file/layout.h"
#include "trace/backing.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The live file, set by bp_file_open(); hdr NULL while there is none. */
struct bp_live {
	int fd;
	/* mapped MAP_SHARED; stored (release) once fd and the header are
	 * ready: a fork child's threads may find it made under them */
	_Atomic(struct bp_file_header *) hdr;
	uintptr_t sys_page;		/* the system page size */
};
extern struct bp_live bp_live;

/* The live file's header, or NULL while there is none. */
static inline struct bp_file_header *bp_live_hdr(void)
{
	/* H1: acquire, pairs with the release store that made the file (H1 in
	 * writer.c): fd and the header are complete. */
	return atomic_load_explicit(&bp_live.hdr, memory_order_acquire);
}

/*
 * A fork child makes its own file on its first need (its first ring or
 * site): 0 when there is a file, else -1 (none wanted, it could not be
 * made, or, without wait, another thread is making it).  wait: ordinary
 * context, may wait for the thread making it; else only tries (a signal
 * handler may be the first to trace).
 */
int bp_live_child_file(bool wait);

/* One mapped chunk. */
struct bp_mapped {
	unsigned char *base;		/* mmap'd address (page-aligned) */
	size_t len;			/* mmap'd length */
	struct bp_file_chunk *chunk;	/* the chunk inside it */
	uint64_t off;			/* its offset in the file */
};

/*
 * A new chunk of size bytes (a multiple of the alignment) at the file's
 * end, mapped, its header filled but for its state (still "being
 * written"): 0, or -1 if the file cannot grow or the chunk be mapped.
 */
int bp_live_chunk_alloc(uint32_t type, uint64_t size, struct bp_mapped *m);

/* The next chunk index, in allocation order (a reused chunk takes one too). */
uint64_t bp_live_next_index(void);

/* Store the chunk's state "complete" (release: its header is filled). */
void bp_live_chunk_publish(struct bp_file_chunk *c);

/* Refresh the header's calibration if the last one is older than 10 ms. */
void bp_live_maybe_calibrate(void);

/* ---- writer_rings.c: the backing's ring hooks (trace/backing.h) -------- */

void *bp_live_ring_map(struct bp_thread *t, unsigned level, size_t bytes);
/* A ring chunk of size bytes, its state "being written", not numbered for
 * a reader yet: a spare one (cleared), else a new one; 0, or -1 if the
 * file has no room (writer_pool.c fills its pool with these). */
int bp_live_ring_chunk_get(uint64_t size, struct bp_mapped *m);
void bp_live_ring_unmap(struct bp_thread *t, unsigned level, void *mem, size_t bytes,
			enum bp_ring_release why);
bool bp_live_ring_in_file(const void *mem);
bool bp_live_ring_copied(const void *mem);
/* Block mode under bprint record, after rings were given back before the
 * copier copied them: wait (at most the block timeout) until it has. */
void bp_live_settle(void);
void bp_live_thread_exit(struct bp_thread *t);
/* A record of a thread with no ring at all: counted as not in the file. */
void bp_live_record_lost(void);

/* A fork child's hook: the parent's rings unmapped, nothing written. */
void bp_live_child_ring_unmap(struct bp_thread *t, unsigned level, void *mem, size_t bytes,
			      enum bp_ring_release why);

/* ---- writer_lists.c: sites and libraries (ordinary context) ------------- */

/* The backing's site_added hook: the site's record (and new libraries). */
void bp_live_site_added(const struct bprint_site *site);
/* A new file: every loaded object's record. */
void bp_live_lists_scan(void);
/* A fork child's new file: its parent's library records, copied from the
 * parent's file (parent_fd; -1: scanned instead). */
void bp_live_lists_inherit(int parent_fd);
/* The registry's sites so far, into the file. */
void bp_live_lists_replay(void);
/* At normal exit: library records that had no room, tried again, else counted. */
void bp_live_lists_retry(void);
/* In a fork child: forget the parent's chunks (had_file: the parent's own
 * libraries chunks are the ones to copy later). */
void bp_live_lists_fork_child(bool had_file);

/* At normal exit: the live threads' last names and counters. */
void bp_live_rings_at_exit(void);

/* In a fork child: forget the chunks kept for reuse (the parent's). */
void bp_live_rings_fork_child(void);

#endif /* BP_FILE_WRITER_LIVE_H */
