/*
 * output/perfetto_ftrace.h - the kernel's scheduler events of a record
 * --kernel trace in a Perfetto export as Perfetto's own ftrace events
 * (docs/exporters.md, "Perfetto"), so that the UI draws its CPU tracks
 * and thread states from them as from a trace its ftrace daemon made.
 *
 * Each CPU's events gather into one FtraceEventBundle (TracePacket field
 * ftrace_events) that goes out when it holds BUNDLE_EVENTS events or 16
 * KiB, and at the end: so the bundles of one CPU are in time order, and
 * Perfetto sorts them with the rest.  An event is the full FtraceEvent
 * (timestamp, pid, the event's message), never the compact form:
 * compact_sched leaves out a switch's prev_* fields, which Perfetto takes
 * from the CPU's switch before, and the first switch of each CPU (and
 * every one after events the kernel lost) would lose them.
 */
#ifndef BP_OUTPUT_PERFETTO_FTRACE_H
#define BP_OUTPUT_PERFETTO_FTRACE_H

#include "output/frame.h"

#include <stdbool.h>
#include <stdint.h>

struct pf_bundles;

/* NULL if out of memory. */
struct pf_bundles *pf_bundles_new(uint32_t seq_id);

/*
 * Kernel event e into its CPU's bundle, if Perfetto has a message of its
 * own for it (sched_switch, sched_waking, sched_wakeup, sched_wakeup_new,
 * sched_process_fork, sched_process_exit): true, with a full bundle
 * written to out; false for any other record, which the caller exports
 * as a track event.
 */
bool pf_bundle_event(struct pf_bundles *pb, struct bp_trace *t, const struct bp_trace_event *e,
		     struct bp_out_buf *out, uint64_t *count);

/* Every bundle not yet written, to out. */
void pf_bundles_flush(struct pf_bundles *pb, struct bp_out_buf *out);

void pf_bundles_free(struct pf_bundles *pb);

#endif /* BP_OUTPUT_PERFETTO_FTRACE_H */
