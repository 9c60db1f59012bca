/*
 * file/writer_live.h - what the two halves of the live-file writer share
 * (internal to src/file/writer*.c; the API is file/writer.h).
 *
 *   writer.c        the file: creating it, its header and calibration,
 *                   chunk allocation, the sites and libraries lists, exit
 *   writer_rings.c  the ring chunks: handing them to the tracer, taking
 *                   them back at thread exit, reusing them
 *                   (docs/file-format.md, "Ring chunks reused")
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
	struct bp_file_header *hdr;	/* mapped MAP_SHARED */
	uintptr_t sys_page;		/* the system page size */
};
extern struct bp_live bp_live;

/* One mapped chunk. */
struct bp_mapped {
	unsigned char *base;		/* mmap'd address (page-aligned) */
	size_t len;			/* mmap'd length */
	struct bp_file_chunk *chunk;	/* the chunk inside it */
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
void bp_live_ring_unmap(struct bp_thread *t, unsigned level, void *mem, size_t bytes,
			enum bp_ring_release why);
bool bp_live_ring_in_file(const void *mem);
bool bp_live_ring_copied(const void *mem);
void bp_live_thread_exit(struct bp_thread *t);

/* A fork child's hook: the parent's rings unmapped, nothing written. */
void bp_live_child_ring_unmap(struct bp_thread *t, unsigned level, void *mem, size_t bytes,
			      enum bp_ring_release why);

/* At normal exit: the live threads' last names and counters. */
void bp_live_rings_at_exit(void);

/* In a fork child: forget the chunks kept for reuse (the parent's). */
void bp_live_rings_fork_child(void);

#endif /* BP_FILE_WRITER_LIVE_H */
