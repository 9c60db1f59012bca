/*
 * bprint record --trigger SITE [--where EXPR] --before T1 --after T2
 * [--max N] -o FILE, of a running process (--pid) or of a program record
 * starts (docs/attach.md, "Triggers").
 *
 * The program's rings stay in overwrite mode: nothing waits for us.  The
 * drainer of record --pid (<bprint/record.h>) runs in watch mode on the
 * process's live file: each page its passes copy comes here (on_page()),
 * where it is
 *   1. scanned, record by record, for the site id (and, with --where, the
 *      fields) of a match: one site-set lookup per record, a field decode
 *      only for the records of the matching sites;
 *   2. kept: a rolling copy of each ring's pages, the last T1 (and a
 *      margin) of the newest record's time, longer while a window waits,
 *      so that a window's records survive the ring's overwriting them.
 * A match at time t opens a window [t - T1, t + T2]; once T2 has passed
 * (and every ring has written past t + T2, or 100 ms more have) the
 * rings' current pages are copied too and the window's pages of every
 * ring are written as a stream file FILE.1, FILE.2, ...
 * (bp_drain_write_window()), up to N.  A match inside a window not yet
 * written belongs to it.  The passes copy the pages a ring completes;
 * a quiet thread's match may sit in its current page for long, so every
 * 20 ms without a page to copy, and when the watch ends, the rings'
 * current pages are scanned too.  What the watcher could not copy before the
 * ring overwrote it is counted, and each window counts its share in place.
 */
#include "bprint_cmd.h"
#include "supervise.h"
#include "attach.h"
#include "trigger.h"

#include <bprint/query.h>
#include <bprint/record.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KEEP_MARGIN_NS (50 * 1000000ull)	/* kept beyond T1: rings copied late */
#define CLOSE_SLACK_NS (2 * 1000000ull)		/* after T2: commits still on their way */
#define IDLE_WAIT_NS (100 * 1000000ull)		/* the longest wait for idle rings */
#define HEADS_EVERY_NS (20 * 1000000ull)	/* quiet rings' current pages scanned */
#define PENDING_MAX 16
#define SITE_IDS BP_DRAIN_SITE_IDS

/* A page kept: a copy, and what its records span. */
struct kept {
	uint64_t seq, first_rec, end_rec;
	uint64_t first_ns, last_ns;
	unsigned char *data;
};

/* One ring's kept pages, oldest first: p[head .. head + n). */
struct kring {
	uint32_t page_size;
	struct kept *p;
	size_t head, n, cap;
	uint64_t scanned;		/* the next record index to scan for matches */
	uint64_t expect;		/* end_rec of the last page seen (UINT64_MAX: none) */
	uint64_t dropped_end;		/* end_rec of the last page let go (UINT64_MAX: none) */
};

/* A window waiting for its T2 to pass. */
struct pending {
	uint64_t t_ns;			/* the match's time */
	uint64_t seen;			/* when we saw it (CLOCK_MONOTONIC) */
};

struct watcher {
	const struct trigger_opts *o;
	const char *out;
	const char *name;		/* the live file's, for messages */
	struct bp_drain_file *df;
	struct bp_trace *t;		/* the live file, for site names and field layouts */
	struct bp_sites *sel;
	struct bp_where *where;
	unsigned char *verdict;		/* per site id: 0 not asked, 1 no, 2 yes */
	unsigned char *refreshed;	/* per site id: the tables were refreshed for it */
	struct bp_drain_clock calib;
	uint64_t before, after, max;
	struct kring *rings;
	size_t nrings;
	uint64_t newest_ns;
	struct pending pend[PENDING_MAX];
	unsigned npend;
	unsigned written;		/* windows written */
	uint64_t matches, lost;
	bool failed;
	int rc;
};

static uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* ---- the options ---------------------------------------------------------- */

static bool duration_arg(const char *s, uint64_t *ns)
{
	if (s && !strcmp(s, "0")) {
		*ns = 0;
		return true;
	}
	return s && (*ns = bp_record_parse_duration(s)) != 0;
}

int trigger_check(const struct trigger_opts *o, char *err, size_t errlen)
{
	uint64_t ns;
	char *end;
	struct bp_where *w;

	if (!o->before || !duration_arg(o->before, &ns))
		return snprintf(err, errlen, "--before: expected a duration, like 5ms"), -1;
	if (!o->after || !duration_arg(o->after, &ns))
		return snprintf(err, errlen, "--after: expected a duration, like 5ms"), -1;
	if (o->max) {
		errno = 0;
		unsigned long long n = strtoull(o->max, &end, 10);

		if (end == o->max || *end || errno || n == 0 || n > 1000000)
			return snprintf(err, errlen, "--max: expected a number of windows, 1 or more"), -1;
	}
	if (o->where) {
		char why[256];

		if (!(w = bp_where_new(o->where, why, sizeof(why))))
			return snprintf(err, errlen, "--where: %s", why), -1;
		bp_where_free(w);
	}
	return 0;
}

/* ---- matching --------------------------------------------------------------- */

/* Is site id one of --trigger's?  Asked once per id (again after the
 * site tables grew: a site the program registered since). */
static bool site_chosen(struct watcher *wt, uint32_t id)
{
	if (!wt->verdict[id] && !bp_trace_site(wt->t, id) && !wt->refreshed[id]) {
		wt->refreshed[id] = 1;
		if (bp_trace_refresh(wt->t) == BP_TRACE_OK)
			memset(wt->verdict, 0, SITE_IDS);
	}
	if (!wt->verdict[id])
		wt->verdict[id] = bp_trace_site(wt->t, id) && bp_sites_match(wt->sel, wt->t, id) ? 2 : 1;
	return wt->verdict[id] == 2;
}

static bool matches(struct watcher *wt, const struct bp_drain_rec *a)
{
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	struct bp_field_value vals[64];
	int n;

	if (!a->site_id || !site_chosen(wt, a->site_id))
		return false;
	if (!wt->where)
		return true;
	if (a->text)
		return false;
	e.site_id = a->site_id;
	e.block = a->words;
	e.block_words = a->nwords;
	if ((n = bp_trace_event_fields(wt->t, &e, vals, 64)) < 0)
		return false;
	return bp_where_match_fields(wt->where, wt->t, a->site_id, vals, n > 64 ? 64 : (size_t)n) == 1;
}

/* A match at t_ns: a new window, unless a waiting one holds it. */
static void matched(struct watcher *wt, uint64_t t_ns)
{
	unsigned i;

	wt->matches++;
	for (i = 0; i < wt->npend; i++) {
		const struct pending *p = &wt->pend[i];

		if (t_ns + wt->before >= p->t_ns && t_ns <= p->t_ns + wt->after)
			return;
	}
	if (wt->written + wt->npend >= wt->max || wt->npend == PENDING_MAX)
		return;
	/* waiting windows in time order: a match may be seen after a later
	 * one (at attach the rings are read one after another) */
	for (i = wt->npend; i > 0 && wt->pend[i - 1].t_ns > t_ns; i--)
		wt->pend[i] = wt->pend[i - 1];
	wt->pend[i] = (struct pending){ t_ns, mono_ns() };
	wt->npend++;
}

/* ---- the pages kept ----------------------------------------------------------- */

static struct kring *ring_at(struct watcher *wt, size_t i)
{
	if (i >= wt->nrings) {
		size_t n = i + 8;
		struct kring *grown = realloc(wt->rings, n * sizeof(*grown));

		if (!grown)
			return NULL;
		for (size_t k = wt->nrings; k < n; k++)
			grown[k] = (struct kring){ .expect = UINT64_MAX, .dropped_end = UINT64_MAX };
		wt->rings = grown;
		wt->nrings = n;
	}
	return &wt->rings[i];
}

static struct kept *kept_add(struct kring *k, uint32_t page_size)
{
	struct kept *e;

	if (k->head && k->head + k->n == k->cap) {
		memmove(k->p, k->p + k->head, k->n * sizeof(*k->p));
		k->head = 0;
	}
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 64;
		struct kept *grown = realloc(k->p, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		k->p = grown;
		k->cap = cap;
	}
	e = &k->p[k->head + k->n];
	if (!(e->data = malloc(page_size)))
		return NULL;
	k->n++;
	return e;
}

/* A page from the drainer (bp_drain_watch()): scanned, then kept. */
static void on_page(void *arg, const struct bp_drain_page *pg)
{
	struct watcher *wt = arg;
	struct kring *k = ring_at(wt, pg->ring);
	struct bp_drain_page_iter it;
	struct bp_drain_rec ev;
	uint64_t first_rec, first_ns = UINT64_MAX, last_ns = 0, nrec = 0;
	struct kept *e;

	if (!k) {
		wt->failed = true;
		return;
	}
	if (bp_drain_page_begin(&it, pg->page, pg->page_size) != 0)
		return;
	first_rec = it.first_rec;
	while (bp_drain_page_next(&it, &ev) == 1) {
		uint64_t ns = bp_drain_clock_ns(&wt->calib, ev.ts);

		if (first_ns == UINT64_MAX)
			first_ns = ns;
		last_ns = ns;
		nrec++;
		if (ev.index >= k->scanned) {
			k->scanned = ev.index + 1;
			if (matches(wt, &ev))
				matched(wt, ns);
		}
	}
	if (!nrec)
		return;
	e = k->n ? &k->p[k->head + k->n - 1] : NULL;
	if (!e || e->seq != pg->seq) {	/* a new page, else the complete one of a partial */
		if (k->expect != UINT64_MAX && first_rec > k->expect)
			wt->lost += first_rec - k->expect;
		if (!(e = kept_add(k, pg->page_size))) {
			wt->failed = true;
			return;
		}
	}
	memcpy(e->data, pg->page, pg->page_size);
	k->page_size = pg->page_size;
	*e = (struct kept){ pg->seq, first_rec, it.next_rec, first_ns, last_ns, e->data };
	k->expect = it.next_rec;
	if (last_ns > wt->newest_ns)
		wt->newest_ns = last_ns;
}

/* Let go of pages older than any window can want: T1 (and a margin)
 * before the newest record, or before the oldest waiting match. */
static void trim(struct watcher *wt)
{
	uint64_t base = wt->newest_ns, thr;

	for (unsigned i = 0; i < wt->npend; i++)
		if (wt->pend[i].t_ns < base)
			base = wt->pend[i].t_ns;
	thr = base > wt->before + KEEP_MARGIN_NS ? base - wt->before - KEEP_MARGIN_NS : 0;
	for (size_t r = 0; r < wt->nrings; r++) {
		struct kring *k = &wt->rings[r];

		/* the oldest page goes once the next one starts before thr */
		while (k->n >= 2 && k->p[k->head + 1].first_ns <= thr) {
			k->dropped_end = k->p[k->head].end_rec;
			free(k->p[k->head].data);
			k->head++;
			k->n--;
		}
	}
}

/* ---- windows ---------------------------------------------------------------- */

/* The first of ring k's pages whose records reach from, k->n if none. */
static size_t first_reaching(const struct kring *k, uint64_t from)
{
	size_t i = 0;

	while (i < k->n && k->p[k->head + i].last_ns < from)
		i++;
	return i;
}

/* Ring k's pages of [from, to]: the first one whose records reach from
 * up to the last one that starts by to.  false if none. */
static bool window_pages(const struct kring *k, uint64_t from, uint64_t to, size_t *f, size_t *e)
{
	size_t i = first_reaching(k, from);

	if (i == k->n || k->p[k->head + i].first_ns > to)
		return false;
	*f = i;
	*e = i;
	while (*e + 1 < k->n && k->p[k->head + *e + 1].first_ns <= to)
		(*e)++;
	return true;
}

/*
 * No page of ring k lies in [from, to], but a later one follows a gap in
 * the record indexes: the ring overwrote records before we copied them,
 * and some may have been the window's.  Which ones cannot be known, so
 * the whole gap is the window's loss, said in place before the ring's
 * first record after it (a reader counts a gap where the next record
 * is; without this the window would hold none of the thread's records
 * and not say so).  *f: that page; *before: the index after the last
 * record kept, or let go, before it.
 */
static bool window_gap(const struct kring *k, uint64_t from, size_t *f, uint64_t *before)
{
	size_t i = first_reaching(k, from);

	if (i == k->n)
		return false;	/* nothing after the window yet */
	*before = i > 0 ? k->p[k->head + i - 1].end_rec : k->dropped_end;
	*f = i;
	return *before != UINT64_MAX && k->p[k->head + i].first_rec > *before &&
	       k->p[k->head + i].end_rec > k->p[k->head + i].first_rec;
}

/* A copy of a page cut to its first record: where a gap ends. */
static unsigned char *page_first_record(const struct kept *kp, uint32_t page_size)
{
	unsigned char *copy = malloc(page_size);

	if (copy && bp_drain_page_cut(memcpy(copy, kp->data, page_size), page_size, kp->first_rec,
				      kp->first_rec + 1, false, 0) != 0) {
		free(copy);
		copy = NULL;
	}
	return copy;
}

/* A copy of page cut to its records of [from_ns, to_ns] (bp_drain_page_cut()),
 * or NULL (out of memory, or a page that fails its checks: it goes whole). */
static unsigned char *window_cut(const struct watcher *wt, const unsigned char *page,
				 uint32_t page_size, uint64_t from_ns, uint64_t to_ns)
{
	struct bp_drain_page_iter it;
	struct bp_drain_rec ev;
	uint64_t first = UINT64_MAX, end = 0;
	uint32_t cpu = 0;
	bool has_cpu = false;
	unsigned char *copy;

	if (bp_drain_page_begin(&it, page, page_size) != 0)
		return NULL;
	while (bp_drain_page_next(&it, &ev) == 1) {
		uint64_t ns = bp_drain_clock_ns(&wt->calib, ev.ts);

		if (ns < from_ns) {
			/* the CPU as of the first record kept: the records
			 * dropped may be the only ones that say it */
			if (ev.has_cpu) {
				cpu = (uint32_t)ev.cpu;
				has_cpu = true;
			}
			continue;
		}
		if (ns > to_ns)
			break;
		if (first == UINT64_MAX)
			first = ev.index;
		end = ev.index + 1;
	}
	if (first == UINT64_MAX)
		first = end = it.next_rec;	/* none of its records: an empty page */
	if (!(copy = malloc(page_size)))
		return NULL;
	memcpy(copy, page, page_size);
	if (bp_drain_page_cut(copy, page_size, first, end, has_cpu, cpu) != 0) {
		free(copy);
		return NULL;
	}
	return copy;
}

static void window_summary(const struct watcher *wt, const char *name,
			   const struct bp_record_counts *res)
{
	fprintf(stderr, "%s: %s: the match at %.6f s, %g ms before to %g ms after: %llu record%s "
		"of %llu thread%s", prog, name, (double)wt->pend[0].t_ns / 1e9,
		(double)wt->before / 1e6, (double)wt->after / 1e6, (unsigned long long)res->copied,
		res->copied == 1 ? "" : "s", (unsigned long long)res->rings,
		res->rings == 1 ? "" : "s");
	if (res->lost_records)
		fprintf(stderr, ", %llu overwritten before they were copied",
			(unsigned long long)res->lost_records);
	fputc('\n', stderr);
}

/* Write the window of pend[0] as FILE.N. */
static int write_window(struct watcher *wt)
{
	const struct pending *p = &wt->pend[0];
	uint64_t from = p->t_ns > wt->before ? p->t_ns - wt->before : 0, to = p->t_ns + wt->after;
	struct bp_drain_window_ring *wr = calloc(wt->nrings ? wt->nrings : 1, sizeof(*wr));
	const void **pages = NULL;	/* each ring's, in turn */
	unsigned char **cut = calloc(2 * wt->nrings + 1, sizeof(*cut));
	size_t nwr = 0, npages = 0, used = 0;
	struct bp_record_counts res = BP_RECORD_COUNTS_INIT;
	char name[4096], err[256];
	int rc;

	for (size_t r = 0; r < wt->nrings; r++)
		npages += wt->rings[r].n;
	pages = calloc(npages ? npages : 1, sizeof(*pages));
	if (!wr || !pages || !cut) {
		free(wr);
		free(pages);
		free(cut);
		return out_of_memory();
	}
	for (size_t r = 0; r < wt->nrings; r++) {
		const struct kring *k = &wt->rings[r];
		const struct kept *kf, *ke;
		size_t f, e;

		if (!window_pages(k, from, to, &f, &e)) {
			uint64_t before;

			if (!window_gap(k, from, &f, &before) ||
			    !(cut[2 * nwr] = page_first_record(&k->p[k->head + f], k->page_size)))
				continue;
			wr[nwr] = (struct bp_drain_window_ring){ r, pages + used, 1, before };
			pages[used++] = cut[2 * nwr];
			nwr++;
			continue;
		}
		kf = &k->p[k->head + f];
		ke = &k->p[k->head + e];
		/* a first page that starts inside the window follows the last
		 * record kept before it: a gap there is the window's loss; one
		 * that starts before is cut, and what it drops is no loss */
		wr[nwr] = (struct bp_drain_window_ring){ r, pages + used, e - f + 1,
			kf->first_ns >= from ? (f > 0 ? kf[-1].end_rec : k->dropped_end) : UINT64_MAX };
		for (size_t i = f; i <= e; i++)
			pages[used++] = k->p[k->head + i].data;
		if (f == e && (kf->first_ns < from || kf->last_ns > to)) {
			if ((cut[2 * nwr] = window_cut(wt, kf->data, k->page_size, from, to)))
				pages[used - (e - f + 1)] = cut[2 * nwr];
		} else {
			if (kf->first_ns < from &&
			    (cut[2 * nwr] = window_cut(wt, kf->data, k->page_size, from, to)))
				pages[used - (e - f + 1)] = cut[2 * nwr];
			if (ke->last_ns > to &&
			    (cut[2 * nwr + 1] = window_cut(wt, ke->data, k->page_size, from, to)))
				pages[used - 1] = cut[2 * nwr + 1];
		}
		nwr++;
	}
	wt->written++;
	snprintf(name, sizeof(name), "%s.%u", wt->out, wt->written);
	if ((rc = clear_output(name)) == EXIT_OK) {
		if (bp_drain_write_window(wt->df, name, wr, nwr, &res, err, sizeof(err)) != 0) {
			errmsg(name, "%s", err);
			rc = EXIT_IO;
		} else if (!wt->o->quiet) {
			window_summary(wt, name, &res);
		}
	}
	for (size_t r = 0; r < 2 * nwr; r++)
		free(cut[r]);
	free(cut);
	free(wr);
	free(pages);
	memmove(wt->pend, wt->pend + 1, (wt->npend - 1) * sizeof(*wt->pend));
	wt->npend--;
	return rc;
}

/* Has every ring that wrote around the window written past its end? */
static bool rings_past(const struct watcher *wt, uint64_t from, uint64_t to)
{
	for (size_t r = 0; r < wt->nrings; r++) {
		const struct kring *k = &wt->rings[r];
		uint64_t last;

		if (!k->n)
			continue;
		last = k->p[k->head + k->n - 1].last_ns;
		if (last >= from && last <= to)
			return false;
	}
	return true;
}

/* Every ring's current page, partial, to the watcher: EXIT_OK, or EXIT_IO said. */
static int pass_heads(struct watcher *wt)
{
	if (bp_drain_pass_heads(wt->df) >= 0)
		return EXIT_OK;
	errmsg(wt->name, "%s", bp_drain_error(wt->df));
	return EXIT_IO;
}

/* Write the windows whose time has come (all of them, with force). */
static int close_due(struct watcher *wt, bool force)
{
	bool heads = false;

	while (wt->npend) {
		const struct pending *p = &wt->pend[0];
		uint64_t now = mono_ns(), from = p->t_ns > wt->before ? p->t_ns - wt->before : 0;
		int rc;

		if (!force && now < p->seen + wt->after + CLOSE_SLACK_NS)
			return EXIT_OK;
		if (!heads) {
			if ((rc = pass_heads(wt)) != EXIT_OK)
				return rc;
			heads = true;
		}
		if (!force && now < p->seen + wt->after + IDLE_WAIT_NS &&
		    !rings_past(wt, from, p->t_ns + wt->after))
			return EXIT_OK;
		if ((rc = write_window(wt)) != EXIT_OK)
			return rc;
	}
	return EXIT_OK;
}

/* ---- the watch -------------------------------------------------------------- */

static int watcher_init(struct watcher *wt, const struct trigger_opts *o, const char *out,
			const struct attach *a)
{
	char err[256];

	memset(wt, 0, sizeof(*wt));
	wt->o = o;
	wt->out = out;
	wt->name = a->name;
	duration_arg(o->before, &wt->before);
	duration_arg(o->after, &wt->after);
	wt->max = o->max ? strtoull(o->max, NULL, 10) : 1;
	if (!(wt->t = bp_trace_open(a->name, BP_TRACE_OPEN_DEFAULT, err, sizeof(err), NULL))) {
		errmsg(a->name, "%s", err);
		return EXIT_BADFILE;
	}
	wt->verdict = calloc(SITE_IDS, 1);
	wt->refreshed = calloc(SITE_IDS, 1);
	if (!wt->verdict || !wt->refreshed || !(wt->sel = bp_sites_new()) ||
	    bp_sites_add(wt->sel, o->site) != 0)
		return out_of_memory();
	if (o->where && !(wt->where = bp_where_new(o->where, err, sizeof(err))))
		return usage_error("record", "--where: %s", err);
	/* a field no chosen site has is an error, once the sites are there */
	if (wt->where && !bp_sites_unmatched(wt->sel, wt->t) &&
	    bp_where_check(wt->where, wt->t, wt->sel, err, sizeof(err)) != 0)
		return usage_error("record", "--where: %s", err);
	return EXIT_OK;
}

static void watcher_free(struct watcher *wt)
{
	for (size_t r = 0; r < wt->nrings; r++) {
		struct kring *k = &wt->rings[r];

		for (size_t i = 0; i < k->n; i++)
			free(k->p[k->head + i].data);
		free(k->p);
	}
	free(wt->rings);
	free(wt->verdict);
	free(wt->refreshed);
	bp_where_free(wt->where);
	bp_sites_free(wt->sel);
	bp_trace_close(wt->t);
}

static void watch_summary(const struct watcher *wt)
{
	fprintf(stderr, "%s: %s: %u window%s written, %llu match%s", prog, wt->out, wt->written,
		wt->written == 1 ? "" : "s", (unsigned long long)wt->matches,
		wt->matches == 1 ? "" : "es");
	if (wt->lost)
		fprintf(stderr, "; %llu records overwritten before the watcher copied them",
			(unsigned long long)wt->lost);
	fputc('\n', stderr);
}

int trigger_watch(struct attach *a, const char *arg, const char *out,
		  const struct trigger_opts *o, volatile sig_atomic_t *stop, uint64_t deadline,
		  bool *ended)
{
	struct bp_record_live live = BP_RECORD_LIVE_INIT;
	struct watcher wt;
	unsigned nap_us = 20;
	uint64_t heads_at = mono_ns();
	int rc, orc;

	*ended = false;
	if ((rc = attach_claim(a, arg)) != EXIT_OK) {
		close(a->fd);
		return rc;
	}
	if ((rc = watcher_init(&wt, o, out, a)) != EXIT_OK) {
		watcher_free(&wt);
		close(a->fd);
		return rc;
	}
	if ((orc = bp_drain_open_fd(a->fd, a->name, BP_DRAIN_RUNNING, &wt.df, &live)) <= 0) {
		watcher_free(&wt);
		return orc < 0 ? out_of_memory() : EXIT_NOTRACE;
	}
	bp_drain_watch(wt.df, on_page, &wt);
	bp_drain_short_slices();
	while (!*stop && (!deadline || mono_ns() < deadline) && !wt.failed) {
		long n;

		if (attach_ended(a)) {
			*ended = true;
			break;
		}
		bp_drain_calibration(wt.df, &wt.calib);
		if ((n = bp_drain_pass(wt.df)) < 0) {
			errmsg(a->name, "%s", bp_drain_error(wt.df));
			rc = EXIT_IO;
			break;
		}
		if ((rc = close_due(&wt, false)) != EXIT_OK)
			break;
		if (wt.written >= wt.max)
			break;
		trim(&wt);
		if (n > 0) {
			nap_us = 20;
			continue;
		}
		if (mono_ns() - heads_at >= HEADS_EVERY_NS) {
			/* a quiet thread's match, in a page it has not completed */
			if ((rc = pass_heads(&wt)) != EXIT_OK)
				break;
			heads_at = mono_ns();
			continue;
		}
		usleep(nap_us);
		if (nap_us < 1000)
			nap_us *= 2;
	}
	if (wt.failed) {
		rc = out_of_memory();
	} else if (rc == EXIT_OK) {
		/* stopped, or the process ended: its last matches may be in
		 * pages not completed; the windows waiting get what there is */
		if (wt.written < wt.max)
			rc = pass_heads(&wt);
		if (rc == EXIT_OK)
			rc = close_due(&wt, true);
	}
	if (!o->quiet)
		watch_summary(&wt);
	bp_drain_free(wt.df);	/* closes a->fd, and with it the lock */
	watcher_free(&wt);
	return rc;
}

/* ---- the two ways in ------------------------------------------------------ */

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

int trigger_pid(const char *arg, const char *out, const char *duration,
		const struct trigger_opts *o)
{
	struct sigaction sa;
	struct attach a;
	uint64_t dur = 0;
	bool ended;
	int rc;

	if (duration && !(dur = bp_record_parse_duration(duration)))
		return usage_error("record", "--duration: expected a duration, like 1s or 500ms");
	if ((rc = attach_open("record", arg, true, &a)) != EXIT_OK)
		return rc;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	rc = trigger_watch(&a, arg, out, o, &stop_signal, dur ? mono_ns() + dur : 0, &ended);
	if (rc == EXIT_OK && ended) {
		fprintf(stderr, "%s record: %s: the process exited while watched (the windows "
			"waiting hold its records up to its exit)\n", prog, arg);
		rc = EXIT_EXITED;
	}
	return rc;
}

int trigger_child(pid_t pid, const char *out, const struct trigger_opts *o,
		  volatile sig_atomic_t *stop)
{
	char arg[24], *path;
	struct attach a;
	bool ended;
	int rc;

	snprintf(arg, sizeof(arg), "%ld", (long)pid);
	/* its trace appears when libbprint starts in it */
	while (!(path = attach_path((long)pid))) {
		if (*stop)
			return EXIT_OK;
		if (!alive((long)pid)) {
			errmsg(NULL, "process %s ended before its trace could be watched "
			       "(is it linked with libbprint?)", arg);
			return EXIT_IO;
		}
		usleep(1000);
	}
	free(path);
	if ((rc = attach_open("record", arg, true, &a)) != EXIT_OK)
		return rc;
	return trigger_watch(&a, arg, out, o, stop, 0, &ended);
}
