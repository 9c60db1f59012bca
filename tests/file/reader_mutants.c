/*
 * reader_mutants: every damaged file says so.  Thousands of mutants of
 * every kind of trace file (a live file closed cleanly, one of a killed
 * program, a stream closed cleanly, in discard mode, and one whose
 * recorder was killed) are read through the reader API; for each, either
 * what it reads (every record: time, thread, ring, site, index, message;
 * every ring's counters) equals what the intact file reads, or the reader
 * reports damage (bp_trace_problems(), or a refused open).
 *
 *   reader_mutants TRACED BPRINT WORKDIR
 *
 * Mutants: truncations at every chunk boundary and at random lengths; bit
 * flips; 32-bit words set to 0 and to all ones.  A stream's chunks carry
 * checksums, so anything in them may change.  A live file's rings and
 * site strings are written by the traced program's call path and site
 * registry, which carry none (docs/file-format.md): there the mutants
 * change only structure (headers of the file, chunks, rings, pages and
 * site records), which the reader checks.
 */
#define CHECK_KEEP_GOING 50
#include "check.h"

#include "file/layout.h"
#include "ring/ring.h"

#include <bprint/reader.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *traced, *bprint_cmd, *work;
static unsigned long mutants, said, same;

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* ---- the files ------------------------------------------------------------ */

struct span {
	size_t off, len;
};

struct file {
	const char *name;
	bool stream;
	unsigned char *p;
	size_t n;
	uint64_t digest;		/* of the intact file */
	struct span *spans;		/* where a mutant may change bytes */
	size_t nspans, cap;
	size_t *bounds;			/* chunk boundaries */
	size_t nbounds;
	size_t ctls[64];		/* a live file's rings' control blocks */
	size_t nctls;
};

static void add_span(struct file *f, size_t off, size_t len)
{
	if (off >= f->n || !len)
		return;
	if (len > f->n - off)
		len = f->n - off;
	if (f->nspans == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 256;
		f->spans = realloc(f->spans, f->cap * sizeof(*f->spans));
		CHECK(f->spans != NULL);
	}
	f->spans[f->nspans++] = (struct span){ off, len };
}

/* A live file's site or library records: their fixed part, not the strings. */
static void list_spans(struct file *f, size_t off, size_t size, uint32_t type)
{
	uint32_t used, at = 0;

	add_span(f, off + 32, 8);
	memcpy(&used, f->p + off + 32, 4);
	while (used <= size - BP_FILE_LIST_HDR_BYTES && at + 8 <= used) {
		uint32_t bytes;

		memcpy(&bytes, f->p + off + BP_FILE_LIST_HDR_BYTES + at, 4);
		if (bytes < 8 || bytes > used - at)
			break;
		add_span(f, off + BP_FILE_LIST_HDR_BYTES + at,
			 type == BP_CHUNK_SITES ? BP_FILE_SITE_BYTES : BP_FILE_LIB_BYTES);
		at += bytes;
	}
}

/*
 * A live ring chunk: its header, the ring's control block, every page
 * header.  But in a file not closed, the seq of the page after the head
 * (the oldest, once the ring wrapped): a writer killed while it switched
 * to that page left it 0, which a mutant could only repeat.
 */
static void ring_spans(struct file *f, size_t off, bool closed)
{
	const unsigned char *ring = f->p + off + BP_FILE_RING_OFFSET;
	uint32_t ps, np;
	uint64_t head;

	add_span(f, off + 32, BP_FILE_RING_OFFSET - 32);
	add_span(f, off + BP_FILE_RING_OFFSET, BP_RING_CTL_BYTES);
	if (f->nctls < sizeof(f->ctls) / sizeof(f->ctls[0]))
		f->ctls[f->nctls++] = off + BP_FILE_RING_OFFSET;
	memcpy(&ps, ring + 8, 4);
	memcpy(&np, ring + 12, 4);
	memcpy(&head, ring + 64, 8);
	for (uint32_t i = 0; ps >= BP_RING_PAGE_MIN && i < np && i < 4096; i++) {
		size_t page = off + BP_FILE_RING_OFFSET + BP_RING_CTL_BYTES + (size_t)i * ps;

		if (closed || i != head % np)
			add_span(f, page, 8);	/* seq */
		add_span(f, page + 16, 8);	/* first_rec */
		add_span(f, page + 32, 4);	/* commit */
	}
}

static void map_file(struct file *f)
{
	size_t off = BP_FILE_HEADER_BYTES;
	uint32_t flags;

	add_span(f, 0, 128);			/* magic .. calibration */
	add_span(f, 144, 8);			/* cmdline_len, ring_mode */
	add_span(f, 2200, 40);			/* accounts .. memory_records */
	while (off + BP_CHUNK_HDR_BYTES <= f->n) {
		struct bp_file_chunk c;

		memcpy(&c, f->p + off, sizeof(c));
		CHECK(c.size && c.size % BP_FILE_ALIGN == 0 && c.size <= f->n - off);
		f->bounds = realloc(f->bounds, (f->nbounds + 2) * sizeof(*f->bounds));
		f->bounds[f->nbounds++] = off;
		if (f->stream)
			add_span(f, off, (size_t)c.size);	/* checksummed: all of it */
		else if (c.type == BP_CHUNK_RING)
			ring_spans(f, off, (memcpy(&flags, f->p + 20, 4), flags & BP_FILE_F_CLOSED));
		else if (c.type == BP_CHUNK_SITES || c.type == BP_CHUNK_LIBS)
			list_spans(f, off, (size_t)c.size, c.type);
		add_span(f, off, BP_CHUNK_HDR_BYTES);
		off += (size_t)c.size;
	}
	f->bounds[f->nbounds++] = off;
}

/* ---- reading ------------------------------------------------------------- */

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

#define MIX(h, v) ((h) = mix((h), &(v), sizeof(v)))

/* What the file reads as; *damage set when the reader says it is damaged. */
static uint64_t read_file(const unsigned char *p, size_t n, bool *damage)
{
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	struct bp_trace *t;
	char path[64], err[256];
	uint64_t h = 0xcbf29ce484222325ull;
	int fd = memfd_create("mutant", MFD_CLOEXEC), rc;
	unsigned long count = 0;

	CHECK(fd >= 0);
	CHECK(write(fd, p, n) == (ssize_t)n);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	t = bp_trace_open(path, BP_TRACE_OPEN_NO_SYMBOLS, err, sizeof(err), &rc);
	*damage = t == NULL;
	if (t) {
		while (count++ < 10000000 && (rc = bp_trace_next(t, &e, 0)) == 1) {
			MIX(h, e.raw_ts);
			MIX(h, e.ev.tid);
			MIX(h, e.level);
			MIX(h, e.site_id);
			MIX(h, e.index);
			MIX(h, e.lost_before);
			h = mix(h, e.ev.message, e.ev.message_len);
		}
		for (size_t i = 0; i < bp_trace_nrings(t); i++) {
			const struct bp_trace_ring *r = bp_trace_ring_at(t, i);

			MIX(h, r->tid);
			MIX(h, r->written);
			MIX(h, r->discarded);
			MIX(h, r->dropped);
			MIX(h, r->overwritten);
			MIX(h, r->read);
			MIX(h, r->lost_by_drainer);
			MIX(h, r->not_copied);
		}
		*damage = rc < 0 || bp_trace_problems(t, NULL) > 0;
		bp_trace_close(t);
	}
	close(fd);
	return h;
}

/* One mutant of f: it reads as f does, or says it is damaged. */
static void judge(const struct file *f, const unsigned char *p, size_t n, const char *what)
{
	bool damage;
	uint64_t h = read_file(p, n, &damage);

	mutants++;
	if (damage) {
		said++;
		return;
	}
	if (h == f->digest) {
		same++;
		return;
	}
	FAIL("%s: %s: read differently, and no damage said", f->name, what);
}

static void mutate(struct file *f, unsigned flips, unsigned words)
{
	unsigned char *m = malloc(f->n);
	char what[96];

	CHECK(m != NULL);
	/* truncations: at every chunk boundary and just after, and anywhere */
	for (size_t i = 0; i < f->nbounds; i++)
		for (size_t d = 0; d <= 32; d += 32)
			if (f->bounds[i] + d < f->n) {
				snprintf(what, sizeof(what), "cut at %zu", f->bounds[i] + d);
				judge(f, f->p, f->bounds[i] + d, what);
			}
	for (unsigned i = 0; i < 200; i++) {
		size_t cut = (size_t)(rnd() % f->n);

		snprintf(what, sizeof(what), "cut at %zu", cut);
		judge(f, f->p, cut, what);
	}
	/* bit flips, a span first (so that small headers get theirs), then a byte */
	for (unsigned i = 0; i < flips; i++) {
		const struct span *s = &f->spans[rnd() % f->nspans];
		size_t at = s->off + (size_t)(rnd() % s->len);
		unsigned bit = (unsigned)(rnd() % 8);

		memcpy(m, f->p, f->n);
		m[at] ^= (unsigned char)(1u << bit);
		snprintf(what, sizeof(what), "bit %u of byte %zu", bit, at);
		judge(f, m, f->n, what);
	}
	/* every word of every ring's static and writer lines, set to 0 and to
	 * all ones (a ring's control block failing its checks is damage, not
	 * a ring not formatted yet: the random words below hit these rarely) */
	for (size_t r = 0; r < f->nctls; r++)
		for (size_t at = f->ctls[r]; at < f->ctls[r] + 128; at += 4)
			for (uint32_t v = 0; v < 2; v++) {
				uint32_t word = v ? UINT32_MAX : 0;

				memcpy(m, f->p, f->n);
				if (!memcmp(m + at, &word, 4))
					continue;
				memcpy(m + at, &word, 4);
				snprintf(what, sizeof(what), "ring control word at %zu set to %#x",
					 at, word);
				judge(f, m, f->n, what);
			}
	/* 32-bit words set to 0 and to all ones */
	for (unsigned i = 0; i < words; i++) {
		const struct span *s = &f->spans[rnd() % f->nspans];
		size_t at = (s->off + (size_t)(rnd() % s->len)) & ~(size_t)3;
		uint32_t v = i & 1 ? UINT32_MAX : 0;

		if (at + 4 > f->n)
			continue;
		memcpy(m, f->p, f->n);
		if (!memcmp(m + at, &v, 4))
			continue;
		memcpy(m + at, &v, 4);
		snprintf(what, sizeof(what), "word at %zu set to %#x", at, v);
		judge(f, m, f->n, what);
	}
	free(m);
}

/* ---- making the files ---------------------------------------------------- */

static pid_t start(char *const argv[], const char *env1, const char *env2)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(fd, 2);
		if (env1)
			putenv((char *)env1);
		if (env2)
			putenv((char *)env2);
		execv(argv[0], argv);
		_exit(127);
	}
	CHECK(pid > 0);
	return pid;
}

/* The (only) child of process pid, 0 if none. */
static pid_t child_of(pid_t pid)
{
	char path[64];
	FILE *f;
	int c = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "%d", &c) != 1)
			c = 0;
		fclose(f);
	}
	return (pid_t)c;
}

static int finish(pid_t pid)
{
	int st;

	CHECK(waitpid(pid, &st, 0) == pid);
	return st;
}

static void load(struct file *f, const char *name, bool stream)
{
	char path[512];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", work, name);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && fstat(fd, &st) == 0);
	f->name = name;
	f->stream = stream;
	f->n = (size_t)st.st_size;
	f->p = malloc(f->n);
	CHECK(f->p && read(fd, f->p, f->n) == (ssize_t)f->n);
	close(fd);
	map_file(f);
}

int main(int argc, char **argv)
{
	char env_file[600], live_closed[512], live_killed[512], out[512], killed_out[512];
	struct file files[5] = { { 0 } };
	size_t nfiles = 0;
	unsigned scale = (unsigned)test_scale(10);
	pid_t pid, child;

	CHECK_MSG(argc == 4, "usage: reader_mutants TRACED BPRINT WORKDIR");
	traced = argv[1];
	bprint_cmd = argv[2];
	work = argv[3];
	mkdir(work, 0700);
	snprintf(live_closed, sizeof(live_closed), "%s/live-closed.dat", work);
	snprintf(live_killed, sizeof(live_killed), "%s/live-killed.dat", work);
	unlink(live_closed);
	unlink(live_killed);

	/* a live file closed cleanly: wrapped rings, nested rings */
	snprintf(env_file, sizeof(env_file), "BPRINT_FILE=%s", live_closed);
	pid = start((char *[]){ (char *)traced, "--threads", "3", "--records", "400", "--timer",
				"300", NULL },
		    env_file, "BPRINT_BUFFER_SIZE=8K");
	CHECK_EQ(finish(pid), 0);
	load(&files[nfiles++], "live-closed.dat", false);

	/* a live file of a program killed while it traced */
	snprintf(env_file, sizeof(env_file), "BPRINT_FILE=%s", live_killed);
	pid = start((char *[]){ (char *)traced, "--threads", "2", "--spin", NULL }, env_file,
		    "BPRINT_BUFFER_SIZE=8K");
	usleep(300000);
	kill(pid, SIGKILL);
	finish(pid);
	load(&files[nfiles++], "live-killed.dat", false);

	/* streams: overwrite mode, discard mode */
	snprintf(out, sizeof(out), "%s/stream.dat", work);
	pid = start((char *[]){ (char *)bprint_cmd, "record", "-q", "-o", out, "--", (char *)traced,
				"--threads", "3", "--records", "3000", "--timer", "300", NULL },
		    "BPRINT_BUFFER_SIZE=8K", NULL);
	CHECK_EQ(finish(pid), 0);
	load(&files[nfiles++], "stream.dat", true);
	snprintf(out, sizeof(out), "%s/stream-discard.dat", work);
	pid = start((char *[]){ (char *)bprint_cmd, "record", "-q", "-o", out, "--", (char *)traced,
				"--threads", "2", "--records", "3000", NULL },
		    "BPRINT_BUFFER_SIZE=8K", "BPRINT_MODE=discard");
	CHECK_EQ(finish(pid), 0);
	load(&files[nfiles++], "stream-discard.dat", true);

	/* a stream whose recorder was killed (its accounts say what it lacks) */
	snprintf(killed_out, sizeof(killed_out), "%s/stream-killed.dat", work);
	pid = start((char *[]){ (char *)bprint_cmd, "record", "-q", "-o", killed_out, "--",
				(char *)traced, "--threads", "2", "--records", "1000000",
				"--sleep-us", "50", NULL },
		    "BPRINT_BUFFER_SIZE=8K", NULL);
	usleep(500000);
	child = child_of(pid);
	kill(pid, SIGKILL);
	finish(pid);
	if (child > 0)
		kill(child, SIGKILL);	/* it would trace on: nobody waits for it */
	load(&files[nfiles++], "stream-killed.dat", true);

	for (size_t i = 0; i < nfiles; i++) {
		struct file *f = &files[i];
		bool damage;

		f->digest = read_file(f->p, f->n, &damage);
		CHECK_MSG(!damage, "%s: the intact file reads as damaged", f->name);
		mutate(f, 120 * scale, 60 * scale);
		printf("%s: %zu bytes, %zu chunks\n", f->name, f->n, f->nbounds - 1);
	}
	printf("%lu mutants: %lu said damaged, %lu read as the intact file\n", mutants, said, same);
	for (size_t i = 0; i < nfiles; i++) {
		free(files[i].p);
		free(files[i].spans);
		free(files[i].bounds);
	}
	return check_summary("reader_mutants");
}
