/*
 * tests/file/file_check.h - a minimal, independent trace-file decoder for
 * the writer and drainer tests (the real reader lives in src/reader/).
 *
 * It follows docs/file-format.md "Reading": check the header, walk the
 * chunks (resynchronising on damage), keep sites by id, read live rings
 * with snapshot cursors and stream pages in page-seq order, decode each
 * record with its site's format.  It bounds-checks what it reads, but it
 * is test code: it loads the whole file and stops at the first thing it
 * does not like, saying why in f->err.
 */
#ifndef BP_TEST_FILE_CHECK_H
#define BP_TEST_FILE_CHECK_H

#include "file/compact.h"
#include "file/dense.h"
#include "file/layout.h"
#include "ring/ring.h"
#include "trace/site.h"

#include <bprint.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BP_MSG_MAX_TEST 4096

struct fc_site {
	int present;
	uint8_t kind;
	uint32_t line;
	const char *format, *file, *func;
};

struct fc_page {
	uint64_t seq;
	const unsigned char *data;
	unsigned char *own;		/* a decoded compact page, freed with the file */
};

struct fc_ring {
	uint64_t index;
	uint32_t tid, level;
	char comm[17];
	/* live file */
	const unsigned char *mem;
	size_t bytes;
	/* stream file */
	struct fc_page *pages;
	size_t npages, cap;
	uint32_t page_size;
	/* end chunk */
	int has_end;
	struct bp_file_end_ring end;
};

struct fc_file {
	unsigned char *data;
	size_t size;
	const struct bp_file_header *hdr;
	int stream;
	struct fc_site *sites;
	size_t nsites;
	size_t nlibs;
	char libpaths[4096];		/* every library path, '\n'-separated */
	struct fc_ring *rings;
	size_t nrings, rcap;
	int has_end;
	char err[256];
};

/* One decoded record. */
struct fc_rec {
	const struct fc_ring *ring;
	uint64_t ts, index, page_seq;
	uint32_t site;
	const char *msg;
};

typedef int (*fc_rec_fn)(void *arg, const struct fc_rec *r);

static int fc_fail(struct fc_file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fc_fail(struct fc_file *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->err, sizeof(f->err), fmt, ap);
	va_end(ap);
	return -1;
}

static const char *fc_str(const unsigned char *p, uint32_t len, const unsigned char *end)
{
	if (len == 0 || (size_t)(end - p) < len || p[len - 1] != '\0')
		return NULL;
	return (const char *)p;
}

static struct fc_ring *fc_ring_get(struct fc_file *f, uint64_t index)
{
	for (size_t i = 0; i < f->nrings; i++)
		if (f->rings[i].index == index)
			return &f->rings[i];
	if (f->nrings == f->rcap) {
		f->rcap = f->rcap ? 2 * f->rcap : 16;
		f->rings = realloc(f->rings, f->rcap * sizeof(*f->rings));
	}
	memset(&f->rings[f->nrings], 0, sizeof(f->rings[0]));
	f->rings[f->nrings].index = index;
	return &f->rings[f->nrings++];
}

static int fc_sites(struct fc_file *f, const unsigned char *c, uint64_t size)
{
	const struct bp_file_list *l = (const void *)c;
	uint32_t used = l->used;
	const unsigned char *p = c + BP_FILE_LIST_HDR_BYTES, *end;

	if (used > size - BP_FILE_LIST_HDR_BYTES)
		return fc_fail(f, "sites chunk: used %u too large", used);
	end = p + used;
	while (p < end) {
		struct bp_file_site s;
		const unsigned char *q, *rend;
		const char *fmt, *file, *func;

		if ((size_t)(end - p) < sizeof(s))
			return fc_fail(f, "sites chunk: short record");
		memcpy(&s, p, sizeof(s));
		if (s.rec_bytes < sizeof(s) || (s.rec_bytes & 3) || s.rec_bytes > (size_t)(end - p))
			return fc_fail(f, "sites chunk: bad rec_bytes %u", s.rec_bytes);
		rend = p + s.rec_bytes;
		q = p + sizeof(s);
		if (!(fmt = fc_str(q, s.format_len, rend)) ||
		    !(file = fc_str(q += s.format_len, s.file_len, rend)) ||
		    !(func = fc_str(q += s.file_len, s.func_len, rend)))
			return fc_fail(f, "sites chunk: bad string in site %u", s.id);
		if (s.id == 0 || s.id > BP_SITE_MAX)
			return fc_fail(f, "sites chunk: bad id %u", s.id);
		if (s.id >= f->nsites) {
			size_t n = s.id + 1;

			f->sites = realloc(f->sites, n * sizeof(*f->sites));
			memset(f->sites + f->nsites, 0, (n - f->nsites) * sizeof(*f->sites));
			f->nsites = n;
		}
		if (!f->sites[s.id].present)
			f->sites[s.id] = (struct fc_site){ 1, s.kind, s.line, s.has_format ? fmt : NULL,
							   file, func };
		p = rend;
	}
	return 0;
}

static int fc_libs(struct fc_file *f, const unsigned char *c, uint64_t size)
{
	const struct bp_file_list *l = (const void *)c;
	uint32_t used = l->used;
	const unsigned char *p = c + BP_FILE_LIST_HDR_BYTES, *end;

	if (used > size - BP_FILE_LIST_HDR_BYTES)
		return fc_fail(f, "libraries chunk: used %u too large", used);
	end = p + used;
	while (p < end) {
		struct bp_file_lib lib;
		const char *path;

		if ((size_t)(end - p) < sizeof(lib))
			return fc_fail(f, "libraries chunk: short record");
		memcpy(&lib, p, sizeof(lib));
		if (lib.rec_bytes < sizeof(lib) || (lib.rec_bytes & 3) ||
		    lib.rec_bytes > (size_t)(end - p) || lib.build_id_len > BP_FILE_BUILD_ID_MAX ||
		    lib.lo > lib.hi)
			return fc_fail(f, "libraries chunk: bad record");
		path = fc_str(p + sizeof(lib) + lib.build_id_len, lib.path_len, p + lib.rec_bytes);
		if (!path)
			return fc_fail(f, "libraries chunk: bad path");
		f->nlibs++;
		if (strlen(f->libpaths) + strlen(path) + 2 < sizeof(f->libpaths)) {
			strcat(f->libpaths, path);
			strcat(f->libpaths, "\n");
		}
		p += lib.rec_bytes;
	}
	return 0;
}

static int fc_load(const char *path, struct fc_file *f)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	uint64_t off;

	memset(f, 0, sizeof(*f));
	if (fd < 0 || fstat(fd, &st) != 0)
		return fc_fail(f, "%s: %s", path, strerror(errno));
	f->size = (size_t)st.st_size;
	f->data = malloc(f->size + 1);
	for (size_t got = 0; f->data && got < f->size;) {	/* one read returns at most ~2 GiB */
		ssize_t n = pread(fd, f->data + got, f->size - got, (off_t)got);

		if (n <= 0) {
			free(f->data);
			f->data = NULL;
			break;
		}
		got += (size_t)n;
	}
	if (!f->data) {
		close(fd);
		return fc_fail(f, "%s: cannot read", path);
	}
	close(fd);
	if (f->size < BP_FILE_HEADER_BYTES)
		return fc_fail(f, "short file (%zu bytes)", f->size);
	f->hdr = (const void *)f->data;
	if (memcmp(f->hdr->magic, BP_FILE_MAGIC, 8) || f->hdr->major != BP_FILE_MAJOR ||
	    f->hdr->byte_order != BP_FILE_LITTLE_ENDIAN || f->hdr->word_size != 8 ||
	    f->hdr->header_bytes != BP_FILE_HEADER_BYTES || f->hdr->align != BP_FILE_ALIGN)
		return fc_fail(f, "bad header");
	f->stream = (f->hdr->flags & BP_FILE_F_STREAM) != 0;
	for (off = BP_FILE_HEADER_BYTES; off + BP_CHUNK_HDR_BYTES <= f->size;) {
		const unsigned char *c = f->data + off;
		const struct bp_file_chunk *ch = (const void *)c;
		int rc = 0;

		if (memcmp(ch->magic, BP_CHUNK_MAGIC, 4) || ch->type == 0 ||
		    ch->type > BP_CHUNK_TYPE_MAX || ch->size == 0 || ch->size % BP_FILE_ALIGN ||
		    ch->size > f->size - off) {
			off += BP_FILE_ALIGN;	/* resynchronise */
			continue;
		}
		if (ch->state != BP_CHUNK_COMPLETE) {
			off += ch->size;
			continue;
		}
		switch (ch->type) {
		case BP_CHUNK_SITES:
			rc = fc_sites(f, c, ch->size);
			break;
		case BP_CHUNK_LIBS:
			rc = fc_libs(f, c, ch->size);
			break;
		case BP_CHUNK_RING: {
			const struct bp_file_ring *r = (const void *)c;
			struct fc_ring *fr;

			if (r->ring_bytes > ch->size - BP_FILE_RING_OFFSET)
				return fc_fail(f, "ring chunk: ring_bytes too large");
			fr = fc_ring_get(f, ch->index);
			fr->tid = r->tid;
			fr->level = r->level;
			memcpy(fr->comm, r->comm, 16);
			fr->mem = c + BP_FILE_RING_OFFSET;
			fr->bytes = r->ring_bytes;
			break;
		}
		case BP_CHUNK_PAGES: {
			const struct bp_file_pages *pc = (const void *)c;
			struct fc_ring *fr;

			if (pc->page_size < BP_RING_PAGE_MIN || pc->page_size > (1u << 20) ||
			    (pc->page_size & (pc->page_size - 1)) ||
			    (uint64_t)pc->npages * pc->page_size > ch->size - BP_FILE_PAGES_OFFSET)
				return fc_fail(f, "pages chunk: bad geometry");
			fr = fc_ring_get(f, pc->ring_index);
			if (fr->page_size && fr->page_size != pc->page_size)
				return fc_fail(f, "pages chunk: page size changed");
			fr->page_size = pc->page_size;
			fr->tid = pc->tid;
			fr->level = pc->level;
			memcpy(fr->comm, pc->comm, 16);
			for (uint32_t i = 0; i < pc->npages; i++) {
				const unsigned char *pg = c + BP_FILE_PAGES_OFFSET + (size_t)i * pc->page_size;
				uint64_t seq;

				memcpy(&seq, pg, 8);
				if (fr->npages == fr->cap) {
					fr->cap = fr->cap ? 2 * fr->cap : 64;
					fr->pages = realloc(fr->pages, fr->cap * sizeof(*fr->pages));
				}
				fr->pages[fr->npages++] = (struct fc_page){ seq, pg, NULL };
			}
			break;
		}
		case BP_CHUNK_CPAGES:
		case BP_CHUNK_DPAGES: {
			const struct bp_file_cpages *pc = (const void *)c;
			struct fc_ring *fr;
			size_t at = 0;

			if (pc->page_size < BP_RING_PAGE_MIN || pc->page_size > (1u << 20) ||
			    (pc->page_size & (pc->page_size - 1)) ||
			    pc->data_bytes > ch->size - BP_FILE_PAGES_OFFSET)
				return fc_fail(f, "compact pages chunk: bad geometry");
			fr = fc_ring_get(f, pc->ring_index);
			if (fr->page_size && fr->page_size != pc->page_size)
				return fc_fail(f, "compact pages chunk: page size changed");
			fr->page_size = pc->page_size;
			fr->tid = pc->tid;
			fr->level = pc->level;
			memcpy(fr->comm, pc->comm, 16);
			for (uint32_t i = 0; i < pc->npages; i++) {
				const unsigned char *e = c + BP_FILE_PAGES_OFFSET + at;
				unsigned char *pg;
				size_t len;
				uint64_t seq;

				if (pc->data_bytes - at < BP_COMPACT_ENTRY_HDR ||
				    !(len = bp_compact_entry_len(e, pc->page_size)) ||
				    len > pc->data_bytes - at)
					return fc_fail(f, "compact pages chunk: entry outside the chunk");
				at += len;
				memcpy(&seq, e, 8);
				if (seq == 0)
					continue;	/* a hole */
				pg = malloc(pc->page_size);
				if (!pg || bp_page_entry_decode(ch->type, e, len, pc->page_size, pg) != 0) {
					free(pg);
					return fc_fail(f, "compact pages chunk: damaged entry");
				}
				if (fr->npages == fr->cap) {
					fr->cap = fr->cap ? 2 * fr->cap : 64;
					fr->pages = realloc(fr->pages, fr->cap * sizeof(*fr->pages));
				}
				fr->pages[fr->npages++] = (struct fc_page){ seq, pg, pg };
			}
			if (at != pc->data_bytes)
				return fc_fail(f, "compact pages chunk: data_bytes beyond its entries");
			break;
		}
		case BP_CHUNK_END: {
			const struct bp_file_end *e = (const void *)c;

			if (e->count > (ch->size - BP_FILE_END_HDR_BYTES) / BP_FILE_END_RING_BYTES)
				return fc_fail(f, "end chunk: bad count");
			for (uint32_t i = 0; i < e->count; i++) {
				struct bp_file_end_ring er;
				struct fc_ring *fr;

				memcpy(&er, c + BP_FILE_END_HDR_BYTES + (size_t)i * BP_FILE_END_RING_BYTES,
				       sizeof(er));
				fr = fc_ring_get(f, er.ring_index);
				fr->has_end = 1;
				fr->end = er;
				if (!fr->tid)
					fr->tid = er.tid, fr->level = er.level;
			}
			f->has_end = 1;
			break;
		}
		}
		if (rc)
			return rc;
		off += ch->size;
	}
	return 0;
}

static void fc_free(struct fc_file *f)
{
	for (size_t i = 0; i < f->nrings; i++) {
		for (size_t k = 0; k < f->rings[i].npages; k++)
			free(f->rings[i].pages[k].own);
		free(f->rings[i].pages);
	}
	free(f->rings);
	free(f->sites);
	free(f->data);
	memset(f, 0, sizeof(*f));
}

/* The message of one record, as the in-process reader makes it. */
static void fc_message(const struct fc_file *f, const struct bp_ring_event *ev, char *msg,
		       size_t cap, uint32_t *site_out)
{
	const uint32_t *payload = ev->payload;
	size_t words = ev->payload_len / 4;
	uint32_t user = ev->user_bits, id = user & BP_REC_SITE_MASK;
	const struct fc_site *s = id < f->nsites && f->sites[id].present ? &f->sites[id] : NULL;

	*site_out = id;
	if ((user & BP_REC_CPU) && words > 0) {
		payload++;
		words--;
	}
	if (user & BP_REC_TEXT) {
		size_t len = strnlen((const char *)payload, words * 4);

		if (len >= cap)
			len = cap - 1;
		memcpy(msg, payload, len);
		msg[len] = '\0';
	} else if (!s) {
		snprintf(msg, cap, "<unknown call site %u>", id);
	} else if (s->kind == BPRINT__SITE_PUTS) {
		snprintf(msg, cap, "%s", s->format ? s->format : "");
	} else if (!s->format) {
		snprintf(msg, cap, "<bad block>");
	} else {
		bp_bstr_printf(msg, cap, s->format, payload, words);
	}
}

/*
 * Every record of ring r, in order, to fn (which returns non-zero to stop
 * with an error).  Live ring: *missed = records the snapshot cursor counted
 * as overwritten.  Stream: *missed = gaps between consecutive pages' record
 * indexes.  Returns 0, or -1 with f->err set.
 */
static int fc_cmp_page(const void *a, const void *b)
{
	const struct fc_page *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int fc_read_ring(struct fc_file *f, struct fc_ring *r, fc_rec_fn fn, void *arg,
			uint64_t *nread, uint64_t *missed)
{
	static _Alignas(64) unsigned char buf[1u << 16];
	static char msg[BP_MSG_MAX_TEST];
	struct bp_ring_cursor cur;
	struct bp_ring_event ev;
	struct fc_rec rec = { .ring = r, .msg = msg };
	int rc;

	*nread = *missed = 0;
	if (r->mem && r->bytes) {
		struct bp_ring_stats st;

		if (bp_ring_stats(r->mem, r->bytes, &st) != BP_RING_OK)
			return 0;	/* not formatted yet when the process died */
		if (bp_ring_cursor_init(r->mem, r->bytes, &cur, BP_RING_CURSOR_SNAPSHOT) != BP_RING_OK)
			return fc_fail(f, "ring %llu: cursor", (unsigned long long)r->index);
		while ((rc = bp_ring_next(r->mem, r->bytes, &cur, &ev, buf, sizeof(buf))) == 1) {
			fc_message(f, &ev, msg, sizeof(msg), &rec.site);
			rec.ts = ev.ts;
			rec.index = ev.index;
			rec.page_seq = ev.page_seq;
			(*nread)++;
			if (fn && fn(arg, &rec))
				return -1;
		}
		if (rc < 0)
			return fc_fail(f, "ring %llu (tid %u): bp_ring_next %d",
				       (unsigned long long)r->index, r->tid, rc);
		*missed = cur.overwritten;
		return 0;
	}
	if (r->npages) {
		uint64_t expect = 0;	/* records before the first page count as missed */

		qsort(r->pages, r->npages, sizeof(*r->pages), fc_cmp_page);
		for (size_t i = 0; i < r->npages; i++) {
			struct bp_ring_page_iter it;
			uint64_t seq = r->pages[i].seq;
			uint64_t first = 0;

			if (seq == 0 || (i > 0 && seq == r->pages[i - 1].seq))
				return fc_fail(f, "ring %llu: page seq %llu repeated or zero",
					       (unsigned long long)r->index, (unsigned long long)seq);
			/* The ring's own checks read the page, with the reader's iterator. */
			memcpy(&first, r->pages[i].data + 16, 8);
			if (first < expect)
				return fc_fail(f, "ring %llu: first_rec went backwards",
					       (unsigned long long)r->index);
			*missed += first - expect;
			rc = bp_ring_page_begin(&it, r->pages[i].data, r->page_size, expect);
			while (rc == BP_RING_OK &&
			       (rc = bp_ring_page_next(&it, &ev, buf, sizeof(buf))) == 1) {
				rc = BP_RING_OK;
				fc_message(f, &ev, msg, sizeof(msg), &rec.site);
				rec.ts = ev.ts;
				rec.index = ev.index;
				rec.page_seq = ev.page_seq;
				(*nread)++;
				if (fn && fn(arg, &rec))
					return -1;
			}
			if (rc < 0)
				return fc_fail(f, "ring %llu page %llu: reading it: %d",
					       (unsigned long long)r->index, (unsigned long long)seq, rc);
			expect = it.next_rec;
		}
	}
	return 0;
}

#endif
