/*
 * bench/peers/floor: the least any tracer can do per call, an rdtsc and a
 * store of the message's arguments into a per-thread ring in memory:
 *
 *   | tsc (8) | arguments, 4 bytes per int, 8 per u64 or double | (8-aligned)
 *
 * and for the %s message the string's length and bytes.  No message id,
 * no commit, no counters, no consumer: a floor, not a tracer.
 *
 * Its buffer (1 MiB) is written whole by the tracing thread just before
 * its first call: resident, and hot in that core's cache.  FLOOR_FRESH=1,
 * the fresh floor: the buffer is mapped and faulted in at the program's
 * start by a helper thread (a write to each page, as bprint's
 * BPRINT_PREFAULT pool does), and the (first) tracing thread writes it
 * cold: what a tracer whose pages were faulted in ahead can at best do.
 */
#include "msgs.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define FLOOR_BYTES (1u << 20)

static __thread unsigned char *floor_ring;
static __thread size_t floor_pos;

static unsigned char *fresh_ring;	/* FLOOR_FRESH: faulted in at start */
static pthread_t fresh_helper;
static int fresh_mode;
static int fresh_taken;	/* by the first tracing thread; the others write their own */

/* The helper: a write of nothing to each page, as bprint's pool does. */
static void *fault_ahead(void *arg)
{
	unsigned char *b = arg;

	for (size_t o = 0; o < FLOOR_BYTES; o += 4096)
		__atomic_fetch_add(b + o, 0, __ATOMIC_RELAXED);
	return NULL;
}

__attribute__((constructor)) static void fresh_start(void)
{
	const char *v = getenv("FLOOR_FRESH");

	fresh_mode = v ? atoi(v) : 0;
	if (!fresh_mode)
		return;
	fresh_ring = mmap(NULL, FLOOR_BYTES, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fresh_ring == MAP_FAILED || pthread_create(&fresh_helper, NULL, fault_ahead, fresh_ring))
		abort();
}

static void peer_thread_init(void)
{
	if (fresh_mode && !__atomic_exchange_n(&fresh_taken, 1, __ATOMIC_ACQ_REL)) {
		pthread_join(fresh_helper, NULL);
		floor_ring = fresh_ring;
		return;
	}
	floor_ring = aligned_alloc(64, FLOOR_BYTES);
	if (!floor_ring)
		abort();
	memset(floor_ring, 0, FLOOR_BYTES);
}

static inline unsigned char *floor_slot(size_t bytes)
{
	unsigned char *p;

	if (__builtin_expect(floor_pos + bytes > FLOOR_BYTES, 0))
		floor_pos = 0;
	p = floor_ring + floor_pos;
	floor_pos += bytes;
	return p;
}

static inline void floor_u64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static inline void floor_u32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static inline void floor_f64(unsigned char *p, double v)
{
	memcpy(p, &v, 8);
}

#define FLOOR_DONE() __asm__ volatile("" ::: "memory")

#define PEER_EMIT_seed(i)							\
	do {									\
		unsigned char *p_ = floor_slot(16);				\
		floor_u64(p_, __builtin_ia32_rdtsc());				\
		floor_u64(p_ + 8, A_SEED(i));					\
		FLOOR_DONE();							\
	} while (0)
#define PEER_EMIT_static_str(i)							\
	do {									\
		unsigned char *p_ = floor_slot(8);				\
		(void)(i);							\
		floor_u64(p_, __builtin_ia32_rdtsc());				\
		FLOOR_DONE();							\
	} while (0)
#define PEER_EMIT_one_int(i)							\
	do {									\
		unsigned char *p_ = floor_slot(16);				\
		floor_u64(p_, __builtin_ia32_rdtsc());				\
		floor_u32(p_ + 8, (uint32_t)A_INT(i));				\
		FLOOR_DONE();							\
	} while (0)
#define PEER_EMIT_two_ints(i)							\
	do {									\
		unsigned char *p_ = floor_slot(16);				\
		floor_u64(p_, __builtin_ia32_rdtsc());				\
		floor_u32(p_ + 8, (uint32_t)A_INT(i));				\
		floor_u32(p_ + 12, (uint32_t)A_INT2(i));			\
		FLOOR_DONE();							\
	} while (0)
#define PEER_EMIT_one_double(i)							\
	do {									\
		unsigned char *p_ = floor_slot(16);				\
		floor_u64(p_, __builtin_ia32_rdtsc());				\
		floor_f64(p_ + 8, A_DOUBLE(i));					\
		FLOOR_DONE();							\
	} while (0)
#define PEER_EMIT_complex_fmt(i)						\
	do {									\
		unsigned char *p_ = floor_slot(32);				\
		floor_u64(p_, __builtin_ia32_rdtsc());				\
		floor_u32(p_ + 8, (uint32_t)A_CX1(i));				\
		floor_u32(p_ + 12, (uint32_t)A_CX2(i));			\
		floor_u32(p_ + 16, (uint32_t)A_CX3(i));			\
		floor_u32(p_ + 20, (uint32_t)A_CX4(i));			\
		floor_f64(p_ + 24, A_CX5(i));					\
		FLOOR_DONE();							\
	} while (0)
#define PEER_EMIT_one_string(i)							\
	do {									\
		const char *s_ = A_STRING(i);					\
		size_t n_ = strlen(s_);						\
		unsigned char *p_ = floor_slot((12 + n_ + 7) & ~(size_t)7);	\
		(void)(i);							\
		floor_u64(p_, __builtin_ia32_rdtsc());				\
		floor_u32(p_ + 8, (uint32_t)n_);				\
		memcpy(p_ + 12, s_, n_);					\
		FLOOR_DONE();							\
	} while (0)

#define PEER_HAVE_THREAD_INIT
#define PEER_NAME "floor"
#define PEER_HAVE_SIZES
#define PEER_SIZE_seed 16
#define PEER_SIZE_static_str 8
#define PEER_SIZE_one_int 16
#define PEER_SIZE_two_ints 16
#define PEER_SIZE_one_double 16
#define PEER_SIZE_complex_fmt 32
#define PEER_SIZE_one_string ((12 + sizeof(STRING_ARG) - 1 + 7) & ~(size_t)7)

#include "peers.h"
