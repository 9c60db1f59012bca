/*
 * reader/catalogue.h - the reader's catalogue (catalogue.c,
 * catalogue_chunks.c): what the file holds, found by walking its chunks,
 * and the one step that changes it, catalogue_update(), at open, at every
 * refresh and when a record names a site the tables lack.  It makes the
 * sources, hands the lists to the tables and the counters to the
 * accounts, and acts on what a source reports (a ring chunk reused).
 */
#ifndef BP_READER_CATALOGUE_H
#define BP_READER_CATALOGUE_H

#include "file/layout.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_trace;
struct source;

/* The chunk walk's state, in struct bp_trace (reading.h) as its member walk. */
struct catalogue_walk {
	uint64_t pos;			/* resume here */
	uint64_t gaps_judged;		/* offsets below: gaps in the walk said already */
	bool accounts_found;		/* the accounts chunk the header names */
	bool kind_said;			/* a chunk of the other kind of file */
	uint64_t last_index;		/* a stream of 1.4: the last chunk's index */
	uint64_t *pending;		/* chunks not complete yet, to look at again:
					 * at the tail, and ring chunks being reused */
	size_t npending, pending_cap;
};

/* The one step that changes the catalogue.  want_site: a
 * site id a record names and the tables lack (0: none); if re-parsing the
 * lists finds it, the file is not walked again. */
int catalogue_update(struct bp_trace *t, uint32_t want_site);

/* The source of ring chunk index key, made if create. */
struct source *catalogue_source(struct bp_trace *t, uint64_t key, bool create);

/* s's ring chunk holds another ring now (format 1.3, reuse): s is over,
 * and the chunk is looked at again at the next update. */
void catalogue_ring_reused(struct bp_trace *t, struct source *s);

/* catalogue_chunks.c: a complete chunk at off, its checksum checked, into
 * the catalogue by its type. */
int catalogue_accept_chunk(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c);

/* An end chunk, or an accounts chunk, at off: its entries into the
 * sources' counters (an end chunk's win). */
int catalogue_add_counters(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c);

#endif /* BP_READER_CATALOGUE_H */
