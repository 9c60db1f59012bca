/*
 * ring/geom.h - what the ring's own files share (ring.c: init, the writer,
 * the cursor reader; access.c: the accessors; page.c: a page out of its
 * ring): the geometry checks, page and slot arithmetic, and the seqlock's
 * page entry.  Not for use outside ring/: the ring's layout is the ring's
 * own, and what others read of a ring is in ring/view.h (the record
 * checks every reader makes, the re-check, records read in line).
 */
#ifndef BP_RING_GEOM_H
#define BP_RING_GEOM_H

#include "ring/ring.h"
#include "ring/view.h"

#include <stdint.h>
#include <string.h>

#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 8)
#define BP_NO_TSAN __attribute__((no_sanitize("thread")))
#else
#define BP_NO_TSAN
#endif

struct geom {
	const unsigned char *mem;
	uint32_t page_size;
	uint32_t npages;
	uint32_t mode;
	uint32_t area;		/* record area bytes per page */
};

static inline int page_size_ok(uint32_t page_size)
{
	return page_size >= BP_RING_PAGE_MIN && page_size <= BP_RING_PAGE_MAX &&
	       (page_size & (page_size - 1)) == 0;
}

static inline uint32_t max_record(uint32_t page_size)
{
	uint32_t area = page_size - BP_RING_PAGE_HDR_BYTES;
	uint32_t cap = BP_RING_REC_MAX_WORDS * 4u;

	return area < cap ? area : cap;
}

/* Check the static line against the mapping; fill g.  Plain loads: the
 * static line is written once, before the ring is shared. */
static inline int load_geom(const void *mem, size_t bytes, struct geom *g)
{
	const struct bp_ring_ctl *ctl = mem;
	size_t need;

	if (!mem || ((uintptr_t)mem & 7u) || bytes < BP_RING_CTL_BYTES)
		return BP_RING_ECORRUPT;
	if (ctl->magic != BP_RING_MAGIC || ctl->version != BP_RING_VERSION ||
	    ctl->ctl_bytes != BP_RING_CTL_BYTES ||
	    ctl->page_hdr_bytes != BP_RING_PAGE_HDR_BYTES ||
	    ctl->mode > BP_RING_BLOCK)
		return BP_RING_ECORRUPT;
	need = bp_ring_bytes(ctl->page_size, ctl->npages);
	if (need == 0 || need > bytes)
		return BP_RING_ECORRUPT;
	g->mem = mem;
	g->page_size = ctl->page_size;
	g->npages = ctl->npages;
	g->mode = ctl->mode;
	g->area = ctl->page_size - BP_RING_PAGE_HDR_BYTES;
	return BP_RING_OK;
}

static inline uint32_t slot_of(uint32_t npages, uint64_t seq)
{
	return (uint32_t)((seq - 1) % npages);
}

static inline struct bp_ring_page *page_at_slot(const struct geom *g, uint32_t slot)
{
	const unsigned char *p = g->mem + BP_RING_CTL_BYTES + (size_t)slot * g->page_size;

	/* The cast drops const: C11 atomic loads take non-const pointers on
	 * some compilers.  Readers only load through it. */
	return (struct bp_ring_page *)(uintptr_t)p;
}

static inline struct bp_ring_page *page_at(const struct geom *g, uint64_t seq)
{
	return page_at_slot(g, slot_of(g->npages, seq));
}

static inline struct bp_ring_ctl *ctl_of(const struct geom *g)
{
	return (struct bp_ring_ctl *)(uintptr_t)g->mem;
}

/*
 * What reading one page seq on its own starts with: the geometry checked,
 * the page's slot found, its seq read (R1; pairs with W2) and matched.
 * BP_RING_OK with *p and *s1, BP_RING_ENOENT (seq 0, or the slot holds
 * another page) or the geometry's error.
 */
static inline int page_enter(const void *mem, size_t bytes, uint64_t seq, struct geom *g,
			     struct bp_ring_page **p, uint64_t *s1)
{
	int rc = load_geom(mem, bytes, g);

	if (rc)
		return rc;
	if (seq == 0)
		return BP_RING_ENOENT;
	*p = page_at(g, seq);
	*s1 = atomic_load_explicit(&(*p)->seq, memory_order_acquire);
	return *s1 == seq ? BP_RING_OK : BP_RING_ENOENT;
}

/* R3: the copies before the re-check of seq; pairs with the writer's W1
 * (view.h: the one re-check, in the ring and out of it). */
static inline int page_unchanged(struct bp_ring_page *p, uint64_t s1)
{
	return bp_ring_page_unchanged(p, s1);
}

#endif /* BP_RING_GEOM_H */
