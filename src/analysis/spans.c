/*
 * Spans of two records (analysis/spans.h).
 */
#include "analysis/spans.h"

#include <stdlib.h>
#include <string.h>

#define BY_INLINE 32	/* a --by key this long is kept in the open span */

struct open_span {
	struct bp_span_end from;
	size_t bylen;
	unsigned char *by;		/* longer than BY_INLINE: its own allocation */
	unsigned char by_inline[BY_INLINE];
};

/* The spans open under one key, oldest first: the first in place (a key
 * has one open at a time, but for nesting and pipelining), the others in
 * v; one allocation less a span.  Those at [head, n) are open: closing
 * the oldest moves head, and the list moves down once head is half of n,
 * so that a queue that is never empty stays as long as its open spans. */
struct stack {
	struct open_span first;
	struct open_span *v;
	size_t head, n, cap;		/* n: up to the newest, first included */
	bool idle;			/* in the idle queue (emptied once since) */
};

static struct open_span *span_at(struct stack *st, size_t i)
{
	return i ? &st->v[i - 1] : &st->first;
}

static const unsigned char *by_of(const struct open_span *o)
{
	return o->bylen > BY_INLINE ? o->by : o->by_inline;
}

/* n bytes from p to q: a key or a --by value of up to 32 bytes, as most
 * are, 8 bytes a load from its start, then 4, 2 and 1, not a call of
 * memcpy().  The key was just built in words from its start and a byte
 * (an integer's 9): loads that overlap (the last 8 bytes) would each span
 * two of those stores and wait for both (store forwarding fails). */
static inline void copy_short(unsigned char *q, const unsigned char *p, size_t n)
{
	size_t i = 0;

	if (n > 32) {
		memcpy(q, p, n);
		return;
	}
	for (; i + 8 <= n; i += 8)
		__builtin_memcpy(q + i, p + i, 8);
	if (n - i >= 4)
		__builtin_memcpy(q + i, p + i, 4), i += 4;
	if (n - i >= 2)
		__builtin_memcpy(q + i, p + i, 2), i += 2;
	if (i < n)
		q[i] = p[i];
}

static void stack_free(void *data)
{
	struct stack *st = data;

	for (size_t i = st->head; i < st->n; i++)
		free(span_at(st, i)->by);
	free(st->v);
}

void bp_spans_init(struct bp_spans *s)
{
	*s = (struct bp_spans){ .idle_cap = BP_SPANS_IDLE_MAX };
	bp_groups_init(&s->open, sizeof(struct stack));
}

void bp_spans_fini(struct bp_spans *s)
{
	bp_groups_free(&s->open, stack_free);
	free(s->idle);
	free(s->last_key);
	free(s->last_by);
	*s = (struct bp_spans){ 0 };
}

struct bp_spans *bp_spans_new(enum bp_pair pair)
{
	struct bp_spans *s = malloc(sizeof(*s));

	if (s) {
		bp_spans_init(s);
		s->pair = pair;
	}
	return s;
}

void bp_spans_free(struct bp_spans *s)
{
	if (s) {
		bp_spans_fini(s);
		free(s);
	}
}

uint64_t bp_spans_unmatched_closes(const struct bp_spans *s)
{
	return s->unmatched_closes;
}

/* Forget g (its spans all closed): out of the table. */
static void forget(struct bp_spans *s, struct bp_group *g)
{
	if (s->found == g)
		s->found = NULL;
	bp_groups_remove(&s->open, g, stack_free);
}

/* A window of forgotten keys ended: the idle queue shorter if few came
 * back to it, longer if they did, the whole again every 16th window of a
 * short one. */
static void idle_adapt(struct bp_spans *s)
{
	bool rare = s->idle_hits * 16 < s->idle_forgets;

	if (s->idle_cap < BP_SPANS_IDLE_MAX && ++s->idle_windows % 16 == 0)
		s->idle_cap = BP_SPANS_IDLE_MAX;
	else if (rare)
		s->idle_cap = s->idle_cap / 8 > BP_SPANS_IDLE_MIN ? s->idle_cap / 8
								  : BP_SPANS_IDLE_MIN;
	else
		s->idle_cap = s->idle_cap * 8 < BP_SPANS_IDLE_MAX ? s->idle_cap * 8
								  : BP_SPANS_IDLE_MAX;
	s->idle_hits = s->idle_forgets = 0;
}

/*
 * g's spans all closed: it waits in the idle queue, still in the table, so
 * that its key opening again (a request id, a thread, a connection) finds
 * it without a new group and a removal a span.  The queue holds at most
 * idle_cap groups (BP_SPANS_IDLE_MAX, or less while keys rarely come back):
 * the oldest make room, forgotten if still empty (one that opened again
 * leaves the queue then).  Without the queue's
 * memory, g is forgotten at once.
 */
static void went_idle(struct bp_spans *s, struct bp_group *g)
{
	struct stack *st = g->data;

	if (st->idle)
		return;	/* queued already, when it emptied before */
	if (!s->idle && !(s->idle = malloc(BP_SPANS_IDLE_MAX * sizeof(*s->idle)))) {
		forget(s, g);
		return;
	}
	while (s->nidle >= s->idle_cap) {
		struct bp_group *old = s->idle[s->idle_head];
		struct stack *ost = old->data;

		s->idle_head = (s->idle_head + 1) % BP_SPANS_IDLE_MAX;
		s->nidle--;
		ost->idle = false;
		if (ost->n == ost->head) {
			forget(s, old);
			if (++s->idle_forgets == BP_SPANS_IDLE_WINDOW)
				idle_adapt(s);
		}
	}
	s->idle[(s->idle_head + s->nidle++) % BP_SPANS_IDLE_MAX] = g;
	st->idle = true;
}

bool bp_spans_open(struct bp_spans *s, const unsigned char *key, size_t keylen,
		   const struct bp_span_end *from, const unsigned char *by, size_t bylen)
{
	struct bp_group *g = bp_groups_get(&s->open, key, keylen);
	struct stack *st;
	struct open_span *o;

	if (!g)
		return false;
	st = g->data;
	s->idle_hits += st->idle && st->n == st->head;	/* it came back */
	if (st->n && st->n - 1 == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 2;
		struct open_span *grown = realloc(st->v, cap * sizeof(*grown));

		if (!grown)
			return false;
		st->v = grown, st->cap = cap;
	}
	o = span_at(st, st->n);
	*o = (struct open_span){ .from = *from, .bylen = bylen };
	if (bylen > BY_INLINE && !(o->by = malloc(bylen)))
		return false;
	copy_short(bylen > BY_INLINE ? o->by : o->by_inline, by, bylen);
	st->n++;
	s->nopen++;
	s->found = g;	/* the close that follows (a request's end) takes it unlooked-up */
	return true;
}

/* The open spans moved down to [0, n - head). */
static void compact(struct stack *st)
{
	for (size_t i = st->head; i < st->n; i++)
		*span_at(st, i - st->head) = *span_at(st, i);
	st->n -= st->head;
	st->head = 0;
}

/* A span end copied a member at a time.  The caller has just built it a
 * member at a time; a copy of the whole (a 16-byte load across those
 * stores) waited for every one of them: store forwarding fails, and that
 * was half of bp_spans_close()'s time.  The barrier keeps the compiler
 * from merging the loads again. */
static inline void end_copy(struct bp_span_end *d, const struct bp_span_end *s)
{
	uint64_t ns = s->ns;
	int32_t tid = s->tid;
	uint32_t site = s->site, flags = s->flags;

	__asm__("" : "+r"(ns), "+r"(tid), "+r"(site), "+r"(flags));
	d->ns = ns, d->tid = tid, d->site = site, d->flags = flags;
}

/* Copy n bytes into a buffer of the span set's, grown as needed. */
static inline unsigned char *keep(unsigned char **buf, size_t *cap, const unsigned char *p,
				  size_t n)
{
	if (n > *cap) {
		unsigned char *grown = realloc(*buf, n);

		if (!grown)
			return NULL;
		*buf = grown, *cap = n;
	}
	copy_short(*buf, p, n);
	return *buf ? *buf : (unsigned char *)"";
}

int bp_spans_close(struct bp_spans *s, const unsigned char *key, size_t keylen,
		   const struct bp_span_end *to, struct bp_span *out)
{
	struct bp_group *g = s->found;
	struct stack *st;
	struct open_span *o;

	if (!g || g->keylen != keylen || !bp_key_equal(g->key, key, keylen))
		g = bp_groups_find(&s->open, key, keylen);
	st = g ? g->data : NULL;

	if (!st || st->n == st->head) {
		s->unmatched_closes++;
		return 0;
	}
	/* the span taken out, read in place before the list moves */
	o = span_at(st, s->pair == BP_PAIR_LATEST ? st->n - 1 : st->head);
	out->from = o->from;
	end_copy(&out->to, to);
	out->keylen = keylen;
	out->bylen = o->bylen;
	out->key = keep(&s->last_key, &s->last_cap_key, key, keylen);
	out->by = keep(&s->last_by, &s->last_cap_by, by_of(o), o->bylen);
	if (o->bylen > BY_INLINE)
		free(o->by);
	if (s->pair == BP_PAIR_LATEST) {
		st->n--;
	} else {
		st->head++;
		if (st->head == st->n)
			st->head = st->n = 0;
		else if (st->head >= 8 && 2 * st->head >= st->n)
			compact(st);
	}
	s->nopen--;
	if (st->n == st->head)
		went_idle(s, g);
	return out->key && out->by ? 1 : -1;
}

uint64_t bp_spans_count_open(const struct bp_spans *s, uint32_t flags)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->open.n; i++) {
		struct stack *st = s->open.list[i]->data;

		for (size_t k = st->head; k < st->n; k++)
			n += (span_at(st, k)->from.flags & flags) == flags;
	}
	return n;
}

bool bp_spans_is_open(struct bp_spans *s, const unsigned char *key, size_t keylen)
{
	struct bp_group *g = bp_groups_find(&s->open, key, keylen);

	s->found = g;
	return g && ((struct stack *)g->data)->n > ((struct stack *)g->data)->head;
}

/* ---- the N longest -------------------------------------------------------- */

static uint64_t dur(const struct bp_top_entry *e)
{
	return e->to.ns - e->from.ns;
}

/* a ranks below b: shorter, or as long and later */
static bool below(const struct bp_top_entry *a, const struct bp_top_entry *b)
{
	return dur(a) != dur(b) ? dur(a) < dur(b) : a->from.ns > b->from.ns;
}

void bp_top_init(struct bp_top *t, size_t max)
{
	*t = (struct bp_top){ .max = max };
}

void bp_top_free(struct bp_top *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].key);
	free(t->v);
	*t = (struct bp_top){ 0 };
}

static void swap(struct bp_top_entry *a, struct bp_top_entry *b)
{
	struct bp_top_entry x = *a;

	*a = *b, *b = x;
}

static void sift_down(struct bp_top_entry *v, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && below(&v[l], &v[m]))
			m = l;
		if (r < n && below(&v[r], &v[m]))
			m = r;
		if (m == i)
			return;
		swap(&v[i], &v[m]);
		i = m;
	}
}

bool bp_top_offer(struct bp_top *t, const struct bp_span *sp)
{
	struct bp_top_entry e;

	if (!t->max)
		return true;	/* no --top: nothing kept */
	e = (struct bp_top_entry){ .from = sp->from, .to = sp->to, .keylen = sp->keylen,
				   .bylen = sp->bylen };
	if (t->n == t->max && !below(&t->v[0], &e))
		return true;
	if (!(e.key = malloc(sp->keylen + sp->bylen + 1)))
		return false;
	if (sp->keylen)
		memcpy(e.key, sp->key, sp->keylen);
	if (sp->bylen)
		memcpy(e.key + sp->keylen, sp->by, sp->bylen);
	if (t->n == t->max) {
		free(t->v[0].key);
		t->v[0] = e;
		sift_down(t->v, t->n, 0);
		return true;
	}
	if (!t->v && !(t->v = calloc(t->max, sizeof(*t->v)))) {
		free(e.key);
		return false;
	}
	t->v[t->n] = e;
	for (size_t i = t->n++; i && below(&t->v[i], &t->v[(i - 1) / 2]); i = (i - 1) / 2)
		swap(&t->v[i], &t->v[(i - 1) / 2]);
	return true;
}

static int longest_first(const void *a, const void *b)
{
	const struct bp_top_entry *x = a, *y = b;

	return below(y, x) ? -1 : below(x, y) ? 1 : 0;
}

void bp_top_sort(struct bp_top *t)
{
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), longest_first);
}
