/*
 * ring/access.c - the ring's accessors (ring.h): counters, one page's
 * header, a slot, a consumer's progress.  They check the ring as the
 * readers do (geom.h) and read page headers seqlock style.
 */
#include "ring/geom.h"

int bp_ring_stats(const void *mem, size_t bytes, struct bp_ring_stats *st)
{
	struct geom g;
	struct bp_ring_ctl *ctl;
	int rc = load_geom(mem, bytes, &g);

	if (rc)
		return rc;
	ctl = ctl_of(&g);
	st->page_size = g.page_size;
	st->npages = g.npages;
	st->mode = g.mode;
	st->max_payload = max_record(g.page_size) - BP_RING_REC_HDR_BYTES;
	/* R4: head before anything a caller then reads of its pages; pairs
	 * with W3.  The counters after it are relaxed: values, each alone,
	 * one writer each (the ring's, or the consumer's consumed_seq). */
	st->head_seq = atomic_load_explicit(&ctl->head_seq, memory_order_acquire);
	st->written = atomic_load_explicit(&ctl->written, memory_order_relaxed);
	st->discarded = atomic_load_explicit(&ctl->discarded, memory_order_relaxed);
	st->consumed_seq = atomic_load_explicit(&ctl->consumed_seq, memory_order_relaxed);
	st->block_waits = atomic_load_explicit(&ctl->block_waits, memory_order_relaxed);
	st->block_ns = atomic_load_explicit(&ctl->block_ns, memory_order_relaxed);
	st->consumer = atomic_load_explicit(&ctl->consumer, memory_order_relaxed);
	return BP_RING_OK;
}

void bp_ring_consumer_attach(void *mem, size_t bytes, uint64_t pid)
{
	struct geom g;

	if (load_geom(mem, bytes, &g) == BP_RING_OK)
		/* relaxed: a name, read only by a reader's report of who consumes */
		atomic_store_explicit(&ctl_of(&g)->consumer, pid, memory_order_relaxed);
}

int bp_ring_page_info(const void *mem, size_t bytes, uint64_t seq,
		      struct bp_ring_page_info *pi)
{
	struct geom g;
	struct bp_ring_page *p;
	uint64_t s1;
	int rc = page_enter(mem, bytes, seq, &g, &p, &s1);

	if (rc)
		return rc;
	pi->seq = seq;
	pi->slot = slot_of(g.npages, seq);
	/* relaxed: between R1 (page_enter's seq) and R3 (page_unchanged),
	 * which throw away what a writer changed meanwhile */
	pi->base_ts = atomic_load_explicit(&p->base_ts, memory_order_relaxed);
	pi->first_rec = atomic_load_explicit(&p->first_rec, memory_order_relaxed);
	pi->discarded_before = atomic_load_explicit(&p->discarded_before, memory_order_relaxed);
	pi->commit = atomic_load_explicit(&p->commit, memory_order_acquire);	/* R2 */
	if (!page_unchanged(p, s1))						/* R3 */
		return BP_RING_ENOENT;
	if (pi->commit > g.area || (pi->commit & 3u))
		return BP_RING_ECORRUPT;
	return BP_RING_OK;
}

const void *bp_ring_page_slot(const void *mem, size_t bytes, uint64_t seq)
{
	struct geom g;

	if (seq == 0 || load_geom(mem, bytes, &g) != BP_RING_OK)
		return NULL;
	return page_at(&g, seq);
}

void bp_ring_consumed(void *mem, size_t bytes, uint64_t seq)
{
	struct geom g;

	if (load_geom(mem, bytes, &g) == BP_RING_OK)
		/* R5: the consumer's reads of the pages before the writer may
		 * reuse their slots; pairs with the writer's W5. */
		atomic_store_explicit(&ctl_of(&g)->consumed_seq, seq, memory_order_release);
}
