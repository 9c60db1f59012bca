/*
 * bench/hotpath: what a trace_printk() costs the traced code.
 *
 * All variants run in one process, interleaved, several times; each
 * figure is the median of the runs, and every ratio is taken within a run
 * against a baseline measured in that run, then the median (the machines
 * are shared and noisy):
 *
 *   floor      rdtsc plus a 16-byte store into a static array
 *   snprintf   the seed's old ftrace_printk: format into a buffer, then copy
 *              the text into a bprint ring (the same ring code)
 *   bprint     trace_printk("This is the timer interrupt: %llu", x)
 *   disabled   the same kind of call at a disabled site
 *   off        the seed's call with tracing off (bprint_off()), which
 *              costs what a disabled site does (target < 1 ns)
 *   2 threads  trace_printk on two threads at once, aggregate throughput
 *
 * Then a table per argument kind (hotpath_rows.h: the seed, NanoLog's set,
 * strings, %c, a non-constant format, the disabled site), each row compiled
 * as C and as C++ and timed right after a floor run of its own: ns/call,
 * ratio to that floor, and C++ against C.  Within a run the two languages
 * take turns at going first.
 *
 * Then 64 different sites in one loop against the floor in the same
 * shape (the many-sites row, hotpath_rows.h), the tail of single calls
 * in memory and under `bprint record` (hotpath_tail.c), bytes per record,
 * the library's resident memory with 1, 2 and 16 threads, and the
 * targets (issue 9's per row, issue 20's).
 *
 *   build/bench/bench-hotpath [calls-per-run] [runs]
 *   build/bench/bench-hotpath --check   (ctest bench_hotpath_rows)
 *   build/bench/bench-hotpath --row NAME [calls-per-run] [runs]
 *       one row of hotpath_rows.h (or "many"), C and C++, against the
 *       floor: medians and minima of the runs' ratios
 *   build/bench/bench-hotpath --tail    (the tail alone; bench-hotpath
 *       runs itself so under bprint record)
 *
 * --check reads back three calls of every row and compares them with glibc's
 * snprintf of the same call: the rows time what their labels say.
 */
#include <bprint.h>

#include "ring/ring.h"
#include "trace/clock.h"
#include "bench.h"
#include "hotpath_rows.h"
#include "hotpath_tail.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define SEED_FMT MSG_SEED

static size_t calls = 2000000;
static int runs = 11;

/* (a) the floor: a timestamp and a 16-byte record into a 1 MiB ring */
struct floor_rec {
	uint64_t ts;
	uint64_t value;
};
static struct floor_rec floor_ring[65536];
/* Two floor threads at once each store into their own array. */
static struct floor_rec floor_ring_2[2][65536];
static __thread struct floor_rec *floor_at = floor_ring;

__attribute__((noinline)) static void floor_loop(size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct floor_rec *r = &floor_at[i & 65535];

		r->ts = __builtin_ia32_rdtsc();
		r->value = i;
		/* r escapes: without it the compiler drops the stores to an array
		 * nobody reads, and the floor is a bare rdtsc */
		__asm__ volatile("" : : "r"(r) : "memory");
	}
}

/* The many-sites row's floor: 64 of the floor's operations in one loop body. */
#define FLOOR_MANY(a, b)							\
	{									\
		struct floor_rec *r = &floor_at[(i + 0##a##b) & 65535];		\
										\
		r->ts = __builtin_ia32_rdtsc();					\
		r->value = i;							\
		__asm__ volatile("" : : "r"(r) : "memory");			\
	}

__attribute__((noinline)) static void floor_many(size_t n)
{
	for (size_t i = 0; i < n; i += BENCH_MANY) {
		BENCH_MANY_64(FLOOR_MANY)
	}
}

/* (b) the seed's old approach, into a ring of the same kind */
static struct bp_ring_writer old_ring;

__attribute__((noinline)) static void snprintf_loop(size_t n)
{
	char text[256];

	for (size_t i = 0; i < n; i++) {
		int len = snprintf(text, sizeof(text), SEED_FMT, (unsigned long long)i);
		void *p = bp_ring_reserve(&old_ring, (uint32_t)len + 1, 1, bp_clock_now());

		if (p) {
			memcpy(p, text, (size_t)len + 1);
			bp_ring_commit(&old_ring);
		}
	}
}

static double time_loop(void (*loop)(size_t), size_t n)
{
	double t0 = bench_now_ns();

	loop(n);
	return (bench_now_ns() - t0) / (double)n;
}

/* (e) two threads at once; the floor too, for what the machine itself scales */
static pthread_barrier_t start_line;

struct two_arg {
	void (*loop)(size_t);
	size_t n;
	int i;
};

static void *two_thread_worker(void *arg)
{
	struct two_arg *a = arg;

	floor_at = floor_ring_2[a->i];
	/*
	 * Warm, as the one-thread figures are: a thread's first trace maps
	 * its ring, and the first lap through it faults its pages in.  The
	 * clock starts at the barrier.
	 */
	a->loop(100000);
	pthread_barrier_wait(&start_line);
	a->loop(a->n);
	return NULL;
}

static double two_threads(void (*loop)(size_t), size_t n)
{
	pthread_t th[2];
	struct two_arg a[2] = { { loop, n, 0 }, { loop, n, 1 } };
	double t0;

	pthread_barrier_init(&start_line, NULL, 3);
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, two_thread_worker, &a[i]);
	pthread_barrier_wait(&start_line);
	t0 = bench_now_ns();
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start_line);
	return (bench_now_ns() - t0) / (double)(2 * n);	/* ns per record, aggregate */
}

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, resident = 0;

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
		resident = -1;
	fclose(f);
	return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Each thread traces enough to touch its whole buffer, then waits. */
static pthread_barrier_t rss_done, rss_measured;

static void *rss_worker(void *arg)
{
	(void)arg;
	bench_rows_c[BENCH_ROW_seed].loop(200000);	/* 16 B each: 3.2 MB, laps a 1 MiB buffer */
	pthread_barrier_wait(&rss_done);
	pthread_barrier_wait(&rss_measured);
	return NULL;
}

static void drain_all(void)
{
	struct bprint_reader *r = bprint_read_begin();
	struct bprint_event ev = BPRINT_EVENT_INIT;

	while (bprint_read_next(r, &ev) == 1)
		;
	bprint_read_end(r);	/* and reclaims the buffers of exited threads */
}

static void memory(void)
{
	static const int counts[] = { 1, 2, 16 };

	printf("\nresident memory of the tracing threads' buffers (BPRINT_BUFFER_SIZE default 1 MiB):\n");
	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		int n = counts[c];
		pthread_t *th = calloc((size_t)n, sizeof(*th));
		long base, rss;

		drain_all();
		base = rss_kib();
		pthread_barrier_init(&rss_done, NULL, (unsigned)n + 1);
		pthread_barrier_init(&rss_measured, NULL, (unsigned)n + 1);
		for (int i = 0; i < n; i++)
			pthread_create(&th[i], NULL, rss_worker, NULL);
		pthread_barrier_wait(&rss_done);
		rss = rss_kib();
		pthread_barrier_wait(&rss_measured);
		for (int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		printf("  %2d thread%s  %6.2f MiB in all, %5.2f MiB per thread (stacks included)\n", n,
		       n == 1 ? " " : "s", (double)(rss - base) / 1024.0,
		       (double)(rss - base) / 1024.0 / n);
		pthread_barrier_destroy(&rss_done);
		pthread_barrier_destroy(&rss_measured);
		free(th);
	}
}

/* Bytes one seed record takes in the ring, read from the ring's counters. */
static double bytes_per_record(void)
{
	void *mem;
	struct bp_ring_writer w;
	size_t bytes = bp_ring_bytes(4096, 64);
	struct bp_arg_plan plan;
	size_t words, used = 0, n = 0;

	mem = aligned_alloc(64, bytes);
	bp_ring_init(mem, bytes, 4096, BP_RING_OVERWRITE);
	bp_ring_writer_init(&w, mem, bytes);
	bp_format_compile(SEED_FMT, &plan);
	words = plan.fixed_words;
	/* One page: records of the seed message, as trace_printk stores them. */
	while (used + 8 + words * 4 <= 4096 - 40) {
		void *p = bp_ring_reserve(&w, (uint32_t)words * 4, 1, 1000 + n);

		if (!p)
			break;
		bp_ring_commit(&w);
		used += 8 + words * 4;
		n++;
	}
	free(mem);
	return (double)used / (double)n;
}

static const char *verdict(int ok)
{
	return ok ? "holds" : "FAILS";
}

#if BENCH_HAVE_CXX
static const struct bench_row *const rows_cxx = bench_rows_cxx;
#else
static const struct bench_row *const rows_cxx = NULL;	/* built without C++ */
#endif

/* Per argument kind: its table's title and the target of its rows. */
static const struct {
	const char *title;
	double max_ratio;	/* to the floor; 0: max_ns instead */
	double max_ns;
} kinds[BENCH_NKINDS] = {
	[BENCH_SCALAR] = { "scalars: the seed and NanoLog's set", 1.25, 0 },
	[BENCH_CHAR] = { "%c", 1.25, 0 },
	[BENCH_STRING] = { "strings of 8 and 39 chars", 1.5, 0 },
	[BENCH_LONG_STRING] = { "a string of 200 chars", 2.5, 0 },
	[BENCH_NONCONST] = { "a repeated non-constant format", 2.0, 0 },
	[BENCH_DISABLED] = { "the disabled site", 0, 1.0 },
};

/* Each row's runs, then their medians (a ratio's median is of the runs' ratios). */
struct row_series {
	double floor[64], c[64], cxx[64], c_ratio[64], cxx_ratio[64], lang_ratio[64];
};
struct row_result {
	double floor, c, cxx, c_ratio, cxx_ratio, lang_ratio;
};

static struct row_series series[BENCH_NROWS];
static struct row_result result[BENCH_NROWS];

/* One run of every row: its floor, then C and C++, which goes first alternating by run. */
static void time_rows(int run)
{
	for (int k = 0; k < BENCH_NROWS; k++) {
		struct row_series *s = &series[k];

		s->floor[run] = time_loop(floor_loop, calls);
		if (rows_cxx && run % 2) {
			s->cxx[run] = time_loop(rows_cxx[k].loop, calls);
			s->c[run] = time_loop(bench_rows_c[k].loop, calls);
		} else {
			s->c[run] = time_loop(bench_rows_c[k].loop, calls);
			if (rows_cxx)
				s->cxx[run] = time_loop(rows_cxx[k].loop, calls);
		}
		s->c_ratio[run] = s->c[run] / s->floor[run];
		if (rows_cxx) {
			s->cxx_ratio[run] = s->cxx[run] / s->floor[run];
			s->lang_ratio[run] = s->cxx[run] / s->c[run];
		}
	}
}

static void row_medians(void)
{
	for (int k = 0; k < BENCH_NROWS; k++) {
		struct row_series *s = &series[k];
		struct row_result *m = &result[k];

		m->floor = bench_median(s->floor, runs);
		m->c = bench_median(s->c, runs);
		m->c_ratio = bench_median(s->c_ratio, runs);
		if (rows_cxx) {
			m->cxx = bench_median(s->cxx, runs);
			m->cxx_ratio = bench_median(s->cxx_ratio, runs);
			m->lang_ratio = bench_median(s->lang_ratio, runs);
		}
	}
}

static void print_row_tables(void)
{
	printf("\nper argument kind, each row compiled as C and as C++, against a floor run\n"
	       "just before it (x floor, C++/C: medians of the runs' ratios):\n");
	for (int kind = 0; kind < BENCH_NKINDS; kind++) {
		printf("\n  %s\n", kinds[kind].title);
		printf("    %-28s %8s %8s %8s %8s %9s %7s\n", "row", "floor ns", "C ns", "x floor",
		       "C++ ns", "x floor", "C++/C");
		for (int k = 0; k < BENCH_NROWS; k++) {
			const struct row_result *m = &result[k];

			if (bench_rows_c[k].kind != (enum bench_kind)kind)
				continue;
			printf("    %-28s %8.2f %8.2f %7.2fx", bench_rows_c[k].label, m->floor, m->c,
			       m->c_ratio);
			if (rows_cxx)
				printf(" %8.2f %8.2fx %6.2fx\n", m->cxx, m->cxx_ratio, m->lang_ratio);
			else
				printf(" %8s %9s %7s\n", "-", "-", "-");
		}
	}
}

/* The targets of the rows; counts into *held and *total. */
static void row_targets(int *held, int *total)
{
	double lo = 0, hi = 0;
	int lang_ok = rows_cxx != NULL;
	const char *lo_row = "", *hi_row = "";

	printf("  every row, C and C++ (the seed is (c), the disabled site (d)):\n");
	for (int k = 0; k < BENCH_NROWS; k++) {
		const struct row_result *m = &result[k];
		enum bench_kind kind = bench_rows_c[k].kind;
		int ok;

		if (kinds[kind].max_ratio > 0) {
			ok = m->c_ratio <= kinds[kind].max_ratio &&
			     (rows_cxx && m->cxx_ratio <= kinds[kind].max_ratio);
			printf("    %-28s <= %.2fx   C %6.3fx  C++ %6.3fx   %s\n", bench_rows_c[k].label,
			       kinds[kind].max_ratio, m->c_ratio, m->cxx_ratio, verdict(ok));
		} else {
			ok = m->c < kinds[kind].max_ns && (rows_cxx && m->cxx < kinds[kind].max_ns);
			printf("    %-28s <  %.2f ns  C %6.3f ns C++ %6.3f ns %s\n", bench_rows_c[k].label,
			       kinds[kind].max_ns, m->c, m->cxx, verdict(ok));
		}
		*held += ok;
		++*total;
		if (rows_cxx) {
			if (k == 0 || m->lang_ratio < lo)
				lo = m->lang_ratio, lo_row = bench_rows_c[k].name;
			if (k == 0 || m->lang_ratio > hi)
				hi = m->lang_ratio, hi_row = bench_rows_c[k].name;
		}
	}
	if (rows_cxx) {
		lang_ok = lo >= 0.90 && hi <= 1.10;
		printf("  C++ against C, every row, within 10 %%:  %.3fx (%s) to %.3fx (%s)   %s\n",
		       lo, lo_row, hi, hi_row, verdict(lang_ok));
	} else {
		printf("  C++ against C, every row, within 10 %%:  not measured (built without C++)  FAILS\n");
	}
	*held += lang_ok;
	++*total;
}

/* The many-sites row, each run: its floor, C and C++ (in turns), and their ratios. */
static double many_floor[64], many_c[64], many_cxx[64], many_c_ratio[64], many_cxx_ratio[64];

static void time_many(int run)
{
	many_floor[run] = time_loop(floor_many, calls);
	if (rows_cxx && run % 2)
		many_cxx[run] = time_loop(bench_many_cxx, calls);
	many_c[run] = time_loop(bench_many_c, calls);
	if (rows_cxx && !(run % 2))
		many_cxx[run] = time_loop(bench_many_cxx, calls);
	many_c_ratio[run] = many_c[run] / many_floor[run];
	many_cxx_ratio[run] = rows_cxx ? many_cxx[run] / many_floor[run] : 0;
}

/* Its target, counted into *held and *total. */
static void many_target(int *held, int *total)
{
	double fl = bench_median(many_floor, runs), c = bench_median(many_c, runs);
	double cr = bench_median(many_c_ratio, runs), xr = 0;
	int ok;

	if (rows_cxx)
		xr = bench_median(many_cxx_ratio, runs);
	ok = cr <= 1.25 && rows_cxx && xr <= 1.25;
	printf("\n%d different sites in one loop (records of 16 bytes), against %d floor\n"
	       "operations in the same shape: floor %.2f ns, C %.2f ns a call\n", BENCH_MANY,
	       BENCH_MANY, fl, c);
	printf("  many sites <= 1.25x the floor   C %.3fx  C++ %.3fx   %s\n", cr, xr, verdict(ok));
	*held += ok;
	++*total;
}

/* --row NAME: one row (or "many"), C and C++, against the floor, runs times. */
static int row_mode(const char *name)
{
	double f[64], c[64], x[64], cr[64], xr[64], mf, mc, mcr, mx, mxr;
	void (*loop_c)(size_t) = NULL, (*loop_x)(size_t) = NULL, (*fl)(size_t) = floor_loop;

	for (int k = 0; k < BENCH_NROWS; k++)
		if (!strcmp(bench_rows_c[k].name, name))
			loop_c = bench_rows_c[k].loop, loop_x = rows_cxx ? rows_cxx[k].loop : NULL;
	if (!strcmp(name, "many"))
		loop_c = bench_many_c, loop_x = rows_cxx ? bench_many_cxx : NULL, fl = floor_many;
	if (!loop_c) {
		fprintf(stderr, "bench-hotpath: no row %s\n", name);
		return 1;
	}
	loop_c(100000), fl(100000);
	if (loop_x)
		loop_x(100000);
	for (int r = 0; r < runs; r++) {
		f[r] = time_loop(fl, calls);
		c[r] = time_loop(loop_c, calls);
		x[r] = loop_x ? time_loop(loop_x, calls) : 0;
		cr[r] = c[r] / f[r];
		xr[r] = x[r] / f[r];
	}
	mf = bench_median(f, runs), mc = bench_median(c, runs), mcr = bench_median(cr, runs);
	printf("%s, %d runs of %zu calls: floor %.2f ns; C %.2f ns, %.3fx (min %.3fx)", name, runs,
	       calls, mf, mc, mcr, cr[0]);
	if (loop_x) {
		mx = bench_median(x, runs), mxr = bench_median(xr, runs);
		printf("; C++ %.2f ns, %.3fx (min %.3fx)", mx, mxr, xr[0]);
	}
	printf("\n");
	return 0;
}

/* The tail of single calls, in memory, then under bprint record (running this program again). */
static void tails(int *held, int *total)
{
	double ratio = 0;
	int ok;

	printf("\nthe tail of single calls (hotpath_tail.c):\n");
	if (bench_tail("in memory", &ratio) < 0)
		return;
	ok = ratio <= 2.0;
	printf("  p99.9 <= 2x the floor's, in memory: %.2fx   %s\n", ratio, verdict(ok));
	*held += ok;
	++*total;
#ifdef BPRINT_CMD
	{
		char self[4096];
		ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (len > 0) {
			self[len] = '\0';
			bench_tail_recorded(self, BPRINT_CMD);
		}
	}
#endif
}

/* Parse the arguments; a mode of its own (--check, --row, --tail) returns its exit status, else -1. */
static int parse_args(int argc, char **argv)
{
	int row = argc > 2 && !strcmp(argv[1], "--row");

	bench_rows_fill();
	bprint_disable(BENCH_DISABLED_PATTERN);
	if (argc > 1 && !strcmp(argv[1], "--check"))
		return bench_check_rows(rows_cxx) ? 1 : 0;
	if (argc > 1 && !strcmp(argv[1], "--tail"))
		return bench_tail(getenv("BPRINT_FILE") ? "under bprint record (block mode)"
							: "in memory", NULL) < 0;
	if (argc > 1 + 2 * row)
		calls = strtoull(argv[1 + 2 * row], NULL, 10);
	if (argc > 2 + 2 * row)
		runs = atoi(argv[2 + 2 * row]);
	if (runs < 1 || runs > 64)
		runs = 11;
	calls -= calls % BENCH_MANY;
	if (row)
		return row_mode(argv[2]);
	return -1;
}

int main(int argc, char **argv)
{
	double old_ns[64], two_ns[64], two_floor_ns[64], off_ns[64], m_off;
	double r_old_ratio[64], r_two_ratio[64], r_two_floor_ratio[64];
	size_t ring_bytes = bp_ring_bytes(4096, 256);
	void *ring_mem;
	const struct row_result *seed = &result[BENCH_ROW_seed], *off = &result[BENCH_ROW_disabled];
	void (*seed_loop)(size_t) = bench_rows_c[BENCH_ROW_seed].loop;
	double m_old, m_two, ratio_old, ratio_two, m_two_floor, ratio_two_floor, bytes;
	int held = 0, total = 0, mode;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((mode = parse_args(argc, argv)) >= 0)
		return mode;
	ring_mem = aligned_alloc(64, ring_bytes);
	bp_ring_init(ring_mem, ring_bytes, 4096, BP_RING_OVERWRITE);
	bp_ring_writer_init(&old_ring, ring_mem, ring_bytes);

	/* warm up: first-use paths (thread buffer, site registration, first pages) */
	for (int k = 0; k < BENCH_NROWS; k++) {
		bench_rows_c[k].loop(100000);
		if (rows_cxx)
			rows_cxx[k].loop(100000);
	}
	bench_many_c(100000 - 100000 % BENCH_MANY);
	if (rows_cxx)
		bench_many_cxx(100000 - 100000 % BENCH_MANY);
	snprintf_loop(100000);
	floor_loop(100000);

	for (int r = 0; r < runs; r++) {
		time_rows(r);
		time_many(r);
		old_ns[r] = time_loop(snprintf_loop, calls);
		two_ns[r] = two_threads(seed_loop, calls);
		two_floor_ns[r] = two_threads(floor_loop, calls);
		bprint_off();
		off_ns[r] = time_loop(seed_loop, calls);
		bprint_on();
		r_old_ratio[r] = old_ns[r] / series[BENCH_ROW_seed].c[r];
		r_two_ratio[r] = series[BENCH_ROW_seed].c[r] / two_ns[r];
		r_two_floor_ratio[r] = series[BENCH_ROW_seed].floor[r] / two_floor_ns[r];
	}
	row_medians();
	m_old = bench_median(old_ns, runs);
	m_two = bench_median(two_ns, runs);
	m_two_floor = bench_median(two_floor_ns, runs);
	m_off = bench_median(off_ns, runs);
	ratio_old = bench_median(r_old_ratio, runs);
	ratio_two = bench_median(r_two_ratio, runs);
	ratio_two_floor = bench_median(r_two_floor_ratio, runs);
	bytes = bytes_per_record();

	printf("bench-hotpath: %zu calls per run, %d runs, medians; message \"%s\"\n\n", calls,
	       runs, SEED_FMT);
	printf("  %-34s %8s  %s\n", "variant", "ns/call", "ratio");
	printf("  %-34s %8.2f  1.00 (baseline)\n", "(a) floor: rdtsc + 16-byte store", seed->floor);
	printf("  %-34s %8.2f  %.2fx bprint\n", "(b) snprintf + copy into the ring", m_old,
	       ratio_old);
	printf("  %-34s %8.2f  %.2fx floor\n", "(c) trace_printk", seed->c, seed->c_ratio);
	printf("  %-34s %8.2f\n", "(d) disabled site", off->c);
	printf("  %-34s %8.2f\n", "(d') (c) with tracing off", m_off);
	printf("  %-34s %8.2f  %.2fx one thread's throughput\n", "(e) 2 threads, aggregate", m_two,
	       ratio_two);
	printf("  %-34s %8.2f  %.2fx one thread's (the machine's own scaling)\n",
	       "    the floor on 2 threads", m_two_floor, ratio_two_floor);
	printf("\n  bytes per record: %.1f (header included)\n", bytes);

	print_row_tables();
	many_target(&held, &total);
	tails(&held, &total);
	memory();

	printf("\ntargets:\n");
	printf("  (c) >= 4x faster than (b)    %.2fx  %s\n", ratio_old, verdict(ratio_old >= 4));
	held += ratio_old >= 4;
	printf("  (e) >= 1.8x one thread       %.2fx  %s\n", ratio_two, verdict(ratio_two >= 1.8));
	held += ratio_two >= 1.8;
	printf("  bytes per record <= 16       %.1f   %s\n", bytes, verdict(bytes <= 16));
	held += bytes <= 16;
	printf("  (d') tracing off < 1 ns      %.2f ns  %s\n", m_off, verdict(m_off < 1.0));
	held += m_off < 1.0;
	total += 4;
	row_targets(&held, &total);
	printf("targets: %d/%d hold\n", held, total);
	free(ring_mem);
	return 0;
}
