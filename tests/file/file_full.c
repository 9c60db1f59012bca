/*
 * file_full: a program whose live trace file stops growing half-way, for
 * tool_full.sh.  Run under bprint record (or with BPRINT_FILE).
 *
 *   file_full RECORDS
 *
 * 1. main traces once, so that its ring is in the file;
 * 2. the file is frozen at its size: RLIMIT_FSIZE there, SIGXFSZ ignored,
 *    so every later growth fails as on a full disk (EFBIG);
 * 3. a thread traces RECORDS records: its ring has no room in the file and
 *    falls back to memory;
 * 4. main traces once with each of NFORMATS runtime formats, whose
 *    derived call sites soon fill the sites chunk that was there before
 *    the freeze.
 *
 * It prints "formats NFORMATS" for the test's accounting and exits 0.
 */
#include <bprint.h>

#include "writer/writer.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>

static long nrecords;

static void *worker(void *arg)
{
	(void)arg;
	for (long i = 0; i < nrecords; i++)
		trace_printk("worker record %ld", i);
	return NULL;
}

static int freeze_file(void)
{
	const char *path = bp_file_path();
	struct stat st;
	struct rlimit rl;

	if (!path || stat(path, &st) != 0) {
		fprintf(stderr, "file_full: no live trace file (run it under bprint record)\n");
		return -1;
	}
	signal(SIGXFSZ, SIG_IGN);
	rl.rlim_cur = rl.rlim_max = (rlim_t)st.st_size;
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0) {
		perror("file_full: setrlimit");
		return -1;
	}
	return 0;
}

/*
 * NFORMATS runtime formats, each a derived call site that registers (and
 * goes to the file's sites chunk) at its first call, after the freeze;
 * each about 200 bytes there, so that they fill the chunk's 64 KiB.
 * Spread over 20 call sites: a call site learns at most 64 formats.
 */
#define NFORMATS 1000
#define AT(k) case k: trace_printk(fmt, i); break;

__attribute__((format(printf, 2, 3)))
static void make_format(char *buf, const char *fmt, ...);

static void trace_formats(void)
{
	char fmt[256];

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
	for (int i = 0; i < NFORMATS; i++) {
		make_format(fmt, "runtime format %d, long enough for the file's sites chunk to fill "
			    "up after a few hundred of them, well before the last one: %%d", i);
		switch (i % 20) {
		AT(0) AT(1) AT(2) AT(3) AT(4) AT(5) AT(6) AT(7) AT(8) AT(9)
		AT(10) AT(11) AT(12) AT(13) AT(14) AT(15) AT(16) AT(17) AT(18) AT(19)
		}
	}
#pragma GCC diagnostic pop
}

static void make_format(char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, 256, fmt, ap);
	va_end(ap);
}

int main(int argc, char **argv)
{
	pthread_t th;

	if (argc != 2 || (nrecords = atol(argv[1])) < 1) {
		fprintf(stderr, "usage: file_full RECORDS\n");
		return 2;
	}
	trace_printk("main's first record");
	if (freeze_file() != 0)
		return 1;
	if (pthread_create(&th, NULL, worker, NULL) != 0 || pthread_join(th, NULL) != 0)
		return 1;
	trace_formats();
	printf("formats %d\n", NFORMATS);
	return 0;
}
