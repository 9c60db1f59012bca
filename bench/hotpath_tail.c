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

struct tail {
	double p50, p99, p999, max;
	size_t slow;			/* calls over TAIL_SLOW_NS */
	double slow_p50, slow_p99;
};

static double pick(const double *sorted, size_t n, double q)
{
	return sorted[(size_t)(q * (double)(n - 1))];
}

/* ticks[0..n) to ns, sorted, summed up into *t. */
static void summarise(uint64_t *ticks, size_t n, const struct bp_clock_calib *cal,
		      struct tail *t)
{
	double *ns = malloc(n * sizeof(*ns));
	size_t first_slow;

	for (size_t i = 0; i < n; i++)
		ns[i] = (double)(bp_clock_to_ns(cal, cal->raw0 + ticks[i]) - cal->ns0);
	qsort(ns, n, sizeof(*ns), bench_cmp_double);
	t->p50 = pick(ns, n, 0.50);
	t->p99 = pick(ns, n, 0.99);
	t->p999 = pick(ns, n, 0.999);
	t->max = ns[n - 1];
	for (first_slow = n; first_slow > 0 && ns[first_slow - 1] > TAIL_SLOW_NS; first_slow--)
		;
	t->slow = n - first_slow;
	t->slow_p50 = t->slow ? pick(ns + first_slow, t->slow, 0.50) : 0;
	t->slow_p99 = t->slow ? pick(ns + first_slow, t->slow, 0.99) : 0;
	free(ns);
}

__attribute__((noinline)) static void measure(uint64_t *floor_ticks, uint64_t *call_ticks, size_t n)
{
	for (size_t b = 0; b < n; b += TAIL_BLOCK) {
		for (size_t i = b; i < b + TAIL_BLOCK && i < n; i++) {
			uint64_t t0 = __builtin_ia32_rdtsc();

			tail_floor_ring[i & 4095].ts = t0;
			tail_floor_ring[i & 4095].value = i;
			__asm__ volatile("" : : "r"(&tail_floor_ring[i & 4095]) : "memory");
			floor_ticks[i] = __builtin_ia32_rdtsc() - t0;
		}
		for (size_t i = b; i < b + TAIL_BLOCK && i < n; i++) {
			uint64_t t0 = __builtin_ia32_rdtsc();

			trace_printk(MSG_SEED, (unsigned long long)i);
			call_ticks[i] = __builtin_ia32_rdtsc() - t0;
		}
	}
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
	uint64_t *f = malloc(TAIL_CALLS * sizeof(*f)), *c = malloc(TAIL_CALLS * sizeof(*c));
	struct bp_clock_calib cal;
	struct tail tf, tc;

	if (!f || !c || bp_clock_selected() != BP_CLOCK_TSC) {
		free(f);
		free(c);
		printf("  %s: not measured (the TSC is not the clock)\n", where);
		return -1;
	}
	measure(f, c, TAIL_BLOCK * 10);	/* warm: the thread's ring, the site */
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
	free(f);
	free(c);
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
