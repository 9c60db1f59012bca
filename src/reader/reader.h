/*
 * reader/reader.h - the trace-file reader's internal side: the public API
 * (bprint/reader.h) and what the command and the tests see beyond it.
 */
#ifndef BP_FILE_READER_H
#define BP_FILE_READER_H

#include <bprint/reader.h>

#include "reader/symbols.h"

/*
 * Messages print "%pS" and "%ps" arguments as symbols from the file's
 * library map (reader/symbols.h), opening the recorded libraries read-only
 * when first needed.  What the lookups met so far (zeros if none yet):
 * libraries gone or rebuilt since the trace are counted here, not in
 * bp_trace_problems() (the trace file is not damaged).
 */
void bp_trace_symbol_stats(const struct bp_trace *t, struct bp_symbols_stats *out);

struct bp_site_layout;
struct bprint_site;

/* The runtime's struct of a site the reader handed out (bp_trace_site(),
 * an event's site), for the printers that take one; NULL for NULL. */
const struct bprint_site *bp_trace_site_runtime(const struct bp_trace_site *ts);

/* An event as the runtime's printers take it (bprint_format_event(),
 * trace/text.h): the same thread, time, CPU, name, site and message. */
void bp_trace_event_runtime(const struct bp_trace_event *e, struct bprint_event *out);

/*
 * The layout of site id (reader/site_layout.h), made on its first use and
 * kept until close: NULL for an id not in the table, a site without a
 * format, or when out of memory.  bp_trace_layout() is its public face.
 */
const struct bp_site_layout *bp_trace_site_layout(struct bp_trace *t, uint32_t id);

/*
 * The reader checks each record's block against its site's layout as it
 * returns it (one that does not match is said, once a ring).  A caller
 * that decodes the blocks it is given with that layout (the analysis
 * binding: bp_site_layout_decode_some() makes the same checks) may take
 * that over, so that a block's strings are scanned once, not twice:
 * after bp_trace_defer_checks(), the check of the record returned last
 * waits until the next bp_trace_next() (or bp_trace_check_now()), and is
 * not made if bp_trace_block_checked() said that the caller's decode of
 * that block found it whole.  Every block read past is still checked
 * once (the last one when bp_trace_next() returns 0).
 */
void bp_trace_defer_checks(struct bp_trace *t);
void bp_trace_block_checked(struct bp_trace *t, const uint32_t *block);
void bp_trace_check_now(struct bp_trace *t);

/* This reader's number, not 0, never another reader's of this process
 * (one opened where a closed one was has another): what a caller that
 * keeps state per reader (the analysis binding's plans) compares.  In
 * line, a record at a time: struct bp_trace begins with it (reading.h). */
static inline uint64_t bp_trace_serial(const struct bp_trace *t)
{
	uint64_t serial;

	__builtin_memcpy(&serial, (const void *)t, sizeof(serial));
	return serial;
}

/*
 * A run of records (the analysis binding's bp_bind_next()): up to max of
 * the records bp_trace_next() would return next, in the same order, all
 * of one source's page, so that their blocks stay valid together until
 * the next call on t; per record what decoding its arguments needs.  One
 * merge step, one call and one source's state for the whole run.  The
 * blocks are not checked: the caller checks each block it does not decode
 * whole (the same checks) with bp_trace_run_check(t, &rec[i], i), before
 * its next call on t.  Returns the records (1 .. max), 0 at the end, or a
 * BP_TRACE_E* code.  flags: BP_TRACE_NEXT_TIME for ns.
 */
#define BP_TRACE_RUN_MAX 64
struct bp_trace_rec {
	const uint32_t *block;
	uint64_t ns;			/* BP_TRACE_NEXT_TIME, else 0 */
	uint64_t index;			/* the ring's stored-record index */
	uint32_t site_id;
	uint32_t block_words;
	int32_t tid;
	int text;
};
int bp_trace_next_run(struct bp_trace *t, struct bp_trace_rec *rec, size_t max, unsigned flags);
void bp_trace_run_check(struct bp_trace *t, const struct bp_trace_rec *rec, size_t i);

/* What resolves %pS and %ps in this reader's messages; NULL when opened
 * with BP_TRACE_OPEN_NO_SYMBOLS (they print as %p then the letter). */
const struct bp_pointer_hook *bp_trace_pointer_hook(const struct bp_trace *t);

/*
 * The merge's work so far: sources filled and moved in or out of its
 * heap.  Linear in the records read whatever the number of rings, which
 * the tests check by comparing counts, not times.
 */
uint64_t bp_trace_work(const struct bp_trace *t);

/*
 * The kernel stream (docs/kernel-stream.md) as the exporters take it,
 * raw, so that a kernel event leaves bprint as the kernel wrote it: the
 * formats chunk's records as the recorder stored them (kind 1: the page
 * header's, system "header"; kind 2: the instance's
 * events/SYSTEM/NAME/format text), those this reader understood, in
 * order, for as long as t is open; and the bytes of the kernel event
 * bp_trace_next() returned last (common_type first: the payload of its
 * ring-buffer event), valid until the next call (NULL, *len 0: it was
 * no kernel event).
 */
struct bp_trace_kformat {
	uint32_t kind;			/* BP_KERNEL_REC_* (file/kernel_layout.h) */
	const char *system, *text;
};
size_t bp_trace_kernel_nformats(const struct bp_trace *t);
const struct bp_trace_kformat *bp_trace_kernel_format_at(const struct bp_trace *t, size_t i);
const void *bp_trace_kernel_raw(const struct bp_trace *t, size_t *len);

#endif /* BP_FILE_READER_H */
