/*
 * output/ctf.h - the CTF exporter's two halves (docs/exporters.md, "CTF"):
 * ctf_meta.c writes the metadata (TSDL: the trace, its environment and
 * clock, the stream class, one event class per site), ctf.c the streams
 * (one per thread, packets of events).  Both follow the shape LTTng-UST
 * 2.12's traces have, so that Trace Compass opens the export as an
 * LTTng-UST trace and babeltrace2 takes it through every component.
 */
#ifndef BP_OUTPUT_CTF_H
#define BP_OUTPUT_CTF_H

#include "output/frame.h"
#include "output/names.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CTF_PROCNAME_LEN 16		/* LTTng-UST's procname context: char[16] */
#define CTF_CPU_UNKNOWN 0xffffffffu	/* cpu_id of a packet whose CPU is not known */

struct ctf_class {
	uint32_t site_id;
	const struct bp_trace_layout *lay;	/* NULL: msg only */
	uint8_t kind[BP_PLAN_MAX_ARGS];		/* enum ctf_kind of each field */
};

struct ctf {
	struct bp_export *fx;		/* fx->fd: the directory */
	unsigned char uuid[16];
	struct ctf_class *cls;
	struct ctf_kernel *kernel;	/* NULL: no kernel events */
	size_t ncls;			/* one per site; id ncls is the fallback */
	struct bp_field_value val[BP_PLAN_MAX_ARGS];
	char sym[BP_PLAN_MAX_ARGS][BP_OUT_SYMBOL_MAX];	/* %pS texts of the record */
};

/* How an event writes field k of lay. */
enum ctf_kind {
	CTF_INTEGER,	/* its size, in the writer's byte order */
	CTF_DOUBLE,	/* 8 bytes */
	CTF_STRING,	/* bytes and a NUL: %s, %c (its one byte) and %pS (the symbol) */
};
enum ctf_kind ctf_kind(const struct bp_trace_layout *lay, unsigned k);

/* The metadata file, from the trace's header and site table (x->cls and
 * x->ncls set): 0 or a BP_TRACE_E* code. */
int ctf_write_metadata(struct ctf *x);

/* Pieces of metadata both traces of an export write (ctf_meta.c): the
 * TSDL head and trace block (byte order, packet header) of a trace of
 * this uuid; the clock (a trace of this boot: its uuid the boot id, so
 * that readers take the two traces' clocks for one) and clock_u64; a
 * string; this host's name into host (size bytes) if the trace is of
 * this boot, else NULL. */
void ctf_write_trace(struct bp_out_buf *f, const unsigned char *uuid);
void ctf_write_clock(struct bp_out_buf *f, const struct bp_trace_info *info);
/* The stream class's opening, LTTng's packet context and event header
 * (both traces'); its event.context, if any, and "};" follow. */
#define CTF_STREAM_HEAD \
	"stream {\n\tid = 0;\n" \
	"\tpacket.context := struct {\n" \
	"\t\tclock_u64 timestamp_begin;\n\t\tclock_u64 timestamp_end;\n" \
	"\t\tuint64_t content_size;\n\t\tuint64_t packet_size;\n" \
	"\t\tuint64_t packet_seq_num;\n\t\tuint64_t events_discarded;\n" \
	"\t\tuint32_t cpu_id;\n\t};\n" \
	"\tevent.header := struct {\n\t\tuint32_t id;\n\t\tclock_u64 timestamp;\n\t};\n"
void ctf_tsdl_str(struct bp_out_buf *f, const char *str, size_t max);
const char *ctf_host(const struct bp_trace_info *info, char *host, size_t size);

/*
 * The kernel's events of a record --kernel trace (ctf_kernel.c): a second
 * trace in the directory's "kernel" folder, shaped as lttng-modules
 * writes the kernel domain, one stream per CPU.  ctf_kernel_begin() makes
 * the folder (removing an earlier export's files from it) when the trace
 * has kernel events; ctf_kernel_record() takes a kernel event;
 * ctf_kernel_end() writes what is in hand and the metadata (rc 0) and
 * frees.  0 or a BP_TRACE_E* code.
 */
struct ctf_kernel;
int ctf_kernel_begin(struct bp_export *fx, struct ctf_kernel **out);
int ctf_kernel_record(struct ctf_kernel *k, const struct bp_trace_event *e, uint64_t lost);
int ctf_kernel_end(struct ctf_kernel *k, int rc);

/* Remove what an export writes (metadata, stream_*, channel0_*) from the
 * directory dirfd. */
void ctf_clean_dir(int dirfd);

#endif /* BP_OUTPUT_CTF_H */
