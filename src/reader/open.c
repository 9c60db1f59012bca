/*
 * Opening a trace file (reading.h): the header checked (valid.c) and
 * decoded, the catalogue made (catalogue.c), and what the other files of
 * the reader share: problems, bounded reads, holes.  Closing, and the
 * refresh of a file a writer may still be adding to.
 */
#include "reader/reading.h"
#include "reader/catalogue.h"

#include "file/checksums.h"
#include "file/valid.h"
#include "trace/safe_open.h"

#include <errno.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

void reader_problem(struct bp_trace *t, const char *fmt, ...)
{
	va_list ap;

	if (t->problems++ == 0) {
		va_start(ap, fmt);
		bp_vsnprintf(t->first_problem, sizeof(t->first_problem), fmt, ap);
		va_end(ap);
	}
}

int reader_pread(struct bp_trace *t, uint64_t off, void *buf, size_t n)
{
	unsigned char *p = buf;

	if (off > t->size || n > t->size - off)
		return BP_TRACE_EFORMAT;
	while (n > 0) {
		ssize_t r = pread(t->fd, p, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return BP_TRACE_EIO;
		if (r == 0)
			return BP_TRACE_EFORMAT;	/* shrank under us */
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return BP_TRACE_OK;
}

/*
 * The next offset from off (aligned) that may hold a chunk header: the
 * start of the next data region, so that a hole (a sparse file, or space
 * allocated but never written) costs one lseek, not one read per align.
 * Where SEEK_DATA is not supported, off itself.
 */
uint64_t reader_next_data(struct bp_trace *t, uint64_t off)
{
	off_t d;

	if (off >= t->size)
		return off;
	d = lseek(t->fd, (off_t)off, SEEK_DATA);
	if (d < 0)
		return errno == ENXIO ? t->size : off;	/* ENXIO: nothing but a hole is left */
	return (uint64_t)d > off ? (uint64_t)d & ~(uint64_t)(BP_FILE_ALIGN - 1) : off;
}

/* ---- header ------------------------------------------------------------- */

/* The calibration slots, their crcs and the sequence, read together. */
struct calib_read {
	uint64_t seq;
	struct bp_clock_calib slot[2];
	uint32_t crc[2];
};

/* The calibration in force: a two-slot seqlock (docs/file-format.md). */
static void read_calib(struct bp_trace *t, const struct bp_file_header *h, struct calib_read *c)
{
	uint64_t s2;

	c->seq = atomic_load_explicit(&h->calib_seq, memory_order_relaxed);
	memcpy(c->slot, h->calib, sizeof(c->slot));
	memcpy(c->crc, h->calib_crc, sizeof(c->crc));
	for (int tries = 0; tries < 100; tries++) {
		if (reader_pread(t, offsetof(struct bp_file_header, calib_seq), &c->seq,
				 sizeof(c->seq)) ||
		    reader_pread(t, offsetof(struct bp_file_header, calib), c->slot, sizeof(c->slot)) ||
		    reader_pread(t, offsetof(struct bp_file_header, calib_crc), c->crc,
				 sizeof(c->crc)) ||
		    reader_pread(t, offsetof(struct bp_file_header, calib_seq), &s2, sizeof(s2)) ||
		    c->seq == s2)
			break;
	}
	t->calib = c->slot[c->seq & 1u];
}

/* Why one calibration slot cannot be one a writer made, or NULL. */
static const char *calib_slot_flaw(const struct bp_clock_calib *c, uint64_t start_mono_ns)
{
	unsigned __int128 one;

	if (c->clock_id != BP_CLOCK_TSC)
		return c->mult != 1 || c->shift || c->raw0 || c->ns0 ? "not the identity" : NULL;
	if (c->shift > 63 || !c->raw0 || c->ns0 < start_mono_ns)
		return "a tsc line that cannot be";
	/* a rate between 1/64 and 16 ns a tick: mult / 2^shift */
	one = (unsigned __int128)1 << c->shift;
	if ((unsigned __int128)c->mult * 64 < one || (unsigned __int128)c->mult > one * 16)
		return "a tsc rate that cannot be";
	return NULL;
}

/*
 * Why calibration c (the slot in force; other the other one, NULL unless
 * it is filled and its crc matches: a writer may be filling it) cannot be
 * one a writer made, or NULL (docs/file-format.md, header): files of 1.4.
 * The other slot is the line before, or the next one not selected yet.
 */
static const char *calib_flaw(const struct bp_clock_calib *c, const struct bp_clock_calib *other,
			      uint64_t start_mono_ns)
{
	const struct bp_clock_calib *a, *b;	/* the earlier line, the later */
	unsigned __int128 slack, guess;		/* 128 bits: no product overflows */
	const char *why = calib_slot_flaw(c, start_mono_ns);

	if (why || !other)
		return why;
	if (other->clock_id != c->clock_id || calib_slot_flaw(other, start_mono_ns))
		return "its two slots differ";
	if (c->clock_id != BP_CLOCK_TSC)
		return NULL;
	a = other->raw0 <= c->raw0 ? other : c;
	b = a == c ? other : c;
	if (a->ns0 > b->ns0)
		return "its two slots differ";
	/* the earlier line puts raw0 within 1/16 of the distance (+ 1 ms) of ns0 */
	guess = (((unsigned __int128)(b->raw0 - a->raw0) * a->mult) >> a->shift) + a->ns0;
	slack = (b->ns0 - a->ns0) / 16 + 1000000;
	if (guess + slack < b->ns0 || guess > b->ns0 + slack)
		return "its two slots differ";
	return NULL;
}

/* Is c a slot never filled (all zero, crc 0)? */
static bool calib_unfilled(const struct calib_read *c, unsigned i)
{
	static const struct bp_clock_calib zero;

	return !c->crc[i] && !memcmp(&c->slot[i], &zero, sizeof(zero));
}

/* The calibration of a file of 1.4: its crcs, then what it must be. */
static void check_calib(struct bp_trace *t, const struct calib_read *c, uint64_t start_mono_ns)
{
	unsigned now = (unsigned)(c->seq & 1u), other = now ^ 1u;
	const char *why;

	if (t->header_said)
		return;
	/* a process killed before its first calibration (its file's first
	 * ring makes one): no line yet, and no record to need one */
	if (c->seq == 0 && calib_unfilled(c, 0) && calib_unfilled(c, 1))
		return;
	if (bp_calib_crc(&c->slot[now]) != c->crc[now])
		why = "checksum mismatch";
	else
		why = calib_flaw(&c->slot[now],
				 calib_unfilled(c, other) ||
						 bp_calib_crc(&c->slot[other]) != c->crc[other]
					 ? NULL : &c->slot[other],
				 start_mono_ns);
	if (why) {
		t->header_said = true;
		reader_problem(t, "header: calibration: %s", why);
	}
}

/* Where the accounts are and why the writes stopped (stream files); what
 * the live file had no room for (either kind). */
static void read_stop(struct bp_trace_info *in, const struct bp_file_header *h)
{
	bool stream = atomic_load_explicit(&h->flags, memory_order_relaxed) & BP_FILE_F_STREAM;

	in->stop_reason = stream ? h->stop_reason : 0;
	in->stop_errno = stream ? (int)h->stop_errno : 0;
	in->stop_record = stream ? h->stop_record : 0;
	in->accounts_off = stream ? h->accounts : 0;
	in->memory_rings = atomic_load_explicit(&h->memory_rings, memory_order_relaxed);
	in->memory_records = atomic_load_explicit(&h->memory_records, memory_order_relaxed);
	in->missing_sites = atomic_load_explicit(&h->missing_sites, memory_order_relaxed);
}

/* The process's name and its arguments: controls as '?', other bytes
 * (UTF-8 too) kept. */
static void read_command(struct bp_trace_info *in, const struct bp_file_header *h)
{
	size_t n = strnlen(h->comm, sizeof(h->comm)), o = 0;
	uint32_t len, i;

	memcpy(in->comm, h->comm, n);
	in->comm[n] = '\0';
	len = h->cmdline_len < BP_FILE_CMDLINE_MAX ? h->cmdline_len : BP_FILE_CMDLINE_MAX;
	for (i = 0; i < len && o + 3 < sizeof(in->cmdline); i++) {
		char c = h->cmdline[i];

		if (c == '\0' && (i == 0 || h->cmdline[i - 1] == '\0')) {
			/* an empty argument, as a shell writes it */
			in->cmdline[o++] = '\'';
			in->cmdline[o++] = '\'';
		}
		in->cmdline[o++] = c == '\0' ? ' ' : ((unsigned char)c < ' ' || c == 0x7f) ? '?' : c;
	}
	while (o > 0 && in->cmdline[o - 1] == ' ')
		o--;
	in->cmdline[o] = '\0';
}

/*
 * The header's checksums (1.4, docs/file-format.md): the fields written
 * once, a stream's whole header; before 1.4 the bytes they take were
 * reserved, zero.  And its counters against each other.
 */
static void check_crcs(struct bp_trace *t, const struct bp_file_header *h)
{
	bool stream = t->info.flags & BP_FILE_F_STREAM;
	uint64_t r_written = atomic_load_explicit(&h->retired_written, memory_order_relaxed);

	if (h->minor < BP_FILE_MINOR_HCRC) {
		if (h->fixed_crc || h->header_crc || h->calib_crc[0] || h->calib_crc[1])
			reader_problem(t, "header: checksums in a file of format 1.%u", h->minor);
		return;
	}
	if (h->fixed_crc != bp_header_fixed_crc(h))
		reader_problem(t, "header: checksum mismatch (the fields written once)");
	if (stream ? h->header_crc != bp_header_crc(h) : h->header_crc != 0)
		reader_problem(t, "header: checksum mismatch");
	if ((r_written && !atomic_load_explicit(&h->retired_rings, memory_order_relaxed)) ||
	    atomic_load_explicit(&h->retired_discarded, memory_order_relaxed) > r_written ||
	    (atomic_load_explicit(&h->memory_records, memory_order_relaxed) &&
	     !atomic_load_explicit(&h->memory_rings, memory_order_relaxed)))
		reader_problem(t, "header: counters that contradict each other");
}

/* Fields of a header that passed bp_valid_header() that cannot be. */
static void check_header(struct bp_trace *t, const struct bp_file_header *h)
{
	uint32_t flags = t->info.flags;
	bool stream = flags & BP_FILE_F_STREAM;

	if (flags & ~(BP_FILE_F_STREAM | BP_FILE_F_CLOSED | BP_FILE_F_CRC))
		reader_problem(t, "header: unknown flags %#x", flags);
	if (h->cmdline_len > BP_FILE_CMDLINE_MAX)
		reader_problem(t, "header: a command line of %u bytes", h->cmdline_len);
	if (h->ring_mode > BP_RING_BLOCK)
		reader_problem(t, "header: ring mode %u", h->ring_mode);
	if (stream && h->stop_reason > BP_FILE_STOP_IO)
		reader_problem(t, "header: stop reason %u", h->stop_reason);
	if ((flags & BP_FILE_F_CRC) && (!stream || h->minor < BP_FILE_MINOR_CRC))
		reader_problem(t, "header: checksums in a %s file of format 1.%u",
			       stream ? "stream" : "live", h->minor);
	if (stream && h->minor >= BP_FILE_MINOR_CRC && !(flags & BP_FILE_F_CRC))
		reader_problem(t, "header: a stream of format 1.%u without its checksums", h->minor);
	if (!bp_clock_name((enum bp_clock_id)t->calib.clock_id))
		reader_problem(t, "header: unknown clock %u", t->calib.clock_id);
	check_crcs(t, h);
}

/*
 * A stream not closed may have its header rewritten under us (its copier
 * writes it whole, crcs included): one whose crc does not match is read
 * again, a few times over some milliseconds, before it is taken as it is.
 */
static int read_header_bytes(struct bp_trace *t, struct bp_file_header *h, size_t have)
{
	int rc = BP_TRACE_OK;

	for (int tries = 0; tries < 20; tries++) {
		uint32_t flags;

		if (have < sizeof(h->magic) || (rc = reader_pread(t, 0, h, have)) != BP_TRACE_OK ||
		    have < sizeof(*h))
			return rc;
		flags = atomic_load_explicit(&h->flags, memory_order_relaxed);
		if (memcmp(h->magic, BP_FILE_MAGIC, sizeof(h->magic)) ||
		    !(flags & BP_FILE_F_STREAM) || (flags & BP_FILE_F_CLOSED) ||
		    h->minor < BP_FILE_MINOR_HCRC || h->header_crc == bp_header_crc(h))
			return rc;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	return rc;
}

static int read_header(struct bp_trace *t, char *err, size_t errlen)
{
	struct bp_file_header h;
	struct bp_trace_info *in = &t->info;
	struct calib_read calib;
	size_t have = t->size < sizeof(h) ? (size_t)t->size : sizeof(h);
	const char *why;
	int rc;

	memset(&h, 0, sizeof(h));
	if ((rc = read_header_bytes(t, &h, have)) != BP_TRACE_OK) {
		bp_snprintf(err, errlen, "%s", rc == BP_TRACE_EIO ? strerror(errno) : "cannot read");
		return rc;
	}
	if ((why = bp_valid_header(&h, have, err, errlen)) != NULL) {
		if (why != err)
			bp_snprintf(err, errlen, "%s", why);
		return BP_TRACE_EFORMAT;
	}
	in->major = h.major;
	in->minor = h.minor;
	in->flags = atomic_load_explicit(&h.flags, memory_order_relaxed);
	in->word_size = h.word_size;
	in->ring_mode = h.ring_mode;
	in->pid = (int64_t)h.pid;
	in->start_realtime_ns = h.start_realtime_ns;
	in->start_mono_ns = h.start_mono_ns;
	in->end_hint = atomic_load_explicit(&h.end, memory_order_relaxed);
	read_stop(in, &h);
	t->missing_libs = atomic_load_explicit(&h.missing_libs, memory_order_relaxed);
	read_calib(t, &h, &calib);
	in->clock_name = bp_clock_name((enum bp_clock_id)t->calib.clock_id);
	in->clock = in->clock_name ? t->calib.clock_id : BP_CLOCK_NR;
	if (!in->clock_name)
		in->clock_name = "unknown";
	read_command(in, &h);
	check_header(t, &h);
	if (h.minor >= BP_FILE_MINOR_HCRC)
		check_calib(t, &calib, h.start_mono_ns);
	return BP_TRACE_OK;
}

/* A newer header (a live writer's calibration, the drainer's final copy). */
static void reread_header(struct bp_trace *t)
{
	struct bp_file_header h;
	struct calib_read calib;
	char why[128];

	if (t->size < sizeof(h) || read_header_bytes(t, &h, sizeof(h)) != BP_TRACE_OK ||
	    bp_valid_header(&h, sizeof(h), why, sizeof(why)))
		return;
	t->info.flags = atomic_load_explicit(&h.flags, memory_order_relaxed);
	t->info.end_hint = atomic_load_explicit(&h.end, memory_order_relaxed);
	read_stop(&t->info, &h);
	t->missing_libs = atomic_load_explicit(&h.missing_libs, memory_order_relaxed);
	read_calib(t, &h, &calib);
	if (h.minor >= BP_FILE_MINOR_HCRC && !t->header_said) {
		if ((t->info.flags & BP_FILE_F_STREAM) && h.header_crc != bp_header_crc(&h)) {
			t->header_said = true;
			reader_problem(t, "header: checksum mismatch");
		}
		check_calib(t, &calib, h.start_mono_ns);
	}
}

/*
 * A file that goes on past both its last chunk and the header's end with
 * nothing but a hole was not left so by a writer (live files grow to `end`
 * at most, stream files are written without holes): say so once, at open.
 */
static void check_tail(struct bp_trace *t)
{
	uint64_t from = t->walk.pos > t->info.end_hint ? t->walk.pos : t->info.end_hint;

	if (from >= t->size || t->size - from < BP_FILE_ALIGN)
		return;
	if (lseek(t->fd, (off_t)from, SEEK_DATA) < 0 && errno == ENXIO)
		reader_problem(t, "no chunk in its last %llu bytes, a hole past the header's end",
			       (unsigned long long)(t->size - from));
}

/*
 * The header's end against the file: a stream's drainer writes it after
 * the chunks before it; a live file's writer grows the file before it
 * fills a chunk, unless the disk was full (then the header counts what it
 * had no room for).  Less file than that: it was cut.  But not while the
 * writer runs: it takes a chunk (a fetch-add on end) before it grows the
 * file, and a reader may come between the two.  And the accounts the
 * header names must be there.
 */
static void check_size(struct bp_trace *t)
{
	const struct bp_trace_info *in = &t->info;
	bool stream = in->flags & BP_TRACE_F_STREAM;

	if (in->end_hint > t->size &&
	    (stream || (t->writer_gone && !in->memory_rings && !in->missing_sites)))
		reader_problem(t, "truncated: %llu bytes, where the header says %llu",
			       (unsigned long long)t->size, (unsigned long long)in->end_hint);
	if (in->accounts_off && !t->walk.accounts_found)
		reader_problem(t, "the accounts the header names (at %llu) are not there",
			       (unsigned long long)in->accounts_off);
	/* a drainer of 1.3 writes its accounts first, unless that write failed */
	if (stream && (in->flags & BP_TRACE_F_CRC) && !in->accounts_off && !in->stop_reason)
		reader_problem(t, "header: a stream of format 1.%u without its accounts", in->minor);
}

/*
 * Is the process that wrote the file dead, or not mapping it any more (the
 * pid reused)?  A process that cannot be looked at counts as writing.
 */
static bool writer_process_gone(const struct bp_trace *t)
{
	char path[64], line[512];
	struct stat st;
	bool mapped = false;
	FILE *maps;

	if (t->info.pid <= 0 || t->info.pid > INT32_MAX || fstat(t->fd, &st) != 0)
		return false;
	if (kill((pid_t)t->info.pid, 0) != 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%lld/maps", (long long)t->info.pid);
	if (!(maps = fopen(path, "re")))
		return false;
	while (!mapped && fgets(line, sizeof(line), maps)) {
		unsigned maj, min;
		unsigned long long ino;

		if (sscanf(line, "%*s %*s %*s %x:%x %llu", &maj, &min, &ino) == 3)
			mapped = ino == (unsigned long long)st.st_ino &&
				 maj == major(st.st_dev) && min == minor(st.st_dev);
	}
	fclose(maps);
	return !mapped;
}

/* Did the writer say it is done: a live file closed, or a stream?  Then,
 * or when its process is gone, what its rings hold is final (writer_gone,
 * asked at open and at every refresh). */
static bool writer_closed(const struct bp_trace *t)
{
	return (t->info.flags & BP_TRACE_F_CLOSED) || (t->info.flags & BP_TRACE_F_STREAM);
}

/* ---- open, close, refresh ---------------------------------------------- */

/* The header and the catalogue of t's file; err says why not. */
static int open_file(struct bp_trace *t, char *err, size_t errlen)
{
	int rc = reader_measure(t);

	if (rc != BP_TRACE_OK) {
		bp_snprintf(err, errlen, "%s", strerror(errno));
		return rc;
	}
	if ((rc = read_header(t, err, errlen)) != BP_TRACE_OK)
		return rc;
	t->walk.pos = BP_FILE_HEADER_BYTES;
	/* Closed is not enough to read without the seqlock: the threads of
	 * an exiting process may write on after its exit handler closed it. */
	t->writer_dead = !(t->info.flags & BP_TRACE_F_STREAM) && writer_process_gone(t);
	t->writer_gone = t->writer_dead || writer_closed(t);
	if (t->writer_dead && !(t->info.flags & BP_TRACE_F_CLOSED))
		t->info.flags |= BP_TRACE_F_ENDED;
	rc = catalogue_update(t, 0);
	check_tail(t);
	check_size(t);
	if (rc != BP_TRACE_OK)
		bp_snprintf(err, errlen, "%s", rc == BP_TRACE_ENOMEM ? strerror(ENOMEM)
				      : rc == BP_TRACE_EIO ? strerror(errno) : "corrupt file");
	return rc;
}

/* bp_trace_serial(): every reader opened in this process has its own. */
static _Atomic uint64_t serials;

struct bp_trace *bp_trace_open(const char *path, unsigned flags, char *err, size_t errlen,
			       int *rcp)
{
	struct bp_trace *t = calloc(1, sizeof(*t));
	const char *why;
	long pg = sysconf(_SC_PAGESIZE);
	int rc;

	if (!t) {
		bp_snprintf(err, errlen, "%s", strerror(ENOMEM));
		if (rcp)
			*rcp = BP_TRACE_ENOMEM;
		return NULL;
	}
	t->os_page = pg > 0 ? (size_t)pg : 4096u;
	t->taken = SIZE_MAX;
	t->serial = atomic_fetch_add_explicit(&serials, 1, memory_order_relaxed) + 1;
	t->open_flags = flags;
	t->hook = (struct bp_pointer_hook){ "Ss", reader_print_symbol, t };
	t->fd = bp_open_input(path, &why);	/* a regular file, opened without blocking */
	if (t->fd < 0) {
		bp_snprintf(err, errlen, "%s", why ? why : strerror(errno));
		free(t);
		if (rcp)
			*rcp = BP_TRACE_EIO;
		return NULL;
	}
	rc = open_file(t, err, errlen);
	if (rc != BP_TRACE_OK) {
		bp_trace_close(t);
		t = NULL;
	}
	if (rcp)
		*rcp = rc;
	return t;
}

static void source_free(struct source *s)
{
	bp_unmap(&s->ring.map);
	stream_free(&s->stream);
	free(s);
}

void bp_trace_close(struct bp_trace *t)
{
	if (!t)
		return;
	kernel_free(t);
	for (size_t i = 0; i < t->nsrc; i++)
		source_free(t->src[i]);
	free(t->src);
	bp_keymap_free(&t->src_by_key);
	bp_keymap_free(&t->first_by_tid);
	free(t->entry_buf);
	free(t->walk.pending);
	tables_free(t);
	free(t->merge.e);
	bp_symbols_free(t->sym);
	if (t->fd >= 0)
		close(t->fd);
	free(t);
}

int bp_trace_refresh(struct bp_trace *t)
{
	int rc;

	t->live = true;
	if ((rc = reader_measure(t)) != BP_TRACE_OK)
		return rc;
	reread_header(t);
	t->writer_gone = writer_closed(t) || writer_process_gone(t);
	if (t->writer_gone && !(t->info.flags & (BP_TRACE_F_CLOSED | BP_TRACE_F_STREAM)))
		t->info.flags |= BP_TRACE_F_ENDED;
	if ((rc = catalogue_update(t, 0)) < 0)
		return rc;
	for (size_t i = 0; i < t->nsrc; i++) {
		struct source *s = t->src[i];

		s->dry = false;
		if (s->phase == SOURCE_DONE && !s->dead &&
		    (s->ring.chunk_off || s->stream.chunk < s->stream.nchunks))
			s->phase = s->stream.chunk < s->stream.nchunks ? SOURCE_STREAMED : SOURCE_RING;
	}
	t->merge_all = true;	/* every source may have more now */
	return BP_TRACE_OK;
}

const struct bp_trace_info *bp_trace_info(const struct bp_trace *t)
{
	return &t->info;
}
