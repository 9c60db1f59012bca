/*
 * The live trace file, written by the traced process (writer.h).
 *
 * Every ring is a chunk of the file (writer_rings.c): allocating one is a
 * fetch-add on the header's `end`, an fallocate() and an mmap(MAP_SHARED);
 * all three may run in a signal handler (a thread's first trace), so that
 * path makes system calls only.  Sites and libraries are appended in
 * ordinary context, under list_lock.  The file is never shrunk and chunks
 * are never moved (an exited thread's ring chunk is reused in place), so
 * whatever instant the process dies at, what is in the file is what the
 * tracer had stored (docs/file-format.md).
 *
 *	file:  | header | libs | sites | ring (thread 1) | ring (thread 2) | sites | ...
 *	                                 ^ fetch-add on header.end, fallocate, mmap
 */
#include "file/writer.h"

#include "file/layout.h"
#include "file/writer_live.h"
#include "ring/ring.h"
#include "trace/backing.h"
#include "trace/clock.h"
#include "trace/config.h"
#include "trace/safe_open.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define LIST_CHUNK_BYTES (64u * 1024u)
#define CALIB_EVERY_NS 10000000u	/* refresh the calibration at most every 10 ms */

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

struct bp_live bp_live = { .fd = -1 };
static pid_t owner;			/* the process that created the file */
static char path_used[PATH_MAX];
static _Atomic uint64_t next_index = 1;
static atomic_flag calib_busy = ATOMIC_FLAG_INIT;
static _Atomic uint64_t last_calib_ns;

/* Sites and libraries: ordinary context only. */
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list sites = { .type = BP_CHUNK_SITES };
static struct list libs = { .type = BP_CHUNK_LIBS };
static struct known_lib *known;
static size_t nknown, known_cap;
static unsigned long long libs_adds;	/* dlpi_adds at the last library scan */

static const struct bp_backing file_backing;
static const struct bp_backing child_backing;

/* ---- chunks (async-signal-safe) ---------------------------------------- */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return bp_clock_timespec_ns(&ts);
}

/* Make [off, off + size) part of the file: never shrinks it. */
static int grow(uint64_t off, uint64_t size)
{
	if (fallocate(bp_live.fd, 0, (off_t)off, (off_t)size) == 0)
		return 0;
	if (errno != EOPNOTSUPP && errno != ENOSYS)
		return -1;
	/* No fallocate here: write the chunk's last byte (nobody else writes it). */
	return pwrite(bp_live.fd, "", 1, (off_t)(off + size - 1)) == 1 ? 0 : -1;
}

/*
 * Allocate a chunk of size bytes (a multiple of the alignment), map it and
 * fill its header, state still "being written".  A chunk that cannot be
 * mapped is marked abandoned with pwrite, so that readers skip it whole.
 */
int bp_live_chunk_alloc(uint32_t type, uint64_t size, struct bp_mapped *m)
{
	uint64_t off = atomic_fetch_add_explicit(&bp_live.hdr->end, size, memory_order_relaxed);
	uint64_t moff = off & ~(uint64_t)(bp_live.sys_page - 1);
	struct bp_file_chunk c;
	void *p;

	memset(&c, 0, sizeof(c));
	memcpy(c.magic, BP_CHUNK_MAGIC, 4);
	c.type = type;
	c.size = size;
	c.index = bp_live_next_index();
	if (grow(off, size) != 0)
		return -1;
	p = mmap(NULL, (size_t)(off - moff + size), PROT_READ | PROT_WRITE, MAP_SHARED,
		 bp_live.fd, (off_t)moff);
	if (p == MAP_FAILED) {
		atomic_init(&c.state, BP_CHUNK_ABANDONED);
		(void)!pwrite(bp_live.fd, &c, sizeof(c), (off_t)off);
		return -1;
	}
	m->base = p;
	m->len = (size_t)(off - moff + size);
	m->chunk = (struct bp_file_chunk *)(void *)((unsigned char *)p + (off - moff));
	memcpy(m->chunk, &c, offsetof(struct bp_file_chunk, state));
	m->chunk->index = c.index;
	return 0;
}

uint64_t bp_live_next_index(void)
{
	return atomic_fetch_add_explicit(&next_index, 1, memory_order_relaxed);
}

void bp_live_chunk_publish(struct bp_file_chunk *c)
{
	atomic_store_explicit(&c->state, BP_CHUNK_COMPLETE, memory_order_release);
}

void bp_file_calibrate(void)
{
	struct bp_clock_calib c;
	uint64_t seq;

	if (!bp_live.hdr || atomic_flag_test_and_set_explicit(&calib_busy, memory_order_acquire))
		return;
	bp_clock_calibrate(&c);
	seq = atomic_load_explicit(&bp_live.hdr->calib_seq, memory_order_relaxed);
	bp_live.hdr->calib[(seq + 1) & 1] = c;
	/* The slot before the sequence that selects it; readers re-check the sequence. */
	atomic_store_explicit(&bp_live.hdr->calib_seq, seq + 1, memory_order_release);
	atomic_store_explicit(&last_calib_ns, mono_ns(), memory_order_relaxed);
	atomic_flag_clear_explicit(&calib_busy, memory_order_release);
}

void bp_live_maybe_calibrate(void)
{
	if (mono_ns() - atomic_load_explicit(&last_calib_ns, memory_order_relaxed) >= CALIB_EVERY_NS)
		bp_file_calibrate();
}

/* ---- the backing ------------------------------------------------------- */

static void forget_list(struct list *l)
{
	if (l->m.base)
		munmap(l->m.base, l->m.len);
	memset(&l->m, 0, sizeof(l->m));
	l->cap = l->used = 0;
}

static void file_fork_child(void)
{
	/* Only this thread runs: no lock is needed, none may be taken. */
	forget_list(&sites);
	forget_list(&libs);
	bp_live_rings_fork_child();
	pthread_mutex_init(&list_lock, NULL);
	if (bp_live.hdr)
		munmap(bp_live.hdr, BP_FILE_HEADER_BYTES);
	bp_live.hdr = NULL;
	if (bp_live.fd >= 0)
		close(bp_live.fd);
	bp_live.fd = -1;
	path_used[0] = '\0';
	bp_backing = &child_backing;
}

/* ---- lists: sites and libraries (ordinary context, list_lock) ------------ */

static int list_append(struct list *l, const void *rec, uint32_t len)
{
	struct bp_file_list *lc;

	if (!l->m.chunk || len > l->cap - l->used) {
		uint64_t size = bp_file_align_up(BP_FILE_LIST_HDR_BYTES + (uint64_t)len);
		struct bp_mapped m;

		if (size < LIST_CHUNK_BYTES)
			size = LIST_CHUNK_BYTES;
		if (size > UINT32_MAX || bp_live_chunk_alloc(l->type, size, &m) != 0)
			return -1;
		bp_live_chunk_publish(m.chunk);	/* the header is complete; records follow by `used` */
		forget_list(l);
		l->m = m;
		l->cap = (uint32_t)size - BP_FILE_LIST_HDR_BYTES;
	}
	lc = (struct bp_file_list *)(void *)l->m.chunk;
	memcpy((unsigned char *)lc + BP_FILE_LIST_HDR_BYTES + l->used, rec, len);
	l->used += len;
	atomic_store_explicit(&lc->used, l->used, memory_order_release);
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
	if (list_append(&libs, rec, l.rec_bytes) != 0)
		return 1;
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

	if (!force) {
		dl_iterate_phdr(peek_adds, &adds);
		if (adds == libs_adds)
			return;
	}
	dl_iterate_phdr(add_lib, NULL);
}

/* A site record the file has no room for (or no memory to build): counted. */
static void site_missing(void)
{
	atomic_fetch_add_explicit(&bp_live.hdr->missing_sites, 1, memory_order_relaxed);
}

static void append_site(const struct bprint_site *s)
{
	const char *fmt = s->format ? s->format : "";
	const char *file = s->file ? s->file : "";
	const char *func = s->func ? s->func : "";
	size_t fl = strlen(fmt) + 1, il = strlen(file) + 1, nl = strlen(func) + 1;
	size_t total = BP_FILE_SITE_BYTES + fl + il + nl;
	struct bp_file_site rec;
	unsigned char *buf;

	if (total > (64u << 20) || !(buf = calloc(1, pad4(total)))) {
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
	memcpy(buf, &rec, sizeof(rec));
	memcpy(buf + BP_FILE_SITE_BYTES, fmt, fl);
	memcpy(buf + BP_FILE_SITE_BYTES + fl, file, il);
	memcpy(buf + BP_FILE_SITE_BYTES + fl + il, func, nl);
	if (list_append(&sites, buf, rec.rec_bytes) != 0)
		site_missing();
	free(buf);
}

static void file_site_added(const struct bprint_site *site)
{
	pthread_mutex_lock(&list_lock);
	scan_libs(false);	/* a dlopen'ed object registers its sites from its constructor */
	append_site(site);
	pthread_mutex_unlock(&list_lock);
	bp_live_maybe_calibrate();
}

static const struct bp_backing file_backing = {
	.ring_map = bp_live_ring_map,
	.ring_unmap = bp_live_ring_unmap,
	.ring_in_file = bp_live_ring_in_file,
	.ring_copied = bp_live_ring_copied,
	.site_added = file_site_added,
	.thread_exit = bp_live_thread_exit,
	.fork_child = file_fork_child,
};

static const struct bp_backing child_backing = {
	.ring_unmap = bp_live_child_ring_unmap,
};

/* ---- open and exit ----------------------------------------------------- */

static void replay_site(const struct bprint_site *s, void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&list_lock);
	append_site(s);
	pthread_mutex_unlock(&list_lock);
}

static void file_exit(void)
{
	if (!bp_live.hdr || getpid() != owner)
		return;
	bp_live_rings_at_exit();
	bp_file_calibrate();
	atomic_fetch_or_explicit(&bp_live.hdr->flags, BP_FILE_F_CLOSED, memory_order_release);
}

static void fill_header(struct bp_file_header *h)
{
	struct timespec ts;
	int cfd;

	h->major = BP_FILE_MAJOR;
	h->minor = BP_FILE_MINOR;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	h->byte_order = BP_FILE_LITTLE_ENDIAN;
#else
	h->byte_order = BP_FILE_BIG_ENDIAN;
#endif
	h->word_size = (uint8_t)sizeof(void *);
	h->header_bytes = BP_FILE_HEADER_BYTES;
	h->align = BP_FILE_ALIGN;
	h->pid = (uint64_t)getpid();
	clock_gettime(CLOCK_REALTIME, &ts);
	h->start_realtime_ns = bp_clock_timespec_ns(&ts);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	h->start_mono_ns = bp_clock_timespec_ns(&ts);
	atomic_store_explicit(&h->end, BP_FILE_HEADER_BYTES, memory_order_relaxed);
	prctl(PR_GET_NAME, h->comm, 0, 0, 0);
	h->comm[sizeof(h->comm) - 1] = '\0';
	h->ring_mode = bp_config.mode;
	cfd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (cfd >= 0) {
		size_t got = 0;
		ssize_t n;

		while (got < sizeof(h->cmdline) &&
		       (n = read(cfd, h->cmdline + got, sizeof(h->cmdline) - got)) > 0)
			got += (size_t)n;
		close(cfd);
		if (got == sizeof(h->cmdline))
			h->cmdline[got - 1] = '\0';	/* cut: keep the last string terminated */
		h->cmdline_len = (uint32_t)got;
	}
	/*
	 * The magic goes last: a process killed while filling the header leaves
	 * a file no reader mistakes for a complete one (pid set, mode not yet).
	 */
	atomic_thread_fence(memory_order_release);
	memcpy(h->magic, BP_FILE_MAGIC, 8);
}

static int create(const char *path)
{
	const char *why;
	int f = bp_open_output(path, BP_OPEN_RDWR | BP_OPEN_PRIVATE, &why);	/* a new file only */

	if (f >= 0)
		snprintf(path_used, sizeof(path_used), "%s", path);
	return f;
}

int bp_file_open(const char *path)
{
	char alt[PATH_MAX];
	void *p;
	int err;

	if (bp_live.hdr || !path || !*path) {
		errno = EINVAL;
		return -1;
	}
	bp_live.sys_page = (uintptr_t)sysconf(_SC_PAGESIZE);
	bp_live.fd = create(path);
	if (bp_live.fd < 0 && errno == EEXIST) {
		/* An ancestor's file (an exec'd child inherits BPRINT_FILE), or an old one. */
		if (snprintf(alt, sizeof(alt), "%s.%ld", path, (long)getpid()) >= (int)sizeof(alt)) {
			errno = ENAMETOOLONG;
		} else {
			bp_live.fd = create(alt);
			path = alt;
		}
	}
	if (bp_live.fd < 0)
		goto fail;
	if (grow(0, BP_FILE_HEADER_BYTES) != 0)
		goto fail_fd;
	p = mmap(NULL, BP_FILE_HEADER_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, bp_live.fd, 0);
	if (p == MAP_FAILED)
		goto fail_fd;
	bp_live.hdr = p;
	owner = getpid();
	fill_header(bp_live.hdr);
	bp_file_calibrate();

	pthread_mutex_lock(&list_lock);
	scan_libs(true);
	pthread_mutex_unlock(&list_lock);
	/* Install, then replay the sites registered before us (duplicates are harmless). */
	bp_backing = &file_backing;
	bp_sites_each(replay_site, NULL);
	atexit(file_exit);
	return 0;

fail_fd:
	err = errno;
	close(bp_live.fd);
	unlink(path_used);
	bp_live.fd = -1;
	path_used[0] = '\0';
	errno = err;
fail:
	err = errno;
	fprintf(stderr, "bprint: cannot create trace file %s: %s (tracing to memory only)\n",
		path, strerror(err));
	errno = err;
	return -1;
}

const char *bp_file_path(void)
{
	return bp_live.hdr && path_used[0] ? path_used : NULL;
}
