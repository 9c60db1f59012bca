/*
 * trace/thread_lists.h - what thread.c (descriptors, rings of live
 * threads, fork) and thread_retain.c (the queue of exited threads, kept,
 * reclaimed, retired) share: the lock of the free stack and the dead
 * queue, and the steps both take.  Internal to those two files.
 */
#ifndef BP_TRACE_THREAD_LISTS_H
#define BP_TRACE_THREAD_LISTS_H

#include "trace/backing.h"
#include "trace/thread.h"

#include <pthread.h>
#include <stdbool.h>

/* The free descriptors (thread.c) and the queue of exited threads
 * (thread_retain.c); docs/locks.md gives its rule at fork(). */
extern pthread_mutex_t bp_list_lock;

/* ---- thread.c ----------------------------------------------------------- */

/* Is mem a ring of the backing's file (not anonymous memory)? */
bool bp_thread_ring_in_file(const void *mem);

/* Unmap t's rings (T3: one unmapper takes each pointer). */
void bp_thread_unmap_rings(struct bp_thread *t, enum bp_ring_release why);

/* With bp_list_lock: t, its rings unmapped, goes back to be claimed. */
void bp_thread_make_free(struct bp_thread *t);

/* ---- thread_retain.c ---------------------------------------------------- */

/* The exited thread t (still ALIVE: nobody unmaps it) is trimmed, queued, then DEAD. */
void bp_thread_retain_dead(struct bp_thread *t);

/* In a fork child, with bp_list_lock reset: the dead queue starts empty
 * (its descriptors are made free by the caller). */
void bp_thread_dead_forget(void);

#endif /* BP_TRACE_THREAD_LISTS_H */
