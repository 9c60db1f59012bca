/*
 * The live file's ring chunks (writer_live.h): one per ring the tracer
 * maps (a thread and signal-nesting level), handed to it as ring memory
 * (trace/backing.h), taken back when the tracer gives an exited thread's
 * ring back, and reused for a new ring of the same size, so that the file
 * does not grow with the number of threads that ever traced
 * (docs/file-format.md, "Ring chunks reused").
 *
 *	ring_map    a spare chunk of that size, else a new one at the end;
 *	            the file or its disk full: anonymous memory (counted in
 *	            the header, once a ring: a ring that failed is not asked
 *	            for again, trace/thread.c)
 *	ring_unmap  nothing lost (read in process, or copied): spare at once;
 *	            BPRINT_RETAIN, no copier: counted as retired, then spare;
 *	            under bprint record, not copied yet: waiting, and spare
 *	            once the copier has stored "copied" in it
 *
 * Spare and waiting chunks stay mapped (the tracer dropped their pages
 * from memory at thread exit): whether the copier is done with one is a
 * load, and a chunk is blanked (its old ring cleared) as it becomes spare,
 * at thread exit where it can be, so that reusing it in a thread's first
 * record is a few stores.  The two lists change under
 * spare_lock: ring_unmap takes it (ordinary context), and so does ring_map,
 * unless its thread already holds it (a signal handler's first trace that
 * interrupted a give-back on its own thread: it then takes a new chunk).
 * A ring_map that only tried the lock took a new chunk whenever another
 * thread was giving one back, so that with threads starting while others
 * exit almost no chunk was reused (40,000 threads, 16 at a time: a 36 GB
 * file).  What is costly (blanking a chunk) is done outside the lock.
 */
#include "file/checksums.h"
#include "writer/writer_live.h"
#include "writer/writer_pool.h"

#include "ring/view.h"
#include "trace/config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

struct chunk_list {
	struct bp_mapped *v;
	size_t n, cap;
};

static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
/* This thread holds spare_lock (or is about to, or has just let it go). */
static __thread bool holding_spare __attribute__((tls_model("initial-exec")));

static void lock_spare(void)
{
	holding_spare = true;
	/* a signal handler of ours sees the flag before we may hold the lock */
	atomic_signal_fence(memory_order_seq_cst);
	pthread_mutex_lock(&spare_lock);
}

static void unlock_spare(void)
{
	pthread_mutex_unlock(&spare_lock);
	atomic_signal_fence(memory_order_seq_cst);
	holding_spare = false;
}
static struct chunk_list spare;		/* reusable now */
static struct chunk_list waiting;	/* until the copier has copied them */

/* The ring chunk of ring memory we handed out (ring memory from the file is
 * never page-aligned: it starts 128 bytes into a chunk), or NULL. */
static struct bp_file_ring *ring_chunk(const void *mem)
{
	if (!mem || ((uintptr_t)mem & (bp_live.sys_page - 1)) == 0)
		return NULL;
	return (struct bp_file_ring *)(uintptr_t)((const unsigned char *)mem - BP_FILE_RING_OFFSET);
}

bool bp_live_ring_in_file(const void *mem)
{
	return ring_chunk(mem) != NULL;
}

bool bp_live_ring_copied(const void *mem)
{
	struct bp_file_ring *r = ring_chunk(mem);

	/* C1: acquire, pairs with the copier's release store of "copied" (D1 in
	 * src/drainer/drain_ring.c): its reads of the ring came before. */
	return r && atomic_load_explicit(&r->state, memory_order_acquire) == BP_RING_COPIED;
}

/* The mapping that holds ring chunk r (made by bp_live_chunk_alloc()). */
static struct bp_mapped mapping_of(struct bp_file_ring *r)
{
	uintptr_t start = (uintptr_t)r & ~(bp_live.sys_page - 1);
	struct bp_mapped m;

	m.base = (unsigned char *)start;
	m.len = (size_t)((uintptr_t)r - start) + (size_t)r->chunk.size;
	m.chunk = &r->chunk;
	return m;
}

/* ---- reuse -------------------------------------------------------------- */

/*
 * Zero the headers of npages ring pages from pages on.  Writing them one
 * by one would fault back in every page the exited thread gave back (a
 * 4 MiB ring: 1,024 faults, milliseconds on its successor's first
 * record): the file's whole system pages among them are punched out
 * instead (they read as zero again, and the writer faults them in as it
 * reaches them), and only the headers outside those are written.
 */
static void clear_headers(unsigned char *pages, uint32_t page_size, uint32_t npages)
{
	uintptr_t os = bp_live.sys_page, end = (uintptr_t)pages + (uintptr_t)npages * page_size;
	uintptr_t lo = ((uintptr_t)pages + os - 1) & ~(os - 1), hi = end & ~(os - 1);

	if (lo >= hi || madvise((void *)lo, hi - lo, MADV_REMOVE) != 0)
		lo = hi = 0;	/* none punched (a file system without holes) */
	for (uint32_t i = 0; i < npages; i++) {
		uintptr_t h = (uintptr_t)pages + (uintptr_t)i * page_size;

		if (h < lo || h + BP_RING_PAGE_HDR_BYTES > hi)
			memset((void *)h, 0, BP_RING_PAGE_HDR_BYTES);
	}
}

/*
 * Steps 1 and 2 of a reuse (docs/file-format.md): readers skip the chunk
 * from now on, and the old ring no longer passes the ring's checks.  The
 * whole control block goes, not the magic alone: a published ring whose
 * magic is 0 is then one not formatted yet only if its writer's counts
 * are 0 too, which lets a reader call any other such ring damaged.  And
 * the old ring's page headers go, so that the new ring is formatted as on
 * new memory (bp_ring_init_clean; the page size is the process's, the
 * same for both rings).
 */
static void blank(struct bp_file_ring *r)
{
	unsigned char *ring = (unsigned char *)r + BP_FILE_RING_OFFSET;
	uint32_t page_size, npages;
	bool formatted = bp_ring_ctl_pages(ring, r->ring_bytes, &page_size, &npages);

	atomic_store_explicit(&r->chunk.state, BP_CHUNK_WRITING, memory_order_relaxed);
	/* C2: the state "being written" before the ring changes: a reader that
	 * sees a changed ring (acquire fence) sees the chunk state 0 or the new
	 * index; pairs with the copier's re-check of the chunk header (D2). */
	atomic_thread_fence(memory_order_release);
	bp_ring_ctl_clear(ring);
	if (formatted)
		clear_headers(ring + BP_RING_CTL_BYTES, page_size, npages);
}

/* With spare_lock: the waiting chunks the copier is done with become spare. */
static void promote_copied(void)
{
	size_t i = 0;

	while (i < waiting.n) {
		struct bp_file_ring *r = (struct bp_file_ring *)(void *)waiting.v[i].chunk;

		if (atomic_load_explicit(&r->state, memory_order_acquire) != BP_RING_COPIED) {	/* C1 */
			i++;
			continue;
		}
		if (spare.n < spare.cap) {	/* no allocation here: it may be a signal handler */
			blank(r);
			spare.v[spare.n++] = waiting.v[i];
		} else
			munmap(waiting.v[i].base, waiting.v[i].len);	/* not reused */
		waiting.v[i] = waiting.v[--waiting.n];
	}
}

/* A spare chunk of size bytes, blanked and with a new index: 0, or -1 if none. */
static int take_spare(uint64_t size, struct bp_mapped *m)
{
	struct bp_file_ring *r;
	int found = -1;

	if (holding_spare)
		return -1;	/* a handler that interrupted our own give-back */
	lock_spare();
	promote_copied();
	for (size_t i = spare.n; i-- > 0;)
		if (spare.v[i].chunk->size == size) {
			*m = spare.v[i];
			spare.v[i] = spare.v[--spare.n];
			found = 0;
			break;
		}
	unlock_spare();
	if (found != 0)
		return -1;
	r = (struct bp_file_ring *)(void *)m->chunk;
	if (atomic_load_explicit(&r->chunk.state, memory_order_relaxed) != BP_CHUNK_WRITING)
		blank(r);	/* a ring read in process, shown until now */
	/* Step 3's fields start from zero, as in a new chunk; ring_map fills them. */
	memset((unsigned char *)r + BP_CHUNK_HDR_BYTES, 0, BP_FILE_RING_OFFSET - BP_CHUNK_HDR_BYTES);
	r->chunk.index = bp_live_next_index();
	return 0;
}

/* With spare_lock: keep m on l; a list that cannot grow lets it go. */
static void push(struct chunk_list *l, struct bp_mapped m)
{
	if (l->n == l->cap) {	/* lock_with_room() could not make room */
		munmap(m.base, m.len);
		return;
	}
	l->v[l->n++] = m;
}

/* With spare_lock: does l have room for need?  If not, *cap the room to make. */
static bool has_room(const struct chunk_list *l, size_t need, size_t *cap)
{
	*cap = need + need / 2 + 16;
	return l->cap >= need;
}

/* Give l room for cap (v, made outside the lock), unless it has it; the
 * array no longer used is returned, for the caller to free outside it. */
static struct bp_mapped *install(struct chunk_list *l, struct bp_mapped *v, size_t cap)
{
	struct bp_mapped *old = l->v;

	if (!v || l->cap >= cap)
		return v;
	if (l->n)
		memcpy(v, l->v, l->n * sizeof(*v));
	l->v = v;
	l->cap = cap;
	return old;
}

/*
 * Take spare_lock with room on both lists for one more chunk (and among
 * the spare ones for every waiting one, promote_copied()), the arrays
 * grown outside the lock: nothing under it allocates, so that a signal
 * handler's first trace, which waits for the lock (take_spare()), never
 * waits for a holder that waits for malloc's lock its own thread may
 * hold.  Out of memory: the lock, without the room (push() lets go).
 */
static void lock_with_room(void)
{
	for (int tries = 0;; tries++) {
		size_t spare_cap, waiting_cap;
		struct bp_mapped *a, *b;
		bool room;

		lock_spare();
		room = has_room(&spare, spare.n + waiting.n + 1, &spare_cap);
		room = has_room(&waiting, waiting.n + 1, &waiting_cap) && room;
		if (room || tries == 3)
			return;
		unlock_spare();
		a = malloc(spare_cap * sizeof(*a));
		b = malloc(waiting_cap * sizeof(*b));
		lock_spare();
		a = install(&spare, a, spare_cap);
		b = install(&waiting, b, waiting_cap);
		unlock_spare();
		free(a);
		free(b);
	}
}

/* The records of ring chunk r are lost: counted in the header first. */
static void count_retired(struct bp_file_ring *r, const void *mem, size_t bytes)
{
	struct bp_file_header *h = bp_live_hdr();
	/* relaxed here and below: counts; the thread stored dropped before
	 * "exited" (C3), which we acquired (C1) before giving the ring back */
	uint64_t dropped = r->level == 0 ? atomic_load_explicit(&r->dropped, memory_order_relaxed)
					 : 0;
	uint64_t written = dropped, discarded = dropped;
	struct bp_ring_stats st;

	if (bp_ring_stats(mem, bytes, &st) == BP_RING_OK) {
		written += st.written;
		discarded += st.discarded;
	}
	atomic_fetch_add_explicit(&h->retired_rings, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&h->retired_written, written, memory_order_relaxed);
	atomic_fetch_add_explicit(&h->retired_discarded, discarded, memory_order_relaxed);
}

/* ---- the backing's hooks ------------------------------------------------ */

/*
 * The file had no room for a ring: it traces in memory only.  The header
 * counts such rings now and their records when their threads are done
 * (memory_records), so that a reader says what the file lacks; the first
 * one is also said on stderr.  May run in a signal handler: atomics and
 * write(2) only.
 */
static void *map_anon(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void *ring_to_memory(size_t bytes)
{
	static const char msg[] = "bprint: the trace file is full: a thread's records are "
				  "kept in memory only\n";

	/* relaxed: a count; the first adder says it */
	if (atomic_fetch_add_explicit(&bp_live_hdr()->memory_rings, 1, memory_order_relaxed) == 0)
		(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	return map_anon(bytes);
}

/*
 * Room on the file's filesystem for a new chunk of size bytes, with a
 * margin to spare for what else grows there (sites, bprint record's
 * stream): 64 MiB, or a sixteenth of the filesystem if that is less.  A
 * ring, whose chunk is reserved whole, never fills a disk.  Unknown
 * (fstatvfs fails, or a filesystem of no set size: the memfd of
 * docs/attach.md, whose pages are memory as anonymous rings' are): yes,
 * and fallocate() or the memory decides.
 */
#define ROOM_MARGIN_MAX ((uint64_t)64 << 20)

static bool room_for(uint64_t size)
{
	struct statvfs sv;
	uint64_t avail, margin;

	if (fstatvfs(bp_live.fd, &sv) != 0 || sv.f_blocks == 0)
		return true;
	avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	margin = (uint64_t)sv.f_blocks / 16 * sv.f_frsize;
	if (margin > ROOM_MARGIN_MAX)
		margin = ROOM_MARGIN_MAX;
	return avail >= size && avail - size >= margin;
}

int bp_live_ring_chunk_get(uint64_t size, struct bp_mapped *m)
{
	if (take_spare(size, m) == 0)
		return 0;
	return room_for(size) && bp_live_chunk_alloc(BP_CHUNK_RING, size, m) == 0 ? 0 : -1;
}

void *bp_live_ring_map(struct bp_thread *t, unsigned level, size_t bytes)
{
	uint64_t size = bp_file_align_up(BP_FILE_RING_OFFSET + (uint64_t)bytes);
	struct bp_mapped m;
	struct bp_file_ring *r;
	struct bp_thread_view v;

	if (!bp_live_hdr() && bp_live_child_file(false) != 0)
		return map_anon(bytes);	/* a fork child without a file of its own */
	/* a ring faulted in ahead (writer_pool.c), else a spare or new chunk;
	 * a pooled chunk keeps the index it was given in the pool */
	if ((level != 0 || bp_live_pool_take(size, &m) != 0) &&
	    bp_live_ring_chunk_get(size, &m) != 0)
		return ring_to_memory(bytes);	/* tracing goes on, in memory only */
	r = (struct bp_file_ring *)(void *)m.chunk;
	bp_thread_view(t, &v);
	r->tid = (uint32_t)v.tid;
	r->level = level;
	memcpy(r->comm, v.comm, sizeof(r->comm));
	atomic_store_explicit(&r->state, BP_RING_ALIVE, memory_order_relaxed);	/* H3 publishes */
	r->ring_bytes = bytes;
	r->names_crc = bp_ring_names_crc(r);	/* format 1.4 */
	bp_live_chunk_publish(&r->chunk);
	bp_live_maybe_calibrate();
	return (unsigned char *)r + BP_FILE_RING_OFFSET;
}

/*
 * Block mode under bprint record: a ring given back before the copier
 * copied it is one the tracer's BPRINT_RETAIN budget let go (the tracer
 * keeps exited threads' rings until they are copied, within the budget):
 * the exiting thread that gave it back waits (at most the block timeout,
 * once its tracer has let go of its locks) until the copier is done with
 * every such ring, so that threads that start and end faster than the
 * copier copies do not grow the file past the budget.  The wait is at
 * thread exit, never in a call site: a thread's first record takes a
 * spare chunk or a new one at once.
 */
static atomic_bool copier_behind;	/* a ring went to waiting in block mode */

void bp_live_settle(void)
{
	uint64_t waited = 0, step = 200000;	/* ns */
	bool over = true;

	/* relaxed: a hint, set and cleared under spare_lock with the list */
	if (!atomic_load_explicit(&copier_behind, memory_order_relaxed))
		return;
	for (;;) {
		struct timespec nap = { 0, (long)step };

		lock_spare();
		promote_copied();
		over = waiting.n > 0;
		if (!over)
			atomic_store_explicit(&copier_behind, false, memory_order_relaxed);
		unlock_spare();
		if (!over || waited >= bp_config.block_ns)
			return;
		nanosleep(&nap, NULL);
		waited += step;
	}
}

void bp_live_ring_unmap(struct bp_thread *t, unsigned level, void *mem, size_t bytes,
			enum bp_ring_release why)
{
	struct bp_file_ring *r = ring_chunk(mem);
	uint32_t state;

	(void)t;
	(void)level;
	if (!r) {
		munmap(mem, bytes);
		return;
	}
	if (why == BP_RELEASE_CHILD) {
		bp_live_child_ring_unmap(t, level, mem, bytes, why);
		return;
	}
	state = atomic_load_explicit(&r->state, memory_order_acquire);	/* C1 */
	/* Ours alone now: blanked here, at thread exit, not in the next
	 * thread's first record, and outside the lock. */
	if (state == BP_RING_COPIED)
		blank(r);
	else if (!bp_config.record_pid && why == BP_RELEASE_LOST) {
		count_retired(r, mem, bytes);
		blank(r);
	}
	lock_with_room();
	promote_copied();	/* the others the copier is done with: blanked here */
	if (state == BP_RING_COPIED) {
		push(&spare, mapping_of(r));
	} else if (bp_config.record_pid) {
		push(&waiting, mapping_of(r));	/* the copier may still be reading it */
		if (bp_config.mode == BP_RING_BLOCK)
			atomic_store_explicit(&copier_behind, true, memory_order_relaxed);
	} else {
		if (why != BP_RELEASE_LOST)
			/* release, as "exited" (C3): a reader of the file only shows it */
			atomic_store_explicit(&r->state, BP_RING_RELEASED, memory_order_release);
		push(&spare, mapping_of(r));
	}
	unlock_spare();
}

/* In a fork child: the parent's file rings are unmapped, nothing written. */
void bp_live_child_ring_unmap(struct bp_thread *t, unsigned level, void *mem, size_t bytes,
			      enum bp_ring_release why)
{
	struct bp_file_ring *r = ring_chunk(mem);

	(void)t;
	(void)level;
	(void)why;
	if (r) {
		struct bp_mapped m = mapping_of(r);

		munmap(m.base, m.len);
	} else {
		munmap(mem, bytes);
	}
}

void bp_live_rings_fork_child(void)
{
	/* Only this thread runs: no lock is needed, none may be taken. */
	bp_live_pool_fork_child();
	for (size_t i = 0; i < spare.n; i++)
		munmap(spare.v[i].base, spare.v[i].len);
	for (size_t i = 0; i < waiting.n; i++)
		munmap(waiting.v[i].base, waiting.v[i].len);
	free(spare.v);
	free(waiting.v);
	memset(&spare, 0, sizeof(spare));
	memset(&waiting, 0, sizeof(waiting));
	pthread_mutex_init(&spare_lock, NULL);
}

/* ---- threads ------------------------------------------------------------ */

/* Records of v's rings that are not in the file (ring_to_memory()). */
static uint64_t records_in_memory(const struct bp_thread_view *v)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < BP_BACKING_RINGS; i++) {
		struct bp_ring_stats st;

		if (!v->ring_mem[i] || ring_chunk(v->ring_mem[i]))
			continue;
		if (bp_ring_stats(v->ring_mem[i], v->ring_bytes[i], &st) == BP_RING_OK)
			n += st.written;
		if (i == 0)
			n += v->dropped;	/* ring 0's chunk would have held them */
	}
	return n;
}

/*
 * A thread is done (its exit, or the process's): its last name and
 * counters.  A thread that exits after the process's exit handler counted
 * it as alive is not counted again (the file says closed then).
 */
static void store_thread(const struct bp_thread_view *v, bool exited)
{
	struct bp_file_header *h = bp_live_hdr();
	uint64_t in_memory;

	if (!h)
		return;	/* a fork child without a file: nothing to store */
	in_memory = records_in_memory(v);
	/* H6: closed already?  Then the exit handler counted this thread */
	if (in_memory && !(atomic_load_explicit(&h->flags, memory_order_acquire) & BP_FILE_F_CLOSED))
		atomic_fetch_add_explicit(&h->memory_records, in_memory, memory_order_relaxed);
	for (unsigned i = 0; i < BP_BACKING_RINGS; i++) {
		struct bp_file_ring *r = ring_chunk(v->ring_mem[i]);

		if (!r)
			continue;
		memcpy(r->comm, v->comm, sizeof(r->comm));
		if (i == 0)	/* relaxed: "exited" (C3) or "closed" (H6) publishes it */
			atomic_store_explicit(&r->dropped, v->dropped, memory_order_relaxed);
		r->names_crc = bp_ring_names_crc(r);	/* format 1.4; published as dropped */
		if (exited)
			/* C3: the thread's last records, name and dropped count
			 * before "exited": the copier (D3) then copies it to the
			 * end. */
			atomic_store_explicit(&r->state, BP_RING_EXITED, memory_order_release);
	}
}

static void store_alive(const struct bp_thread_view *v, void *ctx)
{
	(void)ctx;
	store_thread(v, false);
}

void bp_live_record_lost(void)
{
	struct bp_file_header *h = bp_live_hdr();

	/* relaxed: a count.  H6: once closed, the file's counts are final */
	if (h && !(atomic_load_explicit(&h->flags, memory_order_acquire) & BP_FILE_F_CLOSED))
		atomic_fetch_add_explicit(&h->memory_records, 1, memory_order_relaxed);
}

void bp_live_thread_exit(struct bp_thread *t)
{
	struct bp_thread_view v;

	bp_thread_view(t, &v);
	store_thread(&v, true);
}

void bp_live_rings_at_exit(void)
{
	bp_threads_each_alive(store_alive, NULL);
}
