/*
 * Internal glue of the tracer: the global switch, start-up, and the
 * reader pieces that the dump and the statistics share.
 */
#ifndef BP_TRACE_TRACER_H
#define BP_TRACE_TRACER_H

#include <bprint.h>

#include "trace/record.h"
#include "trace/thread.h"

#include <stdatomic.h>

/*
 * Defined by the runtime's composition root (src/runtime/start.c), whose
 * constructor starts the tracer: the out-of-line path refers to it, so that
 * every program that traces links the start-up, even from the static
 * library (which links only the objects it needs), and tools that only
 * read traces do not.
 */
extern const char bp_init_anchor __attribute__((visibility("hidden")));

/* Start-up, step 1: read the configuration (bp_config), select the clock. */
void bp_tracer_configure(void);
/* Step 2, once the backing (trace/backing.h) is in place: thread hooks,
 * site filters, the global switch, the dumps. */
void bp_tracer_start(void);

/* The global switch, the gate's bit 0 (bprint__gate, include/bprint/internal.h). */
static inline int bp_tracing_is_on(void)
{
	return (__atomic_load_n(&bprint__gate.bits, __ATOMIC_RELAXED) & BPRINT__GATE_ON) != 0;
}

/*
 * Write every thread's records, merged, to fd with write(2) only: usable
 * from a fatal-signal handler (floating-point conversions aside, which go
 * through the C library's snprintf).  Returns the records written.
 */
long bp_dump_fd(int fd, enum bprint_output how);

/* bprint_stats() for a caller that holds the readers' lock already. */
int bp_stats_collect(struct bprint_thread_stats *out, int max);

/* Install the exit and crash dumps that bp_config.dump asks for. */
void bp_dump_install(void);

#endif /* BP_TRACE_TRACER_H */
