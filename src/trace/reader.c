/*
 * In-process readers: every thread's rings, merged by timestamp.
 *
 * A reader holds one source per ring (thread x nesting level).  Each source
 * keeps the next record of its ring in hand; bprint_read_next() returns the
 * oldest of them (the merge of trace/merge.h, a heap) and refills that
 * source.  The reader looks again at every ring, and for rings that
 * appeared since (new threads, a signal handler's first nested call),
 * before it returns a record newer than its last look, and before it
 * answers "nothing more for now": a ring that was empty or did not exist
 * at that look holds only records newer than it, so records come out in
 * time order, and a snapshot of rings that are not written to costs one
 * look, not one per record.
 *
 * The consumer (trace_pipe semantics) keeps its cursors and the records in
 * hand with the rings, so what one session took out and did not return,
 * the next session returns.  A snapshot reader (trace semantics) has
 * private cursors and consumes nothing.
 *
 * All memory here comes from mmap, not malloc, so that the crash dump can
 * use the same code from a signal handler.
 *
 * "%pS" and "%ps" arguments print as symbols found with dladdr() in the
 * objects loaded now (the dynamic symbol tables only: a static function,
 * or one of a program linked without -rdynamic, prints as %p does).  This
 * is right only while the object that held the address is still loaded:
 * after a dlclose() the address may belong to nothing, or to another
 * object loaded there since.  The crash dump does not look symbols up
 * (dladdr() takes the loader's lock).  Offline readers use the trace
 * file's library map instead (src/reader/symbols.h).
 */
#include "trace/reader.h"
#include "trace/tracer.h"

#include "trace/clock.h"
#include "trace/merge.h"
#include "trace/site.h"
#include "trace/sized.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

struct source {
	struct bp_thread *thread;
	struct bp_thread_ring *ring;
	void *mem;			/* the ring memory this source was made for */
	uint64_t generation;
	struct bp_read_state *st;	/* the ring's consumer state, or own */
	struct bp_read_state own;
	bool dead;			/* corrupt: skipped from now on */
	bool merged;			/* its record in hand is in the merge */
};

#define NO_SOURCE SIZE_MAX

struct bprint_reader {
	bool consuming;
	bool locked;
	bool symbols;			/* %pS and %ps with dladdr() */
	struct source *src;
	size_t nsrc, cap;
	size_t *known;			/* the sources by ring: index + 1, 0 = free */
	size_t known_cap;		/* a power of two, at least 2 * cap */
	struct bp_merge merge;		/* room for cap entries */
	size_t taken;			/* the source of the record last returned */
	uint64_t looked_at;		/* the clock when every ring was last looked at */
	uint64_t work;			/* bp_reader_work() */
	struct bp_clock_calib calib;
	char msg[BP_MSG_MAX];
};

static void *map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Where the table of known rings has ring's entry, or the free slot for it. */
static size_t known_slot(const struct bprint_reader *r, const struct bp_thread_ring *ring,
			 const void *mem)
{
	size_t mask = r->known_cap - 1;
	size_t i = (size_t)((((uintptr_t)ring ^ ((uintptr_t)mem >> 12)) * 0x9e3779b97f4a7c15ull) >>
			    20) & mask;

	while (r->known[i]) {
		const struct source *s = &r->src[r->known[i] - 1];

		if (s->ring == ring && s->mem == mem)
			break;
		i = (i + 1) & mask;
	}
	return i;
}

static bool source_known(const struct bprint_reader *r, const struct bp_thread_ring *ring,
			 const void *mem)
{
	return r->known_cap && r->known[known_slot(r, ring, mem)];
}

/* Room for cap sources: the sources, the merge and the table, mapped anew. */
static bool grow_sources(struct bprint_reader *r, size_t cap)
{
	struct source *grown = map(cap * sizeof(*grown));
	struct bp_merge_entry *heap = map(cap * sizeof(*heap));
	size_t known_cap = 4 * cap, *known = map(known_cap * sizeof(*known));

	if (!grown || !heap || !known) {
		if (grown)
			munmap(grown, cap * sizeof(*grown));
		if (heap)
			munmap(heap, cap * sizeof(*heap));
		if (known)
			munmap(known, known_cap * sizeof(*known));
		return false;
	}
	if (r->src) {
		memcpy(grown, r->src, r->nsrc * sizeof(*grown));
		/* A snapshot's state lives in its source: follow it. */
		for (size_t i = 0; i < r->nsrc; i++)
			if (r->src[i].st == &r->src[i].own)
				grown[i].st = &grown[i].own;
		memcpy(heap, r->merge.e, r->merge.n * sizeof(*heap));
		munmap(r->src, r->cap * sizeof(*grown));
		munmap(r->merge.e, r->cap * sizeof(*heap));
		munmap(r->known, r->known_cap * sizeof(*known));
	}
	r->src = grown;
	r->merge.e = heap;
	r->known = known;
	r->known_cap = known_cap;
	r->cap = cap;
	for (size_t i = 0; i < r->nsrc; i++)
		r->known[known_slot(r, r->src[i].ring, r->src[i].mem)] = i + 1;
	return true;
}

static bool add_source(struct bprint_reader *r, struct bp_thread *t, struct bp_thread_ring *ring,
		       void *mem)
{
	struct source *s;

	if (r->nsrc == r->cap && !grow_sources(r, r->cap ? r->cap * 2 : 64))
		return false;
	s = &r->src[r->nsrc++];
	memset(s, 0, sizeof(*s));
	s->thread = t;
	s->ring = ring;
	s->mem = mem;
	s->generation = t->generation;
	s->st = r->consuming ? &ring->consumer : &s->own;
	r->known[known_slot(r, ring, mem)] = r->nsrc;
	return true;
}

/* Pick up rings that appeared since the last look. */
static void scan(struct bprint_reader *r)
{
	for (struct bp_thread *t = atomic_load_explicit(&bp_threads, memory_order_acquire); t;	/* T7 */
	     t = t->next) {
		int state = atomic_load_explicit(&t->state, memory_order_acquire);	/* T5 */

		if (state != BP_THREAD_ALIVE && state != BP_THREAD_DEAD)
			continue;
		for (unsigned i = 0; i < BP_NEST_MAX; i++) {
			struct bp_thread_ring *ring = &t->ring[i];
			void *mem = atomic_load_explicit(&ring->mem, memory_order_acquire);	/* T2 */

			if (mem && !source_known(r, ring, mem) && !add_source(r, t, ring, mem))
				return;
		}
	}
}

/* Tell bprint_stats() what the consumer has handed out and lost. */
static void publish(const struct source *s)
{
	const struct bp_read_state *st = s->st;

	if (st != &s->ring->consumer)
		return;
	/* relaxed: counts read as values by bprint_stats() and the totals;
	 * one consumer writes them (bp_consumer_lock) */
	atomic_store_explicit(&s->ring->consumer_read,
			      st->cursor.read - (st->has_peek ? 1u : 0u), memory_order_relaxed);
	atomic_store_explicit(&s->ring->consumer_overwritten, st->cursor.overwritten,
			      memory_order_relaxed);
}

/* Make sure s has a record in hand, if its ring has one. */
/*
 * A snapshot shows what the consumer has not taken yet, as the kernel's
 * trace file does after reads of trace_pipe: it starts at the consumer's
 * cursor, with the record the consumer holds unreturned.  That needs the
 * consumer lock, so while a consuming session is open, and in the crash
 * dump, a snapshot starts at the oldest record instead.
 */
static bool start_after_consumer(struct source *s)
{
	struct bp_read_state *c = &s->ring->consumer;
	bool started = false;

	if (pthread_mutex_trylock(&bp_consumer_lock) != 0)
		return false;
	if (c->ready && c->cap == s->own.cap) {
		s->own.cursor = c->cursor;
		s->own.cursor.consumer = 0;	/* reads, never publishes */
		s->own.cursor.read = 0;
		s->own.cpu = c->cpu;
		if (c->has_peek) {
			memcpy(s->own.buf, c->buf, c->cap);
			s->own.ev = c->ev;
			s->own.ev.payload = (const unsigned char *)s->own.buf +
					    ((const unsigned char *)c->ev.payload -
					     (const unsigned char *)c->buf);
			s->own.has_peek = 1;
		}
		started = true;
	}
	pthread_mutex_unlock(&bp_consumer_lock);
	return started;
}

static void fill(struct source *s, bool may_lock)
{
	struct bp_read_state *st = s->st;
	size_t bytes = s->ring->bytes;
	int rc;

	if (s->dead || st->has_peek)
		return;
	if (!st->ready) {
		struct bp_ring_stats rs;

		if (bp_ring_stats(s->mem, bytes, &rs) != BP_RING_OK ||
		    !(st->buf = map(rs.page_size))) {
			s->dead = true;
			return;
		}
		st->cap = rs.page_size;
		st->cpu = -1;
		if (st == &s->own && may_lock && start_after_consumer(s)) {
			st->ready = 1;
			if (st->has_peek)
				return;
		} else if (bp_ring_cursor_init(s->mem, bytes, &st->cursor,
					       st == &s->own ? BP_RING_CURSOR_SNAPSHOT
							     : BP_RING_CURSOR_CONSUME) != BP_RING_OK) {
			s->dead = true;
			return;
		}
		st->ready = 1;
	}
	rc = bp_ring_next(s->mem, bytes, &st->cursor, &st->ev, st->buf, st->cap);
	if (rc == 1)
		st->has_peek = 1;
	else if (rc < 0)
		s->dead = true;
	publish(s);
}

/* Source i's record in hand, if it has one, into the merge. */
static void join(struct bprint_reader *r, size_t i)
{
	struct source *s = &r->src[i];

	if (s->st->has_peek && !s->merged && !s->dead) {
		bp_merge_push(&r->merge, s->st->ev.ts, i);
		s->merged = true;
		r->work++;
	}
}

/* Look at every ring again, and for new ones (see the top of the file). */
static void look_again(struct bprint_reader *r)
{
	uint64_t now = bp_clock_now();

	scan(r);
	for (size_t i = 0; i < r->nsrc; i++) {
		fill(&r->src[i], r->symbols);
		join(r, i);
	}
	r->work += r->nsrc;
	r->looked_at = now;
}

/* The source whose record in hand is the oldest, out of the merge; NULL if none. */
static struct source *oldest(struct bprint_reader *r)
{
	size_t i;

	if (r->taken != NO_SOURCE) {
		fill(&r->src[r->taken], r->symbols);
		join(r, r->taken);
		r->taken = NO_SOURCE;
		r->work++;
	}
	if (bp_merge_top_ts(&r->merge) > r->looked_at)
		look_again(r);
	if (!bp_merge_top(&r->merge, &i))
		return NULL;
	bp_merge_pop(&r->merge);
	r->work++;
	r->src[i].merged = false;
	r->taken = i;
	return &r->src[i];
}

/*
 * %pS: "func+0x1a/0x40" in the main program, "func+0x1a/0x40 [libfoo.so.1]"
 * in a shared object; %ps: "func".  An address no dynamic symbol holds
 * prints as %p.  The address is only compared by dladdr(), never followed.
 */
static void print_symbol(void *ctx, char letter, uint64_t address, char *buf, size_t size)
{
	const void *addr = (const void *)(uintptr_t)address;
	const ElfW(Sym) *sym = NULL;
	struct link_map *lm = NULL;
	Dl_info info, info2;
	uintptr_t off;
	const char *obj, *slash;

	(void)ctx;
	if (!dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !info.dli_sname ||
	    !*info.dli_sname || !info.dli_saddr || !sym)
		goto plain;
	off = (uintptr_t)address - (uintptr_t)info.dli_saddr;
	if ((uintptr_t)address < (uintptr_t)info.dli_saddr ||
	    (sym->st_size ? off >= sym->st_size : off != 0))
		goto plain;	/* the closest symbol below, not one holding it */
	if (letter != 'S') {
		bp_snprintf(buf, size, "%s", info.dli_sname);
		return;
	}
	obj = info.dli_fname ? info.dli_fname : "";
	slash = strrchr(obj, '/');
	if (slash && slash[1])
		obj = slash + 1;
	/* The main program is the link map's first object, its name "". */
	if (dladdr1(addr, &info2, (void **)&lm, RTLD_DL_LINKMAP) && lm &&
	    (!lm->l_prev || !lm->l_name || !*lm->l_name))
		bp_snprintf(buf, size, "%s+0x%lx/0x%lx", info.dli_sname, (unsigned long)off,
			    (unsigned long)sym->st_size);
	else
		bp_snprintf(buf, size, "%s+0x%lx/0x%lx [%s]", info.dli_sname, (unsigned long)off,
			    (unsigned long)sym->st_size, obj);
	return;
plain:
	bp_snprintf(buf, size, "%p", (void *)(uintptr_t)address);
}

/* The message of a record: its block formatted with its site's format. */
static void decode(struct bprint_reader *r, struct source *s, struct bprint_event *ev)
{
	struct bp_read_state *st = s->st;
	struct bp_record_args a = bp_record_split(st->ev.user_bits, st->ev.payload,
						  st->ev.payload_len);
	const struct bprint_site *site = bp_site_lookup(a.site_id);
	struct bp_pointer_hook hook = { "Ss", print_symbol, NULL };

	if (a.has_cpu)
		st->cpu = a.cpu;
	ev->ns = bp_clock_to_ns(&r->calib, st->ev.ts);
	ev->tid = s->thread->tid;
	ev->cpu = st->cpu;
	ev->comm = s->thread->comm;
	ev->site = site;
	ev->message = r->msg;
	ev->message_len = bp_record_message(r->msg, sizeof(r->msg), &a, site, NULL,
					    r->symbols ? &hook : NULL, NULL);
}

int bprint_read_next(struct bprint_reader *r, struct bprint_event *ev)
{
	struct bprint_event full = { .size = sizeof(full) };
	struct source *s;

	if (!r || !ev || ev->size < BPRINT_EVENT_SIZE_1) {
		errno = EINVAL;
		return -1;
	}
	s = oldest(r);
	if (!s)
		return 0;
	decode(r, s, &full);
	s->st->has_peek = 0;
	publish(s);
	bp_sized_put(ev, ev->size, &full, sizeof(full));
	return 1;
}

static struct bprint_reader *begin(bool consuming, bool lock)
{
	struct bprint_reader *r = map(sizeof(*r));

	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
	r->consuming = consuming;
	r->taken = NO_SOURCE;
	r->symbols = lock;	/* not from the crash dump's signal handler */
	if (lock) {
		if (consuming)
			pthread_mutex_lock(&bp_consumer_lock);
		pthread_rwlock_rdlock(&bp_readers_lock);
		r->locked = true;
	} else if (pthread_rwlock_tryrdlock(&bp_readers_lock) == 0) {
		r->locked = true;	/* the crash path: take it only if free */
	}
	bp_clock_calibrate(&r->calib);
	scan(r);
	return r;
}

struct bprint_reader *bprint_read_begin(void)
{
	return begin(true, true);
}

struct bprint_reader *bprint_snapshot_begin(void)
{
	return begin(false, true);
}

struct bprint_reader *bp_reader_begin_unlocked(void)
{
	return begin(false, false);
}

void bprint_read_end(struct bprint_reader *r)
{
	bool consuming;

	if (!r)
		return;
	consuming = r->consuming;
	for (size_t i = 0; i < r->nsrc; i++)
		if (r->src[i].st == &r->src[i].own)
			bp_read_state_release(&r->src[i].own);
	if (r->src) {
		munmap(r->src, r->cap * sizeof(*r->src));
		munmap(r->merge.e, r->cap * sizeof(*r->merge.e));
		munmap(r->known, r->known_cap * sizeof(*r->known));
	}
	if (r->locked) {
		pthread_rwlock_unlock(&bp_readers_lock);
		if (consuming)
			pthread_mutex_unlock(&bp_consumer_lock);
	}
	munmap(r, sizeof(*r));
	if (consuming)
		bp_thread_reclaim();
	else
		bp_thread_retain_enforce();
}

uint64_t bp_reader_work(const struct bprint_reader *r)
{
	return r->work;
}

/* The first stored-record index ring mem still holds (its oldest page's). */
static uint64_t oldest_index(const void *mem, size_t bytes)
{
	struct bp_ring_stats st;
	struct bp_ring_page_info pi;
	uint64_t seq;

	if (bp_ring_stats(mem, bytes, &st) != BP_RING_OK || !st.head_seq)
		return 0;
	seq = st.head_seq >= st.npages ? st.head_seq - st.npages + 1 : 1;
	for (uint32_t k = 0; k < st.npages && seq + k <= st.head_seq; k++)
		if (bp_ring_page_info(mem, bytes, seq + k, &pi) == BP_RING_OK)
			return pi.first_rec;
	return 0;
}

void bp_reader_header(const struct bprint_reader *r, uint64_t *written, uint64_t *lost)
{
	(void)r;
	/* relaxed: counters read as values, each alone; records of threads
	 * that had no ring count as written and lost */
	uint64_t no_ring = atomic_load_explicit(&bp_no_ring_records, memory_order_relaxed);

	*written = atomic_load_explicit(&bp_retired.written, memory_order_relaxed) + no_ring;
	*lost = atomic_load_explicit(&bp_retired.discarded, memory_order_relaxed) +
		atomic_load_explicit(&bp_retired.overwritten, memory_order_relaxed) + no_ring;
	for (struct bp_thread *t = atomic_load_explicit(&bp_threads, memory_order_acquire); t;	/* T7 */
	     t = t->next) {
		int state = atomic_load_explicit(&t->state, memory_order_acquire);	/* T5 */
		uint64_t dropped = bp_thread_dropped(t);

		if (state != BP_THREAD_ALIVE && state != BP_THREAD_DEAD)
			continue;
		*written += dropped;
		*lost += dropped;
		for (unsigned i = 0; i < BP_NEST_MAX; i++) {
			struct bp_thread_ring *ring = &t->ring[i];
			void *mem = atomic_load_explicit(&ring->mem, memory_order_acquire);	/* T2 */
			uint64_t got, missed, next, oldest;
			struct bp_ring_stats rs;

			if (!mem || bp_ring_stats(mem, ring->bytes, &rs) != BP_RING_OK)
				continue;
			/* what a consumer took is not lost; what nobody will see is */
			/* relaxed: the consumer's counts, read as values */
			got = atomic_load_explicit(&ring->consumer_read, memory_order_relaxed);
			missed = atomic_load_explicit(&ring->consumer_overwritten, memory_order_relaxed);
			next = got + missed;
			oldest = oldest_index(mem, ring->bytes);
			*written += rs.written;
			*lost += rs.discarded + missed + (oldest > next ? oldest - next : 0);
		}
	}
}
