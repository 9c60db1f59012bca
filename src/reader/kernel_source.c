/*
 * The kernel stream's sources (kernel_source.h).  Pages are read one at a
 * time with pread() and walked with libtraceevent's kbuffer; each event's
 * fields are read from its bytes by the offsets and sizes its format
 * gives, each checked against the event's size first (the file is
 * untrusted), and stored as the argument block of the event's site.
 */
#include "reader/kernel_source.h"

#include "file/array.h"
#include "file/kernel_layout.h"
#include "reader/reading.h"
#include "reader/catalogue.h"

#include <stdlib.h>
#include <string.h>

#ifdef BP_HAVE_TRACEEVENT

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#define MAX_FORMATS	(64u << 20)	/* a formats chunk's records, at most */
#define MAX_KPAGE	(1u << 20)
#define PID_SET_MIN	64u

/* How a field goes into the block. */
enum kfield_kind {
	KF_INT,				/* 1, 2 or 4 bytes: a 4-byte slot */
	KF_INT64,			/* 8 bytes */
	KF_STR,				/* a char array: up to its NUL */
	KF_DYNSTR,			/* __data_loc char[]: offset and length */
	KF_STATE,			/* sched_switch's prev_state: its letters */
};

struct kfield {
	enum kfield_kind kind;
	bool is_signed, relative;
	uint32_t offset, size;
	bool is_pid;			/* a *pid field: --kernel=own looks at it */
};

struct kevent {
	uint32_t site_id;
	struct kfield *f;
	size_t nf;
	int fork_child;			/* sched_process_fork: the child_pid field, or -1 */
	int fork_parent;
	int comm_of[2][2];		/* sched_switch and wakeups: (comm, pid) field pairs */
};

/* One chunk of a CPU's pages. */
struct kchunk {
	uint64_t off, seq;
	uint32_t npages;
};

struct kernel_cpu {
	uint32_t cpu;
	struct kchunk *chunks;		/* sorted by seq */
	size_t n, cap;
	size_t chunk;			/* the next page: chunks[chunk], page */
	uint32_t page;
	uint64_t next_seq;		/* the page seq expected next */
	unsigned char *page_buf;
	struct kbuffer *kb;
	bool in_page, started;
	uint64_t pending_lost;		/* events lost before the next one */
};

/* A set of pids (open addressing, 0 = empty: pid 0 is the idle task, never ours). */
struct pid_set {
	int32_t *v;
	size_t cap, n;
};

struct bp_kernel {
	struct tep_handle *tep;
	unsigned char *recs;		/* the formats chunk's records, kept for the exporters */
	struct bp_trace_kformat *fmts;	/* the valid ones among them */
	size_t nfmts;
	uint32_t page_size, ncpus, long_size;
	uint64_t root_pid;
	bool formats, bad_said;
	struct kevent *ev;		/* by ID */
	size_t nev;
	struct pid_set tree;		/* the traced process tree */
	bool tree_seeded;
	/* pid -> comm, from the events that name both */
	struct { int32_t pid; char comm[17]; } *comm;
	size_t comm_cap;
};

/* ---- pids and names ------------------------------------------------------ */

static size_t pid_slot(const struct pid_set *s, int32_t pid)
{
	size_t i = ((uint32_t)pid * 2654435761u) & (s->cap - 1);

	while (s->v[i] && s->v[i] != pid)
		i = (i + 1) & (s->cap - 1);
	return i;
}

static bool pid_has(const struct pid_set *s, int32_t pid)
{
	return pid > 0 && s->cap && s->v[pid_slot(s, pid)] == pid;
}

static void pid_add(struct pid_set *s, int32_t pid)
{
	if (pid <= 0 || pid_has(s, pid))
		return;
	if ((s->n + 1) * 2 > s->cap) {
		struct pid_set g = { calloc(s->cap ? s->cap * 2 : PID_SET_MIN, sizeof(int32_t)),
				     s->cap ? s->cap * 2 : PID_SET_MIN, 0 };

		if (!g.v)
			return;
		for (size_t i = 0; i < s->cap; i++)
			if (s->v[i])
				g.v[pid_slot(&g, s->v[i])] = s->v[i];
		g.n = s->n;
		free(s->v);
		*s = g;
	}
	s->v[pid_slot(s, pid)] = pid;
	s->n++;
}

/* A direct-mapped cache of names: the last name seen for a pid's slot. */
#define COMM_SLOTS 4096u

static void comm_put(struct bp_kernel *k, int32_t pid, const char *comm, size_t len)
{
	size_t i = (uint32_t)pid % COMM_SLOTS;

	if (!k->comm && !(k->comm = calloc(COMM_SLOTS, sizeof(*k->comm))))
		return;
	k->comm[i].pid = pid;
	if (len > 16)
		len = 16;
	memcpy(k->comm[i].comm, comm, len);
	k->comm[i].comm[len] = '\0';
}

static const char *comm_get(const struct bp_kernel *k, int32_t pid)
{
	size_t i = (uint32_t)pid % COMM_SLOTS;

	if (pid == 0)
		return "<idle>";
	return k->comm && k->comm[i].pid == pid && k->comm[i].comm[0] ? k->comm[i].comm : "<...>";
}

/* ---- formats ------------------------------------------------------------- */

static bool is_char_type(const char *type)
{
	return strstr(type, "char") != NULL;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

/* Field f of event e as a kfield and its conversion: false to leave it out. */
static bool field_kind(const struct tep_event *e, const struct tep_format_field *f,
		       struct kfield *kf, const char **conv)
{
	memset(kf, 0, sizeof(*kf));
	kf->offset = (uint32_t)f->offset;
	kf->size = (uint32_t)f->size;
	kf->is_signed = f->flags & TEP_FIELD_IS_SIGNED;
	if (f->offset < 0 || f->size <= 0)
		return false;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		kf->kind = KF_DYNSTR;
		kf->relative = f->flags & TEP_FIELD_IS_RELATIVE;
		*conv = "%s";
		return is_char_type(f->type) && f->size == 4;
	}
	if (f->flags & TEP_FIELD_IS_ARRAY) {
		kf->kind = KF_STR;
		*conv = "%s";
		return is_char_type(f->type);
	}
	if (!strcmp(e->name, "sched_switch") && !strcmp(f->name, "prev_state")) {
		kf->kind = KF_STATE;
		*conv = "%s";
		return f->size <= 8;
	}
	kf->is_pid = ends_with(f->name, "pid");
	if (f->size == 8) {
		kf->kind = KF_INT64;
		*conv = (f->flags & TEP_FIELD_IS_POINTER) ? "0x%llx" : kf->is_signed ? "%lld" : "%llu";
		return true;
	}
	kf->kind = KF_INT;
	*conv = kf->is_signed ? "%d" : "%u";
	return f->size == 1 || f->size == 2 || f->size == 4;
}

/* Append s to the growing format (fmt, len, cap): false out of memory. */
static bool fmt_put(char **fmt, size_t *len, size_t *cap, const char *s)
{
	size_t n = strlen(s);

	if (*len + n + 1 > *cap) {
		size_t c = (*len + n + 1) * 2;
		char *g = realloc(*fmt, c);

		if (!g)
			return false;
		*fmt = g;
		*cap = c;
	}
	memcpy(*fmt + *len, s, n + 1);
	*len += n;
	return true;
}

static int field_index(const struct kevent *ke, const struct tep_event *e, const char *name)
{
	struct tep_format_field *f = e->format.fields;
	size_t i = 0;

	/* the fields kept, in order: walk the format again */
	for (; f; f = f->next) {
		struct kfield kf;
		const char *conv;

		if (!field_kind(e, f, &kf, &conv))
			continue;
		if (!strcmp(f->name, name))
			return (int)i;
		i++;
	}
	(void)ke;
	return -1;
}

/* Event e as a kevent and a site: 0, or BP_TRACE_ENOMEM. */
static int add_event(struct bp_trace *t, struct bp_kernel *k, struct tep_event *e)
{
	struct kevent *ke;
	char *fmt = NULL, file[96];
	size_t len = 0, cap = 0, nfields = 0;
	int rc = BP_TRACE_OK;

	if (e->id < 0 || (unsigned)e->id > BP_KERNEL_ID_MAX)
		return BP_TRACE_OK;
	if ((size_t)e->id >= k->nev) {
		struct kevent *g = realloc(k->ev, ((size_t)e->id + 1) * sizeof(*g));

		if (!g)
			return BP_TRACE_ENOMEM;
		memset(g + k->nev, 0, ((size_t)e->id + 1 - k->nev) * sizeof(*g));
		k->ev = g;
		k->nev = (size_t)e->id + 1;
	}
	ke = &k->ev[e->id];
	if (ke->site_id)
		return BP_TRACE_OK;	/* the first format of an ID wins */
	for (struct tep_format_field *f = e->format.fields; f; f = f->next)
		nfields++;	/* the list, not nr_fields: a damaged format may say otherwise */
	if (!(ke->f = calloc(nfields + 1, sizeof(*ke->f))))
		return BP_TRACE_ENOMEM;
	for (struct tep_format_field *f = e->format.fields; f; f = f->next) {
		const char *conv;

		if (!field_kind(e, f, &ke->f[ke->nf], &conv))
			continue;
		if ((len && !fmt_put(&fmt, &len, &cap,
				     !strcmp(e->name, "sched_switch") && !strcmp(f->name, "next_comm")
					     ? " ==> " : " ")) ||
		    !fmt_put(&fmt, &len, &cap, f->name) || !fmt_put(&fmt, &len, &cap, "=") ||
		    !fmt_put(&fmt, &len, &cap, conv)) {
			free(fmt);
			return BP_TRACE_ENOMEM;
		}
		ke->nf++;
	}
	ke->site_id = BP_KERNEL_SITE_BASE + (uint32_t)e->id;
	ke->fork_child = !strcmp(e->name, "sched_process_fork") ? field_index(ke, e, "child_pid") : -1;
	ke->fork_parent = ke->fork_child >= 0 ? field_index(ke, e, "parent_pid") : -1;
	ke->comm_of[0][0] = field_index(ke, e, !strcmp(e->name, "sched_switch") ? "prev_comm" : "comm");
	ke->comm_of[0][1] = field_index(ke, e, !strcmp(e->name, "sched_switch") ? "prev_pid" : "pid");
	ke->comm_of[1][0] = field_index(ke, e, !strcmp(e->name, "sched_switch") ? "next_comm" : "child_comm");
	ke->comm_of[1][1] = field_index(ke, e, !strcmp(e->name, "sched_switch") ? "next_pid" : "child_pid");
	snprintf(file, sizeof(file), "kernel/%s", e->system ? e->system : "?");
	rc = tables_add_site(t, ke->site_id, fmt ? fmt : "", file, e->name);
	free(fmt);
	return rc;
}

/* Record rec (bytes long) into k's tep and, if it is understood, k->fmts
 * (room for it made by the caller): 0, or -1. */
static int parse_record(struct bp_kernel *k, const unsigned char *rec, uint32_t bytes)
{
	struct bp_file_krec r;
	const char *system, *text;

	memcpy(&r, rec, sizeof(r));
	if ((uint64_t)BP_KERNEL_REC_BYTES + r.system_len + r.text_len > bytes || !r.system_len ||
	    !r.text_len)
		return -1;
	system = (const char *)rec + BP_KERNEL_REC_BYTES;
	text = system + r.system_len;
	if (system[r.system_len - 1] || text[r.text_len - 1])
		return -1;
	if (r.kind == BP_KERNEL_REC_HEADER_PAGE || r.kind == BP_KERNEL_REC_EVENT)
		k->fmts[k->nfmts++] = (struct bp_trace_kformat){ r.kind, system, text };
	if (r.kind == BP_KERNEL_REC_HEADER_PAGE)
		return tep_parse_header_page(k->tep, (char *)(uintptr_t)text, r.text_len - 1,
					     (int)k->long_size) ? -1 : 0;
	if (r.kind == BP_KERNEL_REC_EVENT)
		return tep_parse_event(k->tep, text, r.text_len - 1, system) ? -1 : 0;
	return 0;	/* a kind this reader does not know: left out */
}

static int add_formats(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
{
	struct bp_kernel *k = t->kernel;
	struct bp_file_kformats h;
	unsigned char *recs;
	int bad = 0;

	if (k->formats)
		return BP_TRACE_OK;	/* one is all a file has */
	if (c->size < sizeof(h) || reader_pread(t, off, &h, sizeof(h)))
		return BP_TRACE_EIO;
	if (h.used > c->size - BP_KERNEL_DATA_OFFSET || h.used > MAX_FORMATS ||
	    (h.page_size < 64 || h.page_size > MAX_KPAGE) || h.long_size != 8 || !h.ncpus ||
	    h.ncpus > 65536 || h.clock != t->calib.clock_id) {
		reader_problem(t, "kernel formats chunk at %llu: bad header (or a clock other than "
			       "the trace's)", (unsigned long long)off);
		return BP_TRACE_OK;
	}
	/* a record is at least BP_KERNEL_REC_BYTES: that many formats at most */
	if (!(recs = malloc(h.used ? h.used : 1)) ||
	    !(k->fmts = calloc(h.used / BP_KERNEL_REC_BYTES + 1, sizeof(*k->fmts)))) {
		free(recs);
		return BP_TRACE_ENOMEM;
	}
	k->recs = recs;
	if (reader_pread(t, off + BP_KERNEL_DATA_OFFSET, recs, h.used))
		return BP_TRACE_EIO;
	k->page_size = h.page_size;
	k->ncpus = h.ncpus;
	k->long_size = h.long_size;
	k->root_pid = h.root_pid;
	tep_set_long_size(k->tep, (int)h.long_size);
	tep_set_page_size(k->tep, (int)h.page_size);
	for (uint32_t at = 0; at + BP_KERNEL_REC_BYTES <= h.used;) {
		uint32_t bytes;

		memcpy(&bytes, recs + at, sizeof(bytes));
		if (bytes < BP_KERNEL_REC_BYTES || bytes % 4 || bytes > h.used - at) {
			bad++;
			break;
		}
		bad += parse_record(k, recs + at, bytes) != 0;
		at += bytes;
	}
	if (bad)
		reader_problem(t, "kernel formats chunk at %llu: %d records not understood",
			       (unsigned long long)off, bad);
	k->formats = true;
	for (int i = 0; i < tep_get_events_count(k->tep); i++) {
		int rc = add_event(t, k, tep_get_event(k->tep, i));

		if (rc < 0)
			return rc;
	}
	return BP_TRACE_OK;
}

/* ---- pages --------------------------------------------------------------- */

static struct source *cpu_source(struct bp_trace *t, uint32_t cpu)
{
	/* keys of the ring chunks are indexes from 1: these never collide */
	uint64_t key = (1ull << 63) | cpu;
	struct source *s = catalogue_source(t, key, false);

	if (s)
		return s;
	if (!(s = catalogue_source(t, key, true)))
		return NULL;
	if (!(s->kcpu = calloc(1, sizeof(*s->kcpu))))
		return NULL;
	s->kcpu->cpu = cpu;
	s->phase = SOURCE_KERNEL;
	s->counters = COUNTERS_FROZEN;
	s->uncounted_said = true;	/* the end chunk counts rings; the pages count their losses */
	s->info.tid = -2 - (int32_t)cpu;
	s->info.state = 0;
	s->cpu = (int32_t)cpu;
	snprintf(s->info.comm, sizeof(s->info.comm), "kernel/cpu%u", cpu & 0xffffu);
	s->first_of_tid = s;
	return s;
}

static int add_pages(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
{
	struct bp_kernel *k = t->kernel;
	struct bp_file_kpages h;
	struct source *s;
	struct kernel_cpu *kc;
	struct kchunk *g;
	size_t i;

	if (c->size < sizeof(h) || reader_pread(t, off, &h, sizeof(h)))
		return BP_TRACE_EIO;
	if (!k->formats || h.cpu >= k->ncpus || h.page_size != k->page_size ||
	    (uint64_t)h.npages * h.page_size > c->size - BP_KERNEL_DATA_OFFSET) {
		reader_problem(t, "kernel pages chunk at %llu: %s", (unsigned long long)off,
			       k->formats ? "bad header" : "no kernel formats before it");
		return BP_TRACE_OK;
	}
	if (!(s = cpu_source(t, h.cpu)))
		return BP_TRACE_ENOMEM;
	kc = s->kcpu;
	if (!(g = bp_array_grow(kc->chunks, &kc->cap, kc->n + 1, sizeof(*g))))
		return BP_TRACE_ENOMEM;
	kc->chunks = g;
	for (i = kc->n; i > kc->chunk && g[i - 1].seq > h.seq; i--)
		g[i] = g[i - 1];
	g[i] = (struct kchunk){ off, h.seq, h.npages };
	kc->n++;
	s->info.page_size = h.page_size;
	s->info.npages += h.npages;
	s->dry = false;
	t->merge_all = true;
	return BP_TRACE_OK;
}

int kernel_add_chunk(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
{
	if (!t->kernel) {
		if (!(t->kernel = calloc(1, sizeof(*t->kernel))) || !(t->kernel->tep = tep_alloc()))
			return BP_TRACE_ENOMEM;
	}
	return c->type == BP_CHUNK_KFORMATS ? add_formats(t, off, c) : add_pages(t, off, c);
}

/* The next page of kc into its kbuffer: SOURCE_AGAIN, or SOURCE_STOP when none is left. */
static int load_page(struct bp_trace *t, struct source *s, struct kernel_cpu *kc)
{
	struct bp_kernel *k = t->kernel;
	const struct kchunk *ch;
	uint64_t commit = 0, len;
	int missed;

	while (kc->chunk < kc->n && kc->page >= kc->chunks[kc->chunk].npages) {
		kc->chunk++;
		kc->page = 0;
	}
	if (kc->chunk >= kc->n)
		return SOURCE_STOP;
	ch = &kc->chunks[kc->chunk];
	if (!kc->page_buf && !(kc->page_buf = malloc(k->page_size)))
		return BP_TRACE_ENOMEM;
	if (!kc->kb && !(kc->kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE)))
		return BP_TRACE_ENOMEM;
	if (ch->seq + kc->page != kc->next_seq && kc->page == 0 && !s->dead)
		reader_problem(t, "kernel cpu %u: pages %llu to %llu missing", kc->cpu,
			       (unsigned long long)kc->next_seq, (unsigned long long)ch->seq - 1);
	kc->next_seq = ch->seq + kc->page + 1;
	if (reader_pread(t, ch->off + BP_KERNEL_DATA_OFFSET + (uint64_t)kc->page * k->page_size,
			 kc->page_buf, k->page_size))
		return BP_TRACE_EIO;
	kc->page++;
	memcpy(&commit, kc->page_buf + 8, sizeof(commit));
	len = commit & BP_KERNEL_COMMIT_MASK;
	if (16 + len + ((commit & BP_KERNEL_MISSED_STORED) ? 8 : 0) > k->page_size) {
		reader_problem(t, "kernel cpu %u: a page of %llu bytes of events in %u", kc->cpu,
			       (unsigned long long)len, k->page_size);
		return SOURCE_AGAIN;
	}
	if (kbuffer_load_subbuffer(kc->kb, kc->page_buf) < 0)
		return SOURCE_AGAIN;
	missed = kbuffer_missed_events(kc->kb);
	kc->pending_lost += missed > 0 ? (uint64_t)missed : missed < 0 ? 1u : 0u;
	kc->in_page = true;
	kc->started = false;
	return SOURCE_AGAIN;
}

/* Field f of an event of size bytes at data, into the block w (cap bytes,
 * used *at): false if it does not fit either. */
static bool put_field(const struct kfield *f, const unsigned char *data, uint32_t size,
		      unsigned char *w, size_t cap, size_t *at)
{
	static const char states[] = "SDTtXZPI";
	uint64_t v = 0;
	const unsigned char *str = NULL;
	size_t slen = 0;
	char state[4] = "R";

	if ((uint64_t)f->offset + f->size > size)
		return false;
	switch (f->kind) {
	case KF_INT:
	case KF_INT64:
	case KF_STATE:
		memcpy(&v, data + f->offset, f->size);	/* little endian: the low bytes */
		if (f->is_signed && f->size < 8 && (v >> (f->size * 8 - 1)) & 1)
			v |= ~0ull << (f->size * 8);
		break;
	case KF_STR:
		str = data + f->offset;
		slen = strnlen((const char *)str, f->size);
		break;
	case KF_DYNSTR: {
		uint32_t loc, o, l;

		memcpy(&loc, data + f->offset, 4);
		o = (loc & 0xffff) + (f->relative ? f->offset + 4 : 0);
		l = loc >> 16;
		if ((uint64_t)o + l > size)
			return false;
		str = data + o;
		slen = strnlen((const char *)str, l);
		break;
	}
	}
	if (f->kind == KF_STATE) {
		uint64_t bits = v & 0xff;

		if (v & 0x100)
			state[1] = '+';	/* preempted: still runnable */
		for (unsigned i = 0; bits && i < 8; i++)
			if (bits & (1u << i)) {
				state[0] = states[i];
				break;
			}
		str = (const unsigned char *)state;
		slen = strlen(state);
	}
	if (str) {
		if (*at + slen + 1 > cap)
			return false;
		memcpy(w + *at, str, slen);
		w[*at + slen] = '\0';
		*at += slen + 1;
		return true;
	}
	*at = (*at + 3) & ~(size_t)3;
	if (*at + (f->kind == KF_INT64 ? 8u : 4u) > cap)
		return false;
	if (f->kind == KF_INT64) {
		memcpy(w + *at, &v, 8);
		*at += 8;
	} else {
		uint32_t v32 = (uint32_t)v;

		memcpy(w + *at, &v32, 4);
		*at += 4;
	}
	return true;
}

/* The values of field i as an integer, if it is one (for the tree and names). */
static bool field_int(const struct kfield *f, const unsigned char *data, uint32_t size, int32_t *out)
{
	int32_t v = 0;

	if ((f->kind != KF_INT && f->kind != KF_INT64) || f->offset + 4u > size)
		return false;
	memcpy(&v, data + f->offset, 4);
	*out = v;
	return true;
}

static void learn_names(struct bp_kernel *k, const struct kevent *ke, const unsigned char *data,
			uint32_t size)
{
	for (int j = 0; j < 2; j++) {
		int ci = ke->comm_of[j][0], pi = ke->comm_of[j][1];
		int32_t pid;

		if (ci < 0 || pi < 0 || ke->f[ci].kind != KF_STR ||
		    ke->f[ci].offset + ke->f[ci].size > size || !field_int(&ke->f[pi], data, size, &pid))
			continue;
		comm_put(k, pid, (const char *)data + ke->f[ci].offset,
			 strnlen((const char *)data + ke->f[ci].offset, ke->f[ci].size));
	}
}

/* The event (data, size) into s: SOURCE_GOT, or SOURCE_AGAIN to skip it. */
static int take_event(struct bp_trace *t, struct source *s, const unsigned char *data,
		      uint32_t size, unsigned long long ts)
{
	struct bp_kernel *k = t->kernel;
	struct tep_record rec;
	const struct kevent *ke;
	unsigned char *w = (unsigned char *)s->buf;
	size_t at = 0, cap = sizeof(s->buf);
	int id;
	int32_t pid = 0;

	if (size < 8) {
		reader_problem(t, "kernel cpu %u: an event of %u bytes", s->kcpu->cpu, size);
		return SOURCE_AGAIN;
	}
	memset(&rec, 0, sizeof(rec));
	rec.data = (void *)(uintptr_t)data;
	rec.size = (int)size;
	id = tep_data_type(k->tep, &rec);
	if (id < 0 || (size_t)id >= k->nev || !(ke = &k->ev[id])->site_id) {
		if (!k->bad_said) {
			k->bad_said = true;
			reader_problem(t, "kernel cpu %u: an event of ID %d, which the formats lack",
				       s->kcpu->cpu, id);
		}
		return SOURCE_AGAIN;
	}
	memset(w, 0, 16);
	for (size_t i = 0; i < ke->nf; i++)
		if (!put_field(&ke->f[i], data, size, w, cap, &at)) {
			reader_problem(t, "kernel cpu %u: an event shorter than its format says",
				       s->kcpu->cpu);
			return SOURCE_AGAIN;
		}
	while (at % 4)
		w[at++] = 0;
	memcpy(&pid, data + 4, 4);	/* common_pid, after common_type, flags, preempt_count */
	learn_names(k, ke, data, size);
	s->kraw = data;			/* in kc->page_buf until this source's next event */
	s->kraw_len = size;
	s->ktid = pid;
	snprintf(s->kcomm, sizeof(s->kcomm), "%s", comm_get(k, pid));
	memset(&s->ev, 0, sizeof(s->ev));
	s->ev.ts = ts;
	s->ev.index = s->next_index + s->kcpu->pending_lost;
	s->kcpu->pending_lost = 0;
	s->args = (struct bp_record_args){ s->buf, at / 4, (int32_t)s->kcpu->cpu, ke->site_id, 1, 0,
					   0 };
	return SOURCE_GOT;
}

int kernel_next(struct bp_trace *t, struct source *s)
{
	struct kernel_cpu *kc = s->kcpu;

	if (!t->kernel || !t->kernel->formats)
		return SOURCE_STOP;
	for (;;) {
		unsigned long long ts = 0;
		unsigned char *data;
		int rc;

		if (!kc->in_page) {
			if ((rc = load_page(t, s, kc)) != SOURCE_AGAIN)
				return rc;
			continue;
		}
		data = kc->started ? kbuffer_next_event(kc->kb, &ts) : kbuffer_read_event(kc->kb, &ts);
		kc->started = true;
		if (!data) {
			kc->in_page = false;
			continue;
		}
		if (data < kc->page_buf || data >= kc->page_buf + t->kernel->page_size ||
		    kbuffer_event_size(kc->kb) < 0 ||
		    (size_t)(data - kc->page_buf) + (size_t)kbuffer_event_size(kc->kb) >
			    t->kernel->page_size) {
			reader_problem(t, "kernel cpu %u: an event past the end of its page", kc->cpu);
			kc->in_page = false;
			continue;
		}
		rc = take_event(t, s, data, (uint32_t)kbuffer_event_size(kc->kb), ts);
		if (rc != SOURCE_AGAIN)
			return rc;
	}
}

/* The rings' threads and the traced command: the tree as far as known. */
static void seed_tree(struct bp_trace *t, struct bp_kernel *k)
{
	k->tree_seeded = true;
	pid_add(&k->tree, (int32_t)k->root_pid);
	pid_add(&k->tree, (int32_t)t->info.pid);
	for (size_t i = 0; i < t->nsrc; i++)
		if (!t->src[i]->kcpu)
			pid_add(&k->tree, t->src[i]->info.tid);
}

void kernel_taken(struct bp_trace *t, struct source *s)
{
	struct bp_kernel *k = t->kernel;
	const struct kevent *ke = &k->ev[s->args.site_id - BP_KERNEL_SITE_BASE];
	const unsigned char *w = (const unsigned char *)s->args.words;
	size_t at = 0;
	bool own;

	if (!k->tree_seeded)
		seed_tree(t, k);
	own = pid_has(&k->tree, s->ktid);
	/* the block's integers, walked as put_field() stored them */
	for (size_t i = 0; i < ke->nf; i++) {
		const struct kfield *f = &ke->f[i];
		int32_t v;

		if (f->kind == KF_INT || f->kind == KF_INT64) {
			at = (at + 3) & ~(size_t)3;
			memcpy(&v, w + at, 4);
			at += f->kind == KF_INT64 ? 8 : 4;
			if ((int)i == ke->fork_child && ke->fork_parent >= 0 && own)
				pid_add(&k->tree, v);
			own = own || (f->is_pid && pid_has(&k->tree, v));
		} else {
			at += strlen((const char *)w + at) + 1;
		}
	}
	s->kown = own;
}

void kernel_free(struct bp_trace *t)
{
	struct bp_kernel *k = t->kernel;

	for (size_t i = 0; i < t->nsrc; i++) {
		struct kernel_cpu *kc = t->src[i]->kcpu;

		if (!kc)
			continue;
		free(kc->chunks);
		free(kc->page_buf);
		if (kc->kb)
			kbuffer_free(kc->kb);
		free(kc);
		t->src[i]->kcpu = NULL;
	}
	if (!k)
		return;
	for (size_t i = 0; i < k->nev; i++)
		free(k->ev[i].f);
	free(k->ev);
	free(k->recs);
	free(k->fmts);
	free(k->tree.v);
	free(k->comm);
	if (k->tep)
		tep_free(k->tep);
	free(k);
	t->kernel = NULL;
}

size_t bp_trace_kernel_nformats(const struct bp_trace *t)
{
	return t->kernel && t->kernel->formats ? t->kernel->nfmts : 0;
}

const struct bp_trace_kformat *bp_trace_kernel_format_at(const struct bp_trace *t, size_t i)
{
	return i < bp_trace_kernel_nformats(t) ? &t->kernel->fmts[i] : NULL;
}

const void *bp_trace_kernel_raw(const struct bp_trace *t, size_t *len)
{
	if (!t->cur || !t->cur->kcpu || !t->cur->kraw) {
		*len = 0;
		return NULL;
	}
	*len = t->cur->kraw_len;
	return t->cur->kraw;
}

#else /* no libtraceevent: the kernel stream is skipped, and said to be */

size_t bp_trace_kernel_nformats(const struct bp_trace *t)
{
	(void)t;
	return 0;
}

const struct bp_trace_kformat *bp_trace_kernel_format_at(const struct bp_trace *t, size_t i)
{
	(void)t;
	(void)i;
	return NULL;
}

const void *bp_trace_kernel_raw(const struct bp_trace *t, size_t *len)
{
	(void)t;
	*len = 0;
	return NULL;
}

int kernel_add_chunk(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
{
	(void)c;
	if (!t->kernel) {
		t->kernel = (struct bp_kernel *)t;	/* said once */
		reader_problem(t, "kernel chunk at %llu: this bprint was built without "
			       "libtraceevent and cannot read the kernel's events",
			       (unsigned long long)off);
	}
	return BP_TRACE_OK;
}

int kernel_next(struct bp_trace *t, struct source *s)
{
	(void)t;
	(void)s;
	return SOURCE_STOP;
}

void kernel_taken(struct bp_trace *t, struct source *s)
{
	(void)t;
	s->kown = false;
}

void kernel_free(struct bp_trace *t)
{
	t->kernel = NULL;
}

#endif
