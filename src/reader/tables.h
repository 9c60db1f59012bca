/*
 * reader/tables.h - the reader's tables (tables.c): the call sites by id
 * and the libraries, parsed from the sites and libraries chunks as far as
 * their writer got.  The catalogue (catalogue.h) hands them the chunks it
 * finds and asks them to parse again at each update; everything else only
 * looks sites up.
 */
#ifndef BP_READER_TABLES_H
#define BP_READER_TABLES_H

#include "reader/reader.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_trace;
struct bp_site_layout;

#define MAX_STRING	(64u * 1024u)		/* longest site string or path kept */

/*
 * A site as the reader keeps it: the public part first (bp_trace_site()
 * returns it), then what is derived from its format on its first record,
 * so that the report loop does not decode the same format for every
 * record.  (A site's layout for the exporters hangs here too.)
 */
struct site_entry {
	struct bp_trace_site ts;
	struct bprint_site site;	/* the same, as the runtime's printers take it
					 * (bp_trace_site_runtime()) */
	struct bp_site_layout *layout;	/* the site's parsed format, plan and fields
					 * (reader/site_layout.h): made on first use,
					 * freed with the entry (tables_free); NULL
					 * if out of memory */
	bool layout_tried;
};

/* A sites or libraries chunk, parsed as far as its writer got. */
struct list_chunk {
	uint64_t off, size;
	uint32_t parsed;		/* bytes of records already parsed */
	uint32_t type;			/* BP_CHUNK_SITES or _LIBS */
	uint32_t crc;			/* a live file of 1.4: of the bytes parsed */
	bool crc_settled;		/* the crc matched up to parsed, or damage said */
};

/* The tables, in struct bp_trace (reading.h) as its member tables. */
struct bp_tables {
	struct site_entry **by_id;	/* index: site id */
	uint32_t by_id_cap, max_id;
	const struct bp_trace_site **sorted;	/* by id, rebuilt after new sites */
	size_t nsites;
	bool sites_added;		/* since sorted was built */
	struct bp_trace_lib *libs;
	size_t nlibs, libs_cap;
	struct list_chunk *lists;	/* the sites and libraries chunks found */
	size_t nlists, lists_cap;
};

/* The sites or libraries chunk at off (size bytes, type BP_CHUNK_SITES or
 * _LIBS), new to the tables: parsed as far as its writer got. */
int tables_add_list(struct bp_trace *t, uint64_t off, uint64_t size, uint32_t type);
/* Every list chunk parsed past what was parsed before (a live writer
 * appends to them). */
int tables_parse_lists(struct bp_trace *t);
void tables_sort_sites(struct bp_trace *t);
void tables_free(struct bp_trace *t);
/* A site made by the reader itself (a kernel event's): 0, or BP_TRACE_ENOMEM. */
int tables_add_site(struct bp_trace *t, uint32_t id, const char *fmt, const char *file,
		    const char *func);

/* The site of id, NULL if the tables lack it (in line: the merge looks a
 * site up for every record). */
static inline struct site_entry *tables_lookup(const struct bp_tables *tb, uint32_t id)
{
	return id < tb->by_id_cap ? tb->by_id[id] : NULL;
}

#endif /* BP_READER_TABLES_H */
