/*
 * writer/writer_pool.h - rings faulted in ahead of the threads that will
 * write them (writer_pool.c; internal to src/writer/).
 */
#ifndef BP_WRITER_POOL_H
#define BP_WRITER_POOL_H

#include "writer/writer_live.h"

#include <stdint.h>

/* With the live file made: read BPRINT_PREFAULT, start the pool's thread
 * (bprint-prefault), which fills the pool at once.  Ordinary context. */
void bp_live_pool_start(void);

/* A ring chunk of size bytes from the pool, its pages resident, its
 * header as bp_live_ring_chunk_get() leaves it: 0, or -1 if the pool has
 * none of that size.  Async-signal-safe, never waits. */
int bp_live_pool_take(uint64_t size, struct bp_mapped *m);

/* At the file's close: no chunk is allocated after this returns (an
 * allocation in flight is waited for, briefly).  Ordinary context. */
void bp_live_pool_stop(void);

/* In a fork child: the parent's pooled chunks unmapped, the pool off. */
void bp_live_pool_fork_child(void);

#endif /* BP_WRITER_POOL_H */
