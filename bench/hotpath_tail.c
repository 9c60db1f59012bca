/*
 * bench/hotpath_tail.c - bench-hotpath's tail: what a single call can
 * cost, which a mean hides (a page switch, a wait in block mode).
 *
 * The time stamp counter is read around each of TAIL_CALLS calls of the
 * seed's message, and around as many floor operations (rdtsc and a
 * 16-byte store), interleaved in blocks of 1000 so that both see the
 * same machine; each distribution's p50, p99, p99.9 and maximum, in ns
 * (the two reads of the counter included, as NanoLog's paper measures),
 * and the calls over TAIL_SLOW_NS: a count and their own p50, p99 and
 * maximum, so that block mode's waits show as what they are.
 *
 * bench-hotpath prints it for the rings in memory, then runs itself with
 * --tail under `bprint record` (block mode, its default: a thread whose
 * buffer is full waits for the copy), whose output it passes on.
 */
#include <bprint.h>

#include "trace/clock.h"
#include "bench.h"
#include "hotpath_tail.h"

#include "peers/msgs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TAIL_CALLS 1000000
#define TAIL_BLOCK 1000
#define TAIL_SLOW_NS 1000.0

static struct {
	uint64_t ts, value;
} tail_floor_ring[4096];

/*
 * A distribution of tick counts: one counter a tick below HIST_TICKS, the
 * rest kept whole (few: preemptions, waits).  Recording a call costs an
 * increment in a few hot counters, never a store into a large array whose
 * new pages (and their TLB misses) the next call would pay for.
 */
#define HIST_TICKS 65536
struct hist {
	uint32_t count[HIST_TICKS];
	uint64_t *over;
	size_t nover, cap;
};

static void hist_add(struct hist *h, uint64_t ticks)
{
	if (__builtin_expect(ticks < HIST_TICKS, 1)) {
		h->count[ticks]++;
	} else if (h->nover < h->cap) {
		h->over[h->nover++] = ticks;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The rank-th smallest of the n ticks recorded (0-based). */
static uint64_t hist_rank(const struct hist *h, size_t rank)
{
	for (size_t t = 0; t < HIST_TICKS; t++) {
		if (rank < h->count[t])
			return t;
		rank -= h->count[t];
	}
	return rank < h->nover ? h->over[rank] : (h->nover ? h->over[h->nover - 1] : 0);
}

struct tail {
	double p50, p99, p999, max;
	size_t slow;			/* calls over TAIL_SLOW_NS */
	double slow_p50, slow_p99;
};

/* The distribution of n calls in ns, summed up into *t. */
static void summarise(struct hist *h, size_t n, const struct bp_clock_calib *cal, struct tail *t)
{
	size_t first_slow = 0;
#define NS(ticks) ((double)(bp_clock_to_ns(cal, cal->raw0 + (ticks)) - cal->ns0))

	qsort(h->over, h->nover, sizeof(*h->over), cmp_u64);
	t->p50 = NS(hist_rank(h, (size_t)(0.50 * (double)(n - 1))));
	t->p99 = NS(hist_rank(h, (size_t)(0.99 * (double)(n - 1))));
	t->p999 = NS(hist_rank(h, (size_t)(0.999 * (double)(n - 1))));
	t->max = NS(hist_rank(h, n - 1));
	for (size_t lo = 0, hi = n; lo < hi;) {	/* the first call over TAIL_SLOW_NS */
		size_t mid = lo + (hi - lo) / 2;

		if (NS(hist_rank(h, mid)) > TAIL_SLOW_NS)
			hi = mid;
		else
			lo = mid + 1;
		first_slow = lo;
	}
	t->slow = n - first_slow;
	t->slow_p50 = t->slow ? NS(hist_rank(h, first_slow + (size_t)(0.50 * (double)(t->slow - 1)))) : 0;
	t->slow_p99 = t->slow ? NS(hist_rank(h, first_slow + (size_t)(0.99 * (double)(t->slow - 1)))) : 0;
#undef NS
}

__attribute__((noinline)) static void measure(struct hist *floor_h, struct hist *call_h, size_t n)
{
	for (size_t b = 0; b < n; b += TAIL_BLOCK) {
		for (size_t i = b; i < b + TAIL_BLOCK && i < n; i++) {
			uint64_t t0 = __builtin_ia32_rdtsc();

			tail_floor_ring[i & 4095].ts = t0;
			tail_floor_ring[i & 4095].value = i;
			__asm__ volatile("" : : "r"(&tail_floor_ring[i & 4095]) : "memory");
			hist_add(floor_h, __builtin_ia32_rdtsc() - t0);
		}
		for (size_t i = b; i < b + TAIL_BLOCK && i < n; i++) {
			uint64_t t0 = __builtin_ia32_rdtsc();

			trace_printk(MSG_SEED, (unsigned long long)i);
			hist_add(call_h, __builtin_ia32_rdtsc() - t0);
		}
	}
}

static struct hist *hist_new(void)
{
	struct hist *h = calloc(1, sizeof(*h));

	if (h) {
		h->cap = TAIL_CALLS;
		h->over = calloc(h->cap, sizeof(*h->over));
		if (!h->over) {
			free(h);
			h = NULL;
		}
	}
	return h;
}

static void hist_free(struct hist *h)
{
	if (h)
		free(h->over);
	free(h);
}

static void print_tail(const char *name, const struct tail *t)
{
	printf("    %-10s %7.0f %7.0f %8.0f %9.0f   %7zu", name, t->p50, t->p99, t->p999, t->max,
	       t->slow);
	if (t->slow)
		printf(" %8.0f %8.0f\n", t->slow_p50, t->slow_p99);
	else
		printf(" %8s %8s\n", "-", "-");
}

int bench_tail(const char *where, double *ratio)
{
	struct hist *f = hist_new(), *c = hist_new();
	struct bp_clock_calib cal;
	struct tail tf, tc;

	if (!f || !c || bp_clock_selected() != BP_CLOCK_TSC) {
		hist_free(f);
		hist_free(c);
		printf("  %s: not measured (the TSC is not the clock)\n", where);
		return -1;
	}
	measure(f, c, TAIL_BLOCK * 10);	/* warm: the thread's ring, the site, the counters */
	memset(f->count, 0, sizeof(f->count));
	memset(c->count, 0, sizeof(c->count));
	f->nover = c->nover = 0;
	measure(f, c, TAIL_CALLS);
	bp_clock_calibrate(&cal);
	summarise(f, TAIL_CALLS, &cal, &tf);
	summarise(c, TAIL_CALLS, &cal, &tc);
	printf("  %s, %d single calls of the seed's message, ns (two rdtsc included):\n", where,
	       TAIL_CALLS);
	printf("    %-10s %7s %7s %8s %9s   %7s %8s %8s\n", "", "p50", "p99", "p99.9", "max",
	       "> 1 us", "its p50", "its p99");
	print_tail("floor", &tf);
	print_tail("bprint", &tc);
	if (ratio)
		*ratio = tc.p999 / tf.p999;
	hist_free(f);
	hist_free(c);
	return 0;
}

int bench_tail_recorded(const char *self, const char *bprint_cmd)
{
	char dir[] = "/tmp/bench-hotpath.XXXXXX", file[64];
	int status = -1;
	pid_t pid;

	if (!mkdtemp(dir))
		return -1;
	snprintf(file, sizeof(file), "%s/tail.dat", dir);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl(bprint_cmd, bprint_cmd, "record", "-q", "-o", file, "--", self, "--tail",
		      (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	unlink(file);
	rmdir(dir);
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		printf("  under bprint record: not measured (%s record failed)\n", bprint_cmd);
		return -1;
	}
	return 0;
}
