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

#endif /* BP_TRACE_READER_H */
