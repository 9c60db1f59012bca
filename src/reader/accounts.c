/*
 * Each ring's counters (accounts.h): what the writer counted (the ring's
 * own counters, or those a stream's pages, accounts or end chunk carry),
 * what this reader found (read, overwritten), and what follows from both
 * (written never below what was found, a drainer's records not copied).
 * They are settled at every catalogue update and as records are taken
 * (accounts_settle()), so that bp_trace_ring_at() and bp_trace_totals()
 * only read them.
 */
#include "reader/reading.h"
#include "reader/accounts.h"

#include "trace/sized.h"

#include <string.h>

static struct pages_chunk *counted(struct bp_trace *t, struct pages_chunk *pc)
{
	if (pc->nrec == UINT64_MAX)
		stream_count_chunk(t, pc);
	return pc;
}

/*
 * Where the accounts of s leave its records, before reading: every record
 * index below the returned one is in a pages chunk or was lost, and
 * *after is the records of the chunks the accounts do not count.  The
 * drainer writes a pages chunk, then the accounts (docs/file-format.md,
 * type 7), so one killed in between leaves chunks whose copied_before is
 * at least the accounts' copied; their records, and the pages the drainer
 * lost among them, are then in no count but the pages' own first_rec, so
 * the index after the last record found is the bound (reading finds the
 * same: what is below it and not read is overwritten).  Files without
 * copied_before (0) count no chunk as after unless the accounts count
 * nothing, which is then exact too.
 */
static uint64_t accounted_end(struct bp_trace *t, struct source *s, uint64_t *after)
{
	struct stream_source *ss = &s->stream;
	uint64_t end = s->copied + s->info.lost_by_drainer;

	*after = 0;
	for (size_t i = 0; i < ss->nchunks; i++)
		if (ss->chunks[i].copied_before >= s->copied)
			*after += counted(t, &ss->chunks[i])->nrec;
	end += *after;
	for (size_t i = ss->nchunks; i-- > 0;) {
		uint64_t last = counted(t, &ss->chunks[i])->end_rec;

		if (last) {
			if (last > end)
				end = last;
			break;
		}
	}
	return end;
}

/*
 * The records s is known to have lost before what the file holds of it,
 * without reading: the first stored-record index its pages or its ring
 * keep (a flight recorder's), or the drainer's count of records it never
 * copied if that is more; for a stream not closed, the gaps below its
 * last record.
 */
static uint64_t first_kept(struct source *s)
{
	uint64_t first = UINT64_MAX;

	if (s->counters == COUNTERS_ACCOUNTS)
		return s->info.lost_by_drainer;
	if (s->stream.nchunks)
		first = s->stream.chunks[0].first_rec;
	else if (s->ring.mem && !ring_first_kept(s, &first))
		return 0;	/* an empty ring, or not one: nothing to count */
	s->oldest_rec = first;
	if (first == UINT64_MAX - 1)
		first = UINT64_MAX;	/* the oldest page is damaged: not known */
	return first == UINT64_MAX || first < s->info.lost_by_drainer ? s->info.lost_by_drainer
								    : first;
}

/*
 * A drainer updates a ring's accounts entry right after each pages chunk,
 * from the counters it wrote in that chunk: the entry of a drainer that
 * was killed (its writes never failed) has the counters of the last chunk
 * it counts, the one that ends at its copied.  Other counts are damage
 * (the entries are rewritten in place: no checksum covers them).
 */
static void check_entry(struct bp_trace *t, struct source *s)
{
	struct stream_source *ss = &s->stream;

	if (t->info.stop_reason || !s->copied || s->entry_checked)
		return;
	s->entry_checked = true;
	for (size_t i = 0; i < ss->nchunks; i++) {
		struct pages_chunk *pc = &ss->chunks[i];

		if (pc->type == BP_CHUNK_PAGES || pc->copied_before + counted(t, pc)->nrec != s->copied)
			continue;
		if (pc->written != s->acct_written || pc->discarded != s->acct_discarded)
			reader_problem(t, "accounts: ring %llu says %llu written, %llu discarded; its "
				       "pages chunk at %llu, %llu and %llu",
				       (unsigned long long)s->info.key,
				       (unsigned long long)s->acct_written,
				       (unsigned long long)s->acct_discarded,
				       (unsigned long long)pc->off, (unsigned long long)pc->written,
				       (unsigned long long)pc->discarded);
		return;
	}
}

/*
 * A live file whose writer is done: its ring's head page (the first record
 * index it holds, and its records) may say at most one record more than
 * the ring counted (a writer cut between a record's commit and the
 * count's store).  More is a damaged page header, whose index would
 * otherwise count as records written and lost: said, and not taken.
 */
static void check_ring_end(struct bp_trace *t, struct source *s)
{
	uint64_t stored = s->claimed - s->info.discarded;

	if ((t->info.flags & BP_TRACE_F_STREAM) || !t->writer_gone || !s->ring.mem ||
	    s->counters != COUNTERS_RING || s->claimed < s->info.discarded ||
	    s->ring_end <= stored + 1)
		return;
	reader_problem(t, "thread %d: its ring's head page ends at record %llu, the ring "
		       "counted %llu", s->info.tid, (unsigned long long)s->ring_end,
		       (unsigned long long)stored);
	s->ring_end = 0;
}

void accounts_update(struct bp_trace *t)
{
	for (size_t i = 0; i < t->nsrc; i++) {
		struct source *s = t->src[i];

		s->oldest_rec = UINT64_MAX;
		if (s->ring.chunk_off && !s->ring.map.base && !s->dead)
			ring_map(t, s);
		ring_load_counters(s);
		if (s->counters == COUNTERS_ACCOUNTS) {
			uint64_t after;

			s->acct_have = accounted_end(t, s, &after);
			/* the pages it lost among the chunks the accounts do not count */
			s->info.lost_by_drainer = s->acct_have - s->copied - after;
			check_entry(t, s);
		}
		s->first_kept = first_kept(s);
		if (s->ring.mem)
			s->ring_end = ring_end_index(s);
		check_ring_end(t, s);
		accounts_settle(s);
	}
}

/* Records of s missing between two records read: none in a ring whose
 * writer is done (its pages run from the oldest to the head), only those
 * the drainer lost (lost_records) in a finished stream. */
static uint64_t mid_gaps(const struct source *s)
{
	return s->any_read ? s->info.overwritten - s->first_gap : 0;
}

/*
 * Once every record was read: what the writer says it wrote against what
 * was found (read, overwritten below the records found, discarded).  In a
 * file whose writer is done (closed cleanly, or a stream's end chunk) the
 * two are equal, or the count one short (a writer killed between a
 * record's commit and the count's store), but for the ring of a thread
 * that exited: it stored its counts before it said so.  In a stream not
 * finished the records found cannot be more than that.  Anything else:
 * the file lost records or its counters were damaged.
 */
void accounts_check_read(struct bp_trace *t)
{
	bool stream = t->info.flags & BP_TRACE_F_STREAM;

	t->read_checked = true;
	for (size_t i = 0; i < t->nsrc; i++) {
		const struct source *s = t->src[i];
		const struct bp_trace_ring *in = &s->info;
		uint64_t found = in->read + in->overwritten + in->discarded;
		bool done = stream ? s->counters == COUNTERS_END : t->writer_gone;
		/* its thread stored the counts and then "exited": none cut short */
		bool exact = done && !stream && in->state == BP_RING_EXITED;

		if (s->kcpu || s->dead || in->corrupt || in->state == BP_RING_RELEASED ||
		    (!done && !stream))
			continue;
		if ((done && found < s->claimed) || found > s->claimed + !exact)
			reader_problem(t, "thread %d: %llu records written, %llu found", in->tid,
				       (unsigned long long)s->claimed, (unsigned long long)found);
		else if (done && mid_gaps(s) > (stream ? in->lost_by_drainer : 0))
			reader_problem(t, "thread %d: %llu records missing between the ones read",
				       in->tid, (unsigned long long)mid_gaps(s));
		else if (done && !stream && s->oldest_rec == UINT64_MAX - 1)
			reader_problem(t, "thread %d: the oldest page of its ring is damaged", in->tid);
		else if (done && !stream && s->any_read && s->first_gap != s->oldest_rec)
			reader_problem(t, "thread %d: %llu records missing before the first one read",
				       in->tid, (unsigned long long)(s->first_gap - s->oldest_rec));
	}
}

/* ---- accessors ---------------------------------------------------------- */

size_t bp_trace_nrings(const struct bp_trace *t)
{
	return t->nsrc;
}

const struct bp_trace_ring *bp_trace_ring_at(const struct bp_trace *t, size_t i)
{
	return i < t->nsrc ? &t->src[i]->info : NULL;
}

unsigned bp_trace_problems(const struct bp_trace *t, const char **first)
{
	if (first)
		*first = t->first_problem;
	return t->problems;
}

/* Ring r's counters added to sum, as the totals count them: what was
 * dropped before the ring was written, and discarded. */
static void add_ring(struct bp_trace_totals *sum, const struct bp_trace_ring *r)
{
	sum->written += r->written + r->dropped;
	sum->discarded += r->discarded + r->dropped;
	sum->overwritten += r->overwritten;
	sum->read += r->read;
	sum->lost_by_drainer += r->lost_by_drainer;
	sum->not_copied += r->not_copied;
}

int bp_trace_totals(const struct bp_trace *t, struct bp_trace_totals *out)
{
	struct bp_trace_totals sum = { .size = sizeof(sum) };

	if (!out || out->size < BP_TRACE_TOTALS_SIZE_1)
		return BP_TRACE_EINVAL;
	for (size_t i = 0; i < t->nsrc; i++)
		add_ring(&sum, &t->src[i]->info);
	bp_sized_put(out, out->size, &sum, sizeof(sum));
	return BP_TRACE_OK;
}

int bp_trace_ring_totals(const struct bp_trace *t, size_t i, struct bp_trace_totals *out)
{
	struct bp_trace_totals sum = { .size = sizeof(sum) };

	if (!out || out->size < BP_TRACE_TOTALS_SIZE_1 || i >= t->nsrc)
		return BP_TRACE_EINVAL;
	add_ring(&sum, &t->src[i]->info);
	bp_sized_put(out, out->size, &sum, sizeof(sum));
	return BP_TRACE_OK;
}

uint64_t bp_trace_overwritten_estimate(const struct bp_trace *t)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < t->nsrc; i++)
		sum += t->src[i]->first_kept;
	return sum;
}
