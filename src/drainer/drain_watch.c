/*
 * What a watcher of the drainer (bp_drain_watch(), bprint record
 * --trigger) needs to read the pages it is handed, as bprint/record.h
 * gives it: each page record by record (the ring's page walk and the
 * record contract's split of a record into its site, CPU word and
 * words), a record's time through the live file's calibration, a copy of
 * a page cut to a window's records.
 */
#include <bprint/record.h>

#include "ring/ring.h"
#include "trace/clock.h"
#include "trace/record.h"

#include <stdalign.h>
#include <string.h>

_Static_assert(sizeof(struct bp_clock_calib) <= sizeof(struct bp_drain_clock),
	       "a calibration fits bp_drain_clock");
_Static_assert(sizeof(struct bp_ring_page_iter) <= sizeof(((struct bp_drain_page_iter *)0)->state),
	       "the ring's page walk fits bp_drain_page_iter's state");
_Static_assert(alignof(struct bp_ring_page_iter) <= alignof(uint64_t), "state's alignment");
_Static_assert(BP_DRAIN_SITE_IDS == 1u << BP_REC_SITE_BITS, "site ids as the records hold them");

static struct bp_ring_page_iter *ring_iter(struct bp_drain_page_iter *it)
{
	return (struct bp_ring_page_iter *)(void *)it->state;
}

uint64_t bp_drain_clock_ns(const struct bp_drain_clock *c, uint64_t ts)
{
	return bp_clock_to_ns((const struct bp_clock_calib *)(const void *)c, ts);
}

int bp_drain_page_begin(struct bp_drain_page_iter *it, const void *page, uint32_t page_size)
{
	if (bp_ring_page_begin(ring_iter(it), page, page_size, 0) != BP_RING_OK)
		return -1;
	memcpy(&it->first_rec, (const unsigned char *)page + offsetof(struct bp_ring_page, first_rec),
	       sizeof(it->first_rec));
	it->next_rec = ring_iter(it)->next_rec;
	return 0;
}

int bp_drain_page_next(struct bp_drain_page_iter *it, struct bp_drain_rec *r)
{
	struct bp_ring_event ev;
	struct bp_record_args a;
	int rc = bp_ring_page_next(ring_iter(it), &ev, NULL, 0);

	it->next_rec = ring_iter(it)->next_rec;
	if (rc != 1)
		return 0;
	a = bp_record_split(ev.user_bits, ev.payload, ev.payload_len);
	r->index = ev.index;
	r->ts = ev.ts;
	r->words = a.words;
	r->nwords = a.nwords;
	r->site_id = a.site_id;
	r->cpu = a.cpu;
	r->has_cpu = a.has_cpu != 0;
	r->text = a.text != 0;
	return 1;
}

int bp_drain_page_cut(void *page, uint32_t page_size, uint64_t first, uint64_t end, bool has_cpu,
		      uint32_t cpu)
{
	return bp_ring_page_cut(page, page_size, first, end, has_cpu ? BP_REC_CPU : 0, cpu) ==
			       BP_RING_OK
		       ? 0
		       : -1;
}
