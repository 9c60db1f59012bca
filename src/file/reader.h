/*
 * file/reader.h - the trace-file reader's internal side: the public API
 * (bprint/reader.h) and what the command and the tests see beyond it.
 */
#ifndef BP_FILE_READER_H
#define BP_FILE_READER_H

#include <bprint/reader.h>

#include "file/symbols.h"

/*
 * Messages print "%pS" and "%ps" arguments as symbols from the file's
 * library map (file/symbols.h), opening the recorded libraries read-only
 * when first needed.  What the lookups met so far (zeros if none yet):
 * libraries gone or rebuilt since the trace are counted here, not in
 * bp_trace_problems() (the trace file is not damaged).
 */
void bp_trace_symbol_stats(const struct bp_trace *t, struct bp_symbols_stats *out);

/*
 * The merge's work so far: sources filled and moved in or out of its
 * heap.  Linear in the records read whatever the number of rings, which
 * the tests check by comparing counts, not times.
 */
uint64_t bp_trace_work(const struct bp_trace *t);

#endif /* BP_FILE_READER_H */
