/*
 * The drainer's operations of bprint/record.h: bp_trace_snapshot(), the
 * drainer run once over a running process's live file as an observer
 * (BP_DRAIN_OBSERVE: no consumer, nothing written to the live file) into
 * a closed stream; bp_trace_recover(), a killed recorder's stream resumed
 * (or made) from the live file it left; bp_trace_live_probe(); and the
 * drainer's counts and error as the public API gives them.
 */
#include <bprint/record.h>

#include "drainer/drain.h"
#include "trace/sized.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* res as a caller's counts (size checked by the caller): what fits. */
static void put_counts(const struct bp_drain_result *res, struct bp_record_counts *counts)
{
	struct bp_record_counts c = {
		.size = sizeof(c),
		.rings = res->rings,
		.copied = res->copied,
		.lost_records = res->lost_records,
		.discarded = res->discarded,
		.bytes = res->bytes,
		.not_copied = res->not_copied,
		.pages = res->pages,
		.written = res->written,
		.dropped = res->dropped,
		.lost_pages = res->lost_pages,
		.memory_rings = res->memory_rings,
		.memory_records = res->memory_records,
		.missing_sites = res->missing_sites,
		.files = res->files,
		.truncated = res->truncated,
	};

	if (counts)
		bp_sized_put(counts, counts->size, &c, sizeof(c));
}

static bool counts_unsized(const struct bp_record_counts *counts)
{
	return counts && counts->size < BP_RECORD_COUNTS_SIZE_1;
}

int bp_drain_counts(const struct bp_drain_file *f, struct bp_record_counts *counts)
{
	if (!counts || counts_unsized(counts))
		return BP_TRACE_EINVAL;
	put_counts(bp_drain_result(f), counts);
	return 0;
}

int bp_drain_write_window(struct bp_drain_file *f, const char *path,
			  const struct bp_drain_window_ring *rings, size_t nrings,
			  struct bp_record_counts *counts, char *err, size_t errlen)
{
	struct bp_drain_result res;

	if (errlen)
		err[0] = '\0';
	if (counts_unsized(counts))
		return BP_TRACE_EINVAL;
	if (bp_drain_window_result(f, path, rings, nrings, &res) != 0) {
		snprintf(err, errlen, "%s", res.error);
		return -1;
	}
	put_counts(&res, counts);
	return 0;
}

const char *bp_drain_error(const struct bp_drain_file *f)
{
	return bp_drain_result(f)->error;
}

/* A drain over: its counts, or BP_TRACE_EIO and its reason; df freed. */
static int drain_end(struct bp_drain_file *df, bool whole, struct bp_record_counts *counts,
		     char *err, size_t errlen)
{
	const struct bp_drain_result *res = bp_drain_result(df);

	if (whole)
		put_counts(res, counts);
	else
		snprintf(err, errlen, "%s", res->error[0] ? res->error
							  : "the trace could not be written whole");
	bp_drain_free(df);
	return whole ? 0 : BP_TRACE_EIO;
}

int bp_trace_snapshot(int fd, const char *name, const char *out_path,
		      struct bp_record_counts *counts, char *err, size_t errlen)
{
	struct bp_drain_file *df = NULL;
	struct bp_record_live live = BP_RECORD_LIVE_INIT;
	int own, rc;

	if (errlen)
		err[0] = '\0';
	if (counts_unsized(counts))
		return BP_TRACE_EINVAL;
	/* the drainer takes the fd it is given: ours, a copy */
	if ((own = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return errno == ENOMEM || errno == EMFILE || errno == ENFILE ? BP_TRACE_ENOMEM
									      : BP_TRACE_EIO;
	}
	if ((rc = bp_drain_open_fd(own, name, BP_DRAIN_OBSERVE, &df, &live)) <= 0)
		return rc < 0 ? BP_TRACE_ENOMEM : BP_RECORD_E_NOT_READY;
	rc = bp_drain_start(df, out_path, 0);
	return drain_end(df, rc == 0 && bp_drain_finish(df, false) == 0, counts, err, errlen);
}

int bp_trace_live_probe(const char *path, struct bp_record_live *out)
{
	struct bp_drain_file *df;
	struct bp_record_live live = BP_RECORD_LIVE_INIT;
	int rc;

	if (!out || out->size < BP_RECORD_LIVE_SIZE_1)
		return BP_TRACE_EINVAL;
	rc = bp_drain_open(path, &df, &live);
	out->pid = (int32_t)live.pid;
	out->start_realtime_ns = live.start_realtime_ns;
	out->mtime_ns = live.mtime_ns;
	if (rc < 0)
		return BP_TRACE_ENOMEM;
	if (rc > 0)
		bp_drain_free(df);
	return rc > 0;
}

/* What stream path holds of each ring (per ring: its counts, the index
 * after its last record): the drainer goes on from there.  0, or a
 * BP_TRACE_E* code with err set. */
static int carry_of(const char *path, struct bp_drain_carry **carry, size_t *n, char *err,
		    size_t errlen)
{
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	struct bp_trace *t;
	uint64_t *bound = NULL;
	size_t nbound = 0, nr;
	int rc;

	*carry = NULL;
	*n = 0;
	if (!(t = bp_trace_open(path, BP_TRACE_OPEN_DEFAULT, err, errlen, &rc)))
		return rc == BP_TRACE_ENOMEM ? BP_TRACE_ENOMEM : BP_TRACE_EFORMAT;
	while ((rc = bp_trace_next(t, &e, BP_TRACE_NEXT_ARGS_ONLY)) == 1) {
		if (e.ring >= nbound) {
			size_t want = e.ring + 64;
			uint64_t *grown = realloc(bound, want * sizeof(*bound));

			if (!grown)
				goto oom;
			memset(grown + nbound, 0, (want - nbound) * sizeof(*bound));
			bound = grown;
			nbound = want;
		}
		if (e.index + 1 > bound[e.ring])
			bound[e.ring] = e.index + 1;
	}
	nr = bp_trace_nrings(t);
	if (!(*carry = calloc(nr ? nr : 1, sizeof(**carry))))
		goto oom;
	for (size_t i = 0; i < nr; i++) {
		const struct bp_trace_ring *r = bp_trace_ring_at(t, i);
		struct bp_drain_carry *c = &(*carry)[*n];

		if (r->tid < 0 && !r->key)
			continue;	/* the retired rings' count: no ring of its own */
		c->ring_index = r->key;
		c->tid = r->tid;
		c->level = r->level;
		c->written = r->written;
		c->discarded = r->discarded;
		c->dropped = r->dropped;
		c->lost_records = r->lost_by_drainer;
		c->copied = r->read;
		c->bound = i < nbound ? bound[i] : 0;
		(*n)++;
	}
	free(bound);
	bp_trace_close(t);
	return 0;
oom:
	free(bound);
	bp_trace_close(t);
	snprintf(err, errlen, "out of memory");
	return BP_TRACE_ENOMEM;
}

int bp_trace_recover(const char *live_path, const char *out_path, unsigned flags,
		     struct bp_record_counts *counts, char *err, size_t errlen)
{
	struct bp_drain_file *df = NULL;
	struct bp_record_live live = BP_RECORD_LIVE_INIT;
	struct bp_drain_carry *carry = NULL;
	size_t ncarry = 0;
	int rc;

	if (errlen)
		err[0] = '\0';
	if (counts_unsized(counts))
		return BP_TRACE_EINVAL;
	if ((rc = bp_drain_open(live_path, &df, &live)) <= 0)
		return rc < 0 ? BP_TRACE_ENOMEM : BP_RECORD_E_NOT_READY;
	if ((flags & BP_RECORD_RESUME) &&
	    (rc = carry_of(out_path, &carry, &ncarry, err, errlen)) != 0) {
		bp_drain_free(df);
		return rc;
	}
	rc = flags & BP_RECORD_RESUME ? bp_drain_resume(df, out_path, 0, carry, ncarry)
				      : bp_drain_start(df, out_path, 0);
	free(carry);
	return drain_end(df, rc == 0 && bp_drain_finish(df, true) == 0, counts, err, errlen);
}
