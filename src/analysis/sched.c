/*
 * Threads' scheduling states from the kernel's sched events (sched.h).
 * Which event a kernel site is and where its pid, state and CPU fields
 * are is the analysis binding's (bprint/analysis.h: a role per event, its
 * fields asked for that role), planned once per site; each thread is an entry of an open-addressing table
 * holding its state changes, oldest first, trimmed by half when full.
 * Each CPU keeps the threads runnable and waiting for it: a switch on that
 * CPU adds a change to each of them (still runnable, another thread
 * running instead), so that who ran instead is known for every stretch.
 *
 * Events a CPU's kernel buffer lost (an event's lost_before) may have
 * changed any thread's state but that of a thread running on another CPU
 * (its own switches are in that CPU's events): from the CPU's last event
 * before the loss, each other thread is unknown until its next change,
 * rather than left in a state the lost events may have ended.
 */
#include "analysis/sched.h"

#include <bprint/analysis.h>
#include <bprint/query.h>

#include <stdlib.h>
#include <string.h>

/* The binding's roles: one a kind of event, in this order. */
enum kind { K_SWITCH, K_MIGRATE, K_WAKE, K_WAKE_NEW, NKINDS };

/* The fields asked for, in this order (bp_bind_field()'s positions). */
enum field {
	F_PREV_PID, F_PREV_STATE, F_NEXT_PID, F_PREV_COMM, F_NEXT_COMM,	/* K_SWITCH */
	F_PID, F_COMM, F_DEST_CPU, F_TARGET_CPU, NFIELDS
};
enum state { S_UNKNOWN, S_RUNNING, S_RUNNABLE, S_BLOCKED };

#define MAX_CPUS 4096u

/* Where a site's fields are in its layout (-1: it lacks an optional one). */
struct binding {
	int16_t prev_pid, prev_state, next_pid, prev_comm, next_comm;	/* K_SWITCH */
	int16_t pid, comm, target_cpu;			/* K_WAKE*; K_MIGRATE: dest_cpu */
};

struct change {
	uint64_t ns;
	uint8_t state;
	int32_t other;			/* runnable: who ran on its CPU then */
	int32_t waker;			/* runnable by a wake-up: who woke it */
};

struct thread {
	int32_t tid;
	char comm[17];
	struct change *c;
	uint32_t n, cap;
	uint64_t since;			/* changes before this were dropped (0: none) */
	int32_t waiting_cpu;		/* runnable: the CPU it waits for, -1 unknown */
};

struct bp_sched {
	struct bp_bind *bind;		/* the kinds of event, their fields */
	struct bp_sites *sched_file;	/* kernel/sched's events */
	struct bp_sites *kind[NKINDS];	/* each kind's */
	struct thread **th;		/* open addressing by tid */
	size_t cap, n;
	int32_t running[MAX_CPUS];	/* who runs on each CPU, as the switches said */
	uint64_t last_ns[MAX_CPUS];	/* each CPU's last kernel event */
	struct waiting { int32_t *tid; uint32_t n, cap; } waiting[MAX_CPUS];
	bool seen;
};

/* Each kind of event a role with its sites; its fields asked for it. */
static bool bind_kinds(struct bp_sched *s)
{
	static const char *const funcs[NKINDS][2] = {
		[K_SWITCH] = { "func:sched_switch" },
		[K_MIGRATE] = { "func:sched_migrate_task" },
		[K_WAKE] = { "func:sched_waking", "func:sched_wakeup" },
		[K_WAKE_NEW] = { "func:sched_wakeup_new" },
	};
	static const struct {
		const char *name;
		unsigned flags;
	} fields[NFIELDS] = {
		[F_PREV_PID] = { "prev_pid", BP_BIND_FOR_ROLE(K_SWITCH) },
		[F_PREV_STATE] = { "prev_state", BP_BIND_FOR_ROLE(K_SWITCH) },
		[F_NEXT_PID] = { "next_pid", BP_BIND_FOR_ROLE(K_SWITCH) },
		[F_PREV_COMM] = { "prev_comm", BP_BIND_FOR_ROLE(K_SWITCH) | BP_BIND_OPTIONAL },
		[F_NEXT_COMM] = { "next_comm", BP_BIND_FOR_ROLE(K_SWITCH) | BP_BIND_OPTIONAL },
		[F_PID] = { "pid", BP_BIND_FOR_ROLE(K_MIGRATE) | BP_BIND_FOR_ROLE(K_WAKE) |
				   BP_BIND_FOR_ROLE(K_WAKE_NEW) },
		[F_COMM] = { "comm", BP_BIND_FOR_ROLE(K_MIGRATE) | BP_BIND_FOR_ROLE(K_WAKE) |
				     BP_BIND_FOR_ROLE(K_WAKE_NEW) | BP_BIND_OPTIONAL },
		[F_DEST_CPU] = { "dest_cpu", BP_BIND_FOR_ROLE(K_MIGRATE) },
		[F_TARGET_CPU] = { "target_cpu", BP_BIND_FOR_ROLE(K_WAKE) |
						 BP_BIND_FOR_ROLE(K_WAKE_NEW) | BP_BIND_OPTIONAL },
	};

	if (!(s->bind = bp_bind_new(BP_BIND_FIELDS_ONLY)) || !(s->sched_file = bp_sites_new()) ||
	    bp_sites_add(s->sched_file, "file:kernel/sched") || bp_bind_sites(s->bind, s->sched_file))
		return false;
	for (int k = 0; k < NKINDS; k++) {
		if (!(s->kind[k] = bp_sites_new()))
			return false;
		for (int i = 0; i < 2 && funcs[k][i]; i++)
			if (bp_sites_add(s->kind[k], funcs[k][i]))
				return false;
		if (bp_bind_role(s->bind, s->kind[k], NULL) != k)
			return false;
	}
	for (int f = 0; f < NFIELDS; f++)
		if (bp_bind_field(s->bind, fields[f].name, fields[f].flags) != f)
			return false;
	return true;
}

struct bp_sched *bp_sched_new(void)
{
	struct bp_sched *s = calloc(1, sizeof(struct bp_sched));

	if (s && !bind_kinds(s)) {
		bp_sched_free(s);
		return NULL;
	}
	return s;
}

void bp_sched_free(struct bp_sched *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->cap; i++)
		if (s->th[i]) {
			free(s->th[i]->c);
			free(s->th[i]);
		}
	free(s->th);
	bp_bind_free(s->bind);
	bp_sites_free(s->sched_file);
	for (int k = 0; k < NKINDS; k++)
		bp_sites_free(s->kind[k]);
	for (size_t c = 0; c < MAX_CPUS; c++)
		free(s->waiting[c].tid);
	free(s);
}

bool bp_sched_seen(const struct bp_sched *s)
{
	return s->seen;
}

/* ---- threads ------------------------------------------------------------ */

static size_t slot(const struct thread *const *th, size_t cap, int32_t tid)
{
	size_t i = ((uint32_t)tid * 2654435761u) & (cap - 1);

	while (th[i] && th[i]->tid != tid)
		i = (i + 1) & (cap - 1);
	return i;
}

static const struct thread *find(const struct bp_sched *s, int32_t tid)
{
	const struct thread *t;

	if (!s->cap)
		return NULL;
	t = s->th[slot((const struct thread *const *)s->th, s->cap, tid)];
	return t;
}

static struct thread *get(struct bp_sched *s, int32_t tid)
{
	struct thread *t;
	size_t i;

	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct thread **th = calloc(cap, sizeof(*th));

		if (!th)
			return NULL;
		for (size_t j = 0; j < s->cap; j++)
			if (s->th[j])
				th[slot((const struct thread *const *)th, cap, s->th[j]->tid)] = s->th[j];
		free(s->th);
		s->th = th;
		s->cap = cap;
	}
	i = slot((const struct thread *const *)s->th, s->cap, tid);
	if (s->th[i])
		return s->th[i];
	if (!(t = calloc(1, sizeof(*t))))
		return NULL;
	t->tid = tid;
	t->waiting_cpu = -1;
	strcpy(t->comm, "<...>");
	s->th[i] = t;
	s->n++;
	return t;
}

static bool change(struct bp_sched *s, int32_t tid, uint64_t ns, enum state st, int32_t other,
		   int32_t waker)
{
	struct thread *t;

	if (tid <= 0)
		return true;	/* the idle task is not a thread of anyone's */
	if (!(t = get(s, tid)))
		return false;
	if (t->n && t->c[t->n - 1].state == st && (st != S_RUNNABLE || t->c[t->n - 1].other == other))
		return true;	/* a wake-up after the waking: it was runnable already */
	if (t->n == BP_SCHED_KEEP) {
		uint32_t half = BP_SCHED_KEEP / 2;

		t->since = t->c[half].ns;
		memmove(t->c, t->c + half, (t->n - half) * sizeof(*t->c));
		t->n -= half;
	}
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 16;
		struct change *c = realloc(t->c, cap * sizeof(*c));

		if (!c)
			return false;
		t->c = c;
		t->cap = cap;
	}
	t->c[t->n++] = (struct change){ ns, (uint8_t)st, other, waker };
	return true;
}

static void name(struct bp_sched *s, int32_t tid, const struct bp_field_value *v)
{
	struct thread *t = tid > 0 ? get(s, tid) : NULL;
	size_t len = v->len < 16 ? v->len : 16;

	if (t && v->s) {
		memcpy(t->comm, v->s, len);
		t->comm[len] = '\0';
	}
}

const char *bp_sched_comm(const struct bp_sched *s, int32_t tid)
{
	const struct thread *t = find(s, tid);

	return tid == 0 || tid == BP_SCHED_IDLE ? "<idle>" : t ? t->comm : "<...>";
}

/* ---- events ------------------------------------------------------------- */

/* Thread tid waits for cpu (-1: for none any more). */
static void wait_for(struct bp_sched *s, struct thread *t, int32_t cpu)
{
	if (t->waiting_cpu >= 0 && (uint32_t)t->waiting_cpu < MAX_CPUS) {
		struct waiting *w = &s->waiting[t->waiting_cpu];

		for (uint32_t i = 0; i < w->n; i++)
			if (w->tid[i] == t->tid) {
				w->tid[i] = w->tid[--w->n];
				break;
			}
	}
	t->waiting_cpu = -1;
	if (cpu >= 0 && (uint32_t)cpu < MAX_CPUS) {
		struct waiting *w = &s->waiting[cpu];

		if (w->n == w->cap) {
			uint32_t cap = w->cap ? w->cap * 2 : 8;
			int32_t *g = realloc(w->tid, cap * sizeof(*g));

			if (!g)
				return;	/* its stretches keep the first runner only */
			w->tid = g;
			w->cap = cap;
		}
		w->tid[w->n++] = t->tid;
		t->waiting_cpu = cpu;
	}
}

/* cpu now runs next: each thread waiting for it has another runner. */
static bool runner_changed(struct bp_sched *s, int32_t cpu, int32_t next, uint64_t ns)
{
	const struct waiting *w;

	if (cpu < 0 || (uint32_t)cpu >= MAX_CPUS)
		return true;
	w = &s->waiting[cpu];
	for (uint32_t i = 0; i < w->n; i++)
		if (w->tid[i] != next && !change(s, w->tid[i], ns, S_RUNNABLE, next, 0))
			return false;
	return true;
}

static bool on_switch(struct bp_sched *s, const struct binding *b, const struct bp_trace_event *e,
		      const struct bp_field_value *v)
{
	int32_t prev = (int32_t)v[b->prev_pid].v.i, next = (int32_t)v[b->next_pid].v.i;
	bool preempted = v[b->prev_state].len && v[b->prev_state].s[0] == 'R';
	struct thread *p;

	if (b->prev_comm >= 0)
		name(s, prev, &v[b->prev_comm]);
	if (b->next_comm >= 0)
		name(s, next, &v[b->next_comm]);
	if (e->cpu >= 0 && (uint32_t)e->cpu < MAX_CPUS)
		s->running[e->cpu] = next;
	if (!change(s, prev, e->ns, preempted ? S_RUNNABLE : S_BLOCKED, next, 0))
		return false;
	if (prev > 0 && (p = get(s, prev)))
		wait_for(s, p, preempted ? e->cpu : -1);
	if (next > 0 && (p = get(s, next)))
		wait_for(s, p, -1);
	return change(s, next, e->ns, S_RUNNING, 0, 0) &&
	       runner_changed(s, e->cpu, next, e->ns);
}

static bool on_wake(struct bp_sched *s, const struct binding *b, const struct bp_trace_event *e,
		    const struct bp_field_value *v)
{
	int32_t pid = (int32_t)v[b->pid].v.i;
	int32_t cpu = b->target_cpu >= 0 ? (int32_t)v[b->target_cpu].v.i : -1;
	int32_t other = cpu >= 0 && (uint32_t)cpu < MAX_CPUS ? s->running[cpu] : 0;
	const struct thread *t = find(s, pid);
	struct thread *w;

	if (b->comm >= 0)
		name(s, pid, &v[b->comm]);
	if (t && t->n && t->c[t->n - 1].state == S_RUNNING)
		return true;	/* woken while still on its CPU: it never slept */
	if (!change(s, pid, e->ns, S_RUNNABLE, other, e->tid > 0 ? e->tid : BP_SCHED_IDLE))
		return false;
	if ((w = get(s, pid)))
		wait_for(s, w, cpu);
	return true;
}

/* A thread waiting for a CPU moved to another: it waits for that one's runner. */
static bool on_migrate(struct bp_sched *s, const struct binding *b, const struct bp_trace_event *e,
		       const struct bp_field_value *v)
{
	int32_t pid = (int32_t)v[b->pid].v.i, cpu = (int32_t)v[b->target_cpu].v.i;
	struct thread *t = pid > 0 ? get(s, pid) : NULL;

	if (!t || !t->n || t->c[t->n - 1].state != S_RUNNABLE || cpu < 0 || (uint32_t)cpu >= MAX_CPUS)
		return true;
	wait_for(s, t, cpu);
	return change(s, pid, e->ns, S_RUNNABLE, s->running[cpu], 0);
}

/* Events of cpu were lost between its last one seen and e: each thread
 * but those running on another CPU (running, and not cpu's runner) is
 * unknown from then. */
static bool lost_on(struct bp_sched *s, int32_t cpu, uint64_t ns)
{
	uint64_t from = s->last_ns[cpu];

	for (size_t i = 0; i < s->cap; i++) {
		struct thread *t = s->th[i];
		uint64_t at;

		if (!t || !t->n || (t->c[t->n - 1].state == S_RUNNING && s->running[cpu] != t->tid))
			continue;
		at = t->c[t->n - 1].ns > from ? t->c[t->n - 1].ns : from;
		if (!change(s, t->tid, at < ns ? at : ns, S_UNKNOWN, 0, 0))
			return false;
		wait_for(s, t, -1);
	}
	s->running[cpu] = 0;
	return true;
}

bool bp_sched_event(struct bp_sched *s, struct bp_trace *t, const struct bp_trace_event *e)
{
	struct bp_field_value v[BP_PLAN_MAX_ARGS];
	const struct bp_bind_site *site;
	struct binding b;
	const int16_t *x;

	if (e->site_id < BP_TRACE_KERNEL_SITE_BASE)
		return true;
	if (e->cpu >= 0 && (uint32_t)e->cpu < MAX_CPUS) {
		if (e->lost_before && !lost_on(s, e->cpu, e->ns))
			return false;
		s->last_ns[e->cpu] = e->ns;
	}
	if (!(site = bp_bind_site(s->bind, t, e->site_id)) ||
	    bp_bind_decode(site, e, v, BP_PLAN_MAX_ARGS) < 0)
		return true;
	x = site->index;
	b = (struct binding){ x[F_PREV_PID], x[F_PREV_STATE], x[F_NEXT_PID], x[F_PREV_COMM],
			      x[F_NEXT_COMM], x[F_PID], x[F_COMM],
			      site->roles & 1u << K_MIGRATE ? x[F_DEST_CPU] : x[F_TARGET_CPU] };
	s->seen = true;
	if (site->roles & 1u << K_SWITCH)
		return on_switch(s, &b, e, v);
	if (site->roles & 1u << K_MIGRATE)
		return on_migrate(s, &b, e, v);
	return on_wake(s, &b, e, v);
}

/* ---- splits ------------------------------------------------------------- */

static void add_who(int32_t *who, uint64_t *ns, int32_t pid, uint64_t d)
{
	unsigned i;

	if (pid == 0 || pid < BP_SCHED_IDLE)
		return;
	for (i = 0; i < BP_SCHED_WHO && who[i] && who[i] != pid; i++)
		;
	if (i == BP_SCHED_WHO) {
		if (!ns || ns[BP_SCHED_WHO - 1] >= d)
			return;
		i = BP_SCHED_WHO - 1;	/* the least one makes room */
		ns[i] = 0;
	}
	who[i] = pid;
	if (!ns)
		return;
	ns[i] += d;
	for (; i > 0 && ns[i] > ns[i - 1]; i--) {
		int32_t tw = who[i];
		uint64_t tn = ns[i];

		who[i] = who[i - 1], ns[i] = ns[i - 1];
		who[i - 1] = tw, ns[i - 1] = tn;
	}
}

/* The index of the last change at or before ns, or -1. */
static long last_at(const struct thread *t, uint64_t ns)
{
	long lo = 0, hi = (long)t->n - 1, found = -1;

	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;

		if (t->c[mid].ns <= ns) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

static void split(const struct bp_sched *s, int32_t tid, uint64_t from, uint64_t to,
		  struct bp_sched_split *out)
{
	const struct thread *t = find(s, tid);
	long i;
	uint64_t at = from;
	uint8_t st = S_UNKNOWN;
	int32_t other = 0;

	memset(out, 0, sizeof(*out));
	if (to < from)
		return;
	if (!t || !t->n) {
		out->unknown = to - from;
		return;
	}
	i = last_at(t, from);
	if (i >= 0 && !(t->since && t->c[i].ns < t->since)) {
		st = t->c[i].state;
		other = t->c[i].other;
	}
	for (i++;; i++) {
		uint64_t end = i < (long)t->n && t->c[i].ns < to ? t->c[i].ns : to;
		uint64_t d = end - at;

		if (st == S_RUNNING)
			out->running += d;
		else if (st == S_RUNNABLE)
			out->runnable += d, add_who(out->instead, out->instead_ns, other, d);
		else if (st == S_BLOCKED)
			out->blocked += d;
		else
			out->unknown += d;
		if (end == to)
			break;
		at = end;
		st = t->c[i].state;
		other = t->c[i].other;
		if (st == S_RUNNABLE)
			add_who(out->waker, NULL, t->c[i].waker, 0);
	}
}

void bp_sched_split(const struct bp_sched *s, int32_t tid, uint64_t from, uint64_t to,
		    struct bp_sched_split *out)
{
	struct bp_sched_split got;
	uint32_t size = out->size < sizeof(got) ? out->size : (uint32_t)sizeof(got);

	split(s, tid, from, to, &got);
	got.size = size;
	if (size >= sizeof(got.size))
		memcpy(out, &got, size);
}
