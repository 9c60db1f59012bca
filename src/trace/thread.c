/*
 * Per-thread buffers: claiming descriptors, mapping rings, thread exit,
 * fork.  What becomes of an exited thread's rings (kept within the budget,
 * reclaimed, retired) is thread_retain.c's.  The design and the locking
 * table are in thread.h.
 */
#include "trace/thread.h"

#include "trace/thread_lists.h"
#include "trace/backing.h"
#include "trace/clock.h"
#include "trace/config.h"
#include "trace/cpu.h"
#include "trace/site.h"
#include "trace/tracer.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

_Atomic(struct bp_thread *) bp_threads;
pthread_rwlock_t bp_readers_lock = PTHREAD_RWLOCK_INITIALIZER;
pthread_mutex_t bp_consumer_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t bp_list_lock = PTHREAD_MUTEX_INITIALIZER;
struct bp_retired bp_retired;
__thread struct bp_thread *bp_self __attribute__((tls_model("initial-exec")));
__thread struct bprint__tls bprint__tls __attribute__((tls_model("initial-exec"))) = {
	.layout = BPRINT__LAYOUT,
};

const struct bp_backing *bp_backing;
static pthread_key_t exit_key;
_Atomic uint64_t bp_no_ring_records;
/* This thread could not get its descriptor and ring 0: it does not try again. */
static __thread bool no_ring_self __attribute__((tls_model("initial-exec")));

/* Under bp_list_lock: FREE descriptors (the DEAD ones are thread_retain.c's). */
static struct bp_thread *free_top;

/* Where the hot path reads the CPU: the thread's rseq area, kept current by the kernel. */
static const volatile uint32_t *cpu_id_source(void)
{
	static const uint32_t unknown = BP_NO_CPU - 1;	/* matches no last_cpu: slow path */

#if BP_CPU_RSEQ
	if (__rseq_size > 0 && bp_rseq_cpu() >= 0)
		return &((const struct rseq *)(const void *)((char *)bp_thread_pointer() +
							      __rseq_offset))->cpu_id;
#endif
	return &unknown;
}

void bp_thread_window_close(struct bp_thread *t)
{
	struct bprint__tls *f = &bprint__tls;

	if (f->cpu) {
		struct bp_ring_writer *w = &t->ring[0].w;

		w->off = f->off;
		/* relaxed: our own count, which the inline path stored */
		w->written = atomic_load_explicit(&w->ctl->written, memory_order_relaxed);
	}
	/* Nothing fits in no room: every call goes out of line. */
	f->off = 0;
	f->end = 0;
	f->cpu = NULL;
}

static void *map_anon(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void *ring_map(struct bp_thread *t, unsigned level, size_t bytes)
{
	const struct bp_backing *b = bp_backing;

	return b && b->ring_map ? b->ring_map(t, level, bytes) : map_anon(bytes);
}

static void ring_unmap(struct bp_thread *t, unsigned level, void *mem, size_t bytes,
		       enum bp_ring_release why)
{
	const struct bp_backing *b = bp_backing;

	if (b && b->ring_unmap)
		b->ring_unmap(t, level, mem, bytes, why);
	else
		munmap(mem, bytes);
}

/* Is mem a ring of the backing's file (not anonymous memory)? */
bool bp_thread_ring_in_file(const void *mem)
{
	const struct bp_backing *b = bp_backing;

	return b && b->ring_in_file && b->ring_in_file(mem);
}

/* Ring 0 gets the configured size; nested rings a sixteenth, at least 4 pages. */
static size_t ring_bytes(unsigned level, uint32_t *npages)
{
	size_t want = bp_config.buffer_bytes;
	size_t pages;

	if (level > 0)
		want /= 16;
	pages = want / bp_config.page_size;
	if (pages < 4)
		pages = 4;
	if (pages > UINT32_MAX)
		pages = UINT32_MAX;
	*npages = (uint32_t)pages;
	return bp_ring_bytes(bp_config.page_size, *npages);
}

/*
 * Block mode: only ring 0 waits; nested calls (signal handlers that
 * interrupt a trace) discard when full (docs/ring-buffer.md).  A ring in
 * the live file of bprint record has its consumer attached from the start,
 * before the drainer finds it, so that the first pages are waited for too.
 * A ring the full file had no room for is anonymous memory that no
 * consumer will ever see: it gets none, so it discards instead of waiting.
 */
static void block_setup(struct bp_thread_ring *r, unsigned level, void *mem, size_t bytes)
{
	if (bp_config.mode != BP_RING_BLOCK)
		return;
	if (level == 0)
		bp_ring_writer_block(&r->w, bp_config.block_ns);
	if (bp_config.record_pid && bp_thread_ring_in_file(mem))
		bp_ring_consumer_attach(mem, bytes, bp_config.record_pid);
}

/*
 * A ring that cannot be mapped loses its thread's records (counted as
 * discarded): said once a process, on the first, with write(2) (a signal
 * handler's first trace may be the one).
 */
static void say_no_ring(size_t bytes)
{
	static atomic_flag said = ATOMIC_FLAG_INIT;

	if (!atomic_flag_test_and_set_explicit(&said, memory_order_relaxed))
		bp_site_warn("bprint: no memory for a thread's %zu-byte ring: its records are "
			     "lost (counted as discarded)\n", bytes);
}

/* A record of a thread with no ring 0: counted here and, with a file, in it. */
static void count_no_ring(void)
{
	const struct bp_backing *b = bp_backing;

	/* relaxed: a count, read as a value */
	atomic_fetch_add_explicit(&bp_no_ring_records, 1, memory_order_relaxed);
	if (b && b->record_lost)
		b->record_lost();
}

/*
 * Both slow paths may run in a signal handler (a handler's first trace, or
 * its nest level's first ring), and the system calls they make can change
 * errno under the interrupted code: keep it.  (bp_ring_init() cannot fail
 * on the geometry ring_bytes() gives, so the give-back below, which takes
 * the backing's lock, does not run there in practice.)
 */
static struct bp_thread_ring *map_ring(struct bp_thread *t, unsigned level)
{
	struct bp_thread_ring *r = &t->ring[level];
	uint32_t npages;
	size_t bytes = ring_bytes(level, &npages);
	void *mem = bytes ? ring_map(t, level, bytes) : NULL;

	if (!mem || bp_ring_init_clean(mem, bytes, bp_config.page_size, bp_config.mode) != BP_RING_OK ||
	    bp_ring_writer_init(&r->w, mem, bytes) != BP_RING_OK) {
		if (mem)
			ring_unmap(t, level, mem, bytes, BP_RELEASE_READ);
		/* Not again for this thread: a retry per record would ask the
		 * backing for a ring per record (a file counts each). */
		r->map_failed = true;
		say_no_ring(bytes);
		return NULL;
	}
	block_setup(r, level, mem, bytes);
	r->bytes = bytes;
	r->last_cpu = BP_NO_CPU;
	/* T1: the ring formatted, r->bytes and the writer set up before a
	 * reader finds the pointer; pairs with the readers' T2. */
	atomic_store_explicit(&r->mem, mem, memory_order_release);
	return r;
}

struct bp_thread_ring *bp_thread_ring_slow(struct bp_thread *t, unsigned level)
{
	int saved_errno = errno;
	struct bp_thread_ring *r = t->ring[level].map_failed ? NULL : map_ring(t, level);

	errno = saved_errno;
	if (!r)	/* relaxed: a count with one writer (this thread), read for stats */
		atomic_store_explicit(&t->no_memory, atomic_load_explicit(&t->no_memory,
			memory_order_relaxed) + 1, memory_order_relaxed);
	return r;
}

void bp_read_state_release(struct bp_read_state *st)
{
	if (st->buf)
		munmap(st->buf, st->cap);
	memset(st, 0, sizeof(*st));
}

void bp_thread_unmap_rings(struct bp_thread *t, enum bp_ring_release why)
{
	for (unsigned i = 0; i < BP_NEST_MAX; i++) {
		/* T3: one unmapper takes the pointer; acquire as T2 (r->bytes
		 * after it), release: NULL before the memory goes. */
		void *mem = atomic_exchange_explicit(&t->ring[i].mem, NULL, memory_order_acq_rel);

		if (mem)
			ring_unmap(t, i, mem, t->ring[i].bytes, why);
		bp_read_state_release(&t->ring[i].consumer);
	}
}

/*
 * A claim may run in a signal handler (a handler's first trace) while its
 * thread holds the list lock, or on any thread while another holds it:
 * it never waits, and makes a new descriptor instead.
 */
static struct bp_thread *claim_free(void)
{
	struct bp_thread *t;

	if (pthread_mutex_trylock(&bp_list_lock) != 0)
		return NULL;
	t = free_top;
	if (t) {
		free_top = t->free_next;
		t->free_next = NULL;
		/* relaxed: CLAIMED publishes nothing (readers skip it), T4 will */
		atomic_store_explicit(&t->state, BP_THREAD_CLAIMED, memory_order_relaxed);
	}
	pthread_mutex_unlock(&bp_list_lock);
	return t;
}

/* With bp_list_lock: t, its rings unmapped, goes back to be claimed. */
void bp_thread_make_free(struct bp_thread *t)
{
	/* T4: the rings unmapped (T3) before FREE; pairs with the readers'
	 * acquire of state (T5), which then skip the descriptor. */
	atomic_store_explicit(&t->state, BP_THREAD_FREE, memory_order_release);
	t->free_next = free_top;
	free_top = t;
}

static struct bp_thread *push_new(void)
{
	struct bp_thread *t = map_anon(sizeof(*t));
	struct bp_thread *head;

	if (!t)
		return NULL;
	atomic_init(&t->state, BP_THREAD_CLAIMED);
	/* relaxed: a first guess, the CAS checks it */
	head = atomic_load_explicit(&bp_threads, memory_order_relaxed);
	do {
		t->next = head;
		/* T6: state and next before the descriptor is on the list;
		 * pairs with the walkers' acquire of bp_threads (T7).  Failure
		 * relaxed: only head is reloaded. */
	} while (!atomic_compare_exchange_weak_explicit(&bp_threads, &head, t,
							memory_order_release,
							memory_order_relaxed));
	return t;
}

/*
 * A descriptor made ahead for the next new thread, by the ring pool's
 * thread (writer_pool.c): its mmap and first fault, 6-7 us of a thread's
 * first call on a busy VM, are then not that call's.  It waits on the
 * free stack as an exited thread's does.  At most one: none is made while
 * the stack holds one (an exited thread's serves as well); two may meet
 * there when a thread exits meanwhile, which costs one descriptor kept.
 */
void bp_thread_spare(void)
{
	struct bp_thread *t;
	bool have;

	pthread_mutex_lock(&bp_list_lock);
	have = free_top != NULL;
	pthread_mutex_unlock(&bp_list_lock);
	if (have || !(t = push_new()))
		return;
	pthread_mutex_lock(&bp_list_lock);
	bp_thread_make_free(t);
	pthread_mutex_unlock(&bp_list_lock);
}

/*
 * A thread's end, from exit_key's destructor.  Signals but the faults are
 * blocked first, for the rest of the thread's life: a handler that traced
 * here, or once the thread was DEAD, made a second descriptor and ring for
 * the ending thread, whose destructor then ran a round later.  Under TSan
 * that could be the round whose own destructor ends the thread's state,
 * and our code after it crashed (tool_block's tracing timer: 8 runs in
 * 30).  A signal for the process now runs its handler on another thread,
 * its record kept there; the C library blocks them all a little later
 * anyway, after the last destructor (glibc 2.34 and later).
 */
static void thread_exit(void *arg)
{
	struct bp_thread *t = arg;
	sigset_t all;

	sigfillset(&all);
	/* but a fault in a later destructor still reaches its handler (a
	 * blocked one kills the process unhandled: no BPRINT_DUMP=crash) */
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGTRAP);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	prctl(PR_GET_NAME, t->comm, 0, 0, 0);	/* the name it ends with */
	if (bp_self == t) {
		bp_thread_window_close(t);
		bp_self = NULL;
	}
	if (bp_backing && bp_backing->thread_exit)
		bp_backing->thread_exit(t);
	bp_thread_retain_dead(t);
}

/*
 * A thread's first trace.  Signals are blocked while the descriptor is
 * made, so that a handler that traces cannot run halfway through and make
 * a second descriptor for the same thread; it runs, and traces, as soon as
 * the mask is restored (two system calls, once per thread).
 */
static struct bp_thread *make_self(void)
{
	struct bp_thread *t = claim_free();

	if (!t)
		t = push_new();
	if (!t)
		return NULL;
	t->tid = (int32_t)gettid();
	memset(t->comm, 0, sizeof(t->comm));
	prctl(PR_GET_NAME, t->comm, 0, 0, 0);
	t->cpu_id = cpu_id_source();
	t->generation++;
	/* relaxed: counts with one writer; ALIVE (T4) publishes them */
	atomic_store_explicit(&t->too_deep, 0, memory_order_relaxed);
	atomic_store_explicit(&t->no_memory, 0, memory_order_relaxed);
	atomic_store_explicit(&t->unregistered, 0, memory_order_relaxed);
	for (unsigned i = 0; i < BP_NEST_MAX; i++) {
		t->ring[i].map_failed = false;
		atomic_store_explicit(&t->ring[i].consumer_read, 0, memory_order_relaxed);
		atomic_store_explicit(&t->ring[i].consumer_overwritten, 0, memory_order_relaxed);
	}
	bp_thread_retain_make_room();
	if (!map_ring(t, 0)) {
		if (pthread_mutex_trylock(&bp_list_lock) == 0) {
			bp_thread_make_free(t);
			pthread_mutex_unlock(&bp_list_lock);
		}	/* else it stays CLAIMED, unused: one descriptor lost */
		return NULL;
	}
	/* T4: tid, comm, cpu_id, the counters and ring 0 (T1) before ALIVE;
	 * pairs with the readers' acquire of state (T5). */
	atomic_store_explicit(&t->state, BP_THREAD_ALIVE, memory_order_release);
	pthread_setspecific(exit_key, t);
	bp_thread_window_push(t);
	bp_self = t;
	return t;
}

struct bp_thread *bp_thread_self_slow(void)
{
	sigset_t all, old;
	struct bp_thread *t;
	int saved_errno = errno;

	if (no_ring_self) {
		count_no_ring();
		return NULL;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	t = bp_self ? bp_self : make_self();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved_errno;
	if (!t) {
		no_ring_self = true;
		say_no_ring(ring_bytes(0, &(uint32_t){ 0 }));
		count_no_ring();
	}
	return t;
}

/*
 * In a fork child only the forking thread exists and the parent's records
 * are the parent's: every descriptor goes back to FREE with its rings
 * unmapped, and the locks start over.
 */
static void fork_child(void)
{
	if (bp_backing && bp_backing->fork_child)
		bp_backing->fork_child();	/* may drop the backing */
	pthread_rwlock_init(&bp_readers_lock, NULL);
	pthread_mutex_init(&bp_consumer_lock, NULL);
	pthread_mutex_init(&bp_list_lock, NULL);
	free_top = NULL;
	bp_thread_dead_forget();
	memset(&bp_retired, 0, sizeof(bp_retired));
	/* T7 (one thread runs here: any order would do) */
	for (struct bp_thread *t = atomic_load_explicit(&bp_threads, memory_order_acquire); t;
	     t = t->next) {
		bp_thread_unmap_rings(t, BP_RELEASE_CHILD);
		t->dead_prev = t->dead_next = NULL;
		t->queued = 0;
		t->retained = 0;
		t->in_file = 0;
		bp_thread_make_free(t);
	}
	/* The window looked into the parent's ring, unmapped above. */
	bprint__tls.off = 0;
	bprint__tls.end = 0;
	bprint__tls.cpu = NULL;
	bp_self = NULL;
}

/*
 * The locks whose data the child needs intact are held across fork(), as
 * glibc does with its own; fork_child() resets the others
 * (docs/locks.md has the list and the rule for each).
 */
static void fork_prepare(void)
{
	if (bp_backing && bp_backing->fork_prepare)
		bp_backing->fork_prepare();
	bp_site_fork_prepare();
	bp_clock_fork_prepare();
}

static void fork_parent(void)
{
	bp_clock_fork_release();
	bp_site_fork_release();
}

static void fork_child_all(void)
{
	/* the parent's lost records are the parent's; this thread may try again */
	atomic_store_explicit(&bp_no_ring_records, 0, memory_order_relaxed);
	no_ring_self = false;
	fork_child();
	bp_clock_fork_release();
	bp_site_fork_release();
}

void bp_thread_init(void)
{
	pthread_key_create(&exit_key, thread_exit);
	pthread_atfork(fork_prepare, fork_parent, fork_child_all);
}

/* ---- what a backing sees (trace/backing.h) ----------------------------- */

_Static_assert(BP_BACKING_RINGS == BP_NEST_MAX, "a view holds every level's ring");

void bp_thread_view(const struct bp_thread *t, struct bp_thread_view *out)
{
	out->tid = t->tid;
	out->comm = t->comm;
	out->dropped = bp_thread_dropped(t);
	for (unsigned i = 0; i < BP_NEST_MAX; i++) {
		/* T2: the ring's size was set before its pointer was published (T1) */
		out->ring_mem[i] = atomic_load_explicit(&t->ring[i].mem, memory_order_acquire);
		out->ring_bytes[i] = out->ring_mem[i] ? t->ring[i].bytes : 0;
	}
}

void bp_threads_each_alive(void (*fn)(const struct bp_thread_view *v, void *ctx), void *ctx)
{
	struct bp_thread_view v;

	for (struct bp_thread *t = atomic_load_explicit(&bp_threads, memory_order_acquire); t;
	     t = t->next)	/* T7 */
		if (atomic_load_explicit(&t->state, memory_order_acquire) == BP_THREAD_ALIVE) {	/* T5 */
			bp_thread_view(t, &v);
			fn(&v, ctx);
		}
}
