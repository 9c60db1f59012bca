/*
 * file/writer_prefault.h - the thread that faults a new ring's pages in
 * ahead of its writer (writer_prefault.c; docs/performance.md, "A fresh
 * ring's page faults"), started with the live file's control thread.
 */
#ifndef BP_FILE_PREFAULT_H
#define BP_FILE_PREFAULT_H

#include <stddef.h>

struct bp_thread;

/* Start the thread (ordinary context): quietly nothing if it cannot be
 * made, or BPRINT_PREFAULT=0; requests are then not even queued. */
void bp_prefault_start(void);

/* A fork child (one thread, the fork handler): forget the parent's
 * requests and its thread; bp_prefault_start() may start the child's. */
void bp_prefault_fork_child(void);

/* The backing's ring_ready hook: queue the ring's pages for the thread.
 * Lock-free, no allocation, async-signal-safe (a futex wake at most). */
void bp_prefault_ring_ready(struct bp_thread *t, unsigned level, void *mem, size_t bytes);

#endif /* BP_FILE_PREFAULT_H */
