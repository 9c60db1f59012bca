/*
 * The thread's window (struct bprint__tls, include/bprint/internal.h): a
 * record reserved and published on ring 0's current page without the
 * ring's writer.  The call site's calls (trace/window.c) and the words
 * path's try (trace/emit.c) are these, inline.
 *
 * Between an open and its close the thread's nest count is 1, so that a
 * signal handler that traces meanwhile goes out of line, to its own ring,
 * and the record being written stays intact.  The window keeps the
 * record's offset (pending), and the close is told its length: it never
 * reads the head back, whose delta comes from rdtsc, whose latency would
 * then hold up the next record's offset.
 */
#ifndef BP_TRACE_WINDOW_H
#define BP_TRACE_WINDOW_H

#include <bprint.h>

#include "ring/ring.h"

#include <stdbool.h>
#include <stdint.h>

#if defined(__x86_64__)
#define BP_WINDOW 1
#else
#define BP_WINDOW 0
#endif

/* A store of 8 bytes at 4-byte alignment (records are u32-aligned). */
typedef uint64_t bp_u64_a4 __attribute__((aligned(4)));

/*
 * pending with this bit set: the open record was reserved through ring
 * 0's writer (trace/emit.c, bp_emit_refill()), and its close is there.
 */
#define BP_WINDOW_RING		0x80000000u
#define BP_WINDOW_DISCARDED	(BP_WINDOW_RING | 1u)	/* none: the ring discarded it */

/* The close of a record bp_emit_refill() opened (trace/emit.c). */
void bp_emit_refill_close(uint32_t pending);

#if BP_WINDOW
/* The gate, then this thread's nest taken: false if the inline path is
 * not for this call (tracing off, another clock, or nested). */
__attribute__((always_inline))
static inline bool bp_window_enter(struct bprint__tls *t)
{
	/* relaxed: the gate only chooses the inline path, and what that path
	 * reads is this thread's own (its window and clock base, set by the
	 * thread itself), so nothing is ordered after the gate's writers */
	if (__builtin_expect(__atomic_load_n(&bprint__gate.bits, __ATOMIC_RELAXED) !=
			     (BPRINT__GATE_ON | BPRINT__GATE_TSC) || t->nest != 0, 0))
		return false;
	t->nest = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);	/* N1 (docs/locks.md) */
	return true;
}
#endif

/*
 * bp_window_reserve() in two halves, for a record whose bytes are known
 * before its time (trace/call.c): the checks every open makes, then the
 * record's place (nest held), or NULL (nest not held); and the time
 * stamp, its delta in *delta, or false (nest released: give the record
 * up).  What is stored in between is not published until the close.
 */
__attribute__((always_inline))
static inline uint32_t *bp_window_place(uint32_t bytes)
{
#if BP_WINDOW
	struct bprint__tls *t = &bprint__tls;
	uint32_t off;

	if (!bp_window_enter(t))
		return NULL;
	off = t->off;
	if (__builtin_expect(t->end - off < bytes || *t->cpu != t->last_cpu, 0)) {
		__atomic_signal_fence(__ATOMIC_SEQ_CST);	/* N2 */
		t->nest = 0;
		return NULL;
	}
	t->pending = off;
	return (uint32_t *)(void *)(t->rec + off);
#else
	(void)bytes;
	return NULL;
#endif
}

__attribute__((always_inline))
static inline bool bp_window_stamp(uint64_t *delta)
{
#if BP_WINDOW
	uint64_t d = (uint64_t)__builtin_ia32_rdtsc() - bprint__tls.base;

	if (__builtin_expect(d > 0xffffffffu, 0)) {	/* also a TSC behind the base */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);	/* N2 */
		bprint__tls.nest = 0;
		return false;
	}
	*delta = d;
	return true;
#else
	(void)delta;
	return false;
#endif
}

/*
 * The checks every open makes, then rdtsc: for a record of at least
 * bytes (its 8-byte header included).  Returns the record, nest held, or
 * NULL, nest not held; but where the window is there and the page full,
 * the CPU changed or the delta too large, with held not NULL, NULL with
 * nest held and *held set, for a refill.  *room: the record area left.
 */
__attribute__((always_inline))
static inline uint32_t *bp_window_reserve(uint32_t bytes, uint64_t *delta, uint32_t *room,
					  bool *held)
{
#if BP_WINDOW
	struct bprint__tls *t = &bprint__tls;
	uint32_t off;
	uint64_t d;

	if (!bp_window_enter(t))
		return NULL;
	off = t->off;
	*room = t->end - off;
	if (__builtin_expect(*room < bytes || *t->cpu != t->last_cpu, 0))
		goto out;
	d = (uint64_t)__builtin_ia32_rdtsc() - t->base;
	if (__builtin_expect(d > 0xffffffffu, 0))	/* also a TSC behind the base */
		goto out;
	t->pending = off;
	*delta = d;
	return (uint32_t *)(void *)(t->rec + off);
out:
	if (held && t->end) {
		*held = true;
		return NULL;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);	/* N2 */
	t->nest = 0;
#else
	(void)bytes, (void)delta, (void)room, (void)held;
#endif
	return NULL;
}

/*
 * A record of at least min payload bytes and head's site id, its length
 * set at bp_window_close_var(): its payload, and in *room what it may
 * take (the page's room, at most a record's); or NULL (held: as
 * bp_window_reserve()).
 */
__attribute__((always_inline))
static inline unsigned char *bp_window_open_var(uint32_t head, uint32_t min, uint32_t *room,
						bool *held)
{
	uint64_t delta;
	uint32_t left;
	uint32_t *p = bp_window_reserve(min + BP_RING_REC_HDR_BYTES, &delta, &left, held);

	if (!p)
		return NULL;
	/* two stores: the close completes the head, which must not wait for rdtsc */
	p[0] = head & ~BP_RING_HEAD_LEN_MASK;
	p[1] = (uint32_t)delta;
	left -= BP_RING_REC_HDR_BYTES;
	*room = left < BP_RING_REC_MAX_WORDS * 4u - BP_RING_REC_HDR_BYTES
		? left : BP_RING_REC_MAX_WORDS * 4u - BP_RING_REC_HDR_BYTES;
	return (unsigned char *)(p + 2);
}

/*
 * Publish the records up to end (release: their bytes before the commit
 * word) and count the one opened.  The count's only writer is this
 * thread's ring-0 writer, so it needs no atomic read-modify-write: one
 * incq, which a signal cannot split, and an aligned 8-byte store, which
 * no reader sees torn.
 */
__attribute__((always_inline))
static inline void bp_window_publish(uint32_t end)
{
	struct bprint__tls *t = &bprint__tls;

	t->off = end;
	__atomic_store_n((uint32_t *)(void *)(t->rec - 8), end, __ATOMIC_RELEASE);	/* P1 */
#if defined(__x86_64__)
	__asm__ volatile("incq %0" : "+m"(*t->written));
#else
	*(volatile uint64_t *)t->written += 1;
#endif
	__atomic_signal_fence(__ATOMIC_SEQ_CST);	/* N2 */
	t->nest = 0;
}

/* Its length (payload bytes, a multiple of 4), then publish the record bp_window_open_var() opened. */
__attribute__((always_inline))
static inline void bp_window_close_var(uint32_t bytes)
{
	struct bprint__tls *t = &bprint__tls;
	uint32_t off = t->pending, len = bytes + BP_RING_REC_HDR_BYTES;

	if (__builtin_expect(off & BP_WINDOW_RING, 0)) {
		bp_emit_refill_close(off);
		return;
	}
	*(uint32_t *)(void *)(t->rec + off) |= len / 4u;
	bp_window_publish(off + len);
}

/* Give up the open record: nothing was published. */
__attribute__((always_inline))
static inline void bp_window_drop(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);	/* N2 */
	bprint__tls.nest = 0;
}

#endif /* BP_TRACE_WINDOW_H */
