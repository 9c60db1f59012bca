/*
 * output/kpages.h - the data of a trace.dat: streams of the kernel's
 * ring-buffer pages (docs/exporters.md; the layout trace-cmd and
 * libtraceevent's kbuffer read), one stream per CPU block.
 *
 * A trace.dat puts every page of CPU 0 before those of CPU 1, but records
 * come in time order across CPUs, so each stream fills one page in memory
 * and spools full pages to one scratch file shared by all streams
 * (unlinked at once, in $TMPDIR or /tmp); at the end each stream's pages
 * are copied out in order.  Memory stays one page per stream plus a page
 * number per spooled page.
 *
 * Page: u64 time_stamp, u64 commit (bytes of events; bit 31: records were
 * lost before this page, bit 30: their count follows the events), events.
 * Event: a u32 header (type_len 5 bits, time_delta 27 bits), payload;
 * type_len 1..28 = payload words, 0 = length word follows, 30 = time extend.
 */
#ifndef BP_OUTPUT_KPAGES_H
#define BP_OUTPUT_KPAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BP_KPAGE	4096u
#define BP_KPAGE_HDR	16u		/* time_stamp u64, commit u64 */
/* The largest payload an event may have: a page less room for a time
 * extend, a type_len 0 header and a lost count. */
#define BP_KPAGE_MAX_PAYLOAD (BP_KPAGE - BP_KPAGE_HDR - 24u)

struct bp_kspool {
	int fd;			/* the scratch file, or -1 */
	uint64_t pages;		/* pages spooled so far */
};

struct bp_kstream {
	int cpu;			/* as recorded, or -1 for a thread's lane */
	unsigned char page[BP_KPAGE];
	size_t used;			/* event bytes on the page */
	bool open, missed;
	uint64_t lost;			/* count for the missed flag */
	uint64_t last_ts;
	uint64_t *pages;		/* spooled page numbers, in order */
	size_t npages, cap;
};

/* Open the scratch file: 0, or -1 with errno set. */
int bp_kspool_open(struct bp_kspool *sp);
void bp_kspool_close(struct bp_kspool *sp);

/* A new stream (NULL if out of memory); free it with bp_kstream_free(). */
struct bp_kstream *bp_kstream_new(int cpu);
void bp_kstream_free(struct bp_kstream *s);

/*
 * Append one event of len payload bytes (a multiple of 4, at most
 * BP_KPAGE_MAX_PAYLOAD) at ts (ns), lost records before it starting a new
 * page with the missed flag and count.  0, or -1 with errno set.
 */
int bp_kstream_append(struct bp_kspool *sp, struct bp_kstream *s, uint64_t ts, uint64_t lost,
		      const unsigned char *payload, size_t len);

/* Spool the page being filled, if any: 0, or -1 with errno set. */
int bp_kstream_flush(struct bp_kspool *sp, struct bp_kstream *s);

/* Read n of s's spooled pages, from its page first on, into buf (n pages
 * long): 0, or -1 with errno set (EIO: a short read). */
int bp_kstream_read(const struct bp_kspool *sp, const struct bp_kstream *s, size_t first,
		    size_t n, unsigned char *buf);

#endif /* BP_OUTPUT_KPAGES_H */
