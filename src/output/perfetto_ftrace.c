/*
 * Kernel events as Perfetto's ftrace events (perfetto_ftrace.h).  Field
 * numbers from Perfetto's protos: trace_packet.proto (ftrace_events 1),
 * ftrace/ftrace_event_bundle.proto (cpu 1, event 2, lost_events 3),
 * ftrace/ftrace_event.proto (timestamp 1, pid 2, and the event's message
 * by its number) and ftrace/sched.proto (each message's fields).  A
 * field is taken by its kernel name from the event's site layout (the
 * kernel formats the trace keeps), so a kernel whose format lacks one
 * leaves it out.
 */
#include "output/perfetto_ftrace.h"
#include "output/names.h"
#include "output/pb.h"

#include <stdlib.h>
#include <string.h>

enum {
	TP_FTRACE_EVENTS = 1, TP_SEQ_ID = 10,
	FB_CPU = 1, FB_EVENT = 2, FB_LOST = 3,
	FE_TIMESTAMP = 1, FE_PID = 2,
};

#define BUNDLE_EVENTS	1024u
#define BUNDLE_BYTES	(16u << 10)
#define MAX_CPUS	4096

/* A kernel field, the message field it goes to, and how. */
enum pf_kind { PF_INT, PF_STR, PF_STATE };
struct pf_field {
	const char *name;
	uint32_t number;
	enum pf_kind kind;
};

struct pf_message {
	const char *event;		/* the kernel's name */
	uint32_t number;		/* FtraceEvent's field of its message */
	struct pf_field fields[8];
};

/* sched.proto: SchedWakeup-, SchedWaking-, SchedWakeupNewFtraceEvent alike */
#define PF_WAKEUP_FIELDS { { "comm", 1, PF_STR }, { "pid", 2, PF_INT }, { "prio", 3, PF_INT }, \
			   { "success", 4, PF_INT }, { "target_cpu", 5, PF_INT } }

static const struct pf_message messages[] = {
	{ "sched_switch", 4, { { "prev_comm", 1, PF_STR }, { "prev_pid", 2, PF_INT },
			       { "prev_prio", 3, PF_INT }, { "prev_state", 4, PF_STATE },
			       { "next_comm", 5, PF_STR }, { "next_pid", 6, PF_INT },
			       { "next_prio", 7, PF_INT } } },
	{ "sched_wakeup", 17, PF_WAKEUP_FIELDS },
	{ "sched_waking", 20, PF_WAKEUP_FIELDS },
	{ "sched_wakeup_new", 114, PF_WAKEUP_FIELDS },
	{ "sched_process_exit", 238, { { "comm", 1, PF_STR }, { "pid", 2, PF_INT },
				       { "tgid", 3, PF_INT }, { "prio", 4, PF_INT } } },
	{ "sched_process_fork", 239, { { "parent_comm", 1, PF_STR }, { "parent_pid", 2, PF_INT },
				       { "child_comm", 3, PF_STR }, { "child_pid", 4, PF_INT } } },
};

struct pf_cpu {
	struct bp_out_buf b;		/* the FtraceEvent fields of the bundle */
	uint32_t n;
	bool lost;			/* events were lost before one of them */
};

struct pf_bundles {
	uint32_t seq_id;
	struct pf_cpu *cpu;
	size_t ncpu;
};

struct pf_bundles *pf_bundles_new(uint32_t seq_id)
{
	struct pf_bundles *pb = calloc(1, sizeof(*pb));

	if (pb)
		pb->seq_id = seq_id;
	return pb;
}

/* The kernel's prev_state bits from the letters the reader made of them
 * (reader/kernel_source.c): R 0, S 1, D 2, T 4, t 8, X 16, Z 32, P 64,
 * I 128; "+" (preempted) the TASK_REPORT_MAX bit, 256. */
static int64_t state_bits(const char *s, size_t n)
{
	static const char letters[] = "SDTtXZPI";
	int64_t v = 0;

	for (size_t i = 0; i < n && s[i]; i++) {
		const char *at = strchr(letters, s[i]);

		if (s[i] == '+')
			v |= 256;
		else if (at && s[i] != 'R')
			v |= 1ll << (at - letters);
	}
	return v;
}

static const struct pf_message *message_of(const struct bp_trace_event *e)
{
	const char *func = e->site ? e->site->func : NULL;

	for (size_t i = 0; func && i < sizeof(messages) / sizeof(messages[0]); i++)
		if (!strcmp(func, messages[i].event))
			return &messages[i];
	return NULL;
}

static struct pf_cpu *cpu_of(struct pf_bundles *pb, int32_t cpu)
{
	if (cpu < 0 || cpu >= MAX_CPUS)
		return NULL;
	if ((size_t)cpu >= pb->ncpu) {
		struct pf_cpu *g = realloc(pb->cpu, ((size_t)cpu + 1) * sizeof(*g));

		if (!g)
			return NULL;
		memset(g + pb->ncpu, 0, ((size_t)cpu + 1 - pb->ncpu) * sizeof(*g));
		pb->cpu = g;
		pb->ncpu = (size_t)cpu + 1;
	}
	return &pb->cpu[cpu];
}

/* CPU c's bundle as one TracePacket, to out; c emptied. */
static void write_bundle(struct pf_bundles *pb, size_t c, struct bp_out_buf *out)
{
	struct pf_cpu *k = &pb->cpu[c];
	size_t at, fe;

	if (!k->n)
		return;
	at = pb_begin(out, 1);		/* Trace.packet */
	pb_uint(out, TP_SEQ_ID, pb->seq_id);
	fe = pb_begin(out, TP_FTRACE_EVENTS);
	pb_uint(out, FB_CPU, c);
	bp_out_put(out, k->b.p, k->b.len);
	if (k->lost)
		pb_uint(out, FB_LOST, 1);
	pb_end(out, fe);
	pb_end(out, at);
	out->oom |= k->b.oom;
	k->b.len = 0;
	k->n = 0;
	k->lost = false;
}

bool pf_bundle_event(struct pf_bundles *pb, struct bp_trace *t, const struct bp_trace_event *e,
		     struct bp_out_buf *out, uint64_t *count)
{
	const struct pf_message *m = bp_trace_event_kernel(t) != BP_TRACE_FROM_PROGRAM
				     ? message_of(e) : NULL;
	struct bp_field_value v[BP_PLAN_MAX_ARGS];
	const struct bp_trace_layout *lay;
	struct pf_cpu *k;
	unsigned n;
	size_t ev, msg;

	if (!m || !(k = cpu_of(pb, e->cpu)) ||
	    !(n = bp_out_record_args(t, e, &lay, v)))
		return false;
	ev = pb_begin(&k->b, FB_EVENT);
	pb_uint(&k->b, FE_TIMESTAMP, e->ns);
	pb_uint(&k->b, FE_PID, (uint32_t)e->tid);
	msg = pb_begin(&k->b, m->number);
	for (unsigned i = 0; i < n; i++)
		for (const struct pf_field *f = m->fields; f->name; f++) {
			if (strcmp(f->name, lay->fields[i].name))
				continue;
			if (f->kind == PF_STR && lay->fields[i].type == BP_FIELD_STRING)
				pb_bytes(&k->b, f->number, v[i].s, strnlen(v[i].s, v[i].len));
			else if (f->kind == PF_STATE && lay->fields[i].type == BP_FIELD_STRING)
				pb_int(&k->b, f->number, state_bits(v[i].s, v[i].len));
			else if (f->kind == PF_INT && lay->fields[i].type == BP_FIELD_SIGNED)
				pb_int(&k->b, f->number, (int64_t)v[i].v.u);
			else if (f->kind == PF_INT && lay->fields[i].type == BP_FIELD_UNSIGNED)
				pb_uint(&k->b, f->number, v[i].v.u);
			break;
		}
	pb_end(&k->b, msg);
	pb_end(&k->b, ev);
	k->lost |= e->lost_before != 0;
	(*count)++;
	if (++k->n >= BUNDLE_EVENTS || k->b.len >= BUNDLE_BYTES)
		write_bundle(pb, (size_t)e->cpu, out);
	return true;
}

void pf_bundles_flush(struct pf_bundles *pb, struct bp_out_buf *out)
{
	for (size_t c = 0; c < pb->ncpu; c++)
		write_bundle(pb, c, out);
}

void pf_bundles_free(struct pf_bundles *pb)
{
	if (!pb)
		return;
	for (size_t c = 0; c < pb->ncpu; c++)
		bp_out_free(&pb->cpu[c].b);
	free(pb->cpu);
	free(pb);
}
