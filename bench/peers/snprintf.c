/*
 * bench/peers/snprintf: the seed's old approach, snprintf() into a
 * 256-byte buffer and a copy of the text into a ring: each thread has its
 * own bprint ring (the same ring code as the tracer, overwrite mode, 1 MiB),
 * so the difference to bprint is formatting at the call.
 */
#include "ring/ring.h"
#include "trace/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static __thread struct bp_ring_writer *old_ring;

static void peer_thread_init(void)
{
	size_t bytes = bp_ring_bytes(4096, 256);
	void *mem = aligned_alloc(64, bytes);

	old_ring = malloc(sizeof(*old_ring));
	if (!mem || !old_ring || bp_ring_init(mem, bytes, 4096, BP_RING_OVERWRITE) ||
	    bp_ring_writer_init(old_ring, mem, bytes))
		abort();
}

#define PEER_HAVE_THREAD_INIT
#define PEER_NAME "snprintf"
#define PEER_PRINTF(...)							\
	do {									\
		char text_[256];						\
		int len_ = snprintf(text_, sizeof(text_), __VA_ARGS__);	\
		struct bp_ring_writer *w_ = old_ring;				\
		void *p_;							\
										\
		if (len_ > (int)sizeof(text_) - 1)				\
			len_ = (int)sizeof(text_) - 1;				\
		p_ = bp_ring_reserve(w_, (uint32_t)len_ + 1, 1, bp_clock_now()); \
		if (p_) {							\
			memcpy(p_, text_, (size_t)len_ + 1);			\
			bp_ring_commit(w_);					\
		}								\
	} while (0)

/* in the ring: the 8-byte record header and the text with its NUL, in words */
#define PEER_HAVE_SIZES
#define PEER__TEXT(...) snprintf(NULL, 0, __VA_ARGS__)
#define PEER__RING(...) (8 + ((PEER__TEXT(__VA_ARGS__) + 1 + 3) / 4) * 4)
#define PEER_SIZE_seed PEER__RING(ARGS_seed(12345678))
#define PEER_SIZE_static_str PEER__RING(ARGS_static_str(0))
#define PEER_SIZE_one_int PEER__RING(ARGS_one_int(1234))
#define PEER_SIZE_two_ints PEER__RING(ARGS_two_ints(1234))
#define PEER_SIZE_one_double PEER__RING(ARGS_one_double(1234))
#define PEER_SIZE_complex_fmt PEER__RING(ARGS_complex_fmt(1234))
#define PEER_SIZE_one_string PEER__RING(ARGS_one_string(0))

#include "peers.h"
