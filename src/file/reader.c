/*
 * file/reader.c - the trace-file reader (reader.h; docs/file-format.md).
 *
 * Opening walks the chunk headers once with pread(): sites and libraries
 * are copied into tables, rings and pages chunks become sources.  Nothing
 * else is read until records are asked for.
 *
 * A source is one ring, identified by its ring chunk's index in the live
 * file.  Its records come from two places, in this order:
 *
 *   1. its pages chunks (stream files), sorted by the seq of their first
 *      page.  Each page is pread() into a private two-page ring (a
 *      "staging ring": control block, two page slots) whose head is set to
 *      that page's seq, and read back with bp_ring_next(): the copied pages
 *      get exactly the checks of a live ring, and the cursor counts the
 *      records that no page holds (first_rec gaps) as overwritten;
 *   2. its ring chunk, if the file has one: mapped read-only and read with
 *      a snapshot cursor, skipping records whose index was already returned
 *      from the pages.  Pages behind the cursor are dropped from the
 *      mapping so that resident memory stays at a few pages per ring.
 *
 * Every source keeps its next record in hand; bp_trace_next() returns the
 * oldest (as src/trace/reader.c does for the process's own rings).
 *
 * Refreshing (a live file): the chunk walk resumes where it stopped, at
 * the first of the trailing offsets that held no complete chunk, and
 * re-examines chunks that were still being written; sites and libraries
 * chunks are re-read past what was parsed; dry sources are tried again.
 */
#include "file/reader.h"

#include "file/compact.h"
#include "file/dense.h"
#include "file/layout.h"
#include "file/valid.h"
#include "ring/ring.h"
#include "trace/record.h"
#include "trace/safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_STRING	(64u * 1024u)		/* longest site string or path kept */
#define MAX_PENDING	256u			/* chunks still being written, re-examined */
#define MAX_PAGE	(1u << 22)		/* largest streamed page accepted */
#define MAX_PAYLOAD	(BP_RING_REC_MAX_WORDS * 4u)
#define MAX_LIST_REC	(3u * MAX_STRING + 64u)

struct pchunk {
	uint64_t off;			/* the pages chunk */
	uint64_t first_seq;		/* seq of its first page (sort key) */
	uint32_t page_size, npages;
	uint32_t type;			/* BP_CHUNK_PAGES, _CPAGES or _DPAGES */
	uint64_t data_bytes;		/* compact: bytes of entries */
	uint64_t copied_before;		/* the ring's records in earlier chunks (1.1) */
	uint64_t nrec;			/* its records, UINT64_MAX until counted */
	uint64_t end_rec;		/* then: the index after its last, 0 = none */
};

struct source {
	struct bp_trace_ring info;
	/* the ring chunk, if any */
	uint64_t ring_chunk;		/* offset, 0 = none */
	uint64_t ring_bytes;
	unsigned char *map;		/* mapping of the chunk, NULL until used */
	size_t map_len;
	size_t map_skew;		/* chunk start - mapping start */
	const unsigned char *ring;	/* ring memory inside the mapping */
	struct bp_ring_cursor cur;
	bool cur_ready;
	uint64_t last_page;		/* page seq of the last record read from it */
	uint64_t drop_from;		/* first page seq not yet dropped, 0 = none read */
	/* pages chunks */
	struct pchunk *pc;
	size_t npc, cappc;
	size_t pc_i;			/* next chunk */
	uint32_t pg_i;			/* next page in it */
	uint64_t pg_off;		/* compact: offset of that page's entry */
	unsigned char *cbuf;		/* compact: one entry, as read */
	uint32_t cbuf_ps;		/* page size cbuf was made for */
	uint64_t fed_seq;		/* last page seq fed to the staging ring */
	unsigned char *stage;		/* staging ring, 256 + 2 * page_size */
	uint32_t stage_ps;
	struct bp_ring_cursor scur;
	struct source *first_of_tid;	/* the thread's first ring: its name */
	/* reading state */
	int phase;			/* 0 pages, 1 ring, 2 done */
	bool dry;			/* nothing more until the next refresh */
	bool dead;
	bool has;			/* a record in hand */
	bool counters_final;		/* from an end or accounts chunk */
	bool counters_end;		/* from an end chunk */
	bool accounted;			/* from an accounts chunk: copied is known */
	uint64_t copied;		/* records in its pages, as the accounts say */
	int32_t cpu;
	uint64_t next_index;
	struct bp_ring_event ev;
	uint32_t buf[MAX_PAYLOAD / 4];
	struct bp_record_args args;	/* ev's payload in buf, split */
};

/* A site as the reader keeps it: the public part first (by_id points at
 * it), then the format decoded once, on its first record, so that the
 * report loop does not decode the same format for every record. */
struct site_entry {
	struct bp_trace_site ts;
	struct bp_parsed_format *pf;	/* NULL until used, or if parsing failed */
	bool pf_tried;
	bool symbols;			/* the format has "pS" or "ps": the hook may apply */
};

struct list_chunk {
	uint64_t off, size;
	uint32_t parsed;		/* bytes of records already parsed */
	uint32_t type;
};

struct bp_trace {
	int fd;
	/* bp_trace_on_progress() */
	void (*progress)(void *arg, uint64_t records);
	void *progress_arg;
	uint64_t progress_every, progress_n;
	uint64_t size;
	size_t os_page;
	struct bp_trace_info info;
	struct bp_clock_calib calib;	/* the header's slot in force */
	/* chunk walk */
	uint64_t walk_pos;		/* resume here */
	uint64_t pending[MAX_PENDING];	/* chunks of state 0, to look at again */
	size_t npending;
	struct list_chunk *lists;
	size_t nlists, caplists;
	/* tables */
	struct bp_trace_site **by_id;	/* index: site id */
	uint32_t cap_id, max_id;
	struct bp_trace_site **sorted;
	size_t nsites;
	bool sorted_dirty;
	struct bp_trace_lib *libs;
	size_t nlibs, caplibs;
	struct source **src;
	size_t nsrc, capsrc;
	bool live;			/* refreshed: a writer may still be adding */
	/* problems */
	unsigned problems;
	char first_problem[256];
	/* %pS and %ps (file/symbols.h), made when first needed */
	unsigned open_flags;
	struct bp_symbols *sym;
	struct bp_pointer_hook hook;	/* print_symbol() on this reader */
	/* the record last returned */
	struct source *cur;
	char msg[BP_MSG_MAX];
};

/* ---- small helpers ------------------------------------------------------ */

__attribute__((format(printf, 2, 3)))
static void problem(struct bp_trace *t, const char *fmt, ...)
{
	va_list ap;

	if (t->problems++ == 0) {
		va_start(ap, fmt);
		bp_vsnprintf(t->first_problem, sizeof(t->first_problem), fmt, ap);
		va_end(ap);
	}
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 8;
	void *q;

	if (need <= *cap)
		return p;
	while (n < need)
		n *= 2;
	q = realloc(p, n * elem);
	if (q)
		*cap = n;
	return q;
}

/* Read n bytes at off, which must lie inside the file as last measured. */
static int rd(struct bp_trace *t, uint64_t off, void *buf, size_t n)
{
	unsigned char *p = buf;

	if (off > t->size || n > t->size - off)
		return BP_TRACE_EFORMAT;
	while (n > 0) {
		ssize_t r = pread(t->fd, p, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return BP_TRACE_EIO;
		if (r == 0)
			return BP_TRACE_EFORMAT;	/* shrank under us */
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return BP_TRACE_OK;
}

static uint32_t ld32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t ld64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void copy_name(char *dst, const char *src, size_t n)
{
	size_t len = strnlen(src, n);

	memcpy(dst, src, len);
	dst[len] = '\0';
}

static int measure(struct bp_trace *t)
{
	struct stat st;

	if (fstat(t->fd, &st) != 0)
		return BP_TRACE_EIO;
	t->size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
	t->info.file_size = t->size;
	return BP_TRACE_OK;
}

/* ---- header ------------------------------------------------------------- */

/* The calibration in force: a two-slot seqlock (docs/file-format.md). */
static void read_calib(struct bp_trace *t, const struct bp_file_header *h,
		       struct bp_clock_calib *out)
{
	uint64_t s1 = atomic_load_explicit(&h->calib_seq, memory_order_relaxed), s2;

	*out = h->calib[s1 & 1u];
	for (int tries = 0; tries < 100; tries++) {
		if (rd(t, offsetof(struct bp_file_header, calib_seq), &s1, sizeof(s1)) ||
		    rd(t, offsetof(struct bp_file_header, calib) + (s1 & 1u) * sizeof(*out), out,
		       sizeof(*out)) ||
		    rd(t, offsetof(struct bp_file_header, calib_seq), &s2, sizeof(s2)) || s1 == s2)
			return;
	}
}

/* Where the accounts are and why the writes stopped (stream files); what
 * the live file had no room for (either kind). */
static void read_stop(struct bp_trace_info *in, const struct bp_file_header *h)
{
	bool stream = atomic_load_explicit(&h->flags, memory_order_relaxed) & BP_FILE_F_STREAM;

	in->stop_reason = stream ? h->stop_reason : 0;
	in->stop_errno = stream ? (int)h->stop_errno : 0;
	in->stop_record = stream ? h->stop_record : 0;
	in->accounts_off = stream ? h->accounts : 0;
	in->memory_rings = atomic_load_explicit(&h->memory_rings, memory_order_relaxed);
	in->memory_records = atomic_load_explicit(&h->memory_records, memory_order_relaxed);
	in->missing_sites = atomic_load_explicit(&h->missing_sites, memory_order_relaxed);
}

static int read_header(struct bp_trace *t, char *err, size_t errlen)
{
	struct bp_file_header h;
	struct bp_trace_info *in = &t->info;
	size_t have = t->size < sizeof(h) ? (size_t)t->size : sizeof(h);
	const char *why;
	uint32_t len, i;
	size_t o;
	int rc;

	memset(&h, 0, sizeof(h));
	if (have >= sizeof(h.magic) && (rc = rd(t, 0, &h, have)) != BP_TRACE_OK) {
		bp_snprintf(err, errlen, "%s", rc == BP_TRACE_EIO ? strerror(errno) : "cannot read");
		return rc;
	}
	if ((why = bp_valid_header(&h, have, err, errlen)) != NULL) {
		if (why != err)
			bp_snprintf(err, errlen, "%s", why);
		return BP_TRACE_EFORMAT;
	}
	in->major = h.major;
	in->minor = h.minor;
	in->flags = atomic_load_explicit(&h.flags, memory_order_relaxed);
	in->word_size = h.word_size;
	in->ring_mode = h.ring_mode;
	in->pid = (int64_t)h.pid;
	in->start_realtime_ns = h.start_realtime_ns;
	in->start_mono_ns = h.start_mono_ns;
	in->end_hint = atomic_load_explicit(&h.end, memory_order_relaxed);
	read_stop(in, &h);
	read_calib(t, &h, &t->calib);
	in->clock_name = bp_clock_name((enum bp_clock_id)t->calib.clock_id);
	if (!in->clock_name)
		in->clock_name = "unknown";
	copy_name(in->comm, h.comm, sizeof(h.comm));
	len = h.cmdline_len < BP_FILE_CMDLINE_MAX ? h.cmdline_len : BP_FILE_CMDLINE_MAX;
	o = 0;
	for (i = 0; i < len && o + 3 < sizeof(in->cmdline); i++) {
		char c = h.cmdline[i];

		if (c == '\0' && (i == 0 || h.cmdline[i - 1] == '\0')) {
			/* an empty argument, as a shell writes it */
			in->cmdline[o++] = '\'';
			in->cmdline[o++] = '\'';
		}
		in->cmdline[o++] = c == '\0' ? ' ' : (c < ' ' || c == 0x7f) ? '?' : c;
	}
	while (o > 0 && in->cmdline[o - 1] == ' ')
		o--;
	in->cmdline[o] = '\0';
	return BP_TRACE_OK;
}

/* A newer header (a live writer's calibration, the drainer's final copy). */
static void reread_header(struct bp_trace *t)
{
	struct bp_file_header h;
	char why[128];

	if (t->size < sizeof(h) || rd(t, 0, &h, sizeof(h)) != BP_TRACE_OK ||
	    bp_valid_header(&h, sizeof(h), why, sizeof(why)))
		return;
	t->info.flags = atomic_load_explicit(&h.flags, memory_order_relaxed);
	t->info.end_hint = atomic_load_explicit(&h.end, memory_order_relaxed);
	read_stop(&t->info, &h);
	read_calib(t, &h, &t->calib);
}

/* ---- sources ------------------------------------------------------------ */

static struct source *source_for(struct bp_trace *t, uint64_t key, bool create)
{
	struct source *s;
	struct source **grown;

	for (size_t i = 0; i < t->nsrc; i++)
		if (t->src[i]->info.key == key)
			return t->src[i];
	if (!create)
		return NULL;
	grown = grow(t->src, &t->capsrc, t->nsrc + 1, sizeof(*t->src));
	if (!grown)
		return NULL;
	t->src = grown;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->info.key = key;
	s->cpu = -1;
	t->src[t->nsrc++] = s;
	return s;
}

static void set_comm(struct source *s, const char comm[16])
{
	copy_name(s->info.comm, comm, 16);
}

/* ---- sites and libraries ------------------------------------------------ */

/* A string of len bytes (NUL included) at p: its text, or NULL if bad. */
static const char *string_at(const unsigned char *p, uint32_t len)
{
	if (len == 0 || len > MAX_STRING || p[len - 1] != '\0')
		return NULL;
	return (const char *)p;
}

static int add_site(struct bp_trace *t, const unsigned char *rec, uint32_t bytes)
{
	struct bp_file_site h;
	struct site_entry *e;
	struct bp_trace_site *s;
	const char *fmt = NULL, *file, *func;
	uint64_t need;
	char *strings;

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
	if (h.id < t->cap_id && t->by_id[h.id])
		return 0;	/* the first copy wins */
	if (h.id >= t->cap_id) {
		size_t cap = t->cap_id;
		struct bp_trace_site **grown = grow(t->by_id, &cap, (size_t)h.id + 1, sizeof(*grown));

		if (!grown)
			return BP_TRACE_ENOMEM;
		memset(grown + t->cap_id, 0, (cap - t->cap_id) * sizeof(*grown));
		t->by_id = grown;
		t->cap_id = (uint32_t)cap;
	}
	e = calloc(1, sizeof(*e) + h.format_len + h.file_len + h.func_len);
	if (!e)
		return BP_TRACE_ENOMEM;
	s = &e->ts;
	strings = (char *)(e + 1);
	s->site.magic = BPRINT__SITE_MAGIC;
	s->site.layout = BPRINT__LAYOUT;
	s->site.line = h.line;
	s->site.id = h.id;
	s->site.kind = h.kind;
	s->site.enabled = 1;
	s->lib = h.lib;
	if (fmt) {
		memcpy(strings, fmt, h.format_len);
		s->site.format = strings;
		strings += h.format_len;
	}
	memcpy(strings, file, h.file_len);
	s->site.file = strings;
	strings += h.file_len;
	memcpy(strings, func, h.func_len);
	s->site.func = strings;
	s->func_len = (uint32_t)strlen(strings);
	t->by_id[h.id] = s;
	if (h.id > t->max_id)
		t->max_id = h.id;
	t->nsites++;
	t->sorted_dirty = true;
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
	for (size_t i = 0; i < t->nlibs; i++)
		if (t->libs[i].index == h.index)
			return 0;
	l = grow(t->libs, &t->caplibs, t->nlibs + 1, sizeof(*l));
	if (!l || !(copy = strdup(path)))
		return BP_TRACE_ENOMEM;
	t->libs = l;
	l = &t->libs[t->nlibs++];
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

/* Parse the records of a sites or libraries chunk past what was parsed. */
static int parse_list(struct bp_trace *t, struct list_chunk *lc)
{
	struct bp_file_list h;
	uint64_t area = lc->size - BP_FILE_LIST_HDR_BYTES;
	uint32_t used;
	unsigned char *rec;
	int rc;

	if ((rc = rd(t, lc->off, &h, sizeof(h))) != BP_TRACE_OK)
		return rc;
	used = atomic_load_explicit(&h.used, memory_order_acquire);
	if (used > area) {
		problem(t, "chunk at %llu: records overflow the chunk",
			(unsigned long long)lc->off);
		used = (uint32_t)area;
	}
	if (used <= lc->parsed)
		return BP_TRACE_OK;
	rec = malloc(MAX_LIST_REC);
	if (!rec)
		return BP_TRACE_ENOMEM;
	while (lc->parsed + 8u <= used) {
		uint64_t at = lc->off + BP_FILE_LIST_HDR_BYTES + lc->parsed;
		uint32_t bytes, head = lc->type == BP_CHUNK_SITES ? BP_FILE_SITE_BYTES : BP_FILE_LIB_BYTES;

		if ((rc = rd(t, at, rec, 4)) != BP_TRACE_OK)
			break;
		bytes = ld32(rec);
		if (bytes < head || (bytes & 3u) || bytes > used - lc->parsed) {
			problem(t, "chunk at %llu: bad record at byte %u",
				(unsigned long long)lc->off, lc->parsed);
			lc->parsed = used;	/* the rest cannot be delimited */
			break;
		}
		if (bytes > MAX_LIST_REC) {
			problem(t, "chunk at %llu: record too long", (unsigned long long)lc->off);
		} else {
			if ((rc = rd(t, at, rec, bytes)) != BP_TRACE_OK)
				break;
			rc = lc->type == BP_CHUNK_SITES ? add_site(t, rec, bytes) : add_lib(t, rec, bytes);
			if (rc == BP_TRACE_ENOMEM)
				break;
			if (rc < 0)
				problem(t, "chunk at %llu: bad %s record at byte %u",
					(unsigned long long)lc->off,
					lc->type == BP_CHUNK_SITES ? "site" : "library", lc->parsed);
			rc = BP_TRACE_OK;
		}
		lc->parsed += bytes;
	}
	free(rec);
	return rc == BP_TRACE_ENOMEM || rc == BP_TRACE_EIO ? rc : BP_TRACE_OK;
}

/* ---- chunks ------------------------------------------------------------- */

static int add_list(struct bp_trace *t, uint64_t off, uint64_t size, uint32_t type)
{
	struct list_chunk *l = grow(t->lists, &t->caplists, t->nlists + 1, sizeof(*l));

	if (!l)
		return BP_TRACE_ENOMEM;
	t->lists = l;
	l = &t->lists[t->nlists++];
	l->off = off;
	l->size = size;
	l->parsed = 0;
	l->type = type;
	return parse_list(t, l);
}

static int add_ring(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
{
	struct bp_file_ring h;
	struct source *s;
	int rc;

	if ((rc = rd(t, off, &h, sizeof(h))) != BP_TRACE_OK)
		return rc;
	if (h.ring_bytes > c->size - BP_FILE_RING_OFFSET || h.ring_bytes < BP_RING_CTL_BYTES) {
		problem(t, "ring chunk at %llu: bad ring size", (unsigned long long)off);
		return BP_TRACE_OK;
	}
	s = source_for(t, c->index, true);
	if (!s)
		return BP_TRACE_ENOMEM;
	if (s->ring_chunk)
		return BP_TRACE_OK;	/* two rings claim one index: keep the first */
	s->ring_chunk = off;
	s->ring_bytes = h.ring_bytes;
	s->info.tid = (int32_t)h.tid;
	s->info.level = h.level;
	s->info.state = atomic_load_explicit(&h.state, memory_order_relaxed);
	s->info.dropped = atomic_load_explicit(&h.dropped, memory_order_relaxed);
	set_comm(s, h.comm);
	s->dry = false;
	return BP_TRACE_OK;
}

static int add_pages(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
{
	struct bp_file_pages h;
	struct source *s;
	struct pchunk *pc;
	uint64_t first = 0, data = 0, waits = 0, wait_ns = 0, before = 0;
	bool bad;
	size_t i;
	int rc;

	if ((rc = rd(t, off, &h, sizeof(h))) != BP_TRACE_OK)
		return rc;
	bad = h.page_size < BP_RING_PAGE_MIN || h.page_size > MAX_PAGE ||
	      (h.page_size & (h.page_size - 1)) || h.npages == 0;
	if (c->type != BP_CHUNK_PAGES) {
		/* types 6 and 7: type 4's header, with data_bytes in its reserved bytes */
		memcpy(&data, (const unsigned char *)&h + offsetof(struct bp_file_cpages, data_bytes),
		       sizeof(data));
		memcpy(&waits, (const unsigned char *)&h + offsetof(struct bp_file_cpages, block_waits),
		       sizeof(waits));
		memcpy(&wait_ns, (const unsigned char *)&h + offsetof(struct bp_file_cpages, block_ns),
		       sizeof(wait_ns));
		memcpy(&before,
		       (const unsigned char *)&h + offsetof(struct bp_file_cpages, copied_before),
		       sizeof(before));
		bad = bad || data < BP_COMPACT_ENTRY_HDR || data > c->size - BP_FILE_PAGES_OFFSET ||
		      (uint64_t)h.npages * BP_COMPACT_ENTRY_HDR > data;
	} else {
		bad = bad || (uint64_t)h.npages * h.page_size > c->size - BP_FILE_PAGES_OFFSET;
	}
	if (bad) {
		problem(t, "pages chunk at %llu: bad geometry", (unsigned long long)off);
		return BP_TRACE_OK;
	}
	if ((rc = rd(t, off + BP_FILE_PAGES_OFFSET, &first, sizeof(first))) != BP_TRACE_OK)
		return rc;
	s = source_for(t, h.ring_index, true);
	if (!s)
		return BP_TRACE_ENOMEM;
	pc = grow(s->pc, &s->cappc, s->npc + 1, sizeof(*pc));
	if (!pc)
		return BP_TRACE_ENOMEM;
	s->pc = pc;
	/* Sorted by first seq; chunks come in order, so this is an append. */
	for (i = s->npc; i > s->pc_i && pc[i - 1].first_seq > first; i--)
		pc[i] = pc[i - 1];
	pc[i] = (struct pchunk){ off, first, h.page_size, h.npages, c->type, data, before,
				 UINT64_MAX, 0 };
	s->npc++;
	s->info.tid = (int32_t)h.tid;
	s->info.level = h.level;
	set_comm(s, h.comm);
	/* The accounts are older than the pages chunks written after them. */
	if (!s->counters_end) {
		if (h.written >= s->info.written)
			s->info.written = h.written;
		if (h.discarded >= s->info.discarded)
			s->info.discarded = h.discarded;
	}
	/* Block-mode waits: only the pages chunks carry them (the latest wins). */
	if (waits >= s->info.block_waits && wait_ns >= s->info.block_ns) {
		s->info.block_waits = waits;
		s->info.block_ns = wait_ns;
	}
	s->info.page_size = h.page_size;
	s->dry = false;
	if (s->phase == 2 && !s->dead)
		s->phase = 0;
	return BP_TRACE_OK;
}

/*
 * The end chunk (final counters), or the accounts chunk the header names
 * (the same entries, as far as a drainer that did not finish got): the
 * records it never copied are not_copied.  An end chunk wins.
 */
static int add_counters(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
{
	bool end = c->type == BP_CHUNK_END;
	struct bp_file_end h;
	unsigned char e[BP_FILE_END_RING_BYTES];
	uint64_t room;
	int rc;

	if ((rc = rd(t, off, &h, sizeof(h))) != BP_TRACE_OK)
		return rc;
	room = (c->size - BP_FILE_END_HDR_BYTES) / BP_FILE_END_RING_BYTES;
	if (h.count > room) {
		problem(t, "end chunk at %llu: bad count", (unsigned long long)off);
		return BP_TRACE_OK;
	}
	for (uint32_t i = 0; i < h.count; i++) {
		struct bp_file_end_ring r;
		struct source *s;

		if ((rc = rd(t, off + BP_FILE_END_HDR_BYTES + (uint64_t)i * sizeof(e), e,
			     sizeof(e))) != BP_TRACE_OK)
			return rc;
		memcpy(&r, e, sizeof(r));
		if (!r.ring_index)
			continue;	/* an accounts slot not filled */
		s = source_for(t, r.ring_index, true);
		if (!s)
			return BP_TRACE_ENOMEM;
		if (!end && s->counters_end)
			continue;
		if (!s->npc && !s->ring_chunk) {
			s->info.tid = (int32_t)r.tid;
			s->info.level = r.level;
			s->phase = 2;	/* a ring that never had a page copied */
		}
		if (end || r.written > s->info.written)
			s->info.written = r.written;
		if (end || r.discarded > s->info.discarded)
			s->info.discarded = r.discarded;
		s->info.dropped = r.dropped;
		s->info.lost_by_drainer = r.lost_records;
		s->info.not_copied = 0;
		s->copied = r.copied;
		s->accounted = !end;
		s->counters_final = true;
		s->counters_end = end;
	}
	if (!end)
		t->info.accounted = 1;
	return BP_TRACE_OK;
}

enum probe { PROBE_BAD, PROBE_PENDING, PROBE_OK };

static enum probe probe(struct bp_trace *t, uint64_t off, struct bp_file_chunk *c)
{
	if (off > t->size || t->size - off < BP_FILE_ALIGN ||
	    rd(t, off, c, sizeof(*c)) != BP_TRACE_OK)
		return PROBE_BAD;
	if (!bp_valid_chunk(c, off, t->size))
		return PROBE_BAD;
	if (bp_chunk_state(c) != BP_CHUNK_COMPLETE)
		return PROBE_PENDING;
	return PROBE_OK;
}

static int accept_chunk(struct bp_trace *t, uint64_t off, const struct bp_file_chunk *c)
{
	switch (c->type) {
	case BP_CHUNK_SITES:
	case BP_CHUNK_LIBS:
		return add_list(t, off, c->size, c->type);
	case BP_CHUNK_RING:
		return add_ring(t, off, c);
	case BP_CHUNK_PAGES:
	case BP_CHUNK_CPAGES:
	case BP_CHUNK_DPAGES:
		return add_pages(t, off, c);
	case BP_CHUNK_END:
		return add_counters(t, off, c);
	case BP_CHUNK_ACCOUNTS:
		/* only the one in force; older ones were moved to a bigger chunk */
		return off == t->info.accounts_off ? add_counters(t, off, c) : BP_TRACE_OK;
	default:
		return BP_TRACE_OK;
	}
}

static void remember_pending(struct bp_trace *t, uint64_t off)
{
	for (size_t i = 0; i < t->npending; i++)
		if (t->pending[i] == off)
			return;
	if (t->npending < MAX_PENDING)
		t->pending[t->npending++] = off;
}

/*
 * The next offset from off (aligned) that may hold a chunk header: the
 * start of the next data region, so that a hole (a sparse file, or space
 * allocated but never written) costs one lseek, not one read per align.
 * Where SEEK_DATA is not supported, off itself.
 */
static uint64_t next_data(struct bp_trace *t, uint64_t off)
{
	off_t d;

	if (off >= t->size)
		return off;
	d = lseek(t->fd, (off_t)off, SEEK_DATA);
	if (d < 0)
		return errno == ENXIO ? t->size : off;	/* ENXIO: nothing but a hole is left */
	return (uint64_t)d > off ? (uint64_t)d & ~(uint64_t)(BP_FILE_ALIGN - 1) : off;
}

/* Walk from t->walk_pos to the end of the file. */
static int walk(struct bp_trace *t)
{
	uint64_t off = t->walk_pos, bad_from = UINT64_MAX;
	struct bp_file_chunk c;
	int rc;

	while (off <= t->size && t->size - off >= BP_FILE_ALIGN) {
		switch (probe(t, off, &c)) {
		case PROBE_OK:
			if ((rc = accept_chunk(t, off, &c)) < 0)
				return rc;
			off += c.size;
			bad_from = UINT64_MAX;
			break;
		case PROBE_PENDING:
			remember_pending(t, off);
			off += c.size;
			bad_from = UINT64_MAX;
			break;
		default:
			if (bad_from == UINT64_MAX)
				bad_from = off;
			off = next_data(t, off + BP_FILE_ALIGN);
			break;
		}
	}
	/* Resume at the trailing run of offsets that held no chunk (yet). */
	t->walk_pos = bad_from != UINT64_MAX ? bad_from : off;
	return BP_TRACE_OK;
}

/*
 * A file that goes on past both its last chunk and the header's end with
 * nothing but a hole was not left so by a writer (live files grow to `end`
 * at most, stream files are written without holes): say so once, at open.
 */
static void check_tail(struct bp_trace *t)
{
	uint64_t from = t->walk_pos > t->info.end_hint ? t->walk_pos : t->info.end_hint;

	if (from >= t->size || t->size - from < BP_FILE_ALIGN)
		return;
	if (lseek(t->fd, (off_t)from, SEEK_DATA) < 0 && errno == ENXIO)
		problem(t, "no chunk in its last %llu bytes, a hole past the header's end",
			(unsigned long long)(t->size - from));
}

static int revisit_pending(struct bp_trace *t)
{
	struct bp_file_chunk c;
	size_t i = 0;
	int rc;

	while (i < t->npending) {
		uint64_t off = t->pending[i];
		enum probe p = probe(t, off, &c);

		if (p == PROBE_PENDING) {
			i++;
			continue;
		}
		t->pending[i] = t->pending[--t->npending];
		if (p == PROBE_OK && (rc = accept_chunk(t, off, &c)) < 0)
			return rc;
	}
	return BP_TRACE_OK;
}

/* ---- ring chunks reused, retired rings (format 1.3) -------------------- */

/*
 * The live file reuses an exited thread's ring chunk for a new ring
 * (docs/file-format.md, "Ring chunks reused"), and counts in its header
 * the rings it reused while their records were in no other file.  Those
 * are one more ring here, key 0 (no chunk has index 0), tid -1,
 * "(retired)": its stored records all overwritten.  A ring chunk whose
 * index changed under this reader (seen at a refresh, or right after a
 * record was read from it) holds a new ring: the old one is over (left
 * as read or, if it had exited, its counts moved into the retired ring,
 * which now counts it), and the chunk is looked at again as a new one.
 * The only place that knows of reuse.
 */
static void retired_counts(struct bp_trace *t)
{
	uint64_t c[3];	/* retired_rings and missing_libs, retired_written, retired_discarded */
	struct source *r = source_for(t, 0, false);

	if (rd(t, offsetof(struct bp_file_header, retired_rings), c, sizeof(c)) != BP_TRACE_OK ||
	    !c[1] || (!r && !(r = source_for(t, 0, true))))
		return;
	r->info.tid = -1;
	memcpy(r->info.comm, "(retired)", sizeof("(retired)"));
	r->info.state = BP_RING_EXITED;
	r->info.written = c[1];
	r->info.discarded = c[2] < c[1] ? c[2] : c[1];
	r->info.overwritten = c[1] - r->info.discarded > r->info.read
				      ? c[1] - r->info.discarded - r->info.read : 0;
	r->phase = 2;
	r->counters_final = true;
}

/* s's ring chunk holds another ring now: s is over. */
static void ring_over(struct bp_trace *t, struct source *s)
{
	struct source *r;

	s->dead = true;
	s->counters_final = true;
	remember_pending(t, s->ring_chunk);
	if (s->info.state == BP_RING_EXITED && (r = source_for(t, 0, true))) {
		r->info.read += s->info.read;	/* the retired ring counts it now */
		memset(&s->info.written, 0, sizeof(s->info) - offsetof(struct bp_trace_ring, written));
	}
	retired_counts(t);
}

/*
 * Is s's mapped ring chunk still s's ring, after a record was read from
 * it?  The writer stores the chunk's state "being written", then a
 * release fence, before it changes the ring (C2 in src/file/writer_rings.c):
 * a record read from a changed ring finds the state, or a new index.
 */
static bool ring_still(const struct source *s)
{
	const struct bp_file_chunk *c = (const void *)(s->ring - BP_FILE_RING_OFFSET);

	atomic_thread_fence(memory_order_acquire);	/* the record's bytes before the check */
	return atomic_load_explicit(&c->state, memory_order_relaxed) == BP_CHUNK_COMPLETE &&
	       __atomic_load_n(&c->index, __ATOMIC_RELAXED) == s->info.key;
}

/* At open and at each refresh: the ring chunks known, and the retired ring. */
static void reused_rings(struct bp_trace *t)
{
	for (size_t i = 0; t->live && i < t->nsrc; i++) {
		struct source *s = t->src[i];
		struct bp_file_ring h;

		if (!s->ring_chunk || s->dead || rd(t, s->ring_chunk, &h, sizeof(h)) != BP_TRACE_OK)
			continue;
		if (h.chunk.index == s->info.key)
			s->info.state = atomic_load_explicit(&h.state, memory_order_relaxed);
		else
			ring_over(t, s);
	}
	retired_counts(t);
}

/* ---- open, close, refresh ---------------------------------------------- */

static void print_symbol(void *ctx, char letter, uint64_t address, char *buf, size_t size);

struct bp_trace *bp_trace_open(const char *path, unsigned flags, char *err, size_t errlen,
			       int *rcp)
{
	struct bp_trace *t = calloc(1, sizeof(*t));
	const char *why;
	int rc;
	long pg = sysconf(_SC_PAGESIZE);

	if (!t) {
		bp_snprintf(err, errlen, "%s", strerror(ENOMEM));
		if (rcp)
			*rcp = BP_TRACE_ENOMEM;
		return NULL;
	}
	t->os_page = pg > 0 ? (size_t)pg : 4096u;
	t->open_flags = flags;
	t->hook = (struct bp_pointer_hook){ "Ss", print_symbol, t };
	t->fd = bp_open_input(path, &why);	/* a regular file, opened without blocking */
	if (t->fd < 0) {
		bp_snprintf(err, errlen, "%s", why ? why : strerror(errno));
		free(t);
		if (rcp)
			*rcp = BP_TRACE_EIO;
		return NULL;
	}
	rc = measure(t);
	if (rc == BP_TRACE_OK)
		rc = read_header(t, err, errlen);
	else
		bp_snprintf(err, errlen, "%s", strerror(errno));
	if (rc == BP_TRACE_OK) {
		t->walk_pos = BP_FILE_HEADER_BYTES;
		rc = walk(t);
		check_tail(t);
		reused_rings(t);
		if (rc != BP_TRACE_OK)
			bp_snprintf(err, errlen, "%s", rc == BP_TRACE_ENOMEM ? strerror(ENOMEM)
					      : rc == BP_TRACE_EIO ? strerror(errno) : "corrupt file");
	}
	if (rc != BP_TRACE_OK) {
		bp_trace_close(t);
		if (rcp)
			*rcp = rc;
		return NULL;
	}
	if (rcp)
		*rcp = BP_TRACE_OK;
	return t;
}

static void source_free(struct source *s)
{
	if (s->map)
		munmap(s->map, s->map_len);
	free(s->stage);
	free(s->cbuf);
	free(s->pc);
	free(s);
}

void bp_trace_close(struct bp_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nsrc; i++)
		source_free(t->src[i]);
	free(t->src);
	if (t->by_id)
		for (uint32_t i = 0; i < t->cap_id; i++) {
			struct site_entry *e = (struct site_entry *)(void *)t->by_id[i];

			if (e)
				bp_format_parsed_free(e->pf);
			free(e);
		}
	free(t->by_id);
	free(t->sorted);
	for (size_t i = 0; i < t->nlibs; i++)
		free((char *)(uintptr_t)t->libs[i].path);
	free(t->libs);
	free(t->lists);
	bp_symbols_free(t->sym);
	if (t->fd >= 0)
		close(t->fd);
	free(t);
}

int bp_trace_refresh(struct bp_trace *t)
{
	int rc;

	t->live = true;
	if ((rc = measure(t)) != BP_TRACE_OK)
		return rc;
	reread_header(t);
	reused_rings(t);
	for (size_t i = 0; i < t->nlists; i++)
		if ((rc = parse_list(t, &t->lists[i])) < 0)
			return rc;
	if ((rc = revisit_pending(t)) < 0 || (rc = walk(t)) < 0)
		return rc;
	for (size_t i = 0; i < t->nsrc; i++) {
		struct source *s = t->src[i];

		s->dry = false;
		if (s->phase == 2 && !s->dead && (s->ring_chunk || s->pc_i < s->npc))
			s->phase = s->pc_i < s->npc ? 0 : 1;
	}
	return BP_TRACE_OK;
}

/* ---- accessors ---------------------------------------------------------- */

const struct bp_trace_info *bp_trace_info(const struct bp_trace *t)
{
	return &t->info;
}

static int by_id_cmp(const void *a, const void *b)
{
	uint32_t x = (*(const struct bp_trace_site *const *)a)->site.id;
	uint32_t y = (*(const struct bp_trace_site *const *)b)->site.id;

	return x < y ? -1 : x > y;
}

size_t bp_trace_nsites(const struct bp_trace *t)
{
	return t->nsites;
}

const struct bp_trace_site *bp_trace_site_at(const struct bp_trace *t, size_t i)
{
	struct bp_trace *m = (struct bp_trace *)(uintptr_t)t;

	if (i >= t->nsites)
		return NULL;
	if (m->sorted_dirty || !m->sorted) {
		struct bp_trace_site **s = realloc(m->sorted, t->nsites * sizeof(*s));
		size_t n = 0;

		if (!s)
			return NULL;
		for (uint32_t id = 0; id < t->cap_id; id++)
			if (t->by_id[id])
				s[n++] = t->by_id[id];
		qsort(s, n, sizeof(*s), by_id_cmp);
		m->sorted = s;
		m->sorted_dirty = false;
	}
	return m->sorted[i];
}

const struct bp_trace_site *bp_trace_site(const struct bp_trace *t, uint32_t id)
{
	return id < t->cap_id ? t->by_id[id] : NULL;
}

uint32_t bp_trace_max_site_id(const struct bp_trace *t)
{
	return t->max_id;
}

size_t bp_trace_nlibs(const struct bp_trace *t)
{
	return t->nlibs;
}

const struct bp_trace_lib *bp_trace_lib_at(const struct bp_trace *t, size_t i)
{
	return i < t->nlibs ? &t->libs[i] : NULL;
}

size_t bp_trace_nrings(const struct bp_trace *t)
{
	return t->nsrc;
}

static void ring_counters(struct source *s)
{
	struct bp_ring_stats rs;

	if (!s->ring || s->counters_final)
		return;
	if (bp_ring_stats(s->ring, s->ring_bytes, &rs) == BP_RING_OK) {
		s->info.written = rs.written;
		s->info.discarded = rs.discarded;
		s->info.block_waits = rs.block_waits;
		s->info.block_ns = rs.block_ns;
		s->info.page_size = rs.page_size;
		s->info.npages = rs.npages;
	}
}

static bool map_ring(struct bp_trace *t, struct source *s);

/* One decoded page's data records into pc: their count, and the index
 * after its last one (first_rec counts the ring's records before it). */
static void count_page(struct pchunk *pc, const unsigned char *page, uint32_t commit)
{
	uint64_t n = bp_page_count_records(page + BP_RING_PAGE_HDR_BYTES, commit);

	pc->nrec += n;
	if (n)
		pc->end_rec = ld64(page + offsetof(struct bp_ring_page, first_rec)) + n;
}

/*
 * Count the data records of pages chunk pc (pc->nrec) and find the index
 * after its last one (pc->end_rec, 0 if none) by decoding its pages as
 * reading would (a page that does not decode counts nothing: reading
 * skips it too).  Bounded by the chunk's npages and data_bytes.
 */
static void chunk_records(struct bp_trace *t, struct pchunk *pc)
{
	size_t entry_max = bp_compact_entry_max(pc->page_size);
	unsigned char *entry = malloc(entry_max), *page = malloc(pc->page_size);
	uint64_t pos = 0;

	pc->nrec = 0;
	pc->end_rec = 0;
	for (uint32_t i = 0; entry && page && i < pc->npages; i++) {
		uint64_t base = pc->off + BP_FILE_PAGES_OFFSET;
		size_t len;

		if (pc->type == BP_CHUNK_PAGES) {
			uint32_t commit;

			if (rd(t, base + (uint64_t)i * pc->page_size, page, pc->page_size) !=
			    BP_TRACE_OK)
				break;
			commit = ld32(page + offsetof(struct bp_ring_page, commit));
			if (ld64(page) && commit <= pc->page_size - BP_RING_PAGE_HDR_BYTES)
				count_page(pc, page, commit);
			continue;
		}
		if (pos > pc->data_bytes || pc->data_bytes - pos < BP_COMPACT_ENTRY_HDR ||
		    rd(t, base + pos, entry, BP_COMPACT_ENTRY_HDR) != BP_TRACE_OK)
			break;
		len = bp_compact_entry_len(entry, pc->page_size);
		if (!len || len > entry_max || len > pc->data_bytes - pos)
			break;	/* where reading stops too */
		if (ld64(entry) && rd(t, base + pos, entry, len) == BP_TRACE_OK &&
		    bp_page_entry_decode(pc->type, entry, len, pc->page_size, page) == 0)
			count_page(pc, page, ld32(page + offsetof(struct bp_ring_page, commit)));
		pos += len;
	}
	free(entry);
	free(page);
}

static struct pchunk *counted(struct bp_trace *t, struct pchunk *pc)
{
	if (pc->nrec == UINT64_MAX)
		chunk_records(t, pc);
	return pc;
}

/*
 * Where the accounts of s leave its records, before reading: every record
 * index below the returned one is in a pages chunk or was lost, and
 * *after is the records of the chunks the accounts do not count.  The
 * drainer writes a pages chunk, then the accounts (docs/file-format.md,
 * type 7), so one killed in between leaves chunks whose copied_before is
 * at least the accounts' copied; their records, and the pages the drainer
 * lost among them, are then in no count but the pages' own first_rec, so
 * the index after the last record found is the bound (reading finds the
 * same: what is below it and not read is overwritten).  Files without
 * copied_before (0) count no chunk as after unless the accounts count
 * nothing, which is then exact too.
 */
static uint64_t accounted_end(struct bp_trace *t, struct source *s, uint64_t *after)
{
	uint64_t end = s->copied + s->info.lost_by_drainer;

	*after = 0;
	for (size_t i = 0; i < s->npc; i++)
		if (s->pc[i].copied_before >= s->copied)
			*after += counted(t, &s->pc[i])->nrec;
	end += *after;
	for (size_t i = s->npc; i-- > 0;) {
		uint64_t last = counted(t, &s->pc[i])->end_rec;

		if (last) {
			if (last > end)
				end = last;
			break;
		}
	}
	return end;
}

const struct bp_trace_ring *bp_trace_ring_at(const struct bp_trace *t, size_t i)
{
	struct source *s;
	uint64_t floor;

	if (i >= t->nsrc)
		return NULL;
	s = t->src[i];
	if (s->ring_chunk && !s->map && !s->dead)
		map_ring((struct bp_trace *)(uintptr_t)t, s);
	ring_counters(s);
	floor = s->info.read + s->info.overwritten;
	if (s->accounted) {
		/* Written but in no page: what neither the accounts (with the
		 * chunks written after their last update) nor this reader found. */
		uint64_t after, have = accounted_end((struct bp_trace *)(uintptr_t)t, s, &after);
		uint64_t stored = s->info.written > s->info.discarded
					  ? s->info.written - s->info.discarded : 0;

		/* the pages it lost among the chunks the accounts do not count */
		s->info.lost_by_drainer = have - s->copied - after;
		if (floor > have)
			have = floor;
		s->info.not_copied = stored > have ? stored - have : 0;
		floor = have;
	}
	/* What was read, or lies below a record found, was written: a
	 * process killed between a record's commit and the store of the
	 * ring's written count leaves the count one short, and the drainer's
	 * copy of the count may be older than the pages it copied next. */
	if (floor + s->info.discarded + s->info.not_copied > s->info.written)
		s->info.written = floor + s->info.discarded + s->info.not_copied;
	return &s->info;
}

unsigned bp_trace_problems(const struct bp_trace *t, const char **first)
{
	if (first)
		*first = t->first_problem;
	return t->problems;
}

void bp_trace_totals(const struct bp_trace *t, struct bp_trace_totals *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < t->nsrc; i++) {
		const struct bp_trace_ring *r = bp_trace_ring_at(t, i);

		out->written += r->written + r->dropped;
		out->discarded += r->discarded + r->dropped;
		out->overwritten += r->overwritten;
		out->read += r->read;
		out->lost_by_drainer += r->lost_by_drainer;
		out->not_copied += r->not_copied;
	}
}

/* ---- reading one source ------------------------------------------------- */

static bool map_ring(struct bp_trace *t, struct source *s)
{
	uint64_t start = s->ring_chunk & ~(uint64_t)(t->os_page - 1);
	uint64_t len = s->ring_chunk - start + BP_FILE_RING_OFFSET + s->ring_bytes;
	void *m;

	if (s->map)
		return true;
	if (len > SIZE_MAX || start + len > t->size) {
		s->dead = true;
		return false;
	}
	m = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, t->fd, (off_t)start);
	if (m == MAP_FAILED) {
		problem(t, "ring of thread %d: cannot map it: %s", s->info.tid, strerror(errno));
		s->dead = true;
		return false;
	}
	s->map = m;
	s->map_len = (size_t)len;
	s->map_skew = (size_t)(s->ring_chunk - start);
	s->ring = s->map + s->map_skew + BP_FILE_RING_OFFSET;
	return true;
}

/* Bytes of ring pages read through the mapping before they are dropped
 * together: one madvise() (and one TLB flush) per batch instead of per
 * ring page, while resident memory stays at a few pages per ring. */
#define DROP_BATCH	(128u * 1024u)

/* Drop [lo, hi) from the mapping, except the control block's OS pages and
 * [clo, chi) (the page being read). */
static void drop_range(struct source *s, uintptr_t pg, uintptr_t lo, uintptr_t hi,
		       uintptr_t clo, uintptr_t chi)
{
	uintptr_t keep_ctl = ((uintptr_t)s->ring + BP_RING_CTL_BYTES + pg - 1) & ~(pg - 1);

	if (lo < keep_ctl)
		lo = keep_ctl;
	if (hi > (uintptr_t)s->map + s->map_len)
		hi = (uintptr_t)s->map + s->map_len;
	/* [lo, hi) minus [clo, chi): at most two pieces */
	if (clo > lo && clo < hi) {
		madvise((void *)lo, clo - lo, MADV_DONTNEED);
		lo = chi;
	} else if (chi > lo && chi < hi) {
		lo = chi;
	} else if (clo <= lo && chi >= hi) {
		return;
	}
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* Drop the OS pages of ring pages seq [from, now) from the mapping, except
 * those they share with page now (being read) and with the control block. */
static void drop_behind(struct bp_trace *t, struct source *s, uint64_t from, uint64_t now)
{
	uintptr_t pg = t->os_page, data = (uintptr_t)s->ring + BP_RING_CTL_BYTES;
	uintptr_t ps = s->info.page_size, np = s->info.npages;
	uintptr_t first, count, clo, chi;

	if (!ps || np < 2 || !from || from >= now)
		return;
	if (now - from >= np)
		from = now - np + 1;	/* every slot but now's */
	first = (uintptr_t)((from - 1) % np);
	count = (uintptr_t)(now - from);
	clo = (data + (uintptr_t)((now - 1) % np) * ps) & ~(pg - 1);
	chi = (data + (uintptr_t)((now - 1) % np) * ps + ps + pg - 1) & ~(pg - 1);
	/* the slots from first on, then those wrapped to the ring's start */
	drop_range(s, pg, (data + first * ps) & ~(pg - 1),
		   (data + (first + count < np ? first + count : np) * ps + pg - 1) & ~(pg - 1),
		   clo, chi);
	if (first + count > np)
		drop_range(s, pg, data & ~(pg - 1),
			   (data + (first + count - np) * ps + pg - 1) & ~(pg - 1), clo, chi);
}

/* Staging ring for streamed pages of page_size. */
static bool stage_init(struct source *s, uint32_t page_size)
{
	size_t bytes = bp_ring_bytes(page_size, 2);
	struct bp_ring_ctl *ctl;

	if (s->stage && s->stage_ps == page_size)
		return true;
	free(s->stage);
	s->stage = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
	if (!s->stage)
		return false;
	memset(s->stage, 0, bytes);
	ctl = (struct bp_ring_ctl *)(void *)s->stage;
	ctl->magic = BP_RING_MAGIC;
	ctl->version = BP_RING_VERSION;
	ctl->ctl_bytes = BP_RING_CTL_BYTES;
	ctl->page_size = page_size;
	ctl->npages = 2;
	ctl->mode = BP_RING_OVERWRITE;
	ctl->page_hdr_bytes = BP_RING_PAGE_HDR_BYTES;
	s->stage_ps = page_size;
	/* a new cursor: record indexes continue from the pages' first_rec */
	return bp_ring_cursor_init(s->stage, bytes, &s->scur, BP_RING_CURSOR_SNAPSHOT) == BP_RING_OK;
}

/* Bytes a compact entry of a page_size page may take in cbuf. */
static bool cbuf_init(struct source *s, uint32_t page_size)
{
	if (s->cbuf && s->cbuf_ps == page_size)
		return true;
	free(s->cbuf);
	s->cbuf = malloc(bp_compact_entry_max(page_size));
	s->cbuf_ps = s->cbuf ? page_size : 0;
	return s->cbuf != NULL;
}

/* The staging ring's slot for page seq (the two slots alternate). */
static unsigned char *stage_slot(const struct source *s, uint64_t seq, uint32_t page_size)
{
	return s->stage + BP_RING_CTL_BYTES + (size_t)((seq - 1) % 2) * page_size;
}

/*
 * Page seq is in its slot: make it the ring's head.  The other slot is
 * "being recycled" (seq 0), so the cursor resyncs to seq.
 */
static void stage_publish(struct source *s, uint64_t seq, uint32_t page_size)
{
	atomic_store_explicit(&((struct bp_ring_page *)(void *)stage_slot(s, seq + 1,
									   page_size))->seq,
			      0, memory_order_relaxed);
	atomic_store_explicit(&((struct bp_ring_ctl *)(void *)s->stage)->head_seq, seq,
			      memory_order_relaxed);
	s->fed_seq = seq;
}

/*
 * The next entry of compact or dense chunk pc, decoded into the staging ring as
 * feed_page() puts a type 4 page there.  1: fed; 0: skipped (a hole, a page
 * seen already, a damaged page, or the end of a damaged chunk); < 0: error.
 */
static int feed_compact(struct bp_trace *t, struct source *s, const struct pchunk *pc)
{
	unsigned char *slot;
	size_t len;
	uint64_t seq;
	int rc;

	if (!cbuf_init(s, pc->page_size))
		return BP_TRACE_ENOMEM;
	if (s->pg_off > pc->data_bytes || pc->data_bytes - s->pg_off < BP_COMPACT_ENTRY_HDR)
		goto bad_chunk;
	if ((rc = rd(t, pc->off + BP_FILE_PAGES_OFFSET + s->pg_off, s->cbuf,
		     BP_COMPACT_ENTRY_HDR)) != BP_TRACE_OK)
		return rc;
	len = bp_compact_entry_len(s->cbuf, pc->page_size);
	if (!len || len > pc->data_bytes - s->pg_off)
		goto bad_chunk;
	seq = ld64(s->cbuf);
	s->pg_i++;
	if (seq == 0 || seq <= s->fed_seq) {
		s->pg_off += len;
		return 0;	/* a hole, or a page seen already */
	}
	if ((rc = rd(t, pc->off + BP_FILE_PAGES_OFFSET + s->pg_off, s->cbuf, len)) != BP_TRACE_OK)
		return rc;
	s->pg_off += len;
	slot = stage_slot(s, seq, pc->page_size);
	if (bp_page_entry_decode(pc->type, s->cbuf, len, pc->page_size, slot) != 0) {
		problem(t, "thread %d: damaged page in the stream", s->info.tid);
		s->info.corrupt = 1;
		memset(slot, 0, pc->page_size);
		return 0;
	}
	stage_publish(s, seq, pc->page_size);
	return 1;
bad_chunk:
	problem(t, "thread %d: damaged compact pages chunk", s->info.tid);
	s->info.corrupt = 1;
	s->pg_i = pc->npages;	/* its earlier pages stand */
	return 0;
}

/* After a page that was never written (seq 0): the first page that may be data. */
static uint32_t skip_hole(struct bp_trace *t, const struct pchunk *pc, uint32_t next)
{
	uint64_t base = pc->off + BP_FILE_PAGES_OFFSET;
	uint64_t d = next_data(t, base + (uint64_t)next * pc->page_size);
	uint64_t at = (d - base) / pc->page_size;	/* the page holding d */

	return at >= pc->npages ? pc->npages : at > next ? (uint32_t)at : next;
}

/* Put the next streamed page into the staging ring.  false: none left. */
static int feed_page(struct bp_trace *t, struct source *s)
{
	while (s->pc_i < s->npc) {
		struct pchunk *pc = &s->pc[s->pc_i];
		uint64_t seq;
		unsigned char *slot;
		int rc;

		if (s->pg_i >= pc->npages) {
			s->pc_i++;
			s->pg_i = 0;
			s->pg_off = 0;
			continue;
		}
		if (!stage_init(s, pc->page_size))
			return BP_TRACE_ENOMEM;
		if (pc->type != BP_CHUNK_PAGES) {
			rc = feed_compact(t, s, pc);
			if (rc != 0)
				return rc;
			continue;
		}
		if ((rc = rd(t, pc->off + BP_FILE_PAGES_OFFSET + (uint64_t)s->pg_i * pc->page_size,
			     s->buf, 8)) != BP_TRACE_OK)
			return rc;
		seq = ld64((const unsigned char *)s->buf);
		s->pg_i++;
		if (seq == 0)
			s->pg_i = skip_hole(t, pc, s->pg_i);	/* a hole costs one lseek */
		if (seq == 0 || seq <= s->fed_seq)
			continue;	/* a page seen already, or never written */
		slot = stage_slot(s, seq, pc->page_size);
		if ((rc = rd(t, pc->off + BP_FILE_PAGES_OFFSET +
				       (uint64_t)(s->pg_i - 1) * pc->page_size,
			     slot, pc->page_size)) != BP_TRACE_OK)
			return rc;
		stage_publish(s, seq, pc->page_size);
		return 1;
	}
	return 0;
}

/* What one step of fill() found (a negative: BP_TRACE_ENOMEM or _EIO). */
enum fill_step { FILL_AGAIN = 0, FILL_GOT = 1, FILL_STOP = 2 };

/* Phase 0: the next record of the pages chunks a stream file holds. */
static int fill_streamed(struct bp_trace *t, struct source *s)
{
	int rc;

	if (s->stage) {
		rc = bp_ring_next(s->stage, bp_ring_bytes(s->stage_ps, 2), &s->scur, &s->ev, s->buf,
				  sizeof(s->buf));
		if (rc == 1)
			return FILL_GOT;
		if (rc < 0) {
			problem(t, "thread %d: damaged page in the stream", s->info.tid);
			s->info.corrupt = 1;
			/* the rest of the stream may still be good */
			free(s->stage);
			s->stage = NULL;
			return FILL_AGAIN;
		}
	}
	rc = feed_page(t, s);
	if (rc < 0) {
		if (rc == BP_TRACE_ENOMEM || rc == BP_TRACE_EIO)
			return rc;
		problem(t, "thread %d: pages chunk outside the file", s->info.tid);
		s->info.corrupt = 1;
		s->pc_i = s->npc;
	}
	if (rc == 0)
		s->phase = 1;
	return FILL_AGAIN;
}

/* A record of a new ring page: the pages read behind it go back, in batches. */
static void ring_page_reached(struct bp_trace *t, struct source *s)
{
	uint64_t batch = DROP_BATCH / (s->info.page_size | 1u) + 1;

	if (s->ev.page_seq == s->last_page)
		return;
	if (!s->drop_from || s->ev.page_seq < s->drop_from) {
		s->drop_from = s->ev.page_seq;
	} else if (s->ev.page_seq - s->drop_from >= batch) {
		drop_behind(t, s, s->drop_from, s->ev.page_seq);
		s->drop_from = s->ev.page_seq;
	}
	s->last_page = s->ev.page_seq;
}

/* Phase 1: the next record of the ring chunk itself (after a stream's pages). */
static int fill_ring(struct bp_trace *t, struct source *s)
{
	int rc;

	if (!s->ring_chunk || !map_ring(t, s)) {
		s->phase = 2;
		return FILL_AGAIN;
	}
	if (!s->cur_ready) {
		ring_counters(s);
		if (!s->info.npages ||
		    bp_ring_cursor_init(s->ring, s->ring_bytes, &s->cur, BP_RING_CURSOR_SNAPSHOT) !=
			    BP_RING_OK) {
			/* not formatted (yet), or never: empty for now */
			s->dry = true;
			return FILL_STOP;
		}
		s->cur_ready = true;
	}
	rc = bp_ring_next(s->ring, s->ring_bytes, &s->cur, &s->ev, s->buf, sizeof(s->buf));
	if (rc == 1) {
		if (!ring_still(s)) {	/* its chunk reused under us: not s's record */
			ring_over(t, s);
			return FILL_STOP;
		}
		ring_page_reached(t, s);
		/* below next_index: returned from a streamed page already */
		return s->ev.index < s->next_index ? FILL_AGAIN : FILL_GOT;
	}
	if (rc < 0 && !ring_still(s)) {	/* reformatted for another ring: not damage */
		ring_over(t, s);
		return FILL_STOP;
	}
	if (rc < 0) {
		problem(t, "thread %d: damaged ring", s->info.tid);
		s->info.corrupt = 1;
		s->dead = true;
		return FILL_STOP;
	}
	s->dry = true;	/* caught up: a live writer may add more */
	return FILL_STOP;
}

/* Get s's next record in hand, if there is one. */
static int fill(struct bp_trace *t, struct source *s)
{
	while (!s->has && !s->dead && !s->dry) {
		int rc;

		if (s->phase == 0) {
			rc = fill_streamed(t, s);
		} else if (s->phase == 1) {
			rc = fill_ring(t, s);
		} else {
			s->dry = true;
			break;
		}
		if (rc < 0)
			return rc;
		if (rc == FILL_STOP)
			break;
		if (rc == FILL_GOT) {
			if (s->ev.index > s->next_index)
				s->info.overwritten += s->ev.index - s->next_index;
			s->next_index = s->ev.index + 1;
			s->has = true;
		}
	}
	return BP_TRACE_OK;
}

/* ---- decoding ----------------------------------------------------------- */

/* The library table, as the symbols read it. */
static size_t libs_count(const void *t)
{
	return bp_trace_nlibs(t);
}

static const struct bp_trace_lib *libs_at(const void *t, size_t i)
{
	return bp_trace_lib_at(t, i);
}

/* The hook's print() for %pS and %ps: the symbols, made on first use. */
static void print_symbol(void *ctx, char letter, uint64_t address, char *buf, size_t size)
{
	struct bp_trace *t = ctx;

	if (!t->sym) {
		const struct bp_symbols_libs libs = { t, libs_count, libs_at };

		t->sym = bp_symbols_new(&libs, t->open_flags & BP_TRACE_OPEN_ELF_READER
						       ? BP_SYMBOLS_OWN_READER : 0u);
	}
	if (t->sym)
		bp_symbols_print(t->sym, letter, address, buf, size);
	else
		bp_snprintf(buf, size, "%p", (void *)(uintptr_t)address);
}

void bp_trace_symbol_stats(const struct bp_trace *t, struct bp_symbols_stats *out)
{
	if (t->sym)
		bp_symbols_get_stats(t->sym, out);
	else
		memset(out, 0, sizeof(*out));
}

/* The message of s's last record into buf (size >= 1): its length. */
static size_t format_message(struct bp_trace *t, struct source *s, char *buf, size_t size,
			     int *exact)
{
	const struct bp_trace_site *ts = bp_trace_site(t, s->args.site_id);
	const struct bprint_site *site = ts ? &ts->site : NULL;
	struct site_entry *e = (struct site_entry *)(void *)(uintptr_t)ts;
	const struct bp_pointer_hook *hook =
		t->open_flags & BP_TRACE_OPEN_NO_SYMBOLS ? NULL : &t->hook;

	if (site && site->format && site->kind != BPRINT__SITE_PUTS && !e->pf_tried) {
		e->pf = bp_format_parse(site->format);	/* NULL: decode as we go */
		e->pf_tried = true;
		/* A conversion the hook takes is a 'p' followed by one of its
		 * letters: a format without those pairs never needs it, and
		 * without it %p tokens skip the letter check. */
		e->symbols = strstr(site->format, "pS") || strstr(site->format, "ps");
	}
	if (e && !e->symbols)
		hook = NULL;
	return bp_record_message(buf, size, &s->args, site, e ? e->pf : NULL, hook, exact);
}

static void decode_message(struct bp_trace *t, struct source *s, struct bp_trace_event *out)
{
	out->ev.message = t->msg;
	out->ev.message_len = format_message(t, s, t->msg, sizeof(t->msg), &out->exact);
}

void bp_trace_message(struct bp_trace *t, struct bp_trace_event *out)
{
	if (t->cur)
		decode_message(t, t->cur, out);
}

size_t bp_trace_format_message(struct bp_trace *t, char *buf, size_t size)
{
	if (!size)
		return 0;
	if (!t->cur) {
		buf[0] = '\0';
		return 0;
	}
	return format_message(t, t->cur, buf, size < BP_MSG_MAX ? size : BP_MSG_MAX, NULL);
}

/* The source whose record in hand is the oldest, filling each first; NULL when all are dry. */
static int oldest_source(struct bp_trace *t, struct source **best, size_t *bi)
{
	int rc;

	*best = NULL;
	for (size_t i = 0; i < t->nsrc; i++) {
		struct source *s = t->src[i];

		if (!s->has && (rc = fill(t, s)) < 0)
			return rc;
		if (s->has && (!*best || s->ev.ts < (*best)->ev.ts)) {
			*best = s;
			*bi = i;
		}
	}
	return BP_TRACE_OK;
}

/*
 * The site of a record's id.  A writer files a site before its first
 * record: in a file not closed (or live) an id not known yet makes the
 * reader look at the site lists again, also before the first refresh (the
 * file may have grown since it was opened).
 */
static int site_of(struct bp_trace *t, uint32_t id, const struct bp_trace_site **site)
{
	int rc;

	*site = bp_trace_site(t, id);
	if (!id || *site || (!t->live && (t->info.flags & BP_TRACE_F_CLOSED)))
		return BP_TRACE_OK;
	for (size_t i = 0; i < t->nlists; i++)
		if ((rc = parse_list(t, &t->lists[i])) < 0)
			return rc;
	if (!bp_trace_site(t, id) && measure(t) == BP_TRACE_OK &&
	    (revisit_pending(t) < 0 || walk(t) < 0))
		return BP_TRACE_EIO;
	*site = bp_trace_site(t, id);
	return BP_TRACE_OK;
}

/* out from the record of source bi (best) just taken, its site and id. */
static void put_event(struct bp_trace *t, struct source *best, size_t bi,
		      const struct bp_trace_site *site, uint32_t id, struct bp_trace_event *out)
{
	out->ev.size = sizeof(out->ev);
	out->ev.ns = bp_clock_to_ns(&t->calib, best->ev.ts);
	out->ev.tid = best->info.tid;
	out->ev.cpu = best->cpu;
	if (!best->first_of_tid)
		for (size_t i = 0; i <= bi; i++)
			if (t->src[i]->info.tid == best->info.tid) {
				best->first_of_tid = t->src[i];
				break;
			}
	/* A thread's name is that of its first ring, as the process has one
	 * name per thread (taken when it first traced, updated at exit). */
	out->ev.comm = best->first_of_tid->info.comm;
	out->ev.site = site ? &site->site : NULL;
	out->tsite = site;
	out->site_id = id;
	out->level = best->info.level;
	out->ring = bi;
	out->raw_ts = best->ev.ts;
	out->index = best->ev.index;
	out->lost_before = best->ev.discarded_before;
	out->block = best->args.words;
	out->block_words = best->args.nwords;
	out->text = best->args.text;
}

int bp_trace_next(struct bp_trace *t, struct bp_trace_event *out, unsigned flags)
{
	struct source *best;
	const struct bp_trace_site *site;
	size_t bi = 0;
	uint32_t id;
	int rc;

	if ((rc = oldest_source(t, &best, &bi)) < 0)
		return rc;
	t->cur = best;
	if (!best)
		return 0;
	best->has = false;
	best->info.read++;
	best->args = bp_record_split(best->ev.user_bits, best->buf, best->ev.payload_len);
	if (best->args.has_cpu)
		best->cpu = best->args.cpu;
	id = best->args.site_id;
	if ((rc = site_of(t, id, &site)) < 0)
		return rc;
	put_event(t, best, bi, site, id, out);
	if (flags & BP_TRACE_NEXT_NO_MESSAGE) {
		t->msg[0] = '\0';
		out->ev.message = t->msg;
		out->ev.message_len = 0;
		out->exact = 0;
	} else {
		decode_message(t, best, out);
	}
	if (t->progress && ++t->progress_n % t->progress_every == 0)
		t->progress(t->progress_arg, t->progress_n);
	return 1;
}

void bp_trace_on_progress(struct bp_trace *t, uint64_t every,
			  void (*fn)(void *arg, uint64_t records), void *arg)
{
	t->progress = every ? fn : NULL;
	t->progress_every = every;
	t->progress_arg = arg;
}

uint64_t bp_trace_overwritten_estimate(struct bp_trace *t)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < t->nsrc; i++) {
		struct source *s = t->src[i];
		uint64_t first = UINT64_MAX;

		if (!s->info.key) {	/* the retired rings (reused_rings()) */
			sum += s->info.overwritten;
			continue;
		}
		if (s->accounted) {	/* what reading will find below the last record */
			uint64_t after, end = accounted_end(t, s, &after);

			sum += end - s->copied - after;
			continue;
		}
		if (s->npc) {
			unsigned char h[24];

			if (rd(t, s->pc[0].off + BP_FILE_PAGES_OFFSET, h, sizeof(h)) == BP_TRACE_OK)
				first = ld64(h + 16);
		} else if (s->ring_chunk && map_ring(t, s)) {
			struct bp_ring_stats rs;
			struct bp_ring_page_info pi;

			if (bp_ring_stats(s->ring, s->ring_bytes, &rs) != BP_RING_OK || !rs.head_seq)
				continue;
			uint64_t seq = rs.head_seq >= rs.npages ? rs.head_seq - rs.npages + 1 : 1;

			/* at most npages probes (head may be UINT64_MAX in a damaged ring) */
			for (uint32_t k = 0; k < rs.npages && seq + k <= rs.head_seq; k++)
				if (bp_ring_page_info(s->ring, s->ring_bytes, seq + k, &pi) == BP_RING_OK) {
					first = pi.first_rec;
					break;
				}
		}
		if (first == UINT64_MAX || first < s->info.lost_by_drainer)
			first = s->info.lost_by_drainer;
		sum += first;
	}
	return sum;
}
