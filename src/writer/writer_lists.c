/*
 * The live file's sites and libraries chunks (writer_live.h): one record
 * per registered call site, one per loaded object, appended under
 * list_lock in 64 KiB chunks (a record too large gets a chunk of its own
 * size), each record published by the chunk's `used` (release).
 *
 * A new process scans its loaded objects (dl_iterate_phdr) when the file
 * opens and again whenever a site registers after a dlopen.  A fork child
 * makes its file later (writer.c): it copies its parent's library records
 * from the parent's file instead of scanning, so that it never calls into
 * the dynamic loader, whose lock a thread of the parent may have held at
 * fork(), and builds every record in place, without malloc(): its first
 * trace may come from a signal handler.
 */
#include "file/crc32c.h"
#include "writer/writer_live.h"

#include "trace/backing.h"

#include <elf.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define LIST_CHUNK_BYTES (64u * 1024u)
#define LIB_CHUNKS_MAX 64u		/* libraries chunks a fork child copies */

/* A sites or libraries chunk being appended to. */
struct list {
	uint32_t type;
	struct bp_mapped m;
	uint32_t cap;			/* bytes of records the chunk holds */
	uint32_t used;
};

struct known_lib {
	uint64_t lo, hi;
	uint64_t path_hash;
};

/* Sites and libraries: ordinary context only. */
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list sites = { .type = BP_CHUNK_SITES };
static struct list libs = { .type = BP_CHUNK_LIBS };
static struct known_lib *known;
static size_t nknown, known_cap;
static unsigned long long libs_adds;	/* dlpi_adds at the last library scan */
static bool libs_short;			/* a library record had no room: scan again */
static uint64_t lib_chunks[LIB_CHUNKS_MAX];	/* offsets of this file's libraries chunks */
static unsigned nlib_chunks;
static uint64_t parent_lib_chunks[LIB_CHUNKS_MAX];	/* a fork child: its parent's */
static unsigned nparent_lib_chunks;

static void forget_list(struct list *l)
{
	if (l->m.base)
		munmap(l->m.base, l->m.len);
	memset(&l->m, 0, sizeof(l->m));
	l->cap = l->used = 0;
}

/* Room for len more bytes of records in l (a new chunk if need be): where
 * they go, or NULL.  list_commit() publishes them. */
static unsigned char *list_room(struct list *l, uint32_t len)
{
	if (!l->m.chunk || len > l->cap - l->used) {
		uint64_t size = bp_file_align_up(BP_FILE_LIST_HDR_BYTES + (uint64_t)len);
		struct bp_mapped m;

		if (size < LIST_CHUNK_BYTES)
			size = LIST_CHUNK_BYTES;
		if (size > UINT32_MAX || bp_live_chunk_alloc(l->type, size, &m) != 0)
			return NULL;
		bp_live_chunk_publish(m.chunk);	/* the header is complete; records follow by `used` */
		forget_list(l);
		l->m = m;
		l->cap = (uint32_t)size - BP_FILE_LIST_HDR_BYTES;
		if (l == &libs && nlib_chunks < LIB_CHUNKS_MAX)
			lib_chunks[nlib_chunks++] = m.off;
	}
	return (unsigned char *)l->m.chunk + BP_FILE_LIST_HDR_BYTES + l->used;
}

/* The len bytes written at list_room() are a complete record. */
static void list_commit(struct list *l, uint32_t len)
{
	struct bp_file_list *lc = (struct bp_file_list *)(void *)l->m.chunk;

	/* the records' crc goes on over the new one (format 1.4): a reader
	 * that sees `used` may see the crc of a later one, never an older */
	lc->crc = bp_crc32c(lc->crc, (unsigned char *)lc + BP_FILE_LIST_HDR_BYTES + l->used, len);
	l->used += len;
	/* L1: the record's bytes (and the crc) before `used` covers them;
	 * pairs with the readers' acquire load of `used` (the drainer's
	 * drain_out_list(), the reader's tables_parse_list()). */
	atomic_store_explicit(&lc->used, l->used, memory_order_release);
}

static int list_append(struct list *l, const void *rec, uint32_t len)
{
	unsigned char *p = list_room(l, len);

	if (!p)
		return -1;
	memcpy(p, rec, len);
	list_commit(l, len);
	return 0;
}

static uint32_t pad4(size_t n)
{
	return (uint32_t)((n + 3u) & ~(size_t)3u);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* The GNU build-id of an object from its PT_NOTE segments; its length. */
static uint32_t build_id(const struct dl_phdr_info *info, unsigned char *out)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p, *end;
		size_t align = ph->p_align == 8 ? 8 : 4;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *n = (const void *)p;
			size_t name = (n->n_namesz + align - 1) & ~(align - 1);
			size_t desc = (n->n_descsz + align - 1) & ~(align - 1);
			const unsigned char *d = p + sizeof(*n) + name;

			if (name > (size_t)(end - p) || desc > (size_t)(end - d))
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(p + sizeof(*n), "GNU", 4) && n->n_descsz > 0 &&
			    n->n_descsz <= BP_FILE_BUILD_ID_MAX) {
				memcpy(out, d, n->n_descsz);
				return n->n_descsz;
			}
			p = d + desc;
		}
	}
	return 0;
}

static bool lib_known(uint64_t lo, uint64_t hi, uint64_t h)
{
	for (size_t i = 0; i < nknown; i++)
		if (known[i].lo == lo && known[i].hi == hi && known[i].path_hash == h)
			return true;
	return false;
}

static int add_lib(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned char rec[BP_FILE_LIB_BYTES + BP_FILE_BUILD_ID_MAX + PATH_MAX + 4];
	struct bp_file_lib l;
	char exe[PATH_MAX];
	const char *path = info->dlpi_name ? info->dlpi_name : "";
	uint64_t lo = UINT64_MAX, hi = 0, h;
	size_t plen;

	(void)arg;
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
		libs_adds = info->dlpi_adds;
	if (!*path) {	/* the main program */
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		exe[n > 0 ? n : 0] = '\0';
		path = exe;
	}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (lo > hi)
		lo = hi = info->dlpi_addr;
	h = hash_str(path);
	if (lib_known(lo, hi, h))
		return 0;
	if (nknown == known_cap) {
		size_t cap = known_cap ? 2 * known_cap : 32;
		struct known_lib *grown = realloc(known, cap * sizeof(*grown));

		if (!grown)
			return 1;
		known = grown;
		known_cap = cap;
	}
	plen = strnlen(path, PATH_MAX - 1);
	memset(&l, 0, sizeof(l));
	l.index = (uint32_t)nknown + 1;
	l.load_addr = info->dlpi_addr;
	l.lo = lo;
	l.hi = hi;
	l.build_id_len = build_id(info, rec + BP_FILE_LIB_BYTES);
	l.path_len = (uint32_t)plen + 1;
	l.rec_bytes = pad4(BP_FILE_LIB_BYTES + l.build_id_len + l.path_len);
	memcpy(rec, &l, sizeof(l));
	memcpy(rec + BP_FILE_LIB_BYTES + l.build_id_len, path, plen);
	memset(rec + BP_FILE_LIB_BYTES + l.build_id_len + plen, 0, l.rec_bytes -
	       (BP_FILE_LIB_BYTES + l.build_id_len + plen));
	if (list_append(&libs, rec, l.rec_bytes) != 0) {
		libs_short = true;	/* the next scan tries again (bp_live_lists_retry()) */
		return 1;
	}
	known[nknown++] = (struct known_lib){ .lo = lo, .hi = hi, .path_hash = h };
	return 0;
}

static int peek_adds(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned long long *adds = arg;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
		*adds = info->dlpi_adds;
	return 1;	/* the first object is enough */
}

/* With list_lock: record objects loaded since the last scan. */
static void scan_libs(bool force)
{
	unsigned long long adds = 0;

	if (!force && !libs_short) {
		dl_iterate_phdr(peek_adds, &adds);
		if (adds == libs_adds)
			return;
	}
	libs_short = false;
	dl_iterate_phdr(add_lib, NULL);
}

/* A site record the file has no room for: counted. */
static void site_missing(void)
{
	atomic_fetch_add_explicit(&bp_live_hdr()->missing_sites, 1, memory_order_relaxed);	/* a count */
}

/* With list_lock: s's record, built in place. */
static void append_site(const struct bprint_site *s)
{
	const char *fmt = s->format ? s->format : "";
	const char *file = s->file ? s->file : "";
	const char *func = s->func ? s->func : "";
	size_t fl = strlen(fmt) + 1, il = strlen(file) + 1, nl = strlen(func) + 1;
	size_t total = BP_FILE_SITE_BYTES + fl + il + nl;
	struct bp_file_site rec;
	unsigned char *p;

	if (total > (64u << 20) || !(p = list_room(&sites, pad4(total)))) {
		site_missing();
		return;
	}
	memset(&rec, 0, sizeof(rec));
	rec.rec_bytes = pad4(total);
	rec.id = s->id;
	rec.line = s->line;
	rec.kind = s->kind;
	rec.has_format = s->format != NULL;
	rec.format_len = (uint32_t)fl;
	rec.file_len = (uint32_t)il;
	rec.func_len = (uint32_t)nl;
	rec.lib = 0;	/* the registry's copy does not say which object it came from */
	memcpy(p, &rec, sizeof(rec));
	memcpy(p + BP_FILE_SITE_BYTES, fmt, fl);
	memcpy(p + BP_FILE_SITE_BYTES + fl, file, il);
	memcpy(p + BP_FILE_SITE_BYTES + fl + il, func, nl);
	memset(p + total, 0, rec.rec_bytes - total);
	list_commit(&sites, rec.rec_bytes);
}

void bp_live_site_added(const struct bprint_site *site)
{
	if (bp_live_child_file(true) != 0)
		return;	/* a fork child that could not make its file */
	pthread_mutex_lock(&list_lock);
	scan_libs(false);	/* a dlopen'ed object registers its sites from its constructor */
	append_site(site);
	pthread_mutex_unlock(&list_lock);
	bp_live_maybe_calibrate();
}

/*
 * At normal exit: the library records that had no room earlier (a write
 * that failed once), once more; those that still have none are counted in
 * the header (missing_libs: %pS of their addresses print as addresses).
 */
void bp_live_lists_retry(void)
{
	pthread_mutex_lock(&list_lock);
	if (libs_short) {
		scan_libs(true);
		if (libs_short)
			atomic_fetch_add_explicit(&bp_live_hdr()->missing_libs, 1,
						  memory_order_relaxed);	/* a count */
	}
	pthread_mutex_unlock(&list_lock);
}

/* ---- a new file ----------------------------------------------------------- */

void bp_live_lists_scan(void)
{
	pthread_mutex_lock(&list_lock);
	scan_libs(true);
	pthread_mutex_unlock(&list_lock);
}

static void replay_site(const struct bprint_site *s, void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&list_lock);
	append_site(s);
	pthread_mutex_unlock(&list_lock);
}

void bp_live_lists_replay(void)
{
	bp_sites_each(replay_site, NULL);	/* duplicates are harmless: readers keep the first */
}

/* With list_lock: the library records of the chunk at off of file fd. */
static void copy_libs_chunk(int fd, uint64_t off)
{
	uint32_t used, pos = 0;

	if (pread(fd, &used, sizeof(used), (off_t)(off + offsetof(struct bp_file_list, used))) !=
		    (ssize_t)sizeof(used) ||
	    used > LIST_CHUNK_BYTES * 1024u)
		return;
	while (used - pos >= BP_FILE_LIB_BYTES) {
		uint32_t len;
		unsigned char *p;

		if (pread(fd, &len, sizeof(len), (off_t)(off + BP_FILE_LIST_HDR_BYTES + pos)) !=
			    (ssize_t)sizeof(len) ||
		    len < BP_FILE_LIB_BYTES || (len & 3u) || len > used - pos ||
		    !(p = list_room(&libs, len)))
			return;
		if (pread(fd, p, len, (off_t)(off + BP_FILE_LIST_HDR_BYTES + pos)) != (ssize_t)len)
			return;
		list_commit(&libs, len);
		pos += len;
	}
}

void bp_live_lists_inherit(int parent_fd)
{
	pthread_mutex_lock(&list_lock);
	if (parent_fd < 0)
		scan_libs(true);	/* no parent's file to copy from (it could not make one) */
	for (unsigned i = 0; parent_fd >= 0 && i < nparent_lib_chunks; i++)
		copy_libs_chunk(parent_fd, parent_lib_chunks[i]);
	pthread_mutex_unlock(&list_lock);
}

void bp_live_lists_fork_child(bool had_file)
{
	/* Only this thread runs: no lock is needed, none may be taken. */
	forget_list(&sites);
	forget_list(&libs);
	if (had_file) {	/* else the libraries are still in the file of the parent's parent */
		memcpy(parent_lib_chunks, lib_chunks, sizeof(lib_chunks));
		nparent_lib_chunks = nlib_chunks;
	}
	nlib_chunks = 0;
	pthread_mutex_init(&list_lock, NULL);
}
