/*
 * A trace file as Perfetto's own trace format (docs/exporters.md,
 * "Perfetto"): a protobuf `Trace`, one `TracePacket` after another, all on
 * one packet sequence (trusted_packet_sequence_id: random per export,
 * above the reserved and service-assigned ids).
 *
 *   packet 1  SEQ_INCREMENTAL_STATE_CLEARED; defaults (timestamp clock 64);
 *             the clock snapshot: clock 64 (incremental, the trace clock's
 *             nanoseconds as deltas), the trace clock as a builtin clock,
 *             and REALTIME when the trace clock is CLOCK_MONOTONIC-based
 *   packet 2  the interned data: one event name, category (the file) and
 *             source location per site, the debug annotation names
 *   packet 3  the process track: TrackDescriptor { uuid, process }
 *   then      a thread track when a thread first appears
 *             or is renamed; the kernel's sched events of a record --kernel
 *             trace as ftrace event bundles, one per CPU at a time
 *             (perfetto_ftrace.h); one TYPE_INSTANT TrackEvent per record, with
 *             the message and the arguments as debug annotations; an
 *             instant "records lost" event before a record that follows
 *             lost records
 *
 * Track uuids are random 64-bit numbers, drawn for each export (from the
 * frame's seed: BPRINT_EXPORT_SEED makes them reproducible) and kept for
 * the whole file.  Every packet after the first carries
 * SEQ_NEEDS_INCREMENTAL_STATE.  A
 * timestamp is the delta since the previous packet's, on clock 64; a
 * record older than the previous one (a live writer's late record) gets
 * its absolute time on the builtin clock instead, which leaves clock 64's
 * running value alone.
 *
 * Built with zlib (BP_HAVE_ZLIB), every 64 KiB of packets go out deflated
 * as one compressed_packets packet, as Perfetto's service writes them.
 *
 * Memory: the thread table and one batch of packets.
 */
#include "output/frame.h"
#include "output/names.h"
#include "output/pb.h"
#include "output/perfetto_ftrace.h"
#include "output/wallclock.h"

#include "trace/clock.h"

#include <stdlib.h>
#ifdef BP_HAVE_ZLIB
#include <zlib.h>
#endif
#include <string.h>

/* Field numbers (Perfetto's protos, docs/exporters.md). */
enum {
	TRACE_PACKET = 1,
	TP_CLOCK_SNAPSHOT = 6, TP_TIMESTAMP = 8, TP_SEQ_ID = 10, TP_TRACK_EVENT = 11,
	TP_INTERNED = 12, TP_SEQ_FLAGS = 13, TP_TIMESTAMP_CLOCK = 58, TP_DEFAULTS = 59,
	TP_TRACK_DESCRIPTOR = 60, TP_COMPRESSED = 50,
	DEF_TIMESTAMP_CLOCK = 58,
	CS_CLOCKS = 1, CS_PRIMARY = 2,
	CLK_ID = 1, CLK_TIMESTAMP = 2, CLK_INCREMENTAL = 3,
	TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT = 5,
	PD_PID = 1, PD_CMDLINE = 2, PD_NAME = 6,
	THD_PID = 1, THD_TID = 2, THD_NAME = 5,
	TE_CATEGORY_IIDS = 3, TE_ANNOTATIONS = 4, TE_TYPE = 9, TE_NAME_IID = 10,
	TE_TRACK = 11, TE_SOURCE_LOCATION_IID = 34,
	DA_NAME_IID = 1, DA_BOOL = 2, DA_UINT = 3, DA_INT = 4, DA_DOUBLE = 5, DA_STRING = 6,
	DA_POINTER = 7, DA_NAME = 10,
	ID_CATEGORIES = 1, ID_EVENT_NAMES = 2, ID_ANNOTATION_NAMES = 3, ID_SOURCE_LOCATIONS = 4,
	IID_IID = 1, IID_NAME = 2,
	SL_FILE = 2, SL_FUNCTION = 3, SL_LINE = 4,
};

/* Sequence ids 0 (none) and 1 (the tracing service's own packets) are
 * reserved, and the service numbers its sequences 2, 3, ...: ours is
 * random above those, so that a bprint trace merged with another (or
 * with a second bprint trace) keeps its sequence apart. */
#define SEQ_ID_MIN 0x10000u
#define SEQ_INCREMENTAL_STATE_CLEARED 1u
#define SEQ_NEEDS_INCREMENTAL_STATE 2u
#define TYPE_SLICE_BEGIN 1u
#define TYPE_SLICE_END 2u
#define TYPE_INSTANT 3u
#define CLOCK_DELTA_ID 64u		/* ours: sequence-scoped, incremental */

/* Event name and category iids; a known site's are its id + SITE_IID0. */
#define IID_LOST 1u
#define IID_UNKNOWN 2u
#define SITE_IID0 3u
/* Debug annotation name iids; argument k of site id is
 * AN_FIRST_ARG + id * BP_PLAN_MAX_ARGS + k. */
enum { AN_MSG = 1, AN_CPU, AN_LOST, AN_SITE, AN_FIRST_ARG };

#define FLUSH_AT (64u << 10)

struct px {
	struct bp_export *fx;
	struct bp_out_buf *b;		/* the frame's: a batch of packets */
	struct bp_out_buf z;		/* b deflated (with zlib) */
	int64_t pid;
	uint32_t builtin;		/* the trace clock as a Perfetto builtin clock */
	uint64_t last_ns;		/* clock 64's running value */
	uint64_t rng;			/* splitmix64 state, from the frame's seed */
	uint32_t seq_id;		/* trusted_packet_sequence_id, random per export */
	uint64_t process_uuid;		/* random, as every track uuid */
	/* spans across threads, or paired by fields: tracks of their own
	 * under the process ("lanes"), each busy until its last slice ends,
	 * so that no two slices of a lane overlap */
	struct lane { uint64_t uuid, busy_until; } *lanes;
	size_t nlanes;
	struct pf_bundles *kernel;	/* a record --kernel trace's sched events */
};

/* splitmix64: the ids of one export, from its seed. */
static uint64_t next_random(struct px *x)
{
	uint64_t z = (x->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A track uuid: random 64 bits, never 0 (no uuid), as the proto asks
 * ("unlikely to clash": a counter would clash with another trace's). */
static uint64_t random_uuid(struct px *x)
{
	uint64_t u;

	while (!(u = next_random(x)))
		;
	return u;
}

/* The trace's clock as Perfetto's builtin one (the clock table's), and for
 * CLOCK_MONOTONIC the offset to the realtime clock; a clock that ought to
 * be monotonic but has no dates, and any other, counts as boottime ns. */
static uint32_t builtin_clock(const struct bp_trace_info *info, int64_t *realtime_offset)
{
	const struct bp_clock_desc *d = bp_clock_desc((enum bp_clock_id)info->clock);
	uint32_t id = d ? d->perfetto_clock : BP_PERFETTO_CLOCK_BOOTTIME;

	*realtime_offset = 0;
	if (id == BP_PERFETTO_CLOCK_MONOTONIC && bp_out_wallclock_offset(info, realtime_offset))
		id = BP_PERFETTO_CLOCK_BOOTTIME;
	return id;
}

#ifdef BP_HAVE_ZLIB
/* The packets in x->b deflated (zlib format) as one compressed_packets
 * packet, as Perfetto's own service writes them with deflate on. */
static int write_deflated(struct px *x)
{
	uLongf zn = compressBound((uLong)x->b->len);
	struct bp_out_buf h = { 0 };
	uint8_t *data;
	size_t body;
	int rc = 0;

	x->z.len = 0;
	if (!(data = bp_out_reserve(&x->z, zn)) ||
	    compress2(data, &zn, x->b->p, (uLong)x->b->len, Z_BEST_SPEED) != Z_OK)
		return BP_TRACE_ENOMEM;
	body = 2 + pb_varint_size(zn) + zn;	/* tag 50 takes 2 bytes */
	pb_varint(&h, (uint64_t)TRACE_PACKET << 3 | PB_LEN);
	pb_varint(&h, body);
	pb_varint(&h, (uint64_t)TP_COMPRESSED << 3 | PB_LEN);
	pb_varint(&h, zn);
	if (h.oom)
		rc = BP_TRACE_ENOMEM;
	else if ((rc = bp_export_write(x->fx, x->fx->fd, h.p, h.len)) == 0)
		rc = bp_export_write(x->fx, x->fx->fd, data, zn);
	bp_out_free(&h);
	return rc;
}
#endif

static int flush(struct px *x, int force)
{
	int rc = 0;

	if (x->b->oom)
		return BP_TRACE_ENOMEM;
	if (!(force || x->b->len >= FLUSH_AT) || !x->b->len)
		return 0;
#ifdef BP_HAVE_ZLIB
	rc = write_deflated(x);
	x->b->len = 0;
#else
	rc = bp_export_write_out(x->fx);
#endif
	return rc;
}

/* Start a packet stamped ns (with the sequence and its flags). */
static size_t packet(struct px *x, uint64_t ns)
{
	size_t at = pb_begin(x->b, TRACE_PACKET);

	if (ns >= x->last_ns) {
		pb_uint(x->b, TP_TIMESTAMP, ns - x->last_ns);
		x->last_ns = ns;
	} else {
		pb_uint(x->b, TP_TIMESTAMP, ns);
		pb_uint(x->b, TP_TIMESTAMP_CLOCK, x->builtin);
	}
	pb_uint(x->b, TP_SEQ_ID, x->seq_id);
	pb_uint(x->b, TP_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	return at;
}

static void snapshot_clock(struct bp_out_buf *b, uint32_t id, uint64_t ts, int incremental)
{
	size_t at = pb_begin(b, CS_CLOCKS);

	pb_uint(b, CLK_ID, id);
	pb_uint(b, CLK_TIMESTAMP, ts);
	if (incremental)
		pb_uint(b, CLK_INCREMENTAL, 1);
	pb_end(b, at);
}

/* Packet 1: the sequence's start, its defaults and the clocks. */
static void first_packet(struct px *x, const struct bp_trace_info *info)
{
	struct bp_out_buf *b = x->b;
	int64_t offset;
	size_t at = pb_begin(b, TRACE_PACKET), in;
	bool mono;

	x->builtin = builtin_clock(info, &offset);
	mono = x->builtin == BP_PERFETTO_CLOCK_MONOTONIC;
	x->last_ns = mono ? info->start_mono_ns : 0;
	pb_uint(b, TP_SEQ_ID, x->seq_id);
	pb_uint(b, TP_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	in = pb_begin(b, TP_DEFAULTS);
	pb_uint(b, DEF_TIMESTAMP_CLOCK, CLOCK_DELTA_ID);
	pb_end(b, in);
	in = pb_begin(b, TP_CLOCK_SNAPSHOT);
	snapshot_clock(b, CLOCK_DELTA_ID, x->last_ns, 1);
	snapshot_clock(b, x->builtin, x->last_ns, 0);
	/* Perfetto reads ftrace events' stamps as BOOTTIME: the kernel's
	 * events are on the trace's clock (perfetto_ftrace.h) */
	if (x->builtin != BP_PERFETTO_CLOCK_BOOTTIME && x->kernel)
		snapshot_clock(b, BP_PERFETTO_CLOCK_BOOTTIME, x->last_ns, 0);
	if (mono)	/* the same instant on both clocks: when the file was made */
		snapshot_clock(b, BP_PERFETTO_CLOCK_REALTIME, (uint64_t)((int64_t)x->last_ns + offset), 0);
	pb_uint(b, CS_PRIMARY, x->builtin);
	pb_end(b, in);
	pb_end(b, at);
}

static void interned_name(struct bp_out_buf *b, uint32_t field, uint64_t iid, const char *name)
{
	size_t at = pb_begin(b, field);

	pb_uint(b, IID_IID, iid);
	pb_str(b, IID_NAME, name);
	pb_end(b, at);
}

static uint64_t arg_iid(uint32_t site_id, unsigned k)
{
	return AN_FIRST_ARG + (uint64_t)site_id * BP_PLAN_MAX_ARGS + k;
}

static void intern_site(struct px *x, const struct bp_trace_site *ts)
{
	const struct bp_trace_site *s = ts;
	const struct bp_trace_layout *lay = bp_trace_layout(x->fx->t, s->id);
	uint64_t iid = (uint64_t)s->id + SITE_IID0;
	struct bp_out_buf *b = x->b;
	char alias[BP_OUT_FIELD_NAME_MAX];
	size_t at;

	for (unsigned k = 0; lay && k < lay->nfields; k++)
		interned_name(b, ID_ANNOTATION_NAMES, arg_iid(s->id, k),
			      bp_out_field_name(lay, k, alias));

	interned_name(b, ID_EVENT_NAMES, iid, bp_out_event_name(&x->fx->names, s->id));
	interned_name(b, ID_CATEGORIES, iid, s->file && s->file[0] ? s->file : "bprint");
	at = pb_begin(b, ID_SOURCE_LOCATIONS);
	pb_uint(b, IID_IID, iid);
	pb_str(b, SL_FILE, s->file);
	pb_str(b, SL_FUNCTION, s->func);
	pb_uint(b, SL_LINE, s->line);
	pb_end(b, at);
}

/* Packet 2: every name the events refer to. */
static void interned_packet(struct px *x, struct bp_trace *t)
{
	static const char *const annotations[] = { "msg", "cpu", "lost", "site" };
	struct bp_out_buf *b = x->b;
	size_t at = packet(x, x->last_ns), in = pb_begin(b, TP_INTERNED);

	interned_name(b, ID_EVENT_NAMES, IID_LOST, "records lost");
	interned_name(b, ID_EVENT_NAMES, IID_UNKNOWN, "unknown site");
	interned_name(b, ID_CATEGORIES, IID_LOST, "bprint");
	interned_name(b, ID_CATEGORIES, IID_UNKNOWN, "bprint");
	for (size_t i = 0; i < sizeof(annotations) / sizeof(annotations[0]); i++)
		interned_name(b, ID_ANNOTATION_NAMES, AN_MSG + i, annotations[i]);
	for (size_t i = 0; i < bp_trace_nsites(t); i++)
		intern_site(x, bp_trace_site_at(t, i));
	pb_end(b, in);
	pb_end(b, at);
}

static void process_track(struct px *x, const struct bp_trace_info *info)
{
	struct bp_out_buf *b = x->b;
	size_t at = packet(x, x->last_ns), td = pb_begin(b, TP_TRACK_DESCRIPTOR), pd;

	pb_uint(b, TD_UUID, x->process_uuid);
	pd = pb_begin(b, TD_PROCESS);
	pb_int(b, PD_PID, x->pid);
	pb_str(b, PD_NAME, info->comm);
	if (info->cmdline[0])
		pb_str(b, PD_CMDLINE, info->cmdline);
	pb_end(b, pd);
	pb_end(b, td);
	pb_end(b, at);
}

static void thread_track(struct px *x, const struct bp_out_thread *th, uint64_t ns)
{
	struct bp_out_buf *b = x->b;
	size_t at = packet(x, ns), td = pb_begin(b, TP_TRACK_DESCRIPTOR), in;

	pb_uint(b, TD_UUID, (uint64_t)(uintptr_t)th->lane);
	pb_uint(b, TD_PARENT, x->process_uuid);
	in = pb_begin(b, TD_THREAD);
	pb_int(b, THD_PID, x->pid);
	pb_int(b, THD_TID, th->tid);
	pb_str(b, THD_NAME, th->comm[0] ? th->comm : "<...>");
	pb_end(b, in);
	pb_end(b, td);
	pb_end(b, at);
}

static void annotation_uint(struct bp_out_buf *b, uint64_t name, uint32_t kind, uint64_t v)
{
	size_t at = pb_begin(b, TE_ANNOTATIONS);

	pb_uint(b, DA_NAME_IID, name);
	pb_uint(b, kind, v);
	pb_end(b, at);
}

/* An instant event being written: its packet and its TrackEvent. */
struct ev_at {
	size_t packet, event;
};

/* Start an instant event on a thread's track. */
static struct ev_at instant(struct px *x, uint64_t ns, uint64_t track, uint64_t iid, int source)
{
	struct bp_out_buf *b = x->b;
	struct ev_at at;

	at.packet = packet(x, ns);
	at.event = pb_begin(b, TP_TRACK_EVENT);
	pb_uint(b, TE_TYPE, TYPE_INSTANT);
	pb_uint(b, TE_TRACK, track);
	pb_uint(b, TE_NAME_IID, iid);
	pb_uint(b, TE_CATEGORY_IIDS, iid);
	if (source)
		pb_uint(b, TE_SOURCE_LOCATION_IID, iid);
	return at;
}

static void instant_end(struct px *x, struct ev_at at)
{
	pb_end(x->b, at.event);
	pb_end(x->b, at.packet);
}

/* The value of field k of lay, v, in the annotation being written. */
static void annotation_value(struct px *x, const struct bp_trace_layout *lay, unsigned k,
			     const struct bp_field_value *v)
{
	static const uint32_t field[] = {
		[BP_FIELD_SIGNED] = DA_INT, [BP_FIELD_UNSIGNED] = DA_UINT,
		[BP_FIELD_CHAR] = DA_STRING, [BP_FIELD_FLOAT] = DA_DOUBLE,
		[BP_FIELD_STRING] = DA_STRING, [BP_FIELD_POINTER] = DA_POINTER,
	};
	const struct bp_trace_field *d = &lay->fields[k];
	struct bp_out_buf *b = x->b;
	char c = (char)v->v.u, sym[BP_OUT_SYMBOL_MAX], letter = bp_out_symbol_letter(lay, k);

	if (letter)	/* %pS: the symbol, as report prints it */
		pb_bytes(b, DA_STRING, sym, bp_out_symbol(x->fx->t, letter, v->v.u, sym, sizeof(sym)));
	else if (d->type == BP_FIELD_FLOAT)
		pb_double(b, DA_DOUBLE, v->v.d);
	else if (d->type == BP_FIELD_STRING)
		pb_bytes(b, DA_STRING, v->s, v->len);
	else if (d->type == BP_FIELD_CHAR)
		pb_bytes(b, DA_STRING, &c, 1);
	else if (d->type < sizeof(field) / sizeof(field[0]) && field[d->type])
		pb_uint(b, field[d->type], v->v.u);	/* int64 as two's complement */
}

/* One annotation per typed argument (the site layout's fields); returns the layout. */
static const struct bp_trace_layout *arguments(struct px *x, const struct bp_trace_event *e)
{
	struct bp_field_value v[BP_PLAN_MAX_ARGS];
	const struct bp_trace_layout *lay;
	unsigned n = bp_out_record_args(x->fx->t, e, &lay, v);
	struct bp_out_buf *b = x->b;

	for (unsigned k = 0; k < n; k++) {
		size_t at = pb_begin(b, TE_ANNOTATIONS);

		pb_uint(b, DA_NAME_IID, arg_iid(e->site_id, k));
		annotation_value(x, lay, k, &v[k]);
		pb_end(b, at);
	}
	return n ? lay : NULL;
}

static int perfetto_record(struct bp_export *fx, const struct bp_trace_event *e,
			   const struct bp_export_rec *r)
{
	struct px *x = fx->own;
	struct bp_out_buf *b = x->b;
	struct bp_out_thread *th = r->th;
	const struct bp_trace_layout *lay;
	struct ev_at at;
	uint64_t track;
	size_t da;
	bool fresh = !th->lane;

	if (x->kernel && pf_bundle_event(x->kernel, fx->t, e, b, &fx->st.kernel))
		return flush(x, 0);
	/* a thread's track when its first track event comes, and again when
	 * renamed */
	if (fresh)
		th->lane = (void *)(uintptr_t)random_uuid(x);
	if (fresh || r->renamed)
		thread_track(x, th, e->ns);
	track = (uint64_t)(uintptr_t)th->lane;
	if (r->lost) {
		at = instant(x, e->ns, track, IID_LOST, 0);
		annotation_uint(b, AN_LOST, DA_UINT, r->lost);
		instant_end(x, at);
	}
	at = instant(x, e->ns, track, e->site ? e->site_id + SITE_IID0 : IID_UNKNOWN,
		     e->site != NULL);
	da = pb_begin(b, TE_ANNOTATIONS);
	pb_uint(b, DA_NAME_IID, AN_MSG);
	pb_bytes(b, DA_STRING, e->message, e->message_len);
	pb_end(b, da);
	if (!e->site)
		annotation_uint(b, AN_SITE, DA_UINT, e->site_id);
	lay = arguments(x, e);
	if (e->cpu >= 0 && !bp_out_arg_named(lay, "cpu"))
		annotation_uint(b, AN_CPU, DA_INT, (uint64_t)e->cpu);
	instant_end(x, at);
	return flush(x, 0);
}

static int perfetto_begin(struct bp_export *fx)
{
	struct px *x = fx->own;

	x->fx = fx;
	x->b = &fx->out;
	x->pid = fx->info->pid;
	x->rng = fx->seed;
	x->seq_id = SEQ_ID_MIN + (uint32_t)(next_random(x) % (0x100000000ull - SEQ_ID_MIN));
	x->process_uuid = random_uuid(x);
	if (bp_trace_max_site_id(fx->t) >= BP_TRACE_KERNEL_SITE_BASE &&
	    !(x->kernel = pf_bundles_new(x->seq_id + 1 > x->seq_id ? x->seq_id + 1 : SEQ_ID_MIN)))
		return BP_TRACE_ENOMEM;
	first_packet(x, fx->info);
	interned_packet(x, fx->t);
	process_track(x, fx->info);
	return 0;
}

/* A lane free from ns on: an existing one, or a new track. */
static uint64_t lane_for(struct px *x, uint64_t from_ns, uint64_t to_ns)
{
	struct lane *grown;
	size_t at, td;

	for (size_t i = 0; i < x->nlanes; i++)
		if (x->lanes[i].busy_until <= from_ns) {
			x->lanes[i].busy_until = to_ns;
			return x->lanes[i].uuid;
		}
	if (!(grown = realloc(x->lanes, (x->nlanes + 1) * sizeof(*grown))))
		return 0;
	x->lanes = grown;
	x->lanes[x->nlanes] = (struct lane){ random_uuid(x), to_ns };
	at = packet(x, from_ns);
	td = pb_begin(x->b, TP_TRACK_DESCRIPTOR);
	pb_uint(x->b, TD_UUID, x->lanes[x->nlanes].uuid);
	pb_uint(x->b, TD_PARENT, x->process_uuid);
	pb_str(x->b, TD_NAME, "spans");
	pb_end(x->b, td);
	pb_end(x->b, at);
	return x->lanes[x->nlanes++].uuid;
}

/* A slice's arguments: to_tid and the closing record's fields (the key
 * among them), named by string (one slice, not a site's interned names). */
static void span_annotations(struct px *x, const struct bp_export_span *sp)
{
	struct bp_out_buf *b = x->b;
	size_t at = pb_begin(b, TE_ANNOTATIONS);
	char alias[BP_OUT_FIELD_NAME_MAX];

	pb_str(b, DA_NAME, "to_tid");
	pb_uint(b, DA_INT, (uint64_t)(int64_t)sp->to_tid);
	pb_end(b, at);
	for (unsigned k = 0; k < sp->nvals; k++) {
		at = pb_begin(b, TE_ANNOTATIONS);
		pb_str(b, DA_NAME, bp_out_field_name(sp->lay, k, alias));
		annotation_value(x, sp->lay, k, &sp->vals[k]);
		pb_end(b, at);
	}
}

/* A span as a slice: TYPE_SLICE_BEGIN and _END on its thread's track when
 * it nests there, else on a lane of its own. */
static int perfetto_span(struct bp_export *fx, const struct bp_export_span *sp)
{
	struct px *x = fx->own;
	struct bp_out_thread *th = sp->nests ? bp_out_thread_find(&fx->thr, sp->from_tid) : NULL;
	uint64_t track = th && th->lane ? (uint64_t)(uintptr_t)th->lane :
					  lane_for(x, sp->from_ns, sp->to_ns);
	uint64_t iid = sp->site + SITE_IID0;
	size_t at, ev;

	if (!track)
		return BP_TRACE_ENOMEM;
	for (int end = 0; end < 2; end++) {
		at = packet(x, end ? sp->to_ns : sp->from_ns);
		ev = pb_begin(x->b, TP_TRACK_EVENT);
		pb_uint(x->b, TE_TYPE, end ? TYPE_SLICE_END : TYPE_SLICE_BEGIN);
		pb_uint(x->b, TE_TRACK, track);
		if (!end) {
			pb_uint(x->b, TE_NAME_IID, iid);
			pb_uint(x->b, TE_CATEGORY_IIDS, iid);
			span_annotations(x, sp);
		}
		pb_end(x->b, ev);
		pb_end(x->b, at);
	}
	return flush(x, 0);
}

static int perfetto_end(struct bp_export *fx, int rc)
{
	struct px *x = fx->own;

	free(x->lanes);
	if (rc == 0 && x->kernel)
		pf_bundles_flush(x->kernel, x->b);
	if (rc == 0)
		rc = flush(x, 1);
	pf_bundles_free(x->kernel);
	bp_out_free(&x->z);
	return rc;
}

const struct bp_exporter bp_exporter_perfetto = {
	.name = "perfetto",
	.help = "Perfetto's protobuf trace (.pftrace) for Perfetto\n"
		"UI and trace_processor: a track per thread,\n"
		"message and arguments as debug annotations",
	.size = sizeof(struct px),
	.begin = perfetto_begin,
	.record = perfetto_record,
	.end = perfetto_end,
	.span = perfetto_span,
	.flags = BP_EXPORT_F_BINARY,
	.suffix = "",
	.noun = "a Perfetto trace",
};
