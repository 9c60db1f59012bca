/*
 * trace/reader.h - the in-process reader's internal side (the API is
 * bprint.h's bprint_read_begin() and friends): what the crash dump and the
 * tests use beyond it.
 */
#ifndef BP_TRACE_READER_H
#define BP_TRACE_READER_H

#include <bprint.h>

#include <stdint.h>

/* The crash dump's reader: a snapshot that never waits for a lock. */
struct bprint_reader *bp_reader_begin_unlocked(void);

/*
 * The reader's work so far: sources looked at (filled) and moved in or
 * out of the merge.  Linear in the records read whatever the number of
 * rings, which the tests check by comparing counts, not times.
 */
uint64_t bp_reader_work(const struct bprint_reader *r);

/*
 * The counters of a dump's header, as `bprint stats` counts them on the
 * process's trace file: every record written (dropped before a ring
 * included), and lost: discarded, dropped, and overwritten: recycled
 * before anyone read them (missed by a consumer, or below the oldest
 * page a snapshot starts at), with the threads BPRINT_RETAIN dropped.
 * Async-signal-safe, no lock (the caller is in a reader session).
 */
void bp_reader_header(const struct bprint_reader *r, uint64_t *written, uint64_t *lost);

#endif /* BP_TRACE_READER_H */
