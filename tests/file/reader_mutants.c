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
 * flips; 32-bit words set to 0 and to all ones; every aligned 4 KiB
 * zeroed; every chunk zeroed; in a stream, chunks replaced by a copy of
 * another of the same size.  Bytes are taken anywhere in the file (one
 * in eight), or in its structure (headers of the file, chunks, rings,
 * pages and site records), so that small headers get their share.
 *
 * A stream is checksummed whole (format 1.3 and 1.4): no mutant of it may
 * read differently without a word.  A live file's records are written by
 * the traced program's call path, which carries no checksum
 * (docs/file-format.md, format 1.4): a mutant of one may read differently
 * without a word only if every byte it changed is an argument byte of a
 * record (a value, not the structure), and such mutants must be at most
 * 2 % of a live file's; they are listed ("silent, argument bytes").  A
 * killed program's file may lose a page's records, counted (see
 * lost_counted()); a 4 KiB zeroed across two of its ring pages may also
 * change the argument bytes of the one record before the lost page: that
 * one is counted as silent too.  So is a ring's `discarded` one more,
 * its records the same (counter_only()): the call path writes the ring's
 * counts in place, unchecked, and a ring whose thread had not exited may
 * have been cut between a record's commit and its count, which reads the
 * same; a ring whose thread exited must say it.  And so is a ring's head
 * page's `commit` grown by exactly one whole record, which the stale
 * bytes past it (the page's previous lap, its records aligned as this
 * lap's) held (one_more_record()): the call path stores `commit`, then
 * counts the record, and a writer cut between the two leaves exactly
 * that, one record more than counted at the head of a ring whose thread
 * had not exited (accounts.c takes it); what the record holds is the
 * writer's, unchecked, as any argument byte.
 * BPRINT_TEST_LONG=1 makes ten times as many, BPRINT_TEST_QUICK=1 a tenth.
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
static unsigned long live_mutants, live_silent;	/* silent: values of records only */
static unsigned long live_time;			/* of them, a time among them */
static bool anywhere;				/* the mutant's byte was picked anywhere */
static unsigned long live_anywhere, silent_anywhere;	/* such mutants of live files */
static unsigned long counted;	/* a killed program's file: records lost, and counted */

/* What a file reads as, record by record (read_file()). */
struct reading {
	uint64_t *recs;			/* each record's hash, lost_before left out */
	uint64_t *keys;			/* the same without its message */
	int32_t *tids;			/* its thread */
	uint64_t *idx;			/* and its ring's stored-record index */
	size_t n, cap;
	uint64_t lost;			/* the rings' records counted as lost */
	uint64_t rings;			/* hash of the rings' other counters */
};

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
	bool exited[64];		/* and whether the ring's thread exited */
	size_t heads[64];		/* and its head page's commit, 0 if none */
	int32_t tids[64];		/* and its thread */
	size_t nctls;
	unsigned char *args;		/* a live file: VALUE_* of each byte */
	bool closed;			/* a live file closed cleanly */
	struct reading intact;
};

/* What a byte of a live file's record is (struct file's args); FREE: a
 * page's bytes past its commit, which no reader reads (an overwrite
 * ring's last lap left records there). */
enum { VALUE_NONE, VALUE_ARG, VALUE_TIME, VALUE_FREE };

/*
 * A live ring's records: their argument and time bytes, marked in f->args.  Every
 * page is walked, read or not (a page not read stays unread when its
 * records change), as the ring's layout says (docs/ring-buffer.md).
 */
static void mark_args(struct file *f, size_t ring_off, size_t ring_bytes)
{
	const unsigned char *ring = f->p + ring_off;
	uint32_t ps, np;

	memcpy(&ps, ring + 8, 4);
	memcpy(&np, ring + 12, 4);
	if (ps < BP_RING_PAGE_MIN || (uint64_t)np * ps > ring_bytes - BP_RING_CTL_BYTES)
		return;
	for (uint32_t i = 0; i < np; i++) {
		size_t page = ring_off + BP_RING_CTL_BYTES + (size_t)i * ps;
		size_t recs = page + BP_RING_PAGE_HDR_BYTES;
		uint32_t commit, at = 0;

		memcpy(&commit, f->p + page + 32, 4);
		if (commit > ps - BP_RING_PAGE_HDR_BYTES)
			continue;
		memset(f->args + page + 8, VALUE_TIME, 8);	/* base_ts */
		memset(f->args + recs + commit, VALUE_FREE, ps - BP_RING_PAGE_HDR_BYTES - commit);
		while (at + 8 <= commit) {
			uint32_t head, len;

			memcpy(&head, f->p + recs + at, 4);
			len = (head & 0x3ffu) * 4;
			if (len < 8 || len > commit - at)
				break;
			memset(f->args + recs + at + 4, VALUE_TIME, 4);	/* its delta */
			if (((head >> 10) & 3u) == 0)	/* a data record: its payload */
				memset(f->args + recs + at + 8, VALUE_ARG, len - 8);
			else if (((head >> 10) & 3u) == 1)	/* a time extend */
				memset(f->args + recs + at + 8, VALUE_TIME, len - 8);
			at += len;
		}
	}
}

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

	uint64_t ring_bytes;

	memcpy(&ring_bytes, f->p + off + 64, 8);
	if (ring_bytes >= BP_RING_CTL_BYTES && ring_bytes <= f->n - off - BP_FILE_RING_OFFSET)
		mark_args(f, off + BP_FILE_RING_OFFSET, (size_t)ring_bytes);
	add_span(f, off + 32, BP_FILE_RING_OFFSET - 32);
	add_span(f, off + BP_FILE_RING_OFFSET, BP_RING_CTL_BYTES);
	memcpy(&ps, ring + 8, 4);
	memcpy(&np, ring + 12, 4);
	memcpy(&head, ring + 64, 8);
	if (f->nctls < sizeof(f->ctls) / sizeof(f->ctls[0])) {
		uint32_t state;

		memcpy(&state, f->p + off + offsetof(struct bp_file_ring, state), 4);
		memcpy(&f->tids[f->nctls], f->p + off + offsetof(struct bp_file_ring, tid), 4);
		f->exited[f->nctls] = state == BP_RING_EXITED;
		f->heads[f->nctls] = 0;
		if (ps >= BP_RING_PAGE_MIN && np && head && ring_bytes >= BP_RING_CTL_BYTES &&
		    ring_bytes <= f->n - off - BP_FILE_RING_OFFSET &&
		    (uint64_t)np * ps <= ring_bytes - BP_RING_CTL_BYTES)
			f->heads[f->nctls] = off + BP_FILE_RING_OFFSET + BP_RING_CTL_BYTES +
					     (size_t)((head - 1) % np) * ps +
					     offsetof(struct bp_ring_page, commit);
		f->ctls[f->nctls++] = off + BP_FILE_RING_OFFSET;
	}
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
	add_span(f, 128, 24);			/* comm, cmdline_len, ring_mode */
	add_span(f, 152, 2048);			/* cmdline */
	add_span(f, 2200, 80);			/* accounts .. the checksums */
	add_span(f, 2280, BP_FILE_HEADER_BYTES - 2280);	/* reserved */
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

static void add_rec(struct reading *r, uint64_t h, uint64_t key, const struct bp_trace_event *e)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->recs = realloc(r->recs, r->cap * sizeof(*r->recs));
		r->keys = realloc(r->keys, r->cap * sizeof(*r->keys));
		r->tids = realloc(r->tids, r->cap * sizeof(*r->tids));
		r->idx = realloc(r->idx, r->cap * sizeof(*r->idx));
		CHECK(r->recs && r->keys && r->tids && r->idx);
	}
	r->keys[r->n] = key;
	r->tids[r->n] = e->tid;
	r->idx[r->n] = e->index;
	r->recs[r->n++] = h;
}

/* What the file reads as (and, in *r, record by record); *damage set when
 * the reader says it is damaged. */
static uint64_t read_file(const unsigned char *p, size_t n, bool *damage, struct reading *r)
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
		const struct bp_trace_info *in = bp_trace_info(t);

		/* what report's header says */
		MIX(h, in->pid);
		MIX(h, in->start_realtime_ns);
		MIX(h, in->ring_mode);
		h = mix(h, in->comm, strlen(in->comm));
		h = mix(h, in->cmdline, strlen(in->cmdline));
		h = mix(h, in->clock_name, strlen(in->clock_name));
		while (count++ < 10000000 && (rc = bp_trace_next(t, &e, 0)) == 1) {
			uint64_t one = 0xcbf29ce484222325ull, key;

			MIX(one, e.raw_ts);
			MIX(one, e.ns);
			one = mix(one, e.comm, strlen(e.comm));
			MIX(one, e.tid);
			MIX(one, e.level);
			MIX(one, e.site_id);
			MIX(one, e.index);
			key = one;
			one = mix(one, e.message, e.message_len);
			add_rec(r, one, key, &e);
			MIX(h, one);
			MIX(h, e.lost_before);
		}
		for (size_t i = 0; i < bp_trace_nrings(t); i++) {
			const struct bp_trace_ring *g = bp_trace_ring_at(t, i);

			MIX(r->rings, g->tid);
			MIX(r->rings, g->written);
			MIX(r->rings, g->discarded);
			MIX(r->rings, g->dropped);
			r->lost += g->overwritten + g->lost_by_drainer + g->not_copied;
			MIX(h, g->overwritten);
			MIX(h, g->read);
			MIX(h, g->lost_by_drainer);
			MIX(h, g->not_copied);
		}
		MIX(h, r->rings);
		*damage = rc < 0 || bp_trace_problems(t, NULL) > 0;
		bp_trace_close(t);
	}
	close(fd);
	return h;
}

/* Did mutant p (n bytes) of live file f change values of records only
 * (and bytes no reader reads)?  VALUE_ARG if arguments only, VALUE_TIME
 * if times too, else VALUE_NONE. */
static int values_only(const struct file *f, const unsigned char *p, size_t n)
{
	int kind = VALUE_ARG;

	if (n != f->n)
		return VALUE_NONE;
	for (size_t i = 0; i < n; i++)
		if (p[i] != f->p[i]) {
			if (f->args[i] == VALUE_NONE)
				return VALUE_NONE;
			if (f->args[i] == VALUE_FREE)
				continue;
			if (f->args[i] == VALUE_TIME)
				kind = VALUE_TIME;
		}
	return kind;
}

/* Is mutant p of f one chunk zeroed whole (a killed program's file may
 * have one it was allocating: nothing tells them apart)? */
static bool chunk_zeroed(const struct file *f, const unsigned char *p, size_t n)
{
	for (size_t i = 0; n == f->n && i + 1 < f->nbounds; i++) {
		size_t off = f->bounds[i], len = f->bounds[i + 1] - off;

		if (memcmp(p, f->p, off) || memcmp(p + off + len, f->p + off + len, n - off - len))
			continue;
		for (size_t k = 0; k < len && !p[off + k]; k++)
			if (k + 1 == len)
				return true;
	}
	return false;
}

/*
 * Did mutant p (n bytes) of live file f change only the counts a ring's
 * writer keeps in place (its control block's written and discarded), in
 * a ring whose thread had not exited, its records read the same?  Such a
 * count one off cannot be told from a writer cut between a record's
 * commit and its count (accounts.c).
 */
static bool counter_only(const struct file *f, const struct reading *r, const unsigned char *p,
			 size_t n)
{
	const struct reading *in = &f->intact;
	size_t lo = offsetof(struct bp_ring_ctl, written);
	size_t hi = offsetof(struct bp_ring_ctl, discarded) + 8;

	if (n != f->n || r->n != in->n || memcmp(r->recs, in->recs, r->n * sizeof(*r->recs)))
		return false;
	for (size_t i = 0; i < n; i++) {
		bool counter = false;

		if (p[i] == f->p[i])
			continue;
		for (size_t k = 0; k < f->nctls && !counter; k++)
			counter = !f->exited[k] && i >= f->ctls[k] + lo && i < f->ctls[k] + hi;
		if (!counter)
			return false;
	}
	return true;
}

/*
 * A killed program's live file: did mutant p (n bytes) change only the
 * commit of one ring's head page, in a ring whose thread had not exited,
 * so that the ring reads one record more, past its last one, and nothing
 * else changed?  The bytes past a page's commit are its previous lap's
 * (VALUE_FREE): where that lap's records lay as this one's, a commit
 * grown by one record's length takes the next of them whole.  The call
 * path stores the page's commit, then counts the record (docs/ring-
 * buffer.md, "The writer"): a writer killed between the two leaves the
 * same, a record more than the ring's written count, which the reader
 * takes (accounts.c: the count one short).  Nothing tells them apart.
 */
static bool one_more_record(const struct file *f, const struct reading *r,
			    const unsigned char *p, size_t n)
{
	const struct reading *in = &f->intact;
	size_t k, j;
	uint64_t written, discarded;

	if (n != f->n || f->closed || r->n != in->n + 1 || r->lost != in->lost)
		return false;
	for (k = 0; k < f->nctls; k++)	/* the ring whose head commit changed */
		if (f->heads[k] && memcmp(p + f->heads[k], f->p + f->heads[k], 4))
			break;
	if (k == f->nctls || f->exited[k] ||
	    memcmp(p, f->p, f->heads[k]) ||
	    memcmp(p + f->heads[k] + 4, f->p + f->heads[k] + 4, n - f->heads[k] - 4))
		return false;
	/* the intact records, in order, and one more */
	for (j = 0; j < in->n && r->recs[j] == in->recs[j]; j++)
		;
	if (memcmp(r->recs + j + 1, in->recs + j, (in->n - j) * sizeof(*r->recs)))
		return false;
	/* of that ring, the next record index after what it counted */
	memcpy(&written, f->p + f->ctls[k] + offsetof(struct bp_ring_ctl, written), 8);
	memcpy(&discarded, f->p + f->ctls[k] + offsetof(struct bp_ring_ctl, discarded), 8);
	return r->tids[j] == f->tids[k] && written >= discarded &&
	       r->idx[j] == written - discarded;
}

/*
 * A killed program's live file: did the mutant lose records and count
 * them as lost?  A writer killed as it moved to a new page leaves that
 * page's header zero (docs/ring-buffer.md): its records are lost and
 * counted as overwritten, and nothing tells such a page from one a
 * mutant wiped.  The loss is not silent: the records read are the intact
 * file's, in order, less exactly as many as the counts grew by.  In
 * *messages, how many of them read with another message (the same time,
 * thread, site and index): their argument bytes changed.
 */
static bool lost_counted(const struct file *f, const struct reading *r, unsigned *messages)
{
	const struct reading *in = &f->intact;
	size_t j = 0;

	*messages = 0;
	if (r->rings != in->rings || r->n > in->n || r->lost < in->lost ||
	    r->lost - in->lost != in->n - r->n)
		return false;
	for (size_t i = 0; i < r->n; i++) {
		while (j < in->n && in->keys[j] != r->keys[i])
			j++;
		if (j == in->n)
			return false;
		*messages += in->recs[j++] != r->recs[i];
	}
	return true;
}

/*
 * One mutant of f: it reads as f does, or says it is damaged, or (a live
 * file) it changed argument bytes of records only, which no checksum
 * covers: listed, and counted against the 2 % allowed.
 */
static void judge(const struct file *f, const unsigned char *p, size_t n, const char *what)
{
	static struct reading r;
	unsigned messages;
	bool damage;
	uint64_t h;
	int kind;

	r.n = 0;
	r.lost = r.rings = 0;
	h = read_file(p, n, &damage, &r);
	mutants++;
	live_mutants += !f->stream;
	live_anywhere += !f->stream && anywhere;
	if (damage) {
		said++;
		return;
	}
	if (h == f->digest) {
		same++;
		return;
	}
	if (!f->stream && !f->closed && lost_counted(f, &r, &messages) &&
	    (messages == 0 || (messages == 1 && r.n < f->intact.n))) {
		/* a 4 KiB region across two ring pages (a ring's pages start
		 * past its chunk's header, not on the file's pages) may take
		 * the next page's header and the argument bytes of the last
		 * record before it: the loss counted, and those silent */
		counted++;
		live_silent += messages > 0;
		silent_anywhere += messages > 0 && anywhere;
		printf("a killed program's%s: %s: %s\n",
		       messages ? ", and argument bytes" : "", f->name, what);
		return;
	}
	if (!f->stream && !f->closed && chunk_zeroed(f, p, n)) {
		counted++;
		printf("a killed program's: %s: %s\n", f->name, what);
		return;
	}
	if (!f->stream && one_more_record(f, &r, p, n)) {
		live_silent++;
		silent_anywhere += anywhere;
		printf("silent, one record more at a ring's head: %s: %s\n", f->name, what);
		return;
	}
	if (!f->stream && counter_only(f, &r, p, n)) {
		live_silent++;
		silent_anywhere += anywhere;
		printf("silent, a ring's count: %s: %s\n", f->name, what);
		return;
	}
	if (!f->stream && (kind = values_only(f, p, n)) != VALUE_NONE) {
		live_silent++;
		live_time += kind == VALUE_TIME;
		silent_anywhere += anywhere;
		printf("silent, %s: %s: %s\n", kind == VALUE_TIME ? "time of a record"
			: "argument bytes", f->name, what);
		return;
	}
	FAIL("%s: %s: read differently, and no damage said", f->name, what);
}

/* Byte at which a mutant changes f: in a span (structure), or one time
 * in eight anywhere (mostly records, in a live file: anywhere says how
 * many of those are silent). */
static size_t pick(const struct file *f)
{
	const struct span *s = &f->spans[rnd() % f->nspans];

	anywhere = rnd() % 8 == 0;
	if (anywhere)
		return (size_t)(rnd() % f->n);
	return s->off + (size_t)(rnd() % s->len);
}

/* Every aligned 4 KiB zeroed, every chunk zeroed, and in a stream chunks
 * replaced by a copy of another of their size. */
static void blocks(const struct file *f, unsigned char *m, unsigned copies)
{
	char what[96];

	for (size_t off = 0; off + BP_FILE_ALIGN <= f->n; off += BP_FILE_ALIGN) {
		memcpy(m, f->p, f->n);
		memset(m + off, 0, BP_FILE_ALIGN);
		if (memcmp(m + off, f->p + off, BP_FILE_ALIGN)) {
			snprintf(what, sizeof(what), "4 KiB at %zu zeroed", off);
			judge(f, m, f->n, what);
		}
	}
	for (size_t i = 0; i + 1 < f->nbounds; i++) {
		size_t off = f->bounds[i], len = f->bounds[i + 1] - off;

		memcpy(m, f->p, f->n);
		memset(m + off, 0, len);
		snprintf(what, sizeof(what), "chunk at %zu zeroed", off);
		judge(f, m, f->n, what);
	}
	for (unsigned k = 0; f->stream && f->nbounds > 2 && k < copies; k++) {
		size_t i = (size_t)(rnd() % (f->nbounds - 1)), j = (size_t)(rnd() % (f->nbounds - 1));
		size_t len = f->bounds[i + 1] - f->bounds[i];

		if (i == j || f->bounds[j + 1] - f->bounds[j] != len)
			continue;
		memcpy(m, f->p, f->n);
		memcpy(m + f->bounds[i], f->p + f->bounds[j], len);
		snprintf(what, sizeof(what), "chunk at %zu replaced by the one at %zu",
			 f->bounds[i], f->bounds[j]);
		judge(f, m, f->n, what);
	}
}

static void mutate(struct file *f, unsigned flips, unsigned words)
{
	unsigned char *m = malloc(f->n);
	char what[96];

	CHECK(m != NULL);
	anywhere = false;
	/* truncations: at every chunk boundary and just after, and anywhere */
	for (size_t i = 0; i < f->nbounds; i++)
		for (size_t d = 0; d <= 32; d += 32)
			if (f->bounds[i] + d < f->n) {
				snprintf(what, sizeof(what), "cut at %zu", f->bounds[i] + d);
				judge(f, f->p, f->bounds[i] + d, what);
			}
	for (unsigned i = 0; i < 100; i++) {
		size_t cut = (size_t)(rnd() % f->n);

		snprintf(what, sizeof(what), "cut at %zu", cut);
		judge(f, f->p, cut, what);
	}
	/* bit flips, a span first (so that small headers get theirs), then a byte */
	for (unsigned i = 0; i < flips; i++) {
		size_t at = pick(f);
		unsigned bit = (unsigned)(rnd() % 8);

		memcpy(m, f->p, f->n);
		m[at] ^= (unsigned char)(1u << bit);
		snprintf(what, sizeof(what), "bit %u of byte %zu", bit, at);
		judge(f, m, f->n, what);
	}
	anywhere = false;
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
	/* every bit of every ring's written and discarded counts (a count one
	 * off is the one a reader may miss: the random flips hit it rarely) */
	for (size_t r = 0; r < f->nctls; r++)
		for (size_t at = f->ctls[r] + offsetof(struct bp_ring_ctl, written);
		     at < f->ctls[r] + offsetof(struct bp_ring_ctl, discarded) + 8; at++)
			for (unsigned bit = 0; bit < 8; bit++) {
				memcpy(m, f->p, f->n);
				m[at] ^= (unsigned char)(1u << bit);
				snprintf(what, sizeof(what), "bit %u of ring count byte %zu", bit, at);
				judge(f, m, f->n, what);
			}
	/* every bit of the high half of each ring's head page's first record
	 * index: the head page (one that holds no record yet, too) may say one
	 * record more than the ring counted, never 2^32 more */
	for (size_t r = 0; r < f->nctls; r++) {
		size_t first = f->heads[r] - offsetof(struct bp_ring_page, commit) +
			       offsetof(struct bp_ring_page, first_rec);

		for (size_t at = first + 4; f->heads[r] && at < first + 8; at++)
			for (unsigned bit = 0; bit < 8; bit++) {
				memcpy(m, f->p, f->n);
				m[at] ^= (unsigned char)(1u << bit);
				snprintf(what, sizeof(what), "bit %u of head page index byte %zu",
					 bit, at);
				judge(f, m, f->n, what);
			}
	}
	/* every bit of the low byte of the first record index of each ring's
	 * first page (seq 1, in a ring that has not wrapped): it is made
	 * before any record is stored, so only 0 can be (the one byte, bit 0,
	 * that reader_mutants had failed on twice) */
	for (size_t r = 0; r < f->nctls; r++) {
		uint32_t ps, np;

		memcpy(&ps, f->p + f->ctls[r] + 8, 4);
		memcpy(&np, f->p + f->ctls[r] + 12, 4);
		for (uint32_t i = 0; ps >= BP_RING_PAGE_MIN && i < np && i < 4096; i++) {
			size_t page = f->ctls[r] + BP_RING_CTL_BYTES + (size_t)i * ps;
			uint64_t seq;

			if (page + ps > f->n)
				break;
			memcpy(&seq, f->p + page, 8);
			for (unsigned bit = 0; seq == 1 && bit < 8; bit++) {
				memcpy(m, f->p, f->n);
				m[page + offsetof(struct bp_ring_page, first_rec)] ^=
					(unsigned char)(1u << bit);
				snprintf(what, sizeof(what), "bit %u of first page index at %zu", bit,
					 page + offsetof(struct bp_ring_page, first_rec));
				judge(f, m, f->n, what);
			}
		}
	}
	/* 32-bit words set to 0 and to all ones */
	for (unsigned i = 0; i < words; i++) {
		size_t at = pick(f) & ~(size_t)3;
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
	anywhere = false;
	blocks(f, m, flips);
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
	f->args = calloc(1, f->n);
	CHECK(f->p && f->args && read(fd, f->p, f->n) == (ssize_t)f->n);
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
		    env_file, "BPRINT_BUFFER_SIZE=16K");
	CHECK_EQ(finish(pid), 0);
	load(&files[nfiles++], "live-closed.dat", false);

	/* a live file of a program killed while it traced */
	snprintf(env_file, sizeof(env_file), "BPRINT_FILE=%s", live_killed);
	pid = start((char *[]){ (char *)traced, "--threads", "2", "--spin", NULL }, env_file,
		    "BPRINT_BUFFER_SIZE=16K");
	usleep(300000);
	kill(pid, SIGKILL);
	finish(pid);
	load(&files[nfiles++], "live-killed.dat", false);

	/* streams: overwrite mode, discard mode */
	snprintf(out, sizeof(out), "%s/stream.dat", work);
	pid = start((char *[]){ (char *)bprint_cmd, "record", "-q", "-o", out, "--", (char *)traced,
				"--threads", "3", "--records", "3000", "--timer", "300", NULL },
		    "BPRINT_BUFFER_SIZE=16K", NULL);
	CHECK_EQ(finish(pid), 0);
	load(&files[nfiles++], "stream.dat", true);
	snprintf(out, sizeof(out), "%s/stream-discard.dat", work);
	pid = start((char *[]){ (char *)bprint_cmd, "record", "-q", "-o", out, "--", (char *)traced,
				"--threads", "2", "--records", "3000", NULL },
		    "BPRINT_BUFFER_SIZE=16K", "BPRINT_MODE=discard");
	CHECK_EQ(finish(pid), 0);
	load(&files[nfiles++], "stream-discard.dat", true);

	/* a stream whose recorder was killed (its accounts say what it lacks) */
	snprintf(killed_out, sizeof(killed_out), "%s/stream-killed.dat", work);
	pid = start((char *[]){ (char *)bprint_cmd, "record", "-q", "-o", killed_out, "--",
				(char *)traced, "--threads", "2", "--records", "1000000",
				"--sleep-us", "50", NULL },
		    "BPRINT_BUFFER_SIZE=16K", NULL);
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

		uint32_t flags;

		memcpy(&flags, f->p + offsetof(struct bp_file_header, flags), 4);
		f->closed = flags & BP_FILE_F_CLOSED;
		f->digest = read_file(f->p, f->n, &damage, &f->intact);
		CHECK_MSG(!damage, "%s: the intact file reads as damaged", f->name);
		mutate(f, 30 * scale, 15 * scale);
		printf("%s: %zu bytes, %zu chunks\n", f->name, f->n, f->nbounds - 1);
	}
	printf("%lu mutants: %lu said damaged, %lu read as the intact file, %lu lost records "
	       "of a killed program's file and counted them (or zeroed a chunk as one being "
	       "allocated), %lu of %lu of live files changed values of records only, silently (%lu "
	       "a time)\n", mutants, said, same, counted, live_silent, live_mutants, live_time);
	printf("of the mutants of live files whose byte was picked anywhere: %lu of %lu silent\n",
	       silent_anywhere, live_anywhere);
	CHECK_MSG(live_silent * 50 <= live_mutants, "%lu of %lu mutants of live files silent: "
		  "more than 2 %%", live_silent, live_mutants);
	for (size_t i = 0; i < nfiles; i++) {
		free(files[i].p);
		free(files[i].spans);
		free(files[i].bounds);
		free(files[i].args);
		free(files[i].intact.recs);
		free(files[i].intact.keys);
		free(files[i].intact.tids);
		free(files[i].intact.idx);
	}
	return check_summary("reader_mutants");
}
