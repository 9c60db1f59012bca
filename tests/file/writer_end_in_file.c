/*
 * writer_end_in_file: the header's `end` never names more file than there
 * is, while threads take ring chunks side by side.
 *
 * A copy of a running program's file, or the file of a program killed at
 * any instant, is read with its writer gone; there a header `end` past the
 * file's size means the file was cut (docs/file-format.md).  So the writer
 * grows the file over a chunk before it moves `end` past it
 * (src/writer/writer.c); a writer that moved `end` first and grew the file
 * after showed the gap to a copy taken in between (reader_reuse under
 * ASan, once).
 *
 * Threads start in waves and each takes a ring (its first record), the
 * ring pool refilling beside them, while a sampler thread compares the
 * header's `end` with the file's size as fast as it can.  Every sample
 * must find end <= size.  The file is read by its descriptor (the name
 * may be taken: path.PID then).
 */
#include "trace/tracer_check.h"

#include "file/layout.h"
#include "writer/writer_live.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

#define WAVES 24
#define WAVE 16	/* threads alive at once in a wave: each its own ring */

static atomic_bool stop;
static atomic_ulong samples, beyond;
static atomic_ullong worst_end, worst_size;

static void *sampler(void *arg)
{
	const struct bp_file_header *h = bp_live_hdr();
	struct stat st;

	(void)arg;
	while (!atomic_load(&stop)) {
		/* end first: the size read after it can only have grown */
		uint64_t end = atomic_load_explicit(&h->end, memory_order_acquire);

		if (fstat(bp_live.fd, &st) != 0)
			break;
		atomic_fetch_add(&samples, 1);
		if (end > (uint64_t)st.st_size && !atomic_fetch_add(&beyond, 1)) {
			atomic_store(&worst_end, end);
			atomic_store(&worst_size, (unsigned long long)st.st_size);
		}
	}
	return NULL;
}

static pthread_barrier_t wave_start;

static void *traced(void *arg)
{
	pthread_barrier_wait(&wave_start);
	trace_printk("wave thread %lu", (unsigned long)(uintptr_t)arg);
	pthread_barrier_wait(&wave_start);	/* all alive: each holds a ring */
	return NULL;
}

int main(void)
{
	pthread_t s, t[WAVE];

	CHECK(getenv("BPRINT_FILE") != NULL);
	trace_printk("main %d", 0);	/* the file made */
	CHECK(bp_live.fd >= 0);
	CHECK_EQ(pthread_create(&s, NULL, sampler, NULL), 0);
	for (unsigned w = 0; w < WAVES; w++) {
		CHECK_EQ(pthread_barrier_init(&wave_start, NULL, WAVE), 0);
		for (uintptr_t i = 0; i < WAVE; i++)
			CHECK_EQ(pthread_create(&t[i], NULL, traced, (void *)(w * WAVE + i)), 0);
		for (unsigned i = 0; i < WAVE; i++)
			CHECK_EQ(pthread_join(t[i], NULL), 0);
		pthread_barrier_destroy(&wave_start);
	}
	atomic_store(&stop, true);
	CHECK_EQ(pthread_join(s, NULL), 0);
	if (atomic_load(&beyond))
		FAIL("%lu of %lu samples found the header's end past the file: end %llu, size %llu",
		     atomic_load(&beyond), atomic_load(&samples), atomic_load(&worst_end),
		     atomic_load(&worst_size));
	CHECK(atomic_load(&samples) > 0);
	printf("ok: %lu samples while %d threads took rings, end never past the file\n",
	       atomic_load(&samples), WAVES * WAVE);
	return 0;
}
