/*
 * A trace file as trace-cmd's trace.dat, version 6 (docs/exporters.md).
 *
 * The file, in the order written:
 *
 *   magic, "6", endianness, long size 8, page size 4096
 *   header_page, header_event        the kernel's ring-buffer page layout
 *   ftrace formats: print            the event of the records that carry text
 *   event system "bprint"            one event per call site: its fields and
 *                                    the message (tracedat_events.c)
 *   the kernel's systems             sched, ...: the kernel's formats
 *   kallsyms                         a synthetic address per function, one
 *                                    per call site inside it (print's ip)
 *   printk formats                   none
 *   saved cmdlines                   "tid comm" for every thread
 *   cpu count, options (clock, the threads' counts), "flyrecord", the CPU
 *   table, the clock again (the v6 reader expects it after the table)
 *   per-CPU data                     pages of ring-buffer events
 *
 * Each record becomes one event on the page stream of its CPU (or, when
 * its CPU is unknown, of a lane of its own thread, numbered after the
 * real CPUs): its site's event, holding the values of its argument block
 * (read through the site layout) and its message, or, for a record that
 * carries text, of an unknown site, whose block does not give its
 * format's values or that does not fit a page, a print event (ip, the text
 * bprint formatted, cut to fit).  A kernel event (record --kernel) is
 * the kernel's event, its bytes as the kernel wrote them, under the
 * kernel's format (tracedat_events.c).  Gaps of 2^27 ns or more between two
 * events of a page take a time-extend event; records lost before an event
 * (discarded, overwritten) start a new page with the kernel's
 * missed-events flag and count.  Timestamps are the exact nanoseconds.
 */
#include "output/tracedat.h"

#include "reader/site_layout.h"
#include "trace/clock.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE		BP_KPAGE
#define MAX_PAYLOAD	BP_KPAGE_MAX_PAYLOAD
#define PRINT_HDR	16u		/* common fields, ip */
#define MAX_CPU		4096

/* ---- per-CPU page streams ------------------------------------------------- */

/* A blob with a u64 length in front. */
static void blob64(struct bp_out_buf *b, const struct bp_out_buf *text)
{
	bp_out_put64(b, text->len);
	bp_out_put(b, text->p, text->len);
}

/* A spool call failed with errno set. */
static int spool_failed(struct ex *x)
{
	if (errno == ENOMEM)
		return bp_export_fail(x->fx, BP_TRACE_ENOMEM, "out of memory");
	return bp_export_fail(x->fx, BP_TRACE_EIO, "scratch file: %s", strerror(errno));
}

static struct bp_kstream *stream_for(struct ex *x, int32_t cpu, struct bp_out_thread *th)
{
	if (cpu >= 0 && cpu < MAX_CPU) {
		if ((size_t)cpu >= x->ncpu) {
			size_t n = (size_t)cpu + 1;
			struct bp_kstream **a = realloc(x->cpu, n * sizeof(*a));

			if (!a)
				return NULL;
			memset(a + x->ncpu, 0, (n - x->ncpu) * sizeof(*a));
			x->cpu = a;
			x->ncpu = n;
		}
		if (!x->cpu[cpu])
			x->cpu[cpu] = bp_kstream_new(cpu);
		return x->cpu[cpu];
	}
	if (!th->lane) {
		struct bp_kstream **a = realloc(x->lanes, (x->nlanes + 1) * sizeof(*a));

		if (!a)
			return NULL;
		x->lanes = a;
		if (!(th->lane = bp_kstream_new(-1)))
			return NULL;
		x->lanes[x->nlanes++] = th->lane;
	}
	return th->lane;
}

/* ---- one record ------------------------------------------------------------ */

/* The common fields: the event's type, the thread. */
static void put_common(unsigned char *pl, uint16_t type, int32_t pid)
{
	memset(pl, 0, 8);
	memcpy(pl, &type, 2);
	memcpy(pl + 4, &pid, 4);
}

/* A __data_loc field at loc: the text at *end, with its NUL. */
static bool put_text(unsigned char *pl, size_t *end, uint16_t loc, const char *text, size_t n)
{
	uint32_t word = (uint32_t)((n + 1) << 16 | *end);

	if (*end + n + 1 > MAX_PAYLOAD)
		return false;
	memcpy(pl + loc, &word, 4);
	memcpy(pl + *end, text, n);
	pl[*end + n] = '\0';
	*end += n + 1;
	return true;
}

/* The text of field k (a string, a double's digits, %pS's symbol). */
static size_t field_text(struct ex *x, const struct bp_trace_layout *lay, unsigned k,
			 const struct bp_field_value *v, const char **text)
{
	char letter = bp_out_symbol_letter(lay, k);
	int n;

	if (lay->fields[k].type == BP_FIELD_STRING) {
		*text = v->s;
		return strnlen(v->s, v->len);
	}
	*text = x->text[k];
	if (letter)
		return bp_out_symbol(x->fx->t, letter, v->v.u, x->text[k], sizeof(x->text[k]));
	n = snprintf(x->text[k], sizeof(x->text[k]), "%.17g", v->v.d);
	return n > 0 ? (size_t)n : 0;
}

/* Record e as its site's event into x->payload: its length, or 0 if it
 * cannot be one (no values, or more than a page). */
static size_t site_event(struct ex *x, const struct td_event *ev, const struct bp_trace_event *e)
{
	struct bp_field_value v[BP_PLAN_MAX_ARGS];
	const struct bp_trace_layout *lay = ev->lay;
	unsigned char *pl = x->payload;
	unsigned n = lay->nfields;
	size_t end = ev->fixed;

	if (e->text || bp_site_layout_decode(bp_site_layout_of(lay), e->block, e->block_words, v,
					     BP_PLAN_MAX_ARGS) != (int)n)
		return 0;
	put_common(pl, ev->id, e->tid);
	memset(pl + 8, 0, ev->fixed - 8u);
	for (unsigned k = 0; k < n; k++) {
		unsigned char *at = pl + ev->field[k].offset;
		const char *text;
		size_t len;

		switch (ev->field[k].kind) {
		case TD_NUMBER:	/* the low bytes, in the host's (the file's) order */
			memcpy(at, &v[k].v, lay->fields[k].size);
			break;
		case TD_POINTER:
			memcpy(at, &v[k].v.u, 8);
			break;
		case TD_CHAR:
			at[0] = (unsigned char)v[k].v.u;
			break;
		default:
			len = field_text(x, lay, k, &v[k], &text);
			if (!put_text(pl, &end, ev->field[k].offset, text, len))
				return 0;
		}
	}
	if (!put_text(pl, &end, ev->msg_loc, e->message,
		      strnlen(e->message, e->message_len)))
		return 0;
	return end;
}

/* Record e as a print event: ip, and the message, cut to fit a page. */
static size_t print_event(struct ex *x, const struct bp_trace_event *e)
{
	const struct td_site *si = e->site_id < x->nsites && e->site ? &x->sites[e->site_id]
									  : NULL;
	uint64_t ip = si ? si->ip : x->unknown_ip;
	unsigned char *pl = x->payload;
	size_t mlen = e->message_len;

	put_common(pl, TD_ID_PRINT, e->tid);
	memcpy(pl + 8, &ip, 8);
	if (PRINT_HDR + mlen + 1 > MAX_PAYLOAD) {
		mlen = MAX_PAYLOAD - PRINT_HDR - 1;
		x->fx->st.truncated++;
	}
	memcpy(pl + PRINT_HDR, e->message, mlen);
	pl[PRINT_HDR + mlen] = '\0';
	return PRINT_HDR + mlen + 1;
}

/* A kernel event whose format the file has, as the kernel wrote it: its
 * length, or 0 if it is none. */
static size_t kernel_event(struct ex *x, const struct bp_trace_event *e)
{
	size_t len = 0;
	const void *raw = e->site_id < x->nsites && x->sites[e->site_id].kernel
			  ? bp_trace_kernel_raw(x->fx->t, &len) : NULL;

	if (!raw || len < 8 || len > MAX_PAYLOAD)
		return 0;
	memcpy(x->payload, raw, len);
	return len;
}

static int tracedat_record(struct bp_export *fx, const struct bp_trace_event *e,
			   const struct bp_export_rec *r)
{
	struct ex *x = fx->own;
	const struct td_event *ev = e->site_id < x->nsites && e->site
				    ? x->sites[e->site_id].ev : NULL;
	struct bp_kstream *s = stream_for(x, e->cpu, r->th);
	size_t len = kernel_event(x, e);

	if (!s)
		return BP_TRACE_ENOMEM;
	if (len) {
		fx->st.kernel++;
	} else if (ev && (len = site_event(x, ev, e)) != 0) {
		fx->st.site_events++;
	} else {
		len = print_event(x, e);
		fx->st.print++;
	}
	while (len & 3)
		x->payload[len++] = 0;
	if (bp_kstream_append(&x->spool, s, e->ns, r->lost, x->payload, len) < 0)
		return spool_failed(x);
	return 0;
}

/* ---- the file ----------------------------------------------------------- */

/* trace-cmd prints seconds only for some clock names: the nearest one
 * (the clock table's tracecmd_name). */
static const char *clock_for(uint32_t clock)
{
	const struct bp_clock_desc *d = bp_clock_desc((enum bp_clock_id)clock);

	return d ? d->tracecmd_name : "global";
}

/* s's pages, in order, to the output. */
static int copy_stream(struct ex *x, const struct bp_kstream *s, unsigned char *tmp,
		       size_t tmp_pages)
{
	for (size_t i = 0; i < s->npages; i += tmp_pages) {
		size_t n = s->npages - i < tmp_pages ? s->npages - i : tmp_pages;
		int rc;

		if (bp_kstream_read(&x->spool, s, i, n, tmp) < 0)
			return spool_failed(x);
		if ((rc = bp_export_write(x->fx, x->fx->fd, tmp, n * PAGE)) < 0)
			return rc;
	}
	return 0;
}

/* Every stream's last page to the spool. */
static int flush_streams(struct ex *x)
{
	for (size_t i = 0; i < x->ncpu; i++)
		if (x->cpu[i] && bp_kstream_flush(&x->spool, x->cpu[i]) < 0)
			return spool_failed(x);
	for (size_t i = 0; i < x->nlanes; i++)
		if (bp_kstream_flush(&x->spool, x->lanes[i]) < 0)
			return spool_failed(x);
	x->fx->st.pages = x->spool.pages;
	return 0;
}

/* The file's CPUs: the recorded CPUs (NULL where none ran), then the lanes. */
static struct bp_kstream **streams_in_order(struct ex *x, size_t ncpus)
{
	struct bp_kstream **order = calloc(ncpus, sizeof(*order));
	size_t k = 0;

	if (!order)
		return NULL;
	for (size_t i = 0; i < x->ncpu; i++)
		order[k++] = x->cpu[i];
	for (size_t i = 0; i < x->nlanes; i++)
		order[k++] = x->lanes[i];
	return order;
}

/* Saved cmdlines: "tid comm" for every thread with a name. */
static void put_cmdlines(struct bp_out_buf *cmd, const struct bp_out_threads *thr)
{
	for (size_t i = 0; i < thr->cap; i++) {
		const struct bp_out_thread *th = &thr->slot[i];

		if (!th->used || !th->comm[0])
			continue;
		bp_out_putf(cmd, "%d ", th->tid);
		for (const char *c = th->comm; *c; c++)
			bp_out_byte(cmd, *c == '\n' ? '?' : (unsigned char)*c);
		bp_out_puts(cmd, "\n");
	}
}

static int by_tid(const void *a, const void *b)
{
	int32_t x = (*(const struct bp_out_thread *const *)a)->tid;
	int32_t y = (*(const struct bp_out_thread *const *)b)->tid;

	return x < y ? -1 : x > y;
}

/* CPUSTAT's text, which trace-cmd report --stat prints as it is: per
 * thread (bprint's rings are per thread), its records and those lost
 * before them, in tid order. */
static void put_thread_stats(struct bp_out_buf *b, const struct bp_out_threads *thr)
{
	const struct bp_out_thread **v = malloc((thr->n + 1) * sizeof(*v));
	size_t n = 0;

	if (!v) {
		b->oom = true;
		return;
	}
	for (size_t i = 0; i < thr->cap; i++)
		if (thr->slot[i].used)
			v[n++] = &thr->slot[i];
	qsort(v, n, sizeof(*v), by_tid);
	bp_out_puts(b, "bprint: per thread, the records exported and the records lost before them\n");
	for (size_t i = 0; i < n; i++) {
		bp_out_putf(b, "thread: %d", v[i]->tid);
		if (v[i]->comm[0])
			bp_out_putf(b, " (%s)", v[i]->comm);
		bp_out_putf(b, "\nrecords: %llu\nlost: %llu\n", (unsigned long long)v[i]->records,
			    (unsigned long long)v[i]->lost);
	}
	bp_out_byte(b, 0);
	free(v);
}

/* The options: the clock ("[mono]", the trailer) and the threads' counts.
 * No OFFSET: the data holds the exact nanoseconds. */
static void put_options(struct bp_out_buf *opt, const char *trailer,
			const struct bp_out_threads *thr)
{
	struct bp_out_buf stats = { 0 };

	bp_out_put16(opt, 4);				/* TRACECLOCK */
	bp_out_put32(opt, (uint32_t)strlen(trailer) + 1);
	bp_out_put(opt, trailer, strlen(trailer) + 1);
	put_thread_stats(&stats, thr);
	bp_out_put16(opt, 2);				/* CPUSTAT */
	bp_out_put32(opt, (uint32_t)stats.len);
	bp_out_put(opt, stats.p, stats.len);
	opt->oom |= stats.oom;
	bp_out_free(&stats);
	bp_out_put16(opt, 0);
}

/* Everything before the CPU table, up to "flyrecord". */
static void put_header(struct bp_out_buf *h, const struct ex *x, const struct bp_out_buf *cmd,
		       const struct bp_out_buf *opt, size_t ncpus)
{
	uint16_t one = 1;

	bp_out_put(h, "\x17\x08\x44tracing", 10);
	bp_out_put(h, "6", 2);
	bp_out_put(h, *(const char *)&one ? "\0" : "\1", 1);
	bp_out_put(h, "\x08", 1);
	bp_out_put32(h, PAGE);
	td_put_page_formats(h);
	bp_out_put(h, x->formats.p, x->formats.len);	/* event systems */
	bp_out_put32(h, (uint32_t)x->kallsyms.len);
	bp_out_put(h, x->kallsyms.p, x->kallsyms.len);
	bp_out_put32(h, 0);				/* printk formats: none */
	blob64(h, cmd);
	bp_out_put32(h, (uint32_t)ncpus);
	bp_out_put(h, "options  ", 10);
	bp_out_put(h, opt->p, opt->len);
	bp_out_put(h, "flyrecord", 10);
}

/* The CPU table (offset and size of each CPU's pages), the clock again, and
 * zeros up to the page where the data starts. */
static void put_cpu_table(struct bp_out_buf *h, struct bp_kstream **order, size_t ncpus,
			  const char *trailer)
{
	/* the offsets need the header's final size: the table and the clock */
	uint64_t off = h->len + 16 * ncpus + 8 + strlen(trailer);

	off = (off + PAGE - 1) / PAGE * PAGE;
	for (size_t i = 0; i < ncpus; i++) {
		uint64_t size = order[i] ? order[i]->npages * (uint64_t)PAGE : 0;

		bp_out_put64(h, off);
		bp_out_put64(h, size);
		off += size;
	}
	bp_out_put64(h, strlen(trailer));
	bp_out_puts(h, trailer);
	while (h->len % PAGE)
		bp_out_byte(h, 0);
}

/* The header (in the frame's buffer), then every CPU's pages in the order
 * of the table. */
static int write_file(struct ex *x, struct bp_kstream **order, size_t ncpus, unsigned char *tmp)
{
	int rc = bp_export_write_out(x->fx);

	for (size_t i = 0; i < ncpus && rc == 0; i++)
		if (order[i])
			rc = copy_stream(x, order[i], tmp, 16);
	return rc;
}

/* After the last record: the header with its tables, then the pages. */
static int finish(struct ex *x)
{
	struct bp_export *fx = x->fx;
	struct bp_out_buf cmd = { 0 }, opt = { 0 };
	struct bp_kstream **order;
	size_t ncpus;
	char trailer[32];
	unsigned char *tmp;
	int rc;

	if ((rc = flush_streams(x)) != 0)
		return rc;
	ncpus = x->ncpu + x->nlanes;
	if (!ncpus)
		ncpus = 1;
	order = streams_in_order(x, ncpus);
	tmp = malloc(16 * PAGE);
	if (!order || !tmp) {
		free(order);
		free(tmp);
		return BP_TRACE_ENOMEM;
	}
	put_cmdlines(&cmd, &fx->thr);
	fx->st.cpus = (uint32_t)ncpus;
	bp_snprintf(trailer, sizeof(trailer), "[%s]", clock_for(fx->info->clock));
	put_options(&opt, trailer, &fx->thr);
	put_header(&fx->out, x, &cmd, &opt, ncpus);
	put_cpu_table(&fx->out, order, ncpus, trailer);
	if (cmd.oom || opt.oom)
		rc = BP_TRACE_ENOMEM;
	else
		rc = write_file(x, order, ncpus, tmp);
	bp_out_free(&cmd);
	bp_out_free(&opt);
	free(order);
	free(tmp);
	return rc;
}

static int tracedat_begin(struct bp_export *fx)
{
	struct ex *x = fx->own;

	x->fx = fx;
	if (bp_kspool_open(&x->spool) < 0)
		return bp_export_fail(fx, BP_TRACE_EIO, "scratch file: %s", strerror(errno));
	return td_declare(x);
}

static int tracedat_end(struct bp_export *fx, int rc)
{
	struct ex *x = fx->own;

	if (rc == 0)
		rc = finish(x);
	bp_kspool_close(&x->spool);
	for (size_t i = 0; i < x->ncpu; i++)
		bp_kstream_free(x->cpu[i]);
	for (size_t i = 0; i < x->nlanes; i++)
		bp_kstream_free(x->lanes[i]);
	free(x->cpu);
	free(x->lanes);
	free(x->sites);
	free(x->events);
	bp_out_free(&x->kallsyms);
	bp_out_free(&x->formats);
	return rc;
}

const struct bp_exporter bp_exporter_tracedat = {
	.name = "trace-cmd",
	.help = "trace.dat (version 6) for trace-cmd report and\n"
		"KernelShark: an event per call site, its\n"
		"arguments as fields (trace-cmd report -R)\n"
		"(KernelShark opens only names ending in .dat)",
	.size = sizeof(struct ex),
	.begin = tracedat_begin,
	.record = tracedat_record,
	.end = tracedat_end,
	.flags = BP_EXPORT_F_BINARY,
	.suffix = ".dat",	/* KernelShark opens no other */
	.noun = "a trace.dat",
};
