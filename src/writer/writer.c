/*
 * The live trace file, written by the traced process (writer.h).
 *
 * Every ring is a chunk of the file (writer_rings.c): allocating one is an
 * mmap(MAP_SHARED), an fallocate() and a compare-exchange on the header's
 * `end`; all three may run in a signal handler (a thread's first trace),
 * so that path makes system calls only.  Sites and libraries are appended in
 * ordinary context (writer_lists.c).  A fork child makes a file of its own
 * when it first traces (child_open()).  The file is never shrunk and chunks
 * are never moved (an exited thread's ring chunk is reused in place), so
 * whatever instant the process dies at, what is in the file is what the
 * tracer had stored (docs/file-format.md).
 *
 *	file:  | header | libs | sites | ring (thread 1) | ring (thread 2) | sites | ...
 *	                                 ^ mmap, fallocate, header.end moved
 */
#include "writer/writer.h"

#include "file/checksums.h"
#include "writer/writer_control.h"
#include "file/layout.h"
#include "writer/writer_live.h"
#include "writer/writer_pool.h"
#include "writer/writer_thread.h"
#include "ring/ring.h"
#include "trace/backing.h"
#include "trace/clock.h"
#include "trace/config.h"
#include "trace/safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CALIB_EVERY_NS 10000000u	/* refresh the calibration at most every 10 ms */

struct bp_live bp_live = { .fd = -1 };
static pid_t owner;			/* the process that created the file */
static dev_t live_dev;			/* the file, as fstat() saw it when it was made */
static ino_t live_ino;
static char path_used[PATH_MAX];
static char base_path[PATH_MAX];	/* what bp_file_open() was given */
static bool in_memory;			/* bp_file_open_memory(): a memfd, no path */
/* a fork child's file (child_open()) */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static bool child_wants_file;		/* under open_lock */
static int parent_fd = -1;		/* until it is made */
static _Atomic uint64_t next_index = 1;
static atomic_flag calib_busy = ATOMIC_FLAG_INIT;
static _Atomic uint64_t last_calib_ns;


/* ---- chunks (async-signal-safe) ---------------------------------------- */

/*
 * Grow the file over [off, off + size), which may not be ours yet: with
 * fallocate(), which writes no byte and never shrinks the file, so growing
 * a range another writer took meanwhile changes nothing of it.  Returns 1
 * where that cannot be done (shared memory, a filesystem without
 * fallocate): then write_last() once the range is ours.
 */
static int grow_ahead(uint64_t off, uint64_t size)
{
	if (in_memory)
		return 1;
	if (fallocate(bp_live.fd, 0, (off_t)off, (off_t)size) == 0)
		return 0;
	return errno == EOPNOTSUPP || errno == ENOSYS ? 1 : -1;
}

/* The last byte of [off, off + size), ours: the file grown to hold it
 * (shared memory stays sparse: a ring's pages cost memory as the writer
 * reaches them, as anonymous memory does). */
static int write_last(uint64_t off, uint64_t size)
{
	return pwrite(bp_live.fd, "", 1, (off_t)(off + size - 1)) == 1 ? 0 : -1;
}

/* Make [off, off + size), ours, part of the file: never shrinks it; a
 * file on disk is allocated whole. */
static int grow(uint64_t off, uint64_t size)
{
	int ahead = grow_ahead(off, size);

	return ahead > 0 ? write_last(off, size) : ahead;
}

/*
 * Give [off, off + size) back if it is still the end of the file (nobody
 * allocated after it): a chunk that could not be had leaves no hole, and
 * the file does not grow with failures.
 */
static bool give_back(uint64_t off, uint64_t size)
{
	uint64_t end = off + size;

	/* relaxed: as the compare-exchange that handed it out */
	return atomic_compare_exchange_strong_explicit(&bp_live_hdr()->end, &end, off,
						       memory_order_relaxed, memory_order_relaxed);
}

/*
 * Is the descriptor still the file?  A program that closes every
 * descriptor it did not open (a daemon starting up) closes ours too, and
 * its next open() may take the number: then no chunk is made (tracing
 * goes on in memory), rather than growing and mapping its file.
 */
static bool fd_is_ours(void)
{
	struct stat st;

	return fstat(bp_live.fd, &st) == 0 && st.st_dev == live_dev && st.st_ino == live_ino;
}

/* What fd_is_ours() compares with. */
static void remember_fd(void)
{
	struct stat st;

	if (fstat(bp_live.fd, &st) == 0) {
		live_dev = st.st_dev;
		live_ino = st.st_ino;
	}
}

/*
 * Allocate a chunk of size bytes (a multiple of the alignment), map it and
 * fill its header, state still "being written".
 *
 * The header's `end` never passes the file's size: the chunk at the end is
 * mapped (a mapping past the end is valid until touched) and the file
 * grown over it, and only then is `end` moved past it, by a
 * compare-exchange that another writer's allocation makes fail and
 * retry.  So a reader that finds `end` beyond the size (a copy of the
 * file, the file of a process killed at any instant) knows it was cut,
 * and a mapping that fails costs no space.  Where the file cannot be
 * grown ahead (grow_ahead()), its last byte is written after: a chunk
 * that cannot be had then is given back if it is the last one, else
 * marked abandoned with pwrite, so that readers skip it whole.
 */
int bp_live_chunk_alloc(uint32_t type, uint64_t size, struct bp_mapped *m)
{
	_Atomic uint64_t *end = &bp_live_hdr()->end;
	uint64_t off, moff;
	struct bp_file_chunk c;
	size_t len;
	void *p;
	int ahead;

	if (!fd_is_ours())
		return -1;
	/* relaxed: hands out an offset, nothing more; the chunk is published
	 * by its own state (H3) */
	off = atomic_load_explicit(end, memory_order_relaxed);
	for (;;) {
		moff = off & ~(uint64_t)(bp_live.sys_page - 1);
		len = (size_t)(off - moff + size);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, bp_live.fd, (off_t)moff);
		if (p == MAP_FAILED)
			return -1;
		ahead = grow_ahead(off, size);
		if (ahead >= 0 && atomic_compare_exchange_weak_explicit(
				end, &off, off + size, memory_order_relaxed, memory_order_relaxed))
			break;
		munmap(p, len);	/* another chunk took off (now its end): again there */
		if (ahead < 0)
			return -1;	/* no room: nothing taken */
	}
	memset(&c, 0, sizeof(c));
	memcpy(c.magic, BP_CHUNK_MAGIC, 4);
	c.type = type;
	c.size = size;
	c.index = bp_live_next_index();
	if (ahead && write_last(off, size) != 0) {
		munmap(p, len);
		if (give_back(off, size) || write_last(off, size) != 0)
			return -1;	/* no hole, or no room to say it */
		atomic_init(&c.state, BP_CHUNK_ABANDONED);
		(void)!pwrite(bp_live.fd, &c, sizeof(c), (off_t)off);
		return -1;
	}
	/* The writer touches the chunk a page at a time (a ring: its control
	 * block, then each page as it is reached): no fault should read ahead
	 * around it, which on a new chunk fills the page cache with the zeros
	 * of pages not reached yet (a ring's first record took 0.35 ms). */
	(void)madvise(p, len, MADV_RANDOM);
	m->base = p;
	m->len = len;
	m->chunk = (struct bp_file_chunk *)(void *)((unsigned char *)p + (off - moff));
	m->off = off;
	memcpy(m->chunk, &c, offsetof(struct bp_file_chunk, state));
	m->chunk->index = c.index;
	return 0;
}

uint64_t bp_live_next_index(void)
{
	return atomic_fetch_add_explicit(&next_index, 1, memory_order_relaxed);	/* a number only */
}

void bp_live_chunk_publish(struct bp_file_chunk *c)
{
	c->crc = bp_live_chunk_crc(c);	/* format 1.4: its header's fixed fields */
	/* H3: the chunk's headers (and crc) before "complete"; pairs with the
	 * acquire of state by the file's readers (src/file/valid.c,
	 * bp_chunk_state). */
	atomic_store_explicit(&c->state, BP_CHUNK_COMPLETE, memory_order_release);
}

void bp_file_calibrate(void)
{
	struct bp_clock_calib c;
	uint64_t seq;

	struct bp_file_header *h = bp_live_hdr();

	/* H4: one calibration at a time; acquire pairs with the clear below
	 * (the previous calibration's stores come before ours). */
	if (!h || atomic_flag_test_and_set_explicit(&calib_busy, memory_order_acquire))
		return;
	bp_clock_calibrate(&c);
	seq = atomic_load_explicit(&h->calib_seq, memory_order_relaxed);	/* ours alone (H4) */
	h->calib[(seq + 1) & 1] = c;
	h->calib_crc[(seq + 1) & 1] = bp_calib_crc(&c);
	/* H5: the slot (and its crc) before the sequence that selects it;
	 * pairs with the readers' acquire of calib_seq and their re-check (a
	 * seqlock). */
	atomic_store_explicit(&h->calib_seq, seq + 1, memory_order_release);
	atomic_store_explicit(&last_calib_ns, bp_clock_read_ns(CLOCK_MONOTONIC),
			      memory_order_relaxed);	/* a hint */
	atomic_flag_clear_explicit(&calib_busy, memory_order_release);	/* H4 */
}

void bp_live_maybe_calibrate(void)
{
	/* relaxed: a hint; a calibration too many or too few costs nothing */
	if (bp_clock_read_ns(CLOCK_MONOTONIC) -
	    atomic_load_explicit(&last_calib_ns, memory_order_relaxed) >= CALIB_EVERY_NS)
		bp_file_calibrate();
}

/* ---- the backing ------------------------------------------------------- */

static void file_fork_child(void);

static bool ring_in_memory(const void *mem)
{
	return in_memory && bp_live_ring_in_file(mem);
}

static const struct bp_backing file_backing = {
	.ring_map = bp_live_ring_map,
	.ring_unmap = bp_live_ring_unmap,
	.ring_in_file = bp_live_ring_in_file,
	.ring_copied = bp_live_ring_copied,
	.settle = bp_live_settle,
	.site_added = bp_live_site_added,
	.thread_exit = bp_live_thread_exit,
	.record_lost = bp_live_record_lost,
	.fork_prepare = bp_helpers_wait_started,
	.fork_child = file_fork_child,
	.ring_in_memory = ring_in_memory,
};

/* ---- open and exit ----------------------------------------------------- */

static void file_exit(void)
{
	struct bp_file_header *h = bp_live_hdr();

	if (!h || getpid() != owner)
		return;
	bp_live_pool_stop();	/* no chunk half made after "closed" */
	bp_live_lists_retry();
	bp_live_rings_at_exit();
	bp_file_calibrate();
	/* H6: the live threads' last names and counters before "closed";
	 * pairs with the acquire of flags in store_thread() and the readers' */
	atomic_fetch_or_explicit(&h->flags, BP_FILE_F_CLOSED, memory_order_release);
}

static void fill_header(struct bp_file_header *h)
{
	struct timespec ts;
	int cfd;

	h->major = BP_FILE_MAJOR;
	h->minor = BP_FILE_MINOR;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	h->byte_order = BP_FILE_LITTLE_ENDIAN;
#else
	h->byte_order = BP_FILE_BIG_ENDIAN;
#endif
	h->word_size = (uint8_t)sizeof(void *);
	h->header_bytes = BP_FILE_HEADER_BYTES;
	h->align = BP_FILE_ALIGN;
	h->pid = (uint64_t)getpid();
	clock_gettime(CLOCK_REALTIME, &ts);
	h->start_realtime_ns = bp_clock_timespec_ns(&ts);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	h->start_mono_ns = bp_clock_timespec_ns(&ts);
	atomic_store_explicit(&h->end, BP_FILE_HEADER_BYTES, memory_order_relaxed);	/* H2 publishes */
	prctl(PR_GET_NAME, h->comm, 0, 0, 0);
	h->comm[sizeof(h->comm) - 1] = '\0';
	h->ring_mode = bp_config.mode;
	cfd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (cfd >= 0) {
		size_t got = 0;
		ssize_t n;

		while (got < sizeof(h->cmdline) &&
		       (n = read(cfd, h->cmdline + got, sizeof(h->cmdline) - got)) > 0)
			got += (size_t)n;
		close(cfd);
		if (got == sizeof(h->cmdline))
			h->cmdline[got - 1] = '\0';	/* cut: keep the last string terminated */
		h->cmdline_len = (uint32_t)got;
	}
	h->fixed_crc = bp_header_fixed_crc(h);	/* the magic it covers is a constant */
	/*
	 * H2: the magic goes last: a process killed while filling the header
	 * leaves a file no reader mistakes for a complete one (pid set, mode
	 * not yet); pairs with the readers' check of the magic first
	 * (src/file/valid.c) and with the copier's mapping of a live header.
	 */
	atomic_thread_fence(memory_order_release);
	memcpy(h->magic, BP_FILE_MAGIC, 8);
}

static int create(const char *path)
{
	const char *why;
	int f;

	if (in_memory)	/* found by its name in /proc/PID/fd (docs/attach.md) */
		return memfd_create(BP_FILE_MEMFD_NAME, MFD_CLOEXEC);
	f = bp_open_output(path, BP_OPEN_RDWR | BP_OPEN_PRIVATE, &why);	/* a new file only */

	if (f >= 0)
		snprintf(path_used, sizeof(path_used), "%s", path);
	return f;
}

/* "bprint: cannot create trace file PATH: REASON (tracing to memory only)",
 * with write(2): a fork child may say it from a signal handler. */
static void say_cannot(const char *path, int err, const char *why)
{
	char line[PATH_MAX + 160];
	int n = snprintf(line, sizeof(line),
			 "bprint: cannot create trace file %s: %s (tracing to memory only)\n", path,
			 why ? why : strerror(err));

	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	(void)!write(STDERR_FILENO, line, (size_t)n);
}

/* Under bprint record: tell it that this process's records are in no file. */
static void tell_recorder(void)
{
	union sigval pid = { .sival_int = (int)getpid() };

	if (bp_config.record_pid)
		(void)sigqueue((pid_t)bp_config.record_pid, BP_RECORD_NO_FILE_SIGNAL, pid);
}

/* Size and map the header of the new file bp_live.fd; NULL if it cannot. */
static struct bp_file_header *map_header(void)
{
	void *p;

	if (grow(0, BP_FILE_HEADER_BYTES) != 0)
		return NULL;
	p = mmap(NULL, BP_FILE_HEADER_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, bp_live.fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* A name that is taken: "not a regular file" if path is not one (the
 * user named something that cannot hold a trace), else "path.PID" in alt
 * (an ancestor's file, a child inherits BPRINT_FILE, or an old one).
 * 0, or -1 with errno and *why. */
static int other_name(const char *path, char alt[PATH_MAX], const char **why)
{
	struct stat st;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		errno = EEXIST;
		return -1;
	}
	if (snprintf(alt, PATH_MAX, "%s.%ld", path, (long)getpid()) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Name the whole, unnamed file bp_live.fd path, or "path.PID". */
static int name_whole(const char *path, const char **why)
{
	char alt[PATH_MAX];
	const char *name = path;

	if (bp_name_output(bp_live.fd, path) != 0) {
		if (errno != EEXIST || other_name(path, alt, why) != 0 ||
		    bp_name_output(bp_live.fd, alt) != 0)
			return -1;
		name = alt;
	}
	snprintf(path_used, sizeof(path_used), "%s", name);
	return 0;
}

/* Create the named file bp_live.fd: path, or "path.PID". */
static int create_named(const char *path, const char **why)
{
	char alt[PATH_MAX];

	bp_live.fd = create(path);
	if (bp_live.fd < 0 && errno == EEXIST && !in_memory && other_name(path, alt, why) == 0)
		bp_live.fd = create(alt);
	return bp_live.fd < 0 ? -1 : 0;
}

/* Undo a make_file() that failed after the file was made; errno kept. */
static void unmake_file(struct bp_file_header *h)
{
	int err = errno;

	if (h)
		munmap(h, BP_FILE_HEADER_BYTES);
	close(bp_live.fd);
	if (path_used[0])
		unlink(path_used);
	bp_live.fd = -1;
	path_used[0] = '\0';
	errno = err;
}

/*
 * The header was mapped before the file had a name, and /proc/PID/maps
 * shows that mapping as "#INODE (deleted)" for good; live files are found
 * there by their names.  So it is mapped again through the named
 * descriptor (nobody holds the first mapping yet).
 */
static void remap_named(struct bp_file_header **hp)
{
	void *p = mmap(NULL, BP_FILE_HEADER_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, bp_live.fd,
		       0);

	if (p != MAP_FAILED) {
		munmap(*hp, BP_FILE_HEADER_BYTES);
		*hp = p;
	}
}

/* Made unnamed, filled, then named: 0; -1 failed (*why says why); 1
 * where it cannot be made so (no O_TMPFILE, no /proc), and nothing left. */
static int make_unnamed(const char *path, const char **why, struct bp_file_header **hp)
{
	if ((bp_live.fd = bp_open_unnamed(path)) < 0)
		return 1;
	if (!(*hp = map_header())) {
		unmake_file(NULL);
		return 1;
	}
	owner = getpid();
	fill_header(*hp);
	if (name_whole(path, why) == 0) {
		remap_named(hp);
		return 0;
	}
	unmake_file(*hp);
	return *why ? -1 : 1;
}

/* Made named (or in memory), then filled: 0, or -1. */
static int make_named(const char *path, const char **why, struct bp_file_header **hp)
{
	if (create_named(path, why) != 0)
		return -1;
	if (!(*hp = map_header())) {
		unmake_file(NULL);
		return -1;
	}
	owner = getpid();
	fill_header(*hp);
	return 0;
}

/*
 * Create the file (path, or "path.PID" if path exists), fill and map its
 * header, and make it the live file (H1).  0, or -1 with errno set (and
 * *why, when errno does not say it) and the file removed.  A path that is
 * not a regular file (/dev/null, a directory) gets no "path.PID" beside
 * it.  System calls only.
 *
 * Where the file system allows, the file is made unnamed and gets its
 * name only once its header is whole: a process killed while making it
 * leaves no file, never one a reader takes for a broken trace.  Where it
 * does not (or /proc is not there to name it), the named file is filled
 * in place, and the magic written last says it is whole (H2).
 */
static int make_file(const char *path, const char **why)
{
	struct bp_file_header *h = NULL;
	int rc;

	*why = NULL;
	rc = in_memory ? 1 : make_unnamed(path, why, &h);
	if (rc == 1)
		rc = make_named(path, why, &h);
	if (rc != 0)
		return -1;
	remember_fd();
	/* H1: the descriptor and the header before the header is found; pairs
	 * with bp_live_hdr()'s acquire. */
	atomic_store_explicit(&bp_live.hdr, h, memory_order_release);
	bp_file_calibrate();
	return 0;
}

/* Make the live file, fill it with what is known so far, install it. */
static int open_live(const char *path)
{
	const char *why;
	int err;

	bp_live.sys_page = (uintptr_t)sysconf(_SC_PAGESIZE);
	if (make_file(path, &why) != 0) {
		err = errno;
		if (!in_memory) {
			say_cannot(path, err, why);
			tell_recorder();
		}
		errno = err;
		return -1;
	}
	bp_live_lists_scan();
	/* Install, then replay the sites registered before us. */
	bp_backing = &file_backing;
	bp_live_lists_replay();
	atexit(file_exit);
	bp_control_start(bp_live_hdr());
	bp_live_pool_start();
	return 0;
}

int bp_file_open(const char *path)
{
	if (bp_live_hdr() || !path || !*path) {
		errno = EINVAL;
		return -1;
	}
	snprintf(base_path, sizeof(base_path), "%s", path);
	return open_live(path);
}

int bp_file_open_memory(void)
{
	int rc;

	if (bp_live_hdr()) {
		errno = EINVAL;
		return -1;
	}
	in_memory = true;
	rc = open_live(NULL);
	if (rc != 0)	/* stored only then: the pool's thread reads it (grow_ahead()) */
		in_memory = false;
	return rc;
}

/* ---- a fork child's file ------------------------------------------------ */

/*
 * A fork child traces into a file of its own, "path.PID" beside its
 * parent's, made when it first needs one (its first ring or call site),
 * so that a child that only execs makes none.  Until then it keeps its
 * parent's file descriptor, to copy the library records from.  Under
 * open_lock: one thread makes it; child_wants_file is cleared when it
 * could not be made (said once), the child then traces in memory only.
 */
static int child_open(void)
{
	const char *why;

	if (make_file(base_path, &why) != 0) {
		if (!in_memory) {
			say_cannot(base_path, errno, why);
			tell_recorder();
		}
		child_wants_file = false;
	} else {
		bp_live_lists_inherit(parent_fd);
		bp_live_lists_replay();
		bp_control_file_made();	/* the child's control thread serves it now */
	}
	if (parent_fd >= 0)
		close(parent_fd);
	parent_fd = -1;
	return child_wants_file ? 0 : -1;
}

int bp_live_child_file(bool wait)
{
	int rc, tries = 0;

	if (bp_live_hdr())
		return 0;
	if (wait) {
		pthread_mutex_lock(&open_lock);
	} else {
		while (pthread_mutex_trylock(&open_lock) != 0) {
			if (++tries > 1000 || bp_live_hdr())
				return bp_live_hdr() ? 0 : -1;
			sched_yield();
		}
	}
	rc = bp_live_hdr() ? 0 : child_wants_file ? child_open() : -1;
	pthread_mutex_unlock(&open_lock);
	return rc;
}


static void file_fork_child(void)
{
	struct bp_file_header *h = bp_live_hdr();

	/* Only this thread runs: no lock is needed, none may be taken. */
	bp_live_lists_fork_child(h != NULL);
	bp_live_rings_fork_child();
	pthread_mutex_init(&open_lock, NULL);
	if (h) {
		munmap(h, BP_FILE_HEADER_BYTES);
		if (parent_fd >= 0)
			close(parent_fd);
		parent_fd = bp_live.fd;	/* the libraries to copy are in it */
	}
	atomic_store_explicit(&bp_live.hdr, NULL, memory_order_relaxed);	/* one thread runs */
	bp_live.fd = -1;
	path_used[0] = '\0';
	child_wants_file = base_path[0] != '\0' || in_memory;
#if !defined(__SANITIZE_THREAD__) && !defined(BP_TSAN_BUILD)
	/* Asleep until the child's file is made.  Not under ThreadSanitizer,
	 * which kills a child of a threaded process that starts a thread. */
	if (h && child_wants_file)
		bp_control_start_child();
#endif
}

const char *bp_file_path(void)
{
	return bp_live_hdr() && path_used[0] ? path_used : NULL;
}
