/*
 * tests/trace/tracer_sized.c - caller-allocated structs that begin with
 * their size (struct bprint_event, struct bprint_thread_stats).
 *
 * A program compiled against a newer bprint.h has bigger structs: the
 * library must fill what it knows and leave the rest (here guard bytes)
 * alone, and take the caller's size as the stride of a stats array.  A
 * size left unset is refused with EINVAL, before anything is written.
 */
#include "trace/tracer_check.h"

#include <errno.h>
#include <pthread.h>

#define GROW 24		/* what a newer header might have added */
#define GUARD 0xa5

static int guards_hold(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != GUARD)
			return 0;
	return 1;
}

static void check_event(void)
{
	union {
		struct bprint_event ev;
		unsigned char bytes[sizeof(struct bprint_event) + GROW];
	} big;
	struct bprint_event unset;
	struct bprint_reader *r;
	char want[64], line[256];

	trace_printk("sized %d", 5);
	memset(&big, GUARD, sizeof(big));
	big.ev.size = sizeof(big);

	memset(&unset, GUARD, sizeof(unset));
	unset.size = 0;
	r = bprint_read_begin();
	CHECK(r != NULL);
	errno = 0;
	CHECK_EQ(bprint_read_next(r, &unset), -1);
	CHECK_EQ(errno, EINVAL);
	CHECK(guards_hold((unsigned char *)&unset + sizeof(unset.size),
			  sizeof(unset) - sizeof(unset.size)));

	CHECK_EQ(bprint_read_next(r, &big.ev), 1);
	CHECK_EQ(big.ev.size, sizeof(big));
	tc_expect(want, sizeof(want), "sized %d", 5);
	CHECK_STREQ(big.ev.message, want);
	CHECK(guards_hold(big.bytes + sizeof(struct bprint_event), GROW));
	CHECK(bprint_format_event(line, sizeof(line), &big.ev, BPRINT_OUTPUT_MSG) > 0);
	CHECK_EQ(bprint_format_event(line, sizeof(line), &unset, BPRINT_OUTPUT_MSG), -1);
	bprint_read_end(r);
}

/* A second thread that traced and stays alive, so that the array has two entries. */
static pthread_barrier_t traced, done;

static void *other(void *arg)
{
	(void)arg;
	trace_printk("other %d", 1);
	pthread_barrier_wait(&traced);
	pthread_barrier_wait(&done);
	return NULL;
}

static void check_stats(void)
{
	enum { STRIDE = sizeof(struct bprint_thread_stats) + GROW };
	unsigned char buf[3 * STRIDE];
	struct bprint_thread_stats *st = (struct bprint_thread_stats *)(void *)buf;
	struct bprint_thread_stats first = BPRINT_THREAD_STATS_INIT;
	pthread_t th;
	int n;

	CHECK_EQ(pthread_barrier_init(&traced, NULL, 2), 0);
	CHECK_EQ(pthread_barrier_init(&done, NULL, 2), 0);
	CHECK_EQ(pthread_create(&th, NULL, other, NULL), 0);
	pthread_barrier_wait(&traced);
	memset(buf, GUARD, sizeof(buf));
	st->size = 0;
	errno = 0;
	CHECK_EQ(bprint_stats(st, 3), -1);
	CHECK_EQ(errno, EINVAL);

	st->size = STRIDE;
	n = bprint_stats(st, 3);
	CHECK_EQ(n, 2);		/* this thread and the other */
	for (int i = 0; i < 3; i++) {
		const unsigned char *e = buf + (size_t)i * STRIDE;
		const struct bprint_thread_stats *s = (const void *)e;

		if (i < n) {	/* filled, at the caller's stride */
			CHECK_EQ(s->size, STRIDE);
			CHECK(s->tid > 0);
			CHECK(s->written >= 1);
			e += sizeof(*s);
		}
		CHECK(guards_hold(e, (size_t)(buf + (size_t)(i + 1) * STRIDE - e)));
	}
	pthread_barrier_wait(&done);
	CHECK_EQ(pthread_join(th, NULL), 0);

	/* The smallest size taken is the first version's. */
	CHECK_EQ(first.size, BPRINT_THREAD_STATS_SIZE_1);
	CHECK_EQ(bprint_stats(&first, 1), 2);	/* both counted, one filled */
	CHECK(first.tid > 0);
}

int main(void)
{
	check_event();
	check_stats();
	printf("tracer_sized: ok\n");
	return 0;
}
