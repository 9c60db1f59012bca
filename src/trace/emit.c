/*
 * trace_printk()'s out-of-line half: the hot path.
 *
 * No locks, no syscalls, no allocation, no format parsing, no atomic
 * read-modify-write: a TLS load, the nesting counter, a clock read, the
 * CPU from the rseq area, a ring reservation, the argument plan's packing
 * loop, and a release store at commit.  Everything unusual (first call of
 * a thread or a site, a format the plan cannot hold, nesting) leaves the
 * straight line through a predictable branch.
 *
 * A record's payload (docs/trace-format.md):
 *   [u32 cpu, if the BP_REC_CPU flag is set] then the argument block, or,
 *   with BP_REC_TEXT, the message already formatted, NUL-terminated.
 * The CPU is written whenever it changed, and whenever the record may be
 * the first of a page, so that a reader that starts at any page knows it.
 */
#include "trace/clock.h"
#include "trace/cpu.h"
#include "trace/site.h"
#include "trace/thread.h"
#include "trace/tracer.h"

#include <stdbool.h>

_Atomic int bp_tracing_on = 1;

void bprint_on(void)
{
	atomic_store_explicit(&bp_tracing_on, 1, memory_order_relaxed);
}

void bprint_off(void)
{
	atomic_store_explicit(&bp_tracing_on, 0, memory_order_relaxed);
}

int bprint_is_on(void)
{
	return atomic_load_explicit(&bp_tracing_on, memory_order_relaxed);
}

static inline void count_drop(_Atomic uint64_t *counter)
{
	/* Only the owning thread (and its nested handlers, which run to completion) writes. */
	atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/*
 * Reserve payload_bytes in ring r, with the CPU prefix when needed.  The
 * prefix goes on when the CPU changed or when the record might open a new
 * page (the room left cannot hold it plus a time extend).
 */
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

/* A text record: the message formatted now (non-constant formats, huge blocks). */
__attribute__((format(printf, 4, 0)))
static void emit_text(struct bp_thread_ring *r, uint32_t id, uint64_t ts,
		      const char *fmt, va_list ap)
{
	uint32_t max = bp_ring_max_payload(&r->w) - 4;	/* room for the CPU prefix */
	va_list aq;
	int n;
	char *p;

	va_copy(aq, ap);
	n = bp_vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		n = 0;
	if ((uint32_t)n + 1 > max)
		n = (int)max - 1;	/* truncated to what one record holds */
	p = reserve(r, (uint32_t)n + 1, id | BP_REC_TEXT, ts);
	if (!p)
		return;
	bp_vsnprintf(p, (size_t)n + 1, fmt, ap);
	bp_ring_commit(&r->w);
}

__attribute__((format(printf, 2, 0)))
static void emit(struct bprint_site *site, const char *fmt, va_list ap)
{
	struct bp_thread *t = bp_self;
	struct bp_thread_ring *r;
	const struct bp_arg_plan *plan;
	unsigned level;
	uint32_t id = site->id;
	uint64_t ts;

	if (__builtin_expect(!id, 0) && !(id = bp_site_register(site)))
		return;
	if (__builtin_expect(!t, 0) && !(t = bp_thread_self_slow()))
		return;

	/* Enter: a handler that interrupts us from here on uses the next ring. */
	level = t->nest;
	t->nest = level + 1;
	atomic_signal_fence(memory_order_seq_cst);

	if (__builtin_expect(level >= BP_NEST_MAX, 0)) {
		count_drop(&t->too_deep);
		goto out;
	}
	r = bp_thread_ring(t, level);
	if (__builtin_expect(!r, 0))
		goto out;
	ts = bp_clock_now();
	plan = site->plan;
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
	atomic_signal_fence(memory_order_seq_cst);
	t->nest = level;
}

void bprint_printk(struct bprint_site *site, const char *fmt, ...)
{
	va_list ap;

	if (!atomic_load_explicit(&bp_tracing_on, memory_order_relaxed))
		return;
	va_start(ap, fmt);
	emit(site, fmt, ap);
	va_end(ap);
}

/*
 * trace_puts(): a literal is all in the site (its plan is empty, so the
 * record has no payload); anything else becomes a text record of "%s".
 */
void bprint_puts(struct bprint_site *site, const char *str)
{
	if (!atomic_load_explicit(&bp_tracing_on, memory_order_relaxed))
		return;
	bprint_printk(site, "%s", str);
}
