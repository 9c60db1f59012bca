/*
 * The merge (reading.h): every source keeps its next record in hand, and
 * bp_trace_next() returns the oldest of them (ties: the source found
 * first), then refills that source from its pages chunks or its ring.
 * The sources with a record in hand are in a heap (trace/merge.h, the
 * in-process reader's too), so that a record costs O(log sources).
 * The record becomes an event: its site, its thread's name, its CPU, and
 * its message, formatted with the site's format (parsed once, on the
 * site's first record) and the file's symbols for %pS and %ps.
 * bp_trace_next_run() takes the same records a run at a time: after the
 * oldest, the next ones of its source's page, in line, for as long as
 * each stays older than every other source's (the analysis binding's).
 */
#include "reader/reading.h"
#include "reader/accounts.h"
#include "reader/catalogue.h"
#include "reader/site_layout.h"
#include "ring/view.h"

#include <stdlib.h>
#include <string.h>

/* s->ev is s's next record: in hand, counted. */
static inline __attribute__((always_inline)) void got(struct bp_trace *t, struct source *s)
{
	/* one writer a ring, one clock: its time never runs backwards */
	if (s->any_read && s->ev.ts < s->last_ts && !s->backwards_said) {
		s->backwards_said = true;
		reader_problem(t, "ring %llu (thread %d): time runs backwards at "
			       "record %llu", (unsigned long long)s->info.key,
			       (int)s->info.tid, (unsigned long long)s->ev.index);
	}
	s->last_ts = s->ev.ts;
	if (!s->any_read) {
		s->any_read = true;
		s->first_gap = s->ev.index - s->next_index;
	}
	s->gap_before = s->ev.index - s->next_index;
	if (s->gap_before) {
		s->info.overwritten += s->gap_before;
		accounts_settle(s);
	}
	s->next_index = s->ev.index + 1;
	s->has = true;
}

/* Get s's next record in hand, if there is one. */
static int fill(struct bp_trace *t, struct source *s)
{
	t->work++;
	while (!s->has && !s->dead && !s->dry) {
		int rc;

		if (s->phase == SOURCE_STREAMED) {
			/* a streamed page's next record, in line */
			if (s->stream.in_page && bp_ring_page_next_in_line(&s->stream.it, &s->ev))
				rc = SOURCE_GOT;
			else
				rc = stream_next(t, s);
		} else if (s->phase == SOURCE_KERNEL) {
			rc = kernel_next(t, s);
		} else if (s->phase == SOURCE_RING) {
			/* the next record of a frozen ring's page, in line */
			if (bp_ring_next_in_page(&s->ring.cur, &s->ev))
				rc = s->ev.index < s->next_index ? SOURCE_AGAIN : SOURCE_GOT;
			else
				rc = ring_next(t, s);
		} else {
			s->dry = true;
			break;
		}
		if (rc < 0)
			return rc;
		if (rc == SOURCE_REUSED)
			catalogue_ring_reused(t, s);	/* the catalogue acts on it */
		if (rc == SOURCE_STOP || rc == SOURCE_REUSED)
			break;
		if (rc == SOURCE_GOT)
			got(t, s);
	}
	return BP_TRACE_OK;
}

/* Source i, filled: into the merge if it has a record in hand. */
static int fill_and_join(struct bp_trace *t, size_t i)
{
	struct source *s = t->src[i];
	int rc;

	if (!s->has && (rc = fill(t, s)) < 0)
		return rc;
	if (s->has) {
		bp_merge_push(&t->merge, s->ev.ts, i);
		t->work++;
	}
	return BP_TRACE_OK;
}

/*
 * Every source filled (in index order, as they were found) and the merge
 * made again: after the catalogue changed or a refresh woke the sources.
 */
static int fill_all(struct bp_trace *t)
{
	struct bp_merge_entry *e = t->merge.e;
	int rc;

	if (t->nsrc > t->merge_cap) {
		e = realloc(t->merge.e, t->nsrc * sizeof(*e));
		if (!e)
			return BP_TRACE_ENOMEM;
		t->merge.e = e;
		t->merge_cap = t->nsrc;
	}
	t->merge.n = 0;
	for (size_t i = 0; i < t->nsrc; i++)
		if ((rc = fill_and_join(t, i)) < 0)
			return rc;
	t->merge_all = false;
	return BP_TRACE_OK;
}

/*
 * The source whose record in hand is the oldest (ties: the one found
 * first), out of the merge; NULL when all are dry.  Between two changes
 * of the catalogue, only the source of the record last taken lacks one
 * (a source that was filled has a record in hand, or is dry or dead until
 * then): it is filled again, and goes first without going through the
 * heap when its record is still the oldest (one ring, or a run of one).
 */
static inline __attribute__((always_inline)) int
merge_oldest(struct bp_trace *t, struct source **best, size_t *bi)
{
	size_t taken = t->taken;
	int rc;

	*best = NULL;
	t->taken = SIZE_MAX;
	if (t->merge_all) {
		if ((rc = fill_all(t)) < 0)
			return rc;
	} else if (taken != SIZE_MAX) {
		struct source *s = t->src[taken];
		struct bp_merge_entry x;

		if ((rc = fill(t, s)) < 0)
			return rc;
		if (s->has) {
			x = (struct bp_merge_entry){ s->ev.ts, taken };
			if (!t->merge.n || bp_merge_before(&x, &t->merge.e[0])) {
				*best = s;
				*bi = taken;
				t->taken = taken;
				return BP_TRACE_OK;
			}
			bp_merge_push(&t->merge, x.ts, taken);
			t->work++;
		}
	}
	if (bp_merge_top(&t->merge, bi)) {
		bp_merge_pop(&t->merge);
		t->work++;
		*best = t->src[*bi];
		t->taken = *bi;
	}
	return BP_TRACE_OK;
}

/* merge_oldest(), made the current source; once all are dry, the
 * accounts checked against what was read. */
static inline __attribute__((always_inline)) int
oldest_source(struct bp_trace *t, struct source **best, size_t *bi)
{
	int rc = merge_oldest(t, best, bi);

	if (rc < 0)
		return rc;
	t->cur = *best;
	if (!*best && !t->read_checked)
		accounts_check_read(t);
	return BP_TRACE_OK;
}

/*
 * The site of a record's id not in the tables (site_of() below).  A
 * writer files a site before its first record: in a file not closed (or
 * live) an id not known yet is looked for again by the catalogue's one
 * update step, also before the first refresh (the file may have grown
 * since it was opened).
 */
__attribute__((noinline))
static int site_slow(struct bp_trace *t, uint32_t id, struct site_entry **site)
{
	int rc;

	if (!t->live && (t->info.flags & BP_TRACE_F_CLOSED)) {
		/* every site is filed before its first record, unless the file was full */
		if (!t->info.missing_sites && !t->unknown_site_said) {
			t->unknown_site_said = true;
			reader_problem(t, "records of call site %u, which the file does not have", id);
		}
		return BP_TRACE_OK;
	}
	if ((rc = catalogue_update(t, id)) < 0)
		return rc;
	*site = tables_site(t, id);
	/* a live file whose process is gone: its sites were all filed before
	 * their records (a stream's copier may be a pass behind) */
	if (!*site && !(t->info.flags & BP_TRACE_F_STREAM) && t->writer_gone &&
	    !t->info.missing_sites && !t->unknown_site_said) {
		t->unknown_site_said = true;
		reader_problem(t, "records of call site %u, which the file does not have", id);
	}
	return BP_TRACE_OK;
}

/* The site of a record's id: a table lookup, in line. */
static inline int site_of(struct bp_trace *t, uint32_t id, struct site_entry **site)
{
	*site = tables_site(t, id);
	if (!id || *site)
		return BP_TRACE_OK;
	return site_slow(t, id, site);
}

/* ---- messages ----------------------------------------------------------- */

/* The library table, as the symbols read it. */
static size_t libs_count(const void *t)
{
	return bp_trace_nlibs(t);
}

static const struct bp_trace_lib *libs_at(const void *t, size_t i)
{
	return bp_trace_lib_at(t, i);
}

/* The hook's print() for %pS and %ps: the symbols, made on first use. */
void reader_print_symbol(void *ctx, char letter, uint64_t address, char *buf, size_t size)
{
	struct bp_trace *t = ctx;

	if (!t->sym) {
		const struct bp_symbols_libs libs = { t, libs_count, libs_at };

		t->sym = bp_symbols_new(&libs, t->open_flags & BP_TRACE_OPEN_ELF_READER
						       ? BP_SYMBOLS_OWN_READER : 0u);
	}
	if (t->sym)
		bp_symbols_print(t->sym, letter, address, buf, size);
	else
		bp_snprintf(buf, size, "%p", (void *)(uintptr_t)address);
}

void bp_trace_symbol_stats(const struct bp_trace *t, struct bp_symbols_stats *out)
{
	if (t->sym)
		bp_symbols_get_stats(t->sym, out);
	else
		memset(out, 0, sizeof(*out));
}

const struct bp_pointer_hook *bp_trace_pointer_hook(const struct bp_trace *t)
{
	return t->open_flags & BP_TRACE_OPEN_NO_SYMBOLS ? NULL : &t->hook;
}

/* The message of s's last record into buf (size >= 1): its length. */
static size_t format_message(struct bp_trace *t, struct source *s, char *buf, size_t size,
			     int *exact)
{
	struct site_entry *e = tables_site(t, s->args.site_id);
	const struct bp_site_layout *l = bp_trace_site_layout(t, s->args.site_id);
	const struct bp_pointer_hook *hook = bp_trace_pointer_hook(t);

	/* Without a %pS or %ps the hook never applies, and without it %p
	 * tokens skip the letter check. */
	if (l && !(l->pub.flags & BP_LAYOUT_SYMBOLS))
		hook = NULL;
	return bp_record_message(buf, size, &s->args, e ? &e->site : NULL, l ? l->pf : NULL,
				 hook, exact);
}

static void decode_message(struct bp_trace *t, struct source *s, struct bp_trace_event *out)
{
	out->message = t->msg;
	out->message_len = format_message(t, s, t->msg, sizeof(t->msg), &out->exact);
}

/*
 * The writer packs a block by its site's format (its plan), to the word:
 * a block its site's layout does not take whole (a slot past its end, a
 * string without its NUL, words left over) is damage.  A trace_puts()
 * site's text is its own: its block is empty, and a block with words is
 * a record whose site id was changed.  So is a block of a site without a
 * format (a runtime-format site, whose records are text or name the site
 * derived from their format).
 */
static inline bool block_fits(const struct bp_site_layout *l, const uint32_t *words, size_t nwords)
{
	/* (a trace_puts() site's layout takes the empty block only) */
	return !l || !l->has_plan || bp_site_layout_decode_some(l, words, nwords, 0, NULL, 0) >= 0;
}

static void check_words(struct bp_trace *t, struct source *s, struct site_entry *site,
			const uint32_t *words, size_t nwords, uint64_t index)
{
	const struct bp_site_layout *l = site->layout_tried ? site->layout
							    : bp_trace_site_layout(t, site->ts.id);

	if (s->bad_said || (site->ts.format && block_fits(l, words, nwords)))
		return;
	s->bad_said = true;
	reader_problem(t, "ring %llu (thread %d): record %llu does not match its format",
		       (unsigned long long)s->info.key, (int)s->info.tid,
		       (unsigned long long)index);
}

/* check_words() of the record in hand (report's loop) */
static void check_block(struct bp_trace *t, struct source *s, struct site_entry *site)
{
	check_words(t, s, site, s->args.words, s->args.nwords, s->ev.index);
}

/* The check of the record returned last, if it waits (bp_trace_defer_checks). */
static void check_pending(struct bp_trace *t)
{
	struct source *s = t->unchecked;

	t->unchecked = NULL;
	if (s)
		check_block(t, s, t->unchecked_site);
}

void bp_trace_defer_checks(struct bp_trace *t)
{
	t->defer_checks = true;
}

void bp_trace_block_checked(struct bp_trace *t, const uint32_t *block)
{
	if (t->unchecked && t->unchecked->args.words == block)
		t->unchecked = NULL;
}

void bp_trace_check_now(struct bp_trace *t)
{
	check_pending(t);
}

/*
 * Text made at trace time (BP_REC_TEXT): its writer ends it with a NUL in
 * its last word and zeroes the padding after it (trace/record.h).
 */
static void check_text(struct bp_trace *t, struct source *s)
{
	const unsigned char *p = (const unsigned char *)s->args.words;
	size_t n = s->args.nwords * 4, len = n ? strnlen((const char *)p, n) : 0;
	bool ok = n && len < n && len / 4 == s->args.nwords - 1;

	for (size_t i = len; ok && i < n; i++)
		ok = p[i] == 0;
	if (!ok && !s->bad_said) {
		s->bad_said = true;
		reader_problem(t, "ring %llu (thread %d): record %llu holds text that is not",
			       (unsigned long long)s->info.key, (int)s->info.tid,
			       (unsigned long long)s->ev.index);
	}
}

void bp_trace_message(struct bp_trace *t, struct bp_trace_event *out)
{
	if (t->cur && out->size >= BP_TRACE_EVENT_SIZE_3)
		decode_message(t, t->cur, out);
}

size_t bp_trace_format_message(struct bp_trace *t, char *buf, size_t size)
{
	if (!size)
		return 0;
	if (!t->cur) {
		buf[0] = '\0';
		return 0;
	}
	return format_message(t, t->cur, buf, size < BP_MSG_MAX ? size : BP_MSG_MAX, NULL);
}

/* ---- the next record ---------------------------------------------------- */

/* What out says of the record of source bi (best) just taken, its site
 * and id, that decoding its arguments needs (all BP_TRACE_NEXT_ARGS_ONLY
 * asks for). */
static void put_args(struct source *best, size_t bi, const struct site_entry *site, uint32_t id,
		     struct bp_trace_event *out)
{
	out->tid = best->kcpu ? best->ktid : best->info.tid;
	out->site = site ? &site->ts : NULL;
	out->site_id = id;
	out->ring = bi;
	out->index = best->ev.index;
	out->block = best->args.words;
	out->block_words = best->args.nwords;
	out->text = best->args.text;
}

/*
 * The first source of best's thread (src[bi]): from the map of tids, which
 * takes in the sources found since it was last asked; a linear search
 * when out of memory.
 */
static struct source *first_of_tid(struct bp_trace *t, struct source *best, size_t bi)
{
	uint64_t tid = (uint64_t)(int64_t)best->info.tid;
	size_t at;

	while (t->tid_mapped < t->nsrc &&
	       bp_keymap_put(&t->first_by_tid, (uint64_t)(int64_t)t->src[t->tid_mapped]->info.tid,
			     t->tid_mapped))
		t->tid_mapped++;
	at = bp_keymap_find(&t->first_by_tid, tid);
	if (at <= bi && t->src[at]->info.tid == best->info.tid)
		return t->src[at];
	for (size_t i = 0; i <= bi; i++)
		if (t->src[i]->info.tid == best->info.tid)
			return t->src[i];
	return best;
}

/* The record's time (BP_TRACE_NEXT_TIME asks for it alone). */
static void put_time(struct bp_trace *t, const struct source *best, struct bp_trace_event *out)
{
	out->ns = bp_clock_to_ns(&t->calib, best->ev.ts);
	out->raw_ts = best->ev.ts;
}

/* The rest of out, the message as flags say. */
static void put_rest(struct bp_trace *t, struct source *best, size_t bi, unsigned flags,
		     struct bp_trace_event *out)
{
	put_time(t, best, out);
	out->cpu = best->cpu;
	if (!best->first_of_tid)
		best->first_of_tid = first_of_tid(t, best, bi);
	/* A thread's name is that of its first ring, as the process has one
	 * name per thread (taken when it first traced, updated at exit). */
	out->comm = best->kcpu ? best->kcomm : best->first_of_tid->info.comm;
	out->level = best->info.level;
	out->lost_before = best->ev.discarded_before + best->gap_before;
	out->lost_kind = (best->ev.discarded_before ? BP_TRACE_LOST_DISCARDED : 0u) |
			 (!best->gap_before ? 0u
			  : best->stream.nchunks ? BP_TRACE_LOST_NOT_COPIED
						 : BP_TRACE_LOST_OVERWRITTEN);
	if (flags & BP_TRACE_NEXT_NO_MESSAGE) {
		t->msg[0] = '\0';
		out->message = t->msg;
		out->message_len = 0;
		out->exact = 0;
	} else {
		decode_message(t, best, out);
	}
}

/* One record taken from best (bp_trace_next()'s, or a run's): counted,
 * split, its site found; the block's check is the caller's. */
static inline __attribute__((always_inline)) int
take(struct bp_trace *t, struct source *best, struct site_entry **site)
{
	int rc;

	best->has = false;
	best->info.read++;
	accounts_settle(best);
	if (best->kcpu)
		kernel_taken(t, best);	/* its args are made already */
	else
		best->args = bp_record_split(best->ev.user_bits, best->ev.payload,
					     best->ev.payload_len);
	if (best->args.has_cpu)
		best->cpu = best->args.cpu;
	if (best->args.text)
		check_text(t, best);
	if ((rc = site_of(t, best->args.site_id, site)) < 0)
		return rc;
	if (t->progress && --t->progress_left == 0) {
		t->progress_n += t->progress_every;
		t->progress_left = t->progress_every;
		t->progress(t->progress_arg, t->progress_n);
	}
	return BP_TRACE_OK;
}

int bp_trace_next(struct bp_trace *t, struct bp_trace_event *out, unsigned flags)
{
	struct source *best;
	struct site_entry *site;
	size_t bi = 0;
	uint32_t id;
	int rc;

	if (!out || out->size < BP_TRACE_EVENT_SIZE_3)
		return BP_TRACE_EINVAL;	/* unset, or the embedding layout's 136 or 144 */
	if (t->unchecked)
		check_pending(t);	/* before the record is replaced */
	if ((rc = oldest_source(t, &best, &bi)) < 0)
		return rc;
	if (!best)
		return 0;
	if ((rc = take(t, best, &site)) < 0)
		return rc;
	id = best->args.site_id;
	if (site && !best->args.text) {
		if (t->defer_checks)
			t->unchecked = best, t->unchecked_site = site;
		else
			check_block(t, best, site);
	}
	put_args(best, bi, site, id, out);
	if (!(flags & BP_TRACE_NEXT_ARGS_ONLY))
		put_rest(t, best, bi, flags, out);
	else if (flags & BP_TRACE_NEXT_TIME)
		put_time(t, best, out);
	return 1;
}

/* ---- a run of records --------------------------------------------------- */

/*
 * The next record of s's page in hand, in line, if it is still older than
 * every other source's (fill()'s in-line steps only: a record of another
 * page ends a run, so that the blocks of the run stay where they are).
 * false, with s's record in hand or not, when the run ends here.
 */
static inline bool run_on(struct bp_trace *t, struct source *s, size_t bi)
{
	struct bp_merge_entry x;

	if (s->phase == SOURCE_STREAMED) {
		if (!s->stream.in_page || !bp_ring_page_next_in_line(&s->stream.it, &s->ev))
			return false;
	} else if (s->phase == SOURCE_RING) {
		if (!bp_ring_next_in_page(&s->ring.cur, &s->ev) || s->ev.index < s->next_index)
			return false;
	} else {
		return false;
	}
	t->work++;
	got(t, s);
	x = (struct bp_merge_entry){ s->ev.ts, bi };
	return !t->merge.n || bp_merge_before(&x, &t->merge.e[0]);
}

static inline void put_rec(struct bp_trace *t, const struct source *s, uint64_t index,
			   unsigned flags, struct bp_trace_rec *r)
{
	r->site_id = s->args.site_id;
	r->tid = s->info.tid;
	r->block = s->args.words;
	r->block_words = (uint32_t)s->args.nwords;
	r->text = s->args.text;
	r->index = index;
	r->ns = flags & BP_TRACE_NEXT_TIME ? bp_clock_to_ns_inline(&t->calib, s->ev.ts) : 0;
}

int bp_trace_next_run(struct bp_trace *t, struct bp_trace_rec *rec, size_t max, unsigned flags)
{
	struct source *best;
	struct site_entry *site;
	size_t bi = 0, n = 0;
	int rc;

	if (t->unchecked)
		check_pending(t);
	if (t->run_err) {	/* after the records of the run before it */
		rc = t->run_err;
		t->run_err = 0;
		return rc;
	}
	if (!max)
		return 0;
	if (max > BP_TRACE_RUN_MAX)
		max = BP_TRACE_RUN_MAX;	/* run_site[]'s room */
	if ((rc = oldest_source(t, &best, &bi)) < 0)
		return rc;
	if (!best)
		return 0;
	t->run_src = best;
	do {
		if ((rc = take(t, best, &site)) < 0) {
			if (!n)
				return rc;
			t->run_err = rc;	/* the records before it first */
			break;
		}
		t->run_site[n] = site;
		put_rec(t, best, best->ev.index, flags, &rec[n]);
		if (best->kcpu)
			rec[n].tid = best->ktid;
		n++;
		/* (a catalogue update for a site not known yet may have added
		 * sources: the merge is made again before the next record) */
	} while (n < max && !best->kcpu && !t->merge_all && run_on(t, best, bi));
	/* best's next record, if in hand, goes through the merge as any other */
	t->taken = bi;
	return (int)n;
}

void bp_trace_run_check(struct bp_trace *t, const struct bp_trace_rec *rec, size_t i)
{
	struct site_entry *site = i < BP_TRACE_RUN_MAX ? t->run_site[i] : NULL;

	if (site && !rec->text && t->run_src)
		check_words(t, t->run_src, site, rec->block, rec->block_words, rec->index);
}

int bp_trace_event_kernel(const struct bp_trace *t)
{
	if (!t->cur || !t->cur->kcpu)
		return BP_TRACE_FROM_PROGRAM;
	return t->cur->kown ? BP_TRACE_FROM_KERNEL_OWN : BP_TRACE_FROM_KERNEL_OTHER;
}

void bp_trace_on_progress(struct bp_trace *t, uint64_t every,
			  void (*fn)(void *arg, uint64_t records), void *arg)
{
	t->progress = every ? fn : NULL;
	t->progress_every = every;
	t->progress_left = every;
	t->progress_arg = arg;
}

uint64_t bp_trace_work(const struct bp_trace *t)
{
	return t->work;
}
