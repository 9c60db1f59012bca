/*
 * reader_corrupt: damaged trace files give an error or valid output, never
 * a crash, a hang or a read out of bounds (run it under ASan: make asan).
 *
 *   reader_corrupt TRACED BPRINT WORKDIR
 *
 * Real files come first: the traced program (tests/file/traced.c) writes
 * one that closes cleanly, with wrapped rings and signal-nested rings, and
 * one killed by SIGKILL while tracing, and `bprint record` drains a third
 * into a stream file (compact pages chunks).  All must read back completely
 * and consistently.  Then every file is cut at many lengths and damaged with
 * random bit flips and smashed fields (chunk headers, ring control blocks,
 * page headers, site records), and each copy is read through the reader
 * API (open, every record, every table, refresh, again) and, for a part of
 * them, through `bprint report` and `bprint stats`, which must exit 0 or 2.
 */
#include "reader/reader.h"

#include "file/layout.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *traced, *bprint_cmd, *work;
static int failures;
static unsigned long opened, refused, damaged_seen, records_total, tool_runs;

#define FAIL(...) do { fprintf(stderr, "FAIL: " __VA_ARGS__); fputc('\n', stderr); failures++; } while (0)

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct blob {
	unsigned char *p;
	size_t n;
	char name[64];
};

static int run(char *const argv[], char *const envv[], const char *out)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd >= 0) {
			dup2(fd, 1);
			if (!out)
				dup2(fd, 2);
		}
		for (int i = 0; envv && envv[i]; i++)
			putenv(envv[i]);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return st;
}

static struct blob load(const char *path, const char *name)
{
	struct blob b = { 0 };
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) != 0) {
		FAIL("%s: %s", path, strerror(errno));
		exit(1);
	}
	b.n = (size_t)st.st_size;
	b.p = malloc(b.n ? b.n : 1);
	if (!b.p || read(fd, b.p, b.n) != (ssize_t)b.n) {
		FAIL("%s: short read", path);
		exit(1);
	}
	close(fd);
	snprintf(b.name, sizeof(b.name), "%s", name);
	return b;
}

static void store(const char *path, const unsigned char *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || (n && write(fd, p, n) != (ssize_t)n)) {
		FAIL("%s: cannot write", path);
		exit(1);
	}
	close(fd);
}

struct outcome {
	int open_rc;			/* 0 opened */
	unsigned long records;
	unsigned problems;
	struct bp_trace_totals tot;
};

/* Everything a reader can be asked, on whatever the file holds. */
static struct outcome exercise(const char *path)
{
	struct outcome o = { .tot = BP_TRACE_TOTALS_INIT };
	char err[256];
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	struct bp_trace *t = bp_trace_open(path, 0, err, sizeof(err), &o.open_rc);
	int rc;

	if (!t) {
		if (o.open_rc >= 0 || !err[0] || strchr(err, '\n'))
			FAIL("%s: open failed without a one-line reason (rc %d)", path, o.open_rc);
		refused++;
		return o;
	}
	opened++;
	for (size_t i = 0; i < bp_trace_nsites(t); i++) {
		const struct bp_trace_site *s = bp_trace_site_at(t, i);

		if (!s || !s->file || !s->func ||
		    bp_trace_site(t, s->id) != s)
			FAIL("%s: site table inconsistent", path);
		else
			(void)(strlen(s->file) + strlen(s->func) +
			       (s->format ? strlen(s->format) : 0));
	}
	for (size_t i = 0; i < bp_trace_nlibs(t); i++)
		(void)strlen(bp_trace_lib_at(t, i)->path);
	(void)bp_trace_overwritten_estimate(t);
	for (int pass = 0; pass < 2; pass++) {
		unsigned flags = pass ? BP_TRACE_NEXT_NO_MESSAGE : 0;

		while ((rc = bp_trace_next(t, &e, flags)) == 1) {
			/* a %c of 0 puts a NUL inside the message */
			if (strlen(e.message) > e.message_len || e.message_len >= 4096)
				FAIL("%s: message_len wrong", path);
			if (flags)
				bp_trace_message(t, &e);
			(void)strlen(e.comm);
			o.records++;
			if (o.records > 10000000) {
				FAIL("%s: endless records", path);
				break;
			}
		}
		if (rc < 0 && rc != BP_TRACE_EFORMAT)
			FAIL("%s: next returned %d", path, rc);
		if (bp_trace_refresh(t) < 0 && pass == 0)
			break;
	}
	bp_trace_totals(t, &o.tot);
	for (size_t i = 0; i < bp_trace_nrings(t); i++)
		(void)strlen(bp_trace_ring_at(t, i)->comm);
	o.problems = bp_trace_problems(t, NULL);
	if (o.problems)
		damaged_seen++;
	records_total += o.records;
	bp_trace_close(t);
	return o;
}

/* The command on the same file: exit 0, 1 (read, but the file is
 * incomplete) or 2, never a signal or a sanitizer's exit (made 99 in main). */
static void tool(const char *path)
{
	static const char *subs[] = { "report", "stats", "formats" };

	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		char *argv[] = { (char *)bprint_cmd, (char *)subs[i], (char *)path, NULL };
		int st = run(argv, NULL, NULL);

		tool_runs++;
		if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) > 2)
			FAIL("bprint %s %s: %s %d", subs[i], path,
			     st >= 0 && WIFSIGNALED(st) ? "signal" : "exit",
			     st < 0 ? -1 : WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	}
}

/* Has the traced program written its file header yet (the magic goes last)? */
static bool has_header(const char *path)
{
	char magic[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
	     !memcmp(magic, BP_FILE_MAGIC, sizeof(magic));
	close(fd);
	return ok;
}

/* Does the live file at path hold a record yet?  (Read as any reader would.) */
static bool has_record(const char *path)
{
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	char err[256];
	struct bp_trace *t = bp_trace_open(path, 0, err, sizeof(err), NULL);
	bool got;

	if (!t)
		return false;
	got = bp_trace_next(t, &e, BP_TRACE_NEXT_NO_MESSAGE) == 1;
	bp_trace_close(t);
	return got;
}

static void make_files(void)
{
	char path[4096], *env[8];
	int st;

	/* closed cleanly: wrapped rings, nested rings, three threads */
	snprintf(path, sizeof(path), "%s/clean.dat", work);
	unlink(path);
	{
		char *argv[] = { (char *)traced, "--threads", "2", "--records", "1500",
				 "--timer", "100", NULL };
		char f[4200];

		snprintf(f, sizeof(f), "BPRINT_FILE=%s", path);
		env[0] = f;
		env[1] = "BPRINT_BUFFER_SIZE=8K";
		env[2] = "BPRINT_PAGE_SIZE=1K";
		env[3] = "BPRINT_CLOCK=counter";
		env[4] = NULL;
		st = run(argv, env, NULL);
		if (st != 0)
			FAIL("traced (clean): status %d", st);
	}
	/* drained by `bprint record`: compact pages chunks, many small ones */
	snprintf(path, sizeof(path), "%s/stream.dat", work);
	unlink(path);
	{
		char *argv[] = { (char *)bprint_cmd, "record", "-q", "-o", path, "--buffer-size",
				 "16K", "--page-size", "1K", "--", (char *)traced, "--threads", "2",
				 "--records", "1500", "--timer", "100", NULL };

		st = run(argv, NULL, NULL);
		if (st != 0)
			FAIL("bprint record: status %d", st);
	}
	/* killed while tracing */
	snprintf(path, sizeof(path), "%s/killed.dat", work);
	unlink(path);
	{
		char *argv[] = { (char *)traced, "--threads", "2", "--spin", NULL };
		char f[4200];
		pid_t pid;

		snprintf(f, sizeof(f), "BPRINT_FILE=%s", path);
		env[0] = f;
		env[1] = "BPRINT_BUFFER_SIZE=16K";
		env[2] = "BPRINT_PAGE_SIZE=1K";
		env[3] = NULL;
		pid = fork();
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);

			dup2(fd, 1);
			for (int i = 0; env[i]; i++)
				putenv(env[i]);
			execv(argv[0], argv);
			_exit(127);
		}
		/* Kill it while it traces: once its file holds a record (a
		 * sanitizer build on a busy machine can take longer than any
		 * fixed sleep to start its threads), then 80 ms on. */
		for (int i = 0; i < 1000 && !(has_header(path) && has_record(path)); i++)
			nanosleep(&(struct timespec){ 0, 10 * 1000000L }, NULL);
		nanosleep(&(struct timespec){ 0, 80 * 1000000L }, NULL);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		if (!WIFSIGNALED(st))
			FAIL("traced (killed) was not killed: %d", st);
	}
}

static void check_base(const char *path, bool closed, bool wrapped)
{
	struct outcome o = exercise(path);

	if (o.open_rc != 0) {
		FAIL("%s: the real file does not open (%d)", path, o.open_rc);
		return;
	}
	if (o.problems)
		FAIL("%s: the real file has %u problems", path, o.problems);
	if (o.records == 0)
		FAIL("%s: no records", path);
	/* every record read once (first pass): read + overwritten + discarded = written */
	if (closed && o.tot.read + o.tot.overwritten + o.tot.discarded != o.tot.written)
		FAIL("%s: read %llu + overwritten %llu + discarded %llu != written %llu", path,
		     (unsigned long long)o.tot.read, (unsigned long long)o.tot.overwritten,
		     (unsigned long long)o.tot.discarded, (unsigned long long)o.tot.written);
	if (closed && wrapped && o.tot.overwritten == 0)
		FAIL("%s: expected wrapped rings", path);
	if (o.tot.read != o.records)
		FAIL("%s: read %llu, returned %lu", path, (unsigned long long)o.tot.read, o.records);
	printf("%s: %lu records, written %llu, overwritten %llu, discarded %llu\n", path,
	       o.records, (unsigned long long)o.tot.written,
	       (unsigned long long)o.tot.overwritten, (unsigned long long)o.tot.discarded);
	tool(path);
}

/* Offsets worth damaging: header fields, chunk headers, ring control
 * blocks and page headers, starts of site records. */
static size_t hot_offset(const struct blob *b)
{
	size_t chunks = b->n / BP_FILE_ALIGN;
	size_t c = chunks ? (size_t)(rnd() % chunks) : 0;
	size_t base = c * BP_FILE_ALIGN;

	switch (rnd() % 6) {
	case 0: return (size_t)(rnd() % 160);				/* file header */
	case 1: return base + (size_t)(rnd() % 48);			/* chunk header, list head */
	case 2: return base + 128 + (size_t)(rnd() % 160);		/* ring control block */
	case 3: return base + 384 + (size_t)(rnd() % 4) * 1024 + (size_t)(rnd() % 40); /* page headers */
	case 4: return base + 40 + (size_t)(rnd() % 64);		/* first site record */
	default: return (size_t)(rnd() % b->n);
	}
}

static void mutate(const struct blob *b, unsigned char *p)
{
	unsigned kind = (unsigned)(rnd() % 3), n = 1 + (unsigned)(rnd() % 12);

	memcpy(p, b->p, b->n);
	for (unsigned i = 0; i < n; i++) {
		size_t off = kind == 0 ? (size_t)(rnd() % b->n) : hot_offset(b);

		if (off >= b->n)
			off = (size_t)(rnd() % b->n);
		if (kind < 2) {
			p[off] ^= (unsigned char)(1u << (rnd() % 8));
		} else {
			static const uint64_t values[] = { 0, 1, 2, 3, 4, 0xff, 0x1000, 0x7fffffff,
							   0x80000000u, 0xffffffffu, UINT64_MAX,
							   UINT64_MAX / 2, 1ull << 40 };
			uint64_t v = values[rnd() % (sizeof(values) / sizeof(values[0]))];
			size_t w = rnd() % 2 ? 8 : 4;

			off &= ~(size_t)3;
			if (off + w <= b->n)
				memcpy(p + off, &v, w);
		}
	}
}

int main(int argc, char **argv)
{
	char path[4096], tmp[4096];
	struct blob files[3];
	bool quick = getenv("BPRINT_TEST_QUICK") != NULL;
	unsigned flips = quick ? 600 : 3000, every_tool = quick ? 60 : 40;
	time_t t0 = time(NULL);

	if (argc != 4) {
		fprintf(stderr, "usage: reader_corrupt TRACED BPRINT WORKDIR\n");
		return 2;
	}
	/* a sanitizer's report exits 99, not 1 (the tools' "incomplete file") */
	setenv("ASAN_OPTIONS", "exitcode=99", 0);
	setenv("UBSAN_OPTIONS", "exitcode=99", 0);
	setenv("TSAN_OPTIONS", "exitcode=99", 0);
	traced = argv[1];
	bprint_cmd = argv[2];
	work = argv[3];
	mkdir(work, 0700);
	if (getenv("BPRINT_TEST_SEED"))
		rng = strtoull(getenv("BPRINT_TEST_SEED"), NULL, 0) | 1;
	unsetenv("BPRINT_FILE");

	make_files();
	snprintf(path, sizeof(path), "%s/clean.dat", work);
	check_base(path, true, true);
	files[0] = load(path, "clean");
	snprintf(path, sizeof(path), "%s/killed.dat", work);
	check_base(path, false, false);
	files[1] = load(path, "killed");
	snprintf(path, sizeof(path), "%s/stream.dat", work);
	check_base(path, true, false);
	files[2] = load(path, "stream");
	snprintf(tmp, sizeof(tmp), "%s/damaged.dat", work);

	/* cut at many lengths */
	for (int f = 0; f < 3; f++) {
		const struct blob *b = &files[f];
		size_t step = quick ? 1021 : 257, k = 0;

		for (size_t len = 0; len < b->n; len = len < 256 ? len + 8 : len + step) {
			struct outcome o;

			store(tmp, b->p, len);
			o = exercise(tmp);
			if (len < BP_FILE_HEADER_BYTES && o.open_rc == 0)
				FAIL("%s cut at %zu: opened without a header", b->name, len);
			if (++k % every_tool == 0)
				tool(tmp);
		}
		/* around every chunk boundary */
		for (size_t c = BP_FILE_ALIGN; c < b->n; c += BP_FILE_ALIGN)
			for (int d = -9; d <= 9; d += 3) {
				store(tmp, b->p, c + (size_t)(ssize_t)d);
				exercise(tmp);
			}
	}

	/* bit flips and smashed fields */
	for (unsigned i = 0; i < flips; i++) {
		const struct blob *b = &files[i % 3];
		unsigned char *p = malloc(b->n);

		mutate(b, p);
		store(tmp, p, b->n);
		exercise(tmp);
		if (i % every_tool == 0)
			tool(tmp);
		free(p);
	}

	/* a header and garbage; a header and chunk headers of every size */
	{
		size_t n = 64 * 1024;
		unsigned char *p = malloc(n);

		for (int round = 0; round < 20; round++) {
			memcpy(p, files[0].p, BP_FILE_HEADER_BYTES);
			for (size_t i = BP_FILE_HEADER_BYTES; i < n; i++)
				p[i] = (unsigned char)rnd();
			for (size_t c = BP_FILE_HEADER_BYTES; round % 2 && c < n; c += BP_FILE_ALIGN) {
				struct bp_file_chunk h = { .type = (uint32_t)(1 + rnd() % 5),
							   .size = (rnd() % 20) * BP_FILE_ALIGN,
							   .index = rnd() % 8 };

				memcpy(h.magic, BP_CHUNK_MAGIC, 4);
				atomic_store(&h.state, (uint32_t)(rnd() % 3 ? 1 : 0));
				memcpy(p + c, &h, sizeof(h));
			}
			store(tmp, p, n);
			exercise(tmp);
			if (round < 4)
				tool(tmp);
		}
		free(p);
	}

	printf("opened %lu, refused %lu, with damage found %lu, records %lu, tool runs %lu, %lds\n",
	       opened, refused, damaged_seen, records_total, tool_runs, (long)(time(NULL) - t0));
	if (!refused || !damaged_seen)
		FAIL("the damage was never noticed (refused %lu, damaged %lu)", refused, damaged_seen);
	free(files[0].p);
	free(files[1].p);
	free(files[2].p);
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	return failures ? 1 : 0;
}
