/*
 * trace_printk()'s out-of-line half.
 *
 * The hot path proper is inline at the call site (bprint__reserve() and
 * bprint__commit() in include/bprint/internal.h): it writes into a window on the
 * thread's ring 0 kept in initial-exec TLS (struct bprint__tls).  Whatever
 * it cannot do comes here: a thread's first trace, a page that is full, a
 * changed CPU, a time extend, a call from a signal handler (nested), a
 * format that is not all scalars, a clock other than the TSC.
 *
 * Still no locks, no syscalls (but on a thread's first trace), no
 * allocation, no format parsing, no atomic read-modify-write: the nesting
 * counter, a clock read, the CPU from the rseq area, a ring reservation,
 * the argument plan's packing loop, and a release store at commit.
 *
 * A format that is not a compile-time constant takes the plan of the
 * derived site that trace/fmtcache.c keeps for it, and writes under that
 * site's id; text only when it has none.  Learning a format, on its first
 * call, is the one exception to the above: a trylock, an allocation, a
 * parse.
 *
 * A record's payload (docs/trace-format.md):
 *   [u32 cpu, if the BP_REC_CPU flag is set] then the argument block, or,
 *   with BP_REC_TEXT, the message already formatted, NUL-terminated.
 * The CPU is written whenever it changed, and whenever the record may be
 * the first of a page, so that a reader that starts at any page knows it.
 *
 * Ring 0's writer and the TLS window: while a thread has a window
 * (bp_self set), the window's off and the ring's own written counter are
 * the true ones, and ring 0's struct bp_ring_writer lags.  Every use of
 * ring 0 here starts with window_pull() and ends with
 * bp_thread_window_push(), nest count held, so a signal handler never sees
 * them half-way.
 */
#include "trace/clock.h"
#include "trace/cpu.h"
#include "trace/emit.h"
#include "trace/fmtcache.h"
#include "trace/site.h"
#include "trace/thread.h"
#include "trace/tracer.h"
#include "trace/window.h"
#include "format/words.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* bprint__reserve() finds the commit word 8 bytes before the record area. */
_Static_assert(offsetof(struct bp_ring_page, commit) + 8 == BP_RING_PAGE_HDR_BYTES,
	       "commit word just before the records");
_Static_assert(sizeof(_Atomic uint64_t) == sizeof(uint64_t), "written as a plain word");

/* A program that traces gets the start-up (src/runtime/start.c) and its constructor. */
__attribute__((used)) static const char *const link_init = &bp_init_anchor;
/* And every call site's calls (trace/call.c), for the objects it dlopen()s. */
__attribute__((used)) static void (*const link_calls)(struct bprint_site *, ...) = bprint__call;

static inline void count_drop(_Atomic uint64_t *counter)
{
	/* P2: only the owning thread (and its nested handlers, which run to
	 * completion) writes: relaxed, and no read-modify-write */
	atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/*
 * Reserve payload_bytes in ring r, with the CPU prefix when needed.  The
 * prefix goes on when the CPU changed or when the record might open a new
 * page (the room left cannot hold it plus a time extend).
 */
__attribute__((always_inline))
static inline void *reserve(struct bp_thread_ring *r, uint32_t payload_bytes,
			    uint32_t user, uint64_t ts)
{
	uint32_t cpu = (uint32_t)bp_current_cpu();
	uint32_t room = r->w.end - r->w.off;
	bool prefix = cpu != r->last_cpu ||
		      room < BP_RING_REC_HDR_BYTES + BP_RING_TIME_EXTEND_BYTES + 4 + payload_bytes;
	uint32_t *p;

	if (__builtin_expect(prefix, 0)) {
		p = bp_ring_reserve(&r->w, payload_bytes + 4, user | BP_REC_CPU, ts);
		if (!p)
			return NULL;
		*p = cpu;
		r->last_cpu = cpu;
		return p + 1;
	}
	return bp_ring_reserve(&r->w, payload_bytes, user, ts);
}

/* A text record being written: what to format into, and whether it is cut. */
struct text_rec {
	char *p;
	size_t size;		/* the text's bytes, its NUL included */
	uint32_t full;		/* cut: the whole message's length; else 0 */
};

/*
 * Reserve a text record for a message of n characters (n < 0: none).  A
 * message longer than one record holds is cut to what it holds with the
 * cut trailer (trace/record.h), which commit_text() writes.
 */
static bool reserve_text(struct bp_thread_ring *r, uint32_t id, uint64_t ts, int n,
			 struct text_rec *t)
{
	uint32_t max = bp_ring_max_payload(&r->w) - 4;	/* room for the CPU prefix */
	uint32_t bytes;

	if (n < 0)
		n = 0;
	t->full = 0;
	if ((uint32_t)n + 1 > max) {
		t->full = (uint32_t)n;
		n = (int)((max - 8u) & ~3u) - 1;	/* the text, its NUL and the trailer */
	}
	t->size = (size_t)n + 1;
	bytes = t->full ? (((uint32_t)t->size + 3u) & ~3u) + 8u : (uint32_t)t->size;
	t->p = reserve(r, bytes, id | BP_REC_TEXT, ts);
	return t->p != NULL;
}

/* The cut trailer after the text's padding, if cut; then publish. */
static void commit_text(struct bp_thread_ring *r, const struct text_rec *t)
{
	if (t->full) {
		size_t end = (t->size + 3u) & ~(size_t)3u;
		const uint32_t trailer[2] = { BP_REC_CUT_MAGIC, t->full };

		memset(t->p + t->size, 0, end - t->size);
		memcpy(t->p + end, trailer, sizeof(trailer));
	}
	bp_ring_commit(&r->w);
}

/* A text record: the message formatted now (non-constant formats, huge blocks). */
__attribute__((format(printf, 4, 0)))
static void emit_text(struct bp_thread_ring *r, uint32_t id, uint64_t ts,
		      const char *fmt, va_list ap)
{
	struct text_rec t;
	va_list aq;
	bool ok;

	va_copy(aq, ap);
	ok = reserve_text(r, id, ts, bp_vsnprintf(NULL, 0, fmt, aq), &t);
	va_end(aq);
	if (!ok)
		return;
	bp_vsnprintf(t.p, t.size, fmt, ap);
	commit_text(r, &t);
}

/* Ring 0's writer catches up with what the inline path wrote. */
static inline void window_pull(struct bp_thread *t)
{
	struct bp_ring_writer *w = &t->ring[0].w;

	w->off = bprint__tls.off;
	w->written = atomic_load_explicit(&w->ctl->written, memory_order_relaxed);	/* P2 */
}

/*
 * Register site now, on its first call (the lazy path), and return its
 * id.  0, the call dropped, if it cannot be: a foreign layout's site
 * (said once on stderr, not traced), or, counted as dropped, no id or
 * memory left, or a signal handler that interrupted its own thread in
 * the registry (it cannot wait for the lock); 0 too, not counted, for a
 * site the filters disable.
 */
static uint32_t register_now(struct bprint_site *site)
{
	uint32_t id = bp_site_register(site);
	struct bp_thread *t = bp_self;

	if (!id && site->id != BPRINT__SITE_REFUSED && t)
		count_drop(&t->unregistered);
	/* The filters apply from a site's first call (a template's site
	 * registers then): one they disable records nothing, as later calls. */
	if (id && !__atomic_load_n(&site->enabled, __ATOMIC_ACQUIRE))	/* pairs with S5 */
		return 0;
	return id;
}

/*
 * Enter the calling thread's next nesting level: a signal handler that
 * interrupts us from here on writes to the next ring.  Returns the ring
 * for this level, or NULL (counted) if there is none; call leave() after.
 */
static inline struct bp_thread_ring *enter(struct bp_thread *t, unsigned level)
{
	bprint__tls.nest = level + 1;
	atomic_signal_fence(memory_order_seq_cst);	/* N1 */
	if (__builtin_expect(level == 0, 1)) {
		window_pull(t);
		return &t->ring[0];	/* mapped when t was made */
	}
	if (level >= BP_NEST_MAX) {
		count_drop(&t->too_deep);
		return NULL;
	}
	return bp_thread_ring(t, level);
}

static inline void leave(struct bp_thread *t, unsigned level)
{
	if (level == 0)
		bp_thread_window_push(t);
	atomic_signal_fence(memory_order_seq_cst);	/* N2 */
	bprint__tls.nest = level;
}

void bp_emit_va(struct bprint_site *site, const char *fmt, va_list ap)
{
	struct bp_thread *t = bp_self;
	struct bp_thread_ring *r;
	const struct bp_arg_plan *plan;
	unsigned level;
	uint32_t id = site->id;
	uint64_t ts;

	/* 0: not registered yet; BPRINT__SITE_REFUSED: another layout's site */
	if (__builtin_expect(id - 1u >= BP_SITE_MAX, 0) && !(id = register_now(site)))
		return;
	if (__builtin_expect(!t, 0) && !(t = bp_thread_self_slow()))
		return;
	level = bprint__tls.nest;
	r = enter(t, level);
	if (!r)
		goto out;
	ts = bp_clock_now();
	plan = site->plan;
	/*
	 * A runtime format: its derived site's plan and id, if it has one
	 * (fmtcache.h).  Inside the nesting level: only an outermost call
	 * may learn a format, a nested one is a signal handler's.
	 */
	if (__builtin_expect(!plan, 0) && !site->format)
		plan = bp_fmtcache_plan(fmt, &id, level == 0);
	if (__builtin_expect(plan != NULL, 1)) {
		size_t words = plan->fixed_words;
		uint32_t *p;

		if (plan->nstrings) {
			va_list aq;

			va_copy(aq, ap);
			words = bp_vbin_printf_plan(NULL, 0, plan, aq);
			va_end(aq);
		}
		if (__builtin_expect(words * 4 <= bp_ring_max_payload(&r->w) - 4, 1)) {
			p = reserve(r, (uint32_t)words * 4, id, ts);
			if (p) {
				bp_vbin_printf_plan(p, words, plan, ap);
				bp_ring_commit(&r->w);
			}
			goto out;
		}
	}
	emit_text(r, id, ts, fmt, ap);
out:
	leave(t, level);
}

void bprint__printk(struct bprint_site *site, const char *fmt, ...)
{
	va_list ap;

	if (!bp_tracing_is_on())
		return;
	va_start(ap, fmt);
	bp_emit_va(site, fmt, ap);
	va_end(ap);
}

/*
 * The words path's try on the TLS window (trace/window.h), for sites the
 * call site cannot write itself (strings, %c, argument sizes other than
 * the plan's), for a record whose length is known only once its strings
 * are copied.  The block is packed straight into the page, the length
 * written last; nothing is visible before the commit.  Returns false,
 * with nothing written, for anything the slow path must do (no window,
 * no room, CPU changed, time extend, nested, not the TSC).
 */
__attribute__((always_inline))
static inline bool window_write(uint32_t id, const struct bp_arg_plan *plan,
				const uint64_t *words)
{
	uint32_t room, bytes;
	unsigned char *p = bp_window_open_var(id << BP_RING_HEAD_USER_SHIFT,
					      plan->fixed_words * 4u, &room, NULL);

	if (!p)
		return false;
	bytes = bp_words_pack(p, room, plan, words);
	if (bytes == BP_WORDS_NO_ROOM) {
		bp_window_drop();
		return false;
	}
	bp_window_close_var(bytes);	/* nest back to 0 */
	return true;
}

/*
 * A record the window could not take (its page full, the CPU changed, a
 * time extend), of exactly bytes of payload, so that the call site writes
 * it all the same (trace/window.h): reserved through ring 0's writer (a
 * page switch, a CPU prefix, a time extend), the thread still in its
 * nest count of 1, which the open took; bp_emit_refill_close() commits it.
 * A record the ring discards (counted there) is written to a scratch
 * buffer and dropped at its close.  NULL (the nest count back to 0) for a
 * thread with no rings yet: the call goes out of line.
 */
static __thread unsigned char refill_scratch[BP_SITE_WORDS_MAX * 4]
	__attribute__((tls_model("initial-exec"), aligned(8)));

unsigned char *bp_emit_refill(uint32_t head, uint32_t bytes)
{
	struct bp_thread *t = bp_self;
	uint32_t *p;

	if (__builtin_expect(!t, 0) || bytes > sizeof(refill_scratch)) {
		atomic_signal_fence(memory_order_seq_cst);	/* N2 */
		bprint__tls.nest = 0;
		return NULL;
	}
	window_pull(t);
	p = reserve(&t->ring[0], bytes, head >> BP_RING_HEAD_USER_SHIFT, bp_clock_now());
	if (!p) {
		bp_thread_window_push(t);
		bprint__tls.pending = BP_WINDOW_DISCARDED;
		return refill_scratch;
	}
	bprint__tls.pending = BP_WINDOW_RING;
	return (unsigned char *)p;
}

void bp_emit_refill_close(uint32_t pending)
{
	struct bp_thread *t = bp_self;

	if (pending != BP_WINDOW_DISCARDED) {
		bp_ring_commit(&t->ring[0].w);
		bp_thread_window_push(t);
	}
	atomic_signal_fence(memory_order_seq_cst);	/* N2 */
	bprint__tls.nest = 0;
}

/* Pack a scalar-only plan (BPRINT__SITE_FAST): 4-byte slots take the word's low half. */
static inline void pack_scalars(uint32_t *p, const struct bp_arg_plan *plan, const uint64_t *words)
{
	unsigned n = plan->nargs;	/* a local: the stores below may alias the plan */

	for (unsigned i = 0; i < n; i++) {
		if (plan->slot[i].kind == BP_ARG_INT32) {
			*p++ = (uint32_t)words[i];
		} else {
			memcpy(p, &words[i], 8);
			p += 2;
		}
	}
}

/*
 * A text record made from words: the record that cannot hold the block,
 * or a call with no plan.  ldouble: which words hold a long double's
 * address (format/words.h).
 */
static void emit_words_text(struct bp_thread_ring *r, uint32_t id, uint64_t ts, const char *fmt,
			    const uint64_t *words, size_t nwords, uint64_t ldouble)
{
	struct text_rec t;

	if (!reserve_text(r, id, ts, bp_words_snprintf(NULL, 0, fmt, words, nwords, ldouble), &t))
		return;
	bp_words_snprintf(t.p, t.size, fmt, words, nwords, ldouble);
	commit_text(r, &t);
}

/*
 * A record of site id by plan, from words, through ring 0's writer (the
 * window could not take it): a page switch, a CPU prefix, a nested call,
 * another clock.  The block is packed into a scratch buffer first when
 * strings make its size unknown (each string is still read once, however
 * the reservation goes); a block too large for a record becomes a text
 * record of fmt, like bprint__printk()'s.  scalars: the plan has 4- and
 * 8-byte slots only (BPRINT__SITE_FAST).
 */
static void ring_write(struct bp_thread_ring *r, uint32_t id, const struct bp_arg_plan *plan,
		       const char *fmt, const uint64_t *words, bool scalars)
{
	uint64_t ts = bp_clock_now();
	uint32_t *p;

	if (plan->nstrings == 0) {
		/* a fixed size: packed in place */
		uint32_t bytes = plan->fixed_words * 4u;

		if ((p = reserve(r, bytes, id, ts))) {
			if (scalars)
				pack_scalars(p, plan, words);
			else
				bp_words_pack((unsigned char *)p, bytes, plan, words);
			bp_ring_commit(&r->w);
		}
	} else {
		uint32_t max = bp_ring_max_payload(&r->w) - 4;	/* room for the CPU prefix */
		uint32_t block[BP_RING_REC_MAX_WORDS];
		uint32_t bytes = bp_words_pack((unsigned char *)block, max, plan, words);

		if (bytes == BP_WORDS_NO_ROOM) {
			emit_words_text(r, id, ts, fmt, words, plan->nargs, 0);
		} else if ((p = reserve(r, bytes, id, ts))) {
			memcpy(p, block, bytes);
			bp_ring_commit(&r->w);
		}
	}
}

/* The rest of bprint__printk_words(): through ring 0's writer. */
__attribute__((noinline))
static void printk_words_ring(struct bprint_site *site, const uint64_t *words)
{
	struct bp_thread *t = bp_self;
	struct bp_thread_ring *r;
	unsigned level;

	if (__builtin_expect(!t, 0) && !(t = bp_thread_self_slow()))
		return;
	level = bprint__tls.nest;
	r = enter(t, level);
	if (r)
		ring_write(r, site->id, site->plan, site->format, words,
			   site->flags & BPRINT__SITE_FAST);
	leave(t, level);
}

/* A text record of fmt from n words, through ring 0's writer. */
__attribute__((noinline))
static void words_text(uint32_t id, const char *fmt, const uint64_t *words, size_t n,
		       uint64_t ldouble)
{
	struct bp_thread *t = bp_self;
	struct bp_thread_ring *r;
	unsigned level;

	if (__builtin_expect(!t, 0) && !(t = bp_thread_self_slow()))
		return;
	level = bprint__tls.nest;
	r = enter(t, level);
	if (r)
		emit_words_text(r, id, bp_clock_now(), fmt, words, n, ldouble);
	leave(t, level);
}

/*
 * A registered constant-format site's call, its arguments as words.  A
 * site whose words its plan takes (BPRINT__SITE_WORDS) gets the block
 * bp_vbin_printf_plan() makes: what bprint__reserve() could not write
 * inline, sites with strings or %c, and sites whose argument sizes differ
 * from the plan's.  A site the call site cannot pack tries the window
 * first, in this function's straight line; the rest, and what the window
 * cannot take, goes through ring 0's writer, out of line, so that the
 * window's try saves no registers it does not use.  A site the call site
 * packs (FAST, CHARS) tried the window already: here it would fail for
 * the same reason, and copy its strings once more.  Any other site (no
 * plan: more than 32 arguments; a plan that takes other arguments than
 * the call passed) gets a text record of the words it passed.
 */
void bp_emit_site_words(struct bprint_site *site, const uint64_t *words)
{
	if (__builtin_expect(!(site->flags & BPRINT__SITE_WORDS), 0)) {
		words_text(site->id, site->format, words, site->nargs, 0);
		return;
	}
	if (!(site->flags & (BPRINT__SITE_FAST | BPRINT__SITE_CHARS)) &&
	    window_write(site->id, site->plan, words))
		return;
	printk_words_ring(site, words);
}

/*
 * A runtime format's call, its n arguments as words: the derived site's
 * plan (fmtcache.h), when the words the call site passed are the ones
 * that plan takes, packs them as site_words() does, under the derived
 * site's id; anything else (no plan, a bound reached, a busy lock,
 * arguments that do not match) is a text record formatted from the
 * words, the format's conversions past them printing 0.
 */
void bp_emit_runtime_words(struct bprint_site *site, const char *fmt, const uint64_t *words,
			   size_t n, uint64_t ldouble)
{
	struct bp_thread *t = bp_self;
	const struct bp_arg_plan *plan;
	struct bp_thread_ring *r;
	uint32_t id = site->id;
	unsigned level;

	if (__builtin_expect(!t, 0) && !(t = bp_thread_self_slow()))
		return;
	level = bprint__tls.nest;
	/* an outermost call may learn a format; a nested one is a signal handler's */
	plan = bp_fmtcache_plan(fmt, &id, level == 0);
	if (plan && (ldouble || !bp_site_takes_words(plan, site)))
		plan = NULL;
	if (plan && window_write(id, plan, words))
		return;
	r = enter(t, level);
	if (r) {
		if (plan)
			ring_write(r, id, plan, fmt, words, false);
		else
			emit_words_text(r, id, bp_clock_now(), fmt, words, n, ldouble);
	}
	leave(t, level);
}

bool bp_emit_ready(struct bprint_site *site)
{
	if (!bp_tracing_is_on())
		return false;
	/* Only a registered site's fields past the head may be read.  The
	 * call site saw flags that another thread's registration set before
	 * the id: it waits for that registration here. */
	return __builtin_expect(site->id - 1u < BP_SITE_MAX, 1) || register_now(site);
}

/* Layout 3's entries (include/bprint/internal.h): words as its call sites passed them. */
void bprint__printk_words(struct bprint_site *site, const uint64_t *words)
{
	if (bp_emit_ready(site))
		bp_emit_site_words(site, words);
}

void bprint__printk_format_words(struct bprint_site *site, const char *fmt,
				 const uint64_t *words)
{
	if (bp_emit_ready(site) && fmt)
		bp_emit_runtime_words(site, fmt, words,
			      site->nargs <= BP_PLAN_MAX_ARGS ? site->nargs : 0, 0);
}

/*
 * trace_puts(): a literal is all in the site (its plan is empty, so the
 * record has no payload); anything else becomes a text record of "%s".
 */
void bprint__puts(struct bprint_site *site, const char *str)
{
	if (!bp_tracing_is_on())
		return;
	bprint__printk(site, "%s", str);
}
