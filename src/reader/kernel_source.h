/*
 * reader/kernel_source.h - the kernel stream as sources of the reader
 * (docs/kernel-stream.md): each CPU's pages are one more source of the
 * merge, beside the rings, and each kernel event format one more site.
 *
 * The formats chunk is parsed with libtraceevent into a site per event:
 * id BP_KERNEL_SITE_BASE + the event's ID, file "kernel/SYSTEM", function
 * the event's name, and a format made of its fields ("prev_comm=%s
 * prev_pid=%d ..."), so that the one site layout (site_layout.h) names
 * and types them.  An event read from a page becomes the argument block
 * that format describes (docs/binary-layout.md): from there on it is a
 * record like any other, for report, --where, the analysis and the
 * exporters alike.  Without libtraceevent the kernel chunks are skipped,
 * and the trace says so (a problem).
 */
#ifndef BP_FILE_KERNEL_SOURCE_H
#define BP_FILE_KERNEL_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

struct bp_trace;
struct bp_file_chunk;
struct source;

/* A kernel formats (type 9) or pages (type 10) chunk at off, into the
 * catalogue. */
int kernel_add_chunk(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c);

/* The next event of kernel source s into s->ev and s->args
 * (enum source_step, or a negative BP_TRACE_E*). */
int kernel_next(struct bp_trace *t, struct source *s);

/* Source s's event is the one taken: the traced process tree follows its
 * forks, and s->kown says whether it involves a thread of the tree. */
void kernel_taken(struct bp_trace *t, struct source *s);

void kernel_free(struct bp_trace *t);

#endif /* BP_FILE_KERNEL_SOURCE_H */
