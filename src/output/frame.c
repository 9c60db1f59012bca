/*
 * The exporters' frame (frame.h): bp_export(), its loop, and what every
 * exporter shares (writing, the reasons of failures, the format names).
 */
#include "output/frame.h"

#include "trace/safe_open.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* The formats: adding one is its file and its row here (docs/layout.md). */
extern const struct bp_exporter bp_exporter_tracedat, bp_exporter_chrome,
	bp_exporter_perfetto, bp_exporter_ctf;

static const struct bp_exporter *const exporters[] = {
	&bp_exporter_tracedat,
	&bp_exporter_chrome,
	&bp_exporter_perfetto,
	&bp_exporter_ctf,
};
#define NEXPORTERS (sizeof(exporters) / sizeof(exporters[0]))

static const struct bp_exporter *exporter_named(const char *name)
{
	for (size_t i = 0; name && i < NEXPORTERS; i++)
		if (!strcmp(name, exporters[i]->name))
			return exporters[i];
	return NULL;
}

int bp_export_write(struct bp_export *x, int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!x->err)
				x->err = w < 0 ? errno : ENOSPC;
			return BP_TRACE_EIO;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int bp_export_write_out(struct bp_export *x)
{
	int rc;

	if (x->out.oom)
		return BP_TRACE_ENOMEM;
	rc = bp_export_write(x, x->fd, x->out.p, x->out.len);
	x->out.len = 0;
	return rc;
}

int bp_export_fail(struct bp_export *x, int rc, const char *fmt, ...)
{
	va_list ap;

	if (x->errlen && (!x->errmsg[0] || rc == BP_TRACE_EIO)) {
		va_start(ap, fmt);
		bp_vsnprintf(x->errmsg, x->errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* Losses before records left out, per ring: shown before the next record
 * of the ring that is exported. */
struct carried {
	uint64_t *lost;
	size_t n;
};

/* Records lost before e, with those carried over from records of its ring
 * left out before it; 0 if out of memory (then they are not carried). */
static uint64_t lost_before(struct bp_export *x, struct carried *c, const struct bp_trace_event *e,
			    bool chosen)
{
	uint64_t lost = bp_out_lost_before(&x->lost, e);

	if (e->ring >= c->n && (lost || c->n)) {
		size_t n = e->ring + 1 > 2 * c->n ? e->ring + 1 : 2 * c->n;
		uint64_t *grown = realloc(c->lost, n * sizeof(*grown));

		if (!grown)
			return chosen ? lost : 0;
		memset(grown + c->n, 0, (n - c->n) * sizeof(*grown));
		c->lost = grown, c->n = n;
	}
	if (e->ring < c->n) {
		lost += c->lost[e->ring];
		c->lost[e->ring] = chosen ? 0 : lost;
	}
	return chosen ? lost : 0;
}

/* The frame's part of a record: its thread (and name), its losses. */
static int one_record(struct bp_export *x, const struct bp_exporter *ops,
		      const struct bp_trace_event *e, uint64_t lost)
{
	struct bp_export_rec r = { .lost = lost };
	const char *comm = e->comm ? e->comm : "";
	int rc;

	if (!(r.th = bp_out_thread_get(&x->thr, e->tid, &r.fresh)))
		return BP_TRACE_ENOMEM;
	/* a name is its first 16 bytes, as th->comm holds it; a kernel
	 * event's "<...>" (a thread whose name its events have not said yet)
	 * leaves a known name alone */
	if (strncmp(r.th->comm, comm, 16) && !(r.th->comm[0] && !strcmp(comm, "<...>"))) {
		size_t n = strnlen(comm, 16);

		r.renamed = true;
		memcpy(r.th->comm, comm, n);
		r.th->comm[n] = '\0';
	}
	if ((rc = ops->record(x, e, &r)) < 0)
		return rc;
	x->st.records++;
	x->st.lost += r.lost;
	r.th->records++;
	r.th->lost += r.lost;
	return 0;
}

/* A random seed, or BPRINT_EXPORT_SEED's number (reproducible exports). */
static uint64_t export_seed(void)
{
	const char *env = secure_getenv("BPRINT_EXPORT_SEED");
	uint64_t seed = 0;
	struct timespec ts;

	if (env && *env)
		return strtoull(env, NULL, 0);
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)getpid() << 48;
	}
	return seed;
}

/* The reason of rc when the exporter gave none. */
static void reason(struct bp_export *x, int rc)
{
	if (rc == BP_TRACE_EIO)
		bp_export_fail(x, rc, x->err ? "write error: %s" : "write error", strerror(x->err));
	else
		bp_export_fail(x, rc, "%s", rc == BP_TRACE_ENOMEM ? "out of memory"
					    : "reading the trace failed");
}

int bp_export_span(struct bp_export *x, const struct bp_export_span *s)
{
	int rc;

	if (!x->ops->span || s->to_ns < s->from_ns)
		return 0;
	if ((rc = x->ops->span(x, s)) == 0)
		x->st.spans++;
	return rc;
}

int bp_export_format_info(const char *name, struct bp_export_format_info *out)
{
	const struct bp_exporter *ops;

	if (!out || out->size < sizeof(*out))
		return BP_TRACE_EINVAL;	/* the first version's: all of it */
	if (!(ops = exporter_named(name)))
		return -1;
	out->flags = ops->flags | (ops->span ? BP_EXPORT_F_SPANS : 0u);
	out->name = ops->name;
	out->suffix = ops->suffix;
	out->noun = ops->noun;
	out->help = ops->help;
	return 0;
}

const char *bp_export_format_at(size_t i)
{
	return i < NEXPORTERS ? exporters[i]->name : NULL;
}

int bp_export_open(const char *name, const char *path, const char **why)
{
	const struct bp_exporter *ops = exporter_named(name);

	if (why)
		*why = NULL;
	if (!ops || !path) {
		errno = EINVAL;
		return -1;
	}
	if (ops->flags & BP_EXPORT_F_DIRECTORY)
		return bp_export_ctf_dir(path);
	return bp_open_output(path, BP_OPEN_REPLACE, why);
}

bool bp_export_has_spans(const char *format)
{
	const struct bp_exporter *ops = exporter_named(format);

	return ops && ops->span;
}

int bp_export(struct bp_trace *t, const char *format, int fd, struct bp_export_stats *st,
	      char *err, size_t errlen)
{
	return bp_export_with(t, format, fd, NULL, st, err, errlen);
}

int bp_export_with(struct bp_trace *t, const char *format, int fd,
		   const struct bp_export_opts *opts, struct bp_export_stats *st, char *err,
		   size_t errlen)
{
	const struct bp_exporter *ops = exporter_named(format);
	struct bp_export x = { .t = t, .info = bp_trace_info(t), .fd = fd, .errmsg = err,
			       .errlen = errlen, .ops = ops };
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	struct carried carried = { 0 };
	int rc;

	if (errlen)
		err[0] = '\0';
	if (!ops)
		return bp_export_fail(&x, BP_TRACE_EFORMAT, "no such export format");
	x.seed = export_seed();
	if (!(x.own = calloc(1, ops->size)) || bp_out_names_make(&x.names, t) != 0) {
		free(x.own);
		return bp_export_fail(&x, BP_TRACE_ENOMEM, "out of memory");
	}
	rc = ops->begin(&x);
	while (rc == 0 && (rc = bp_trace_next(t, &e, 0)) == 1) {
		bool chosen = !opts || !opts->chosen || opts->chosen(opts->arg, t, &e);
		uint64_t lost = lost_before(&x, &carried, &e, chosen);

		rc = chosen ? one_record(&x, ops, &e, lost) : 0;
		if (rc == 0 && opts && opts->observe)
			rc = opts->observe(opts->observe_arg, t, &e, &x);
	}
	free(carried.lost);
	rc = ops->end(&x, rc);
	if (rc == 0 && x.out.len)
		rc = bp_export_write_out(&x);
	if (rc < 0)
		reason(&x, rc);
	x.st.threads = (uint32_t)x.thr.n;
	if (st)
		*st = x.st;
	free(x.own);
	bp_out_names_free(&x.names);
	bp_out_free(&x.out);
	bp_out_threads_free(&x.thr);
	bp_out_lost_free(&x.lost);
	return rc;
}
