/*
 * bench/write: how `bprint record`'s copier should write its file.
 *
 * The copier must never stall on the page cache: while it sits in a
 * write, the traced threads' rings fill up.  So what counts is the time a
 * writer spends in its write calls (the copier's time) and the longest
 * single call, more than the time to get the data to the disk, which is
 * printed too (every variant ends with fdatasync).  Each variant writes
 * the same bytes in the same chunks, several times; medians, and ratios
 * against buffered pwrite(), what the copier does today, in the same run:
 *
 *   pwrite       buffered pwrite() of each chunk
 *   +writeback   the same, starting the kernel's writeback of each 8 MiB
 *                as it is written (sync_file_range, which does not wait)
 *                and dropping the window before from the cache (clean
 *                pages only: nothing waits), so dirty pages never pile up
 *   O_DIRECT     pwrite() of aligned chunks, bypassing the page cache
 *   io_uring     buffered writes queued on an io_uring, 4 in flight
 *                (with liburing only)
 *
 *   build/bench/bench-write [DIR] [MiB] [chunk-KiB] [runs]
 */
#define _GNU_SOURCE
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef BENCH_URING
#include <liburing.h>
#endif

enum variant { PWRITE, WRITEBACK, DIRECT, URING, NVARIANTS };
static const char *const names[NVARIANTS] = { "pwrite", "+writeback", "O_DIRECT", "io_uring" };

struct result {
	double call_ns;		/* time in the write calls */
	double max_call_ns;	/* the longest one */
	double total_ns;	/* to the end of fdatasync */
};

static size_t total_bytes, chunk;
static unsigned char *buf;

#define WINDOW (8u << 20)

static int run_sync(int fd, enum variant v, struct result *r)
{
	double t0 = bench_now_ns();

	for (size_t off = 0; off < total_bytes; off += chunk) {
		double a = bench_now_ns(), d;

		if (pwrite(fd, buf, chunk, (off_t)off) != (ssize_t)chunk)
			return -1;
		if (v == WRITEBACK && (off + chunk) % WINDOW == 0) {
			/* start writing this window; drop the one before, written by now */
			sync_file_range(fd, (off_t)(off + chunk - WINDOW), WINDOW,
					SYNC_FILE_RANGE_WRITE);
			if (off + chunk >= 2 * WINDOW) {
				off_t prev = (off_t)(off + chunk - 2 * WINDOW);

				/* never waits: pages still dirty or in flight stay */
				posix_fadvise(fd, prev, WINDOW, POSIX_FADV_DONTNEED);
			}
		}
		d = bench_now_ns() - a;
		r->call_ns += d;
		if (d > r->max_call_ns)
			r->max_call_ns = d;
	}
	if (fdatasync(fd) != 0)
		return -1;
	r->total_ns = bench_now_ns() - t0;
	return 0;
}

#ifdef BENCH_URING
static int run_uring(int fd, struct result *r)
{
	struct io_uring ring;
	unsigned inflight = 0;
	double t0 = bench_now_ns();

	if (io_uring_queue_init(8, &ring, 0) != 0)
		return -1;
	for (size_t off = 0; off < total_bytes || inflight; ) {
		double a = bench_now_ns(), d;
		struct io_uring_cqe *cqe;

		if (off < total_bytes && inflight < 4) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_uring_prep_write(sqe, fd, buf, (unsigned)chunk, (uint64_t)off);
			io_uring_submit(&ring);
			inflight++;
			off += chunk;
		} else {
			if (io_uring_wait_cqe(&ring, &cqe) != 0 || cqe->res != (int)chunk) {
				io_uring_queue_exit(&ring);
				return -1;
			}
			io_uring_cqe_seen(&ring, cqe);
			inflight--;
		}
		d = bench_now_ns() - a;
		r->call_ns += d;
		if (d > r->max_call_ns)
			r->max_call_ns = d;
	}
	io_uring_queue_exit(&ring);
	if (fdatasync(fd) != 0)
		return -1;
	r->total_ns = bench_now_ns() - t0;
	return 0;
}
#endif

static int run(const char *path, enum variant v, struct result *r)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | (v == DIRECT ? O_DIRECT : 0), 0600);
	int rc;

	*r = (struct result){ 0 };
	if (fd < 0)
		return -1;
#ifdef BENCH_URING
	rc = v == URING ? run_uring(fd, r) : run_sync(fd, v, r);
#else
	rc = run_sync(fd, v, r);
#endif
	close(fd);
	unlink(path);
	return rc;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	size_t mib = argc > 2 ? (size_t)atol(argv[2]) : 256;
	size_t kib = argc > 3 ? (size_t)atol(argv[3]) : 1024;
	int runs = argc > 4 ? atoi(argv[4]) : 5;
	double call[NVARIANTS][32], maxc[NVARIANTS][32], tot[NVARIANTS][32];
	bool ok[NVARIANTS] = { true, true, true, false };
	char path[4096];

#ifdef BENCH_URING
	ok[URING] = true;
#endif
	if (runs < 1 || runs > 32 || !mib || !kib || kib % 4) {
		fprintf(stderr, "usage: bench-write [DIR] [MiB] [chunk-KiB, a multiple of 4] [runs <= 32]\n");
		return 2;
	}
	chunk = kib << 10;
	total_bytes = (mib << 20) / chunk * chunk;
	if (posix_memalign((void **)&buf, 4096, chunk) != 0)
		return 1;
	for (size_t i = 0; i < chunk; i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	snprintf(path, sizeof(path), "%s/bench-write.%d.tmp", dir, (int)getpid());

	/* interleaved: each run writes every variant once */
	for (int k = 0; k < runs; k++) {
		for (int v = 0; v < NVARIANTS; v++) {
			struct result r;

			if (!ok[v])
				continue;
			if (run(path, (enum variant)v, &r) != 0) {
				fprintf(stderr, "bench-write: %s: %s (variant left out)\n", names[v],
					strerror(errno));
				ok[v] = false;
				continue;
			}
			call[v][k] = r.call_ns;
			maxc[v][k] = r.max_call_ns;
			tot[v][k] = r.total_ns;
		}
	}

	printf("bench-write: %zu MiB in %zu KiB writes to %s, %d runs, medians\n\n", mib, kib, dir,
	       runs);
	printf("  %-11s %14s %9s %14s %12s %9s\n", "variant", "in calls ms", "ratio", "longest ms",
	       "to disk ms", "ratio");
	{
		double base_call = bench_median(call[PWRITE], runs);
		double base_tot = bench_median(tot[PWRITE], runs);

		for (int v = 0; v < NVARIANTS; v++) {
			double c, m, t;

			if (!ok[v]) {
				printf("  %-11s (not measured)\n", names[v]);
				continue;
			}
			c = bench_median(call[v], runs);
			m = bench_median(maxc[v], runs);
			t = bench_median(tot[v], runs);
			printf("  %-11s %14.1f %8.2fx %14.2f %12.1f %8.2fx\n", names[v], c / 1e6,
			       c / base_call, m / 1e6, t / 1e6, t / base_tot);
		}
	}
	printf("\n  ratio: the variant's time over buffered pwrite()'s, in the same runs\n");
	free(buf);
	return 0;
}
