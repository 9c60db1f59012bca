/*
 * The reader's tables (tables.h): the records of sites and libraries
 * chunks, parsed past what was parsed before (a live writer appends to
 * them, and publishes each record through the list's `used`), into a site
 * table by id and a library table.  Only catalogue_update() calls the
 * parsers; the accessors below only read.
 */
#include "reader/reading.h"
#include "reader/site_layout.h"

#include "file/array.h"
#include "file/bytes.h"
#include "file/crc32c.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LIST_REC	(3u * MAX_STRING + 64u)

/* A string of len bytes (NUL included) at p: its text, or NULL if bad. */
static const char *string_at(const unsigned char *p, uint32_t len)
{
	if (len == 0 || len > MAX_STRING || p[len - 1] != '\0')
		return NULL;
	return (const char *)p;
}

/* Room in the site table for id. */
static int by_id_room(struct bp_trace *t, uint32_t id)
{
	size_t cap = t->tables.by_id_cap;
	struct site_entry **grown;

	if (id < t->tables.by_id_cap)
		return BP_TRACE_OK;
	if (!(grown = bp_array_grow(t->tables.by_id, &cap, (size_t)id + 1, sizeof(*grown))))
		return BP_TRACE_ENOMEM;
	t->tables.by_id = grown;
	t->tables.by_id_cap = (uint32_t)cap;
	return BP_TRACE_OK;
}

/* A site entry with its strings after it (fmt NULL: no format). */
static struct site_entry *site_new(const struct bp_file_site *h, const char *fmt,
				   const char *file, const char *func)
{
	struct site_entry *e = calloc(1, sizeof(*e) + h->format_len + h->file_len + h->func_len);
	struct bp_trace_site *s;
	char *strings;

	if (!e)
		return NULL;
	s = &e->ts;
	strings = (char *)(e + 1);
	s->size = sizeof(*s);
	s->line = h->line;
	s->id = h->id;
	s->kind = h->kind;
	s->lib = h->lib;
	if (fmt) {
		memcpy(strings, fmt, h->format_len);
		s->format = strings;
		strings += h->format_len;
	}
	memcpy(strings, file, h->file_len);
	s->file = strings;
	strings += h->file_len;
	memcpy(strings, func, h->func_len);
	s->func = strings;
	s->func_len = (uint32_t)strlen(strings);
	/* the same site as the runtime's printers take it */
	e->site.magic = BPRINT__SITE_MAGIC;
	e->site.layout = BPRINT__LAYOUT;
	e->site.enabled = 1;
	e->site.kind = (uint8_t)s->kind;
	e->site.line = s->line;
	e->site.id = s->id;
	e->site.format = s->format;
	e->site.file = s->file;
	e->site.func = s->func;
	return e;
}

_Static_assert(BP_TRACE_SITE_PRINTK == BPRINT__SITE_PRINTK && BP_TRACE_SITE_PUTS == BPRINT__SITE_PUTS,
	       "a site's kind is the runtime's");

_Static_assert(offsetof(struct site_entry, ts) == 0, "a site_entry begins with its public part");

const struct bprint_site *bp_trace_site_runtime(const struct bp_trace_site *ts)
{
	/* every bp_trace_site the reader hands out is a site_entry's ts */
	return ts ? &((const struct site_entry *)(const void *)ts)->site : NULL;
}

/* A site record of bytes bytes at rec: 0 (added, or a copy of one known),
 * -1 (damaged) or BP_TRACE_ENOMEM. */
static int add_site(struct bp_trace *t, const unsigned char *rec, uint32_t bytes)
{
	struct bp_file_site h;
	struct site_entry *e;
	const char *fmt = NULL, *file, *func;
	uint64_t need;

	memcpy(&h, rec, sizeof(h));
	need = (uint64_t)BP_FILE_SITE_BYTES + h.format_len + h.file_len + h.func_len;
	if (need > bytes || h.id == 0 || h.id > BP_REC_SITE_MASK || h.kind > BPRINT__SITE_PUTS)
		return -1;
	if (h.has_format && !(fmt = string_at(rec + 32, h.format_len)))
		return -1;
	file = string_at(rec + 32 + h.format_len, h.file_len);
	func = string_at(rec + 32 + h.format_len + h.file_len, h.func_len);
	if (!file || !func)
		return -1;
	if (tables_site(t, h.id))
		return 0;	/* the first copy wins */
	if (by_id_room(t, h.id) != BP_TRACE_OK || !(e = site_new(&h, fmt, file, func)))
		return BP_TRACE_ENOMEM;
	t->tables.by_id[h.id] = e;
	if (h.id > t->tables.max_id)
		t->tables.max_id = h.id;
	t->tables.nsites++;
	t->tables.sites_added = true;
	return 0;
}

int tables_add_site(struct bp_trace *t, uint32_t id, const char *fmt, const char *file,
		    const char *func)
{
	struct bp_file_site h;
	struct site_entry *e;

	memset(&h, 0, sizeof(h));
	h.id = id;
	h.has_format = 1;
	h.format_len = (uint32_t)strlen(fmt) + 1;
	h.file_len = (uint32_t)strlen(file) + 1;
	h.func_len = (uint32_t)strlen(func) + 1;
	if (id == 0 || id > BP_REC_SITE_MASK || tables_site(t, id))
		return BP_TRACE_OK;	/* a program's site of that id wins */
	if (by_id_room(t, id) != BP_TRACE_OK || !(e = site_new(&h, fmt, file, func)))
		return BP_TRACE_ENOMEM;
	t->tables.by_id[id] = e;
	if (id > t->tables.max_id)
		t->tables.max_id = id;
	t->tables.nsites++;
	t->tables.sites_added = true;
	return 0;
}

static int add_lib(struct bp_trace *t, const unsigned char *rec, uint32_t bytes)
{
	struct bp_file_lib h;
	struct bp_trace_lib *l;
	const char *path;
	char *copy;

	memcpy(&h, rec, sizeof(h));
	if (h.build_id_len > BP_FILE_BUILD_ID_MAX ||
	    (uint64_t)BP_FILE_LIB_BYTES + h.build_id_len + h.path_len > bytes || h.index == 0)
		return -1;
	if (!(path = string_at(rec + BP_FILE_LIB_BYTES + h.build_id_len, h.path_len)))
		return -1;
	for (size_t i = 0; i < t->tables.nlibs; i++)
		if (t->tables.libs[i].index == h.index)
			return 0;
	l = bp_array_grow(t->tables.libs, &t->tables.libs_cap, t->tables.nlibs + 1, sizeof(*l));
	if (!l || !(copy = strdup(path)))
		return BP_TRACE_ENOMEM;
	t->tables.libs = l;
	l = &t->tables.libs[t->tables.nlibs++];
	memset(l, 0, sizeof(*l));
	l->index = h.index;
	l->load_addr = h.load_addr;
	l->lo = h.lo;
	l->hi = h.hi;
	l->build_id_len = h.build_id_len;
	memcpy(l->build_id, rec + BP_FILE_LIB_BYTES, h.build_id_len);
	l->path = copy;
	return 0;
}

/* The record of bytes bytes at rec of list lc, into its table. */
static int add_record(struct bp_trace *t, const struct list_chunk *lc, const unsigned char *rec,
		      uint32_t bytes)
{
	int rc = lc->type == BP_CHUNK_SITES ? add_site(t, rec, bytes) : add_lib(t, rec, bytes);

	if (rc == BP_TRACE_ENOMEM)
		return rc;
	if (rc < 0)
		reader_problem(t, "chunk at %llu: bad %s record at byte %u",
			       (unsigned long long)lc->off,
			       lc->type == BP_CHUNK_SITES ? "site" : "library", lc->parsed);
	return BP_TRACE_OK;
}

/*
 * A live file of 1.4: the records parsed against the list's crc, which its
 * writer stores before each `used`.  A reader may see the crc of a later
 * `used` than the one it read: a mismatch is damage once the writer is
 * done, and until then a reason to look again.
 */
static void check_list_crc(struct bp_trace *t, struct list_chunk *lc, uint32_t crc)
{
	if (lc->crc_settled || (t->info.flags & BP_TRACE_F_STREAM) ||
	    t->info.minor < BP_FILE_MINOR_HCRC)
		return;
	if (lc->crc == crc)
		lc->crc_settled = true;
	else if (t->writer_gone) {
		lc->crc_settled = true;
		reader_problem(t, "chunk at %llu: its %s records do not match their checksum",
			       (unsigned long long)lc->off,
			       lc->type == BP_CHUNK_SITES ? "site" : "library");
	}
}

static int tables_parse_list(struct bp_trace *t, struct list_chunk *lc)
{
	struct bp_file_list h;
	uint64_t area = lc->size - BP_FILE_LIST_HDR_BYTES;
	uint32_t used;
	unsigned char *rec;
	int rc;

	if ((rc = reader_pread(t, lc->off, &h, sizeof(h))) != BP_TRACE_OK)
		return rc;
	used = atomic_load_explicit(&h.used, memory_order_acquire);
	if (used > area) {
		reader_problem(t, "chunk at %llu: records overflow the chunk",
			       (unsigned long long)lc->off);
		used = (uint32_t)area;
	}
	if (used <= lc->parsed) {
		check_list_crc(t, lc, h.crc);
		return BP_TRACE_OK;
	}
	lc->crc_settled = false;	/* more records: the crc goes on */
	rec = malloc(MAX_LIST_REC);
	if (!rec)
		return BP_TRACE_ENOMEM;
	while (lc->parsed + 8u <= used) {
		uint64_t at = lc->off + BP_FILE_LIST_HDR_BYTES + lc->parsed;
		uint32_t bytes, head = lc->type == BP_CHUNK_SITES ? BP_FILE_SITE_BYTES : BP_FILE_LIB_BYTES;

		if ((rc = reader_pread(t, at, rec, 4)) != BP_TRACE_OK)
			break;
		bytes = bp_ld32(rec);
		if (bytes < head || (bytes & 3u) || bytes > used - lc->parsed) {
			reader_problem(t, "chunk at %llu: bad record at byte %u",
				       (unsigned long long)lc->off, lc->parsed);
			lc->parsed = used;	/* the rest cannot be delimited */
			lc->crc_settled = true;	/* said */
			break;
		}
		if (bytes > MAX_LIST_REC) {
			reader_problem(t, "chunk at %llu: record too long", (unsigned long long)lc->off);
			lc->crc_settled = true;	/* said: its crc cannot be followed */
		} else {
			if ((rc = reader_pread(t, at, rec, bytes)) != BP_TRACE_OK)
				break;
			lc->crc = bp_crc32c(lc->crc, rec, bytes);
			if ((rc = add_record(t, lc, rec, bytes)) != BP_TRACE_OK)
				break;
		}
		lc->parsed += bytes;
	}
	if (rc == BP_TRACE_OK)
		check_list_crc(t, lc, h.crc);
	free(rec);
	return rc == BP_TRACE_ENOMEM || rc == BP_TRACE_EIO ? rc : BP_TRACE_OK;
}

int tables_add_list(struct bp_trace *t, uint64_t off, uint64_t size, uint32_t type)
{
	struct list_chunk *l = bp_array_grow(t->tables.lists, &t->tables.lists_cap,
					     t->tables.nlists + 1, sizeof(*l));

	if (!l)
		return BP_TRACE_ENOMEM;
	t->tables.lists = l;
	l = &t->tables.lists[t->tables.nlists++];
	l->off = off;
	l->size = size;
	l->parsed = 0;
	l->type = type;
	l->crc = 0;
	l->crc_settled = false;
	return tables_parse_list(t, l);
}

int tables_parse_lists(struct bp_trace *t)
{
	int rc;

	for (size_t i = 0; i < t->tables.nlists; i++)
		if ((rc = tables_parse_list(t, &t->tables.lists[i])) < 0)
			return rc;
	return BP_TRACE_OK;
}

/* The sites by id, for bp_trace_site_at(), after sites were added. */
void tables_sort_sites(struct bp_trace *t)
{
	const struct bp_trace_site **s;
	size_t n = 0;

	if (!t->tables.sites_added && t->tables.sorted)
		return;
	s = realloc(t->tables.sorted, (t->tables.nsites ? t->tables.nsites : 1) * sizeof(*s));
	if (!s)
		return;	/* bp_trace_site_at() finds none; the next update tries again */
	for (uint32_t id = 0; id < t->tables.by_id_cap; id++)
		if (t->tables.by_id[id])
			s[n++] = &t->tables.by_id[id]->ts;
	t->tables.sorted = s;
	t->tables.sites_added = false;
}

void tables_free(struct bp_trace *t)
{
	for (uint32_t i = 0; t->tables.by_id && i < t->tables.by_id_cap; i++) {
		struct site_entry *e = t->tables.by_id[i];

		if (e)
			bp_site_layout_free(e->layout);
		free(e);
	}
	free(t->tables.by_id);
	free(t->tables.sorted);
	for (size_t i = 0; i < t->tables.nlibs; i++)
		free((char *)(uintptr_t)t->tables.libs[i].path);
	free(t->tables.libs);
	free(t->tables.lists);
}

/* ---- accessors ---------------------------------------------------------- */

size_t bp_trace_nsites(const struct bp_trace *t)
{
	return t->tables.nsites;
}

const struct bp_trace_site *bp_trace_site_at(const struct bp_trace *t, size_t i)
{
	return i < t->tables.nsites && t->tables.sorted ? t->tables.sorted[i] : NULL;
}

const struct bp_trace_site *bp_trace_site(const struct bp_trace *t, uint32_t id)
{
	const struct site_entry *e = tables_site(t, id);

	return e ? &e->ts : NULL;
}

uint32_t bp_trace_max_site_id(const struct bp_trace *t)
{
	return t->tables.max_id;
}

size_t bp_trace_nlibs(const struct bp_trace *t)
{
	return t->tables.nlibs;
}

const struct bp_trace_lib *bp_trace_lib_at(const struct bp_trace *t, size_t i)
{
	return i < t->tables.nlibs ? &t->tables.libs[i] : NULL;
}

const struct bp_site_layout *bp_trace_site_layout(struct bp_trace *t, uint32_t id)
{
	struct site_entry *e = tables_site(t, id);

	if (!e || !e->ts.format)
		return NULL;
	if (!e->layout_tried) {
		e->layout = bp_site_layout_new(id, e->ts.kind, e->ts.format);
		e->layout_tried = true;
	}
	return e->layout;
}
