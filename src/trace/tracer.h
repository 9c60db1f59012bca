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

/* Defined in init.c: referring to it links init.c and its constructor. */
extern const char bp_init_anchor __attribute__((visibility("hidden")));

/* The global switch, the gate's bit 0 (bprint__gate, include/bprint.h). */
static inline int bp_tracing_is_on(void)
{
	return (__atomic_load_n(&bprint__gate.bits, __ATOMIC_RELAXED) & BPRINT__GATE_ON) != 0;
}

/* Free a read state's buffer and forget its position. */
void bp_read_state_release(struct bp_read_state *st);

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
