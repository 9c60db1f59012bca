/*
 * reader_reuse: the file reader and a live file of 1.3 whose ring chunks
 * are reused (docs/file-format.md, "Ring chunks reused").  The program is
 * its own writer and reader (BPRINT_FILE, 64 KiB rings and a BPRINT_RETAIN
 * of one ring and a half, set by the test): threads trace one after the other, so
 * that each new thread retires the oldest exited one beyond the budget
 * and takes its chunk (a file ring is retired only when a new ring needs
 * the room: the last two threads stay).
 *
 *  - a reader following the file (refreshed after each thread) reads every
 *    record once, each under the thread that wrote it, says no damage, and
 *    counts the retired threads in one ring, tid -1 "(retired)", whose
 *    records it had read: written = read + overwritten + discarded exactly;
 *  - a reader opened at the end reads the last thread's records and counts
 *    the others as overwritten in the retired ring (and in the estimate);
 *  - a ring chunk caught between steps 1 and 2 of a reuse (state 0, the old
 *    ring's magic still there) is no damage in a file of 1.3, and is in a
 *    file of 1.2, whose writer never reuses a chunk;
 *  - 300 threads exit together, and 300 new ones take their chunks: a
 *    reader following the file finds every new ring.
 */
#include "trace/tracer_check.h"

#include "file/layout.h"
#include "ring/ring.h"

#include <bprint/reader.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#define PER 10
#define FMT "reuse t=%d i=%d"

#define MAXT 1024
#define MANY 300	/* more chunks given back at once than a fixed list of 256 kept */

static int tids[MAXT];
static pthread_barrier_t traced, go;

static void *work(void *arg)
{
	int k = (int)(intptr_t)arg;

	tids[k] = (int)syscall(SYS_gettid);
	for (int i = 0; i < PER; i++)
		trace_printk(FMT, k, i);
	return NULL;
}

static void run_thread(int k)
{
	pthread_t th;

	CHECK_EQ(pthread_create(&th, NULL, work, (void *)(intptr_t)k), 0);
	CHECK_EQ(pthread_join(th, NULL), 0);
}

/* Every record t has now: each under its thread, none twice. */
static int read_all(struct bp_trace *t, unsigned char seen[][PER], int nthreads)
{
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	int rc, n = 0;

	while ((rc = bp_trace_next(t, &e, 0)) == 1) {
		int k = -1, i = -1;

		CHECK_EQ(sscanf(e.message, "reuse t=%d i=%d", &k, &i), 2);
		CHECK(k >= 0 && k < nthreads && i >= 0 && i < PER);
		CHECK_EQ(e.tid, tids[k]);
		CHECK_EQ(e.lost_before, 0);
		CHECK_EQ(seen[k][i]++, 0);
		n++;
	}
	CHECK_EQ(rc, 0);
	return n;
}

/* The retired rings' entry of t, NULL if none. */
static const struct bp_trace_ring *retired(const struct bp_trace *t)
{
	for (size_t i = 0; i < bp_trace_nrings(t); i++) {
		const struct bp_trace_ring *r = bp_trace_ring_at(t, i);

		if (r->tid == -1) {
			CHECK_STREQ(r->comm, "(retired)");
			return r;
		}
	}
	return NULL;
}

static void check_totals(const struct bp_trace *t, uint64_t written, uint64_t read)
{
	struct bp_trace_totals tot = BP_TRACE_TOTALS_INIT;
	const char *first = NULL;

	CHECK_EQ(bp_trace_problems(t, &first), 0u);
	CHECK_EQ(bp_trace_totals(t, &tot), BP_TRACE_OK);
	CHECK_EQ(tot.written, written);
	CHECK_EQ(tot.read, read);
	CHECK_EQ(tot.discarded, 0);
	CHECK_EQ(tot.read + tot.overwritten, tot.written);
}

/* work(), then wait until released (the threads of a batch live together). */
static void *work_and_wait(void *arg)
{
	work(arg);
	pthread_barrier_wait(&traced);
	pthread_barrier_wait(&go);
	return NULL;
}

/* Threads from .. from + MANY - 1, all alive; t refreshed and read then:
 * the records it returns.  Then they exit. */
static int batch(struct bp_trace *t, int from, unsigned char seen[][PER])
{
	static pthread_t th[MANY];
	int n;

	CHECK_EQ(pthread_barrier_init(&traced, NULL, MANY + 1), 0);
	CHECK_EQ(pthread_barrier_init(&go, NULL, MANY + 1), 0);
	for (int k = 0; k < MANY; k++)
		CHECK_EQ(pthread_create(&th[k], NULL, work_and_wait, (void *)(intptr_t)(from + k)),
			 0);
	pthread_barrier_wait(&traced);
	CHECK_EQ(bp_trace_refresh(t), BP_TRACE_OK);
	n = read_all(t, seen, MAXT);
	pthread_barrier_wait(&go);
	for (int k = 0; k < MANY; k++)
		CHECK_EQ(pthread_join(th[k], NULL), 0);
	pthread_barrier_destroy(&traced);
	pthread_barrier_destroy(&go);
	return n;
}

/*
 * MANY threads exit together (all but one ring retired, their chunks
 * given back), then MANY new ones take those chunks while a reader
 * follows: it finds every new ring, in whichever chunk it went.
 */
static void many(const char *path, int from)
{
	static unsigned char seen[MAXT][PER];
	struct bp_trace *t;
	char err[256];
	int rc;

	t = bp_trace_open(path, BP_TRACE_OPEN_NO_SYMBOLS, err, sizeof(err), &rc);
	if (!t)
		FAIL("%s: %s", path, err);
	read_all(t, seen, MAXT);	/* what is there already */
	CHECK_EQ(batch(t, from, seen), MANY * PER);
	CHECK_EQ(bp_trace_refresh(t), BP_TRACE_OK);	/* their chunks given back */
	CHECK_EQ(read_all(t, seen, MAXT), 0);
	CHECK_EQ(batch(t, from + MANY, seen), MANY * PER);
	CHECK_EQ(bp_trace_problems(t, NULL), 0u);
	printf("ok: %d threads in chunks %d others gave back at once: every record found\n",
	       MANY, MANY);
	bp_trace_close(t);
}

/* The followed reader and the one opened at the end. */
static void follow(const char *path, int nthreads)
{
	static unsigned char seen[MAXT][PER], seen2[MAXT][PER];
	const struct bp_trace_ring *r;
	struct bp_trace *t, *t2;
	char err[256];
	int rc, n;

	run_thread(0);
	t = bp_trace_open(path, BP_TRACE_OPEN_NO_SYMBOLS, err, sizeof(err), &rc);
	if (!t)
		FAIL("%s: %s", path, err);
	n = read_all(t, seen, nthreads);
	for (int k = 1; k < nthreads; k++) {
		run_thread(k);
		/* its chunk was cleared and taken again since the last refresh:
		 * one refresh finds the old ring gone and the new one there */
		CHECK_EQ(bp_trace_refresh(t), BP_TRACE_OK);
		n += read_all(t, seen, nthreads);
	}
	CHECK_EQ(n, nthreads * PER);
	r = retired(t);
	CHECK(r != NULL);
	CHECK_EQ(r->written, (uint64_t)(nthreads - 2) * PER);
	CHECK_EQ(r->read, (uint64_t)(nthreads - 2) * PER);	/* read before their chunks went */
	CHECK_EQ(r->overwritten, 0);
	check_totals(t, (uint64_t)nthreads * PER, (uint64_t)nthreads * PER);
	printf("ok: followed, %d threads in reused chunks: every record once, under its thread\n",
	       nthreads);

	t2 = bp_trace_open(path, BP_TRACE_OPEN_NO_SYMBOLS, err, sizeof(err), &rc);
	if (!t2)
		FAIL("%s: %s", path, err);
	CHECK_EQ(bp_trace_overwritten_estimate(t2), (uint64_t)(nthreads - 2) * PER);
	CHECK_EQ(read_all(t2, seen2, nthreads), 2 * PER);
	for (int i = 0; i < PER; i++)
		CHECK(seen2[nthreads - 1][i] == 1 && seen2[nthreads - 2][i] == 1);
	r = retired(t2);
	CHECK(r != NULL);
	CHECK_EQ(r->read, 0);
	CHECK_EQ(r->overwritten, (uint64_t)(nthreads - 2) * PER);
	check_totals(t2, (uint64_t)nthreads * PER, 2 * PER);
	printf("ok: opened at the end: the last two threads read, %d retired ones counted "
	       "overwritten\n", nthreads - 2);
	bp_trace_close(t2);
	bp_trace_close(t);
}

/* The file's bytes, with its ring chunks' offsets in rings[]. */
static unsigned char *load(const char *path, size_t *size, size_t rings[], size_t *nrings)
{
	struct stat st;
	unsigned char *p;
	int fd = open(path, O_RDONLY);
	size_t off = BP_FILE_HEADER_BYTES;

	CHECK(fd >= 0 && fstat(fd, &st) == 0);
	*size = (size_t)st.st_size;
	p = malloc(*size);
	CHECK(p != NULL);
	CHECK_EQ(pread(fd, p, *size, 0), (ssize_t)*size);
	close(fd);
	*nrings = 0;
	while (off + BP_CHUNK_HDR_BYTES <= *size) {
		struct bp_file_chunk c;

		memcpy(&c, p + off, sizeof(c));
		if (memcmp(c.magic, BP_CHUNK_MAGIC, 4) || !c.size || c.size > *size - off) {
			off += BP_FILE_ALIGN;
			continue;
		}
		if (c.type == BP_CHUNK_RING && *nrings < 8)
			rings[(*nrings)++] = off;
		off += (size_t)c.size;
	}
	return p;
}

/* A copy of the file with p's bytes, read to the end: its problems. */
static unsigned read_copy(const char *path, const unsigned char *p, size_t size,
			  const char **first)
{
	static unsigned char seen[MAXT][PER];
	static char said[256];
	struct bp_trace *t;
	char err[256];
	unsigned problems;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), rc;

	CHECK(fd >= 0);
	CHECK_EQ(write(fd, p, size), (ssize_t)size);
	close(fd);
	memset(seen, 0, sizeof(seen));
	t = bp_trace_open(path, BP_TRACE_OPEN_NO_SYMBOLS, err, sizeof(err), &rc);
	if (!t)
		FAIL("%s: %s", path, err);
	read_all(t, seen, MAXT);
	problems = bp_trace_problems(t, first);
	snprintf(said, sizeof(said), "%s", *first);
	*first = said;	/* the reader's text goes with it */
	printf("%s: %u problem(s)%s%s\n", path, problems, problems ? ": " : "",
	       problems ? said : "");
	bp_trace_close(t);
	return problems;
}

/* p (size bytes) as a live file of format 1.minor, minor < 4, wrote it:
 * the header's and the chunk headers' checksums (1.4) are not there. */
static void as_format(unsigned char *p, size_t size, uint16_t minor)
{
	struct bp_file_header h;
	struct bp_file_chunk c;

	memcpy(&h, p, sizeof(h));
	h.minor = minor;
	h.fixed_crc = h.header_crc = h.calib_crc[0] = h.calib_crc[1] = 0;
	memcpy(p, &h, sizeof(h));
	for (size_t off = BP_FILE_HEADER_BYTES; off + sizeof(c) <= size; off += (size_t)c.size) {
		memcpy(&c, p + off, sizeof(c));
		if (!c.size || c.size % BP_FILE_ALIGN)
			break;
		memset(p + off + offsetof(struct bp_file_chunk, crc), 0, sizeof(c.crc));
		if (c.type == BP_CHUNK_SITES || c.type == BP_CHUNK_LIBS)
			memset(p + off + offsetof(struct bp_file_list, crc), 0, 4);
	}
}

/* A ring chunk between steps 1 and 2 of a reuse: state 0, its ring whole. */
static void mid_reuse(const char *path)
{
	char copy[4200];
	size_t size, rings[8], nrings, formatted = 0;
	unsigned char *p = load(path, &size, rings, &nrings);
	const char *first;
	uint32_t magic, zero = BP_CHUNK_WRITING;
	uint16_t minor;

	for (size_t i = 0; i < nrings && !formatted; i++) {
		memcpy(&magic, p + rings[i] + BP_FILE_RING_OFFSET, 4);
		if (magic == BP_RING_MAGIC)
			formatted = rings[i];
	}
	CHECK(formatted != 0);
	memcpy(&minor, p + offsetof(struct bp_file_header, minor), 2);
	CHECK(minor >= BP_FILE_MINOR_REUSE);	/* later minors reuse as 1.3 did */
	memcpy(p + formatted + offsetof(struct bp_file_chunk, state), &zero, 4);
	snprintf(copy, sizeof(copy), "%s.mid", path);
	CHECK_EQ(read_copy(copy, p, size, &first), 0u);
	printf("ok: format 1.%u: a ring in a chunk of state 0 (a reuse under way) is no damage\n",
	       minor);
	as_format(p, size, BP_FILE_MINOR_REUSE - 1);
	minor = BP_FILE_MINOR_REUSE - 1;
	CHECK(read_copy(copy, p, size, &first) > 0);
	CHECK(strstr(first, "a ring in a chunk of state 0") != NULL);
	printf("ok: format 1.%u: the same chunk is damage\n", minor);
	unlink(copy);
	free(p);
}

int main(void)
{
	const char *env = getenv("BPRINT_FILE");
	static char path[4096];
	int nthreads = 6;

	CHECK(env != NULL && strlen(env) < 4000);
	/* the writer took path.PID if an earlier run's file was there */
	snprintf(path, sizeof(path), "%s.%d", env, (int)getpid());
	if (access(path, F_OK) != 0)
		snprintf(path, sizeof(path), "%s", env);
	follow(path, nthreads);
	mid_reuse(path);
	many(path, nthreads);
	return 0;
}
