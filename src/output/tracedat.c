/*
 * A trace file as trace-cmd's trace.dat, version 6 (docs/exporters.md).
 *
 * The file, in the order written:
 *
 *   magic, "6", endianness, long size 8, page size 4096
 *   header_page, header_event        the kernel's ring-buffer page layout
 *   ftrace formats: print, bprint    the two events every record is one of
 *   0 event systems
 *   kallsyms                         a synthetic address per function, one
 *                                    per call site inside it (the ip)
 *   printk formats                   a synthetic address per decodable
 *                                    format (the fmt field)
 *   saved cmdlines                   "tid comm" for every thread
 *   cpu count, options (clock, offset), "flyrecord", the CPU table, the
 *   clock again (the v6 reader expects it after the table)
 *   per-CPU data                     pages of ring-buffer events
 *
 * Each record becomes one event on the page stream of its CPU (or, when
 * its CPU is unknown, of a lane of its own thread, numbered after the
 * real CPUs): a bprint event (ip, fmt, the argument block) when
 * libtraceevent can decode its format the way bprint does, else a print
 * event (ip, the text bprint formatted).  Gaps of 2^27 ns or more between
 * two events of a page take a time-extend event; records lost before an
 * event (discarded, overwritten) start a new page with the kernel's
 * missed-events flag and count.
 *
 * A bprint event carries the record's own argument block, as the reader
 * hands it over (bp_trace_event.block): the layout of our blocks is the
 * kernel's vbin_printf layout that libtraceevent decodes.  A record whose
 * message is not the exact decode of its block (cut, or a block that did
 * not match its format) is written as text.  Either way the event reads
 * as bprint reads it.
 *
 * Timestamps: trace-cmd report rounds nanoseconds to the nearest
 * microsecond, bprint report truncates.  The data holds the exact
 * nanoseconds and the file's OFFSET option (-500 ns, added by the reader)
 * makes the rounding agree with the truncation.
 */
#include "output/frame.h"
#include "output/kpages.h"

#include "file/site_layout.h"
#include "trace/clock.h"
#include "trace/record.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE		BP_KPAGE
#define MAX_PAYLOAD	BP_KPAGE_MAX_PAYLOAD
#define ID_PRINT	5u
#define ID_BPRINT	6u
#define EV_HDR		24u		/* common fields, ip, fmt */
#define MAX_CPU		4096
#define FUNC_BASE	0x0000100000000000ull
#define FMT_BASE	0x0000200000000000ull

/* A blob with a u64 length in front. */
static void blob64(struct bp_out_buf *b, const struct bp_out_buf *text)
{
	bp_out_put64(b, text->len);
	bp_out_put(b, text->p ? text->p : (const unsigned char *)"", text->len);
}

/* ---- which formats libtraceevent reads as bprint does ------------------- */

/* The rule of bp_export_decodable(), on a site layout's tokens. */
static bool decodable(const struct bp_site_layout *l)
{
	const unsigned bad_flags = BP_FLAG_LEFT | BP_FLAG_PLUS | BP_FLAG_SPACE;

	if (l->puts || !l->tokens)
		return false;
	for (const unsigned char *c = (const unsigned char *)l->format; *c; c++)
		if ((*c < 0x20 && *c != '\t') || *c == 0x7f)
			return false;
	for (size_t i = 0; i < l->ntokens; i++) {
		const struct bp_printf_spec *spec = &l->tokens[i].spec;
		uint32_t n = l->tokens[i].len;

		switch (spec->type) {
		case BP_FMT_NONE:
			return true;
		case BP_FMT_LITERAL:
		case BP_FMT_WIDTH:
		case BP_FMT_PRECISION:
			break;
		case BP_FMT_PERCENT:
			if (n != 2)
				return false;
			break;
		case BP_FMT_INT:
			if ((spec->flags & bad_flags) ||
			    (spec->length != BP_LEN_NONE && spec->length != BP_LEN_L &&
			     spec->length != BP_LEN_LL && spec->length != BP_LEN_Z))
				return false;
			break;
		case BP_FMT_STR:
			if (spec->flags & (bad_flags | BP_FLAG_ZERO | BP_FLAG_ALT))
				return false;
			break;
		case BP_FMT_PTR: {
			unsigned char next = (unsigned char)l->format[l->tokens[i].offset + n];

			/* libtraceevent takes %p<letter> for an extension */
			if (n != 2 || (next >= '0' && next <= '9') ||
			    ((next | 0x20) >= 'a' && (next | 0x20) <= 'z') || next == '_')
				return false;
			break;
		}
		default:	/* c, floats, n, invalid tokens */
			return false;
		}
	}
	return true;
}

int bp_export_decodable(const char *fmt)
{
	struct bp_site_layout *l = fmt ? bp_site_layout_new(0, BPRINT__SITE_PRINTK, fmt) : NULL;
	int yes = l && decodable(l);

	bp_site_layout_free(l);
	return yes;
}

/* ---- per-CPU page streams ------------------------------------------------- */

struct site_info {
	uint64_t ip, fmt;
	bool decodable;
};

struct ex {
	struct bp_export *fx;
	struct bp_kspool spool;
	struct bp_kstream **cpu;	/* by recorded CPU */
	size_t ncpu;
	struct bp_kstream **lanes;	/* threads' lanes (fx->thr's lane) */
	size_t nlanes;
	struct site_info *sites;	/* by site id */
	size_t nsites;
	uint64_t unknown_ip;
	struct bp_out_buf kallsyms, printk;
	unsigned char payload[PAGE];
};

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

/* ---- sites, symbols, formats ---------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path ? path : "";
}

static const char *module_of(struct bp_trace *t, uint32_t lib)
{
	const char *m = "";

	for (size_t i = 0; lib && i < bp_trace_nlibs(t); i++) {
		const struct bp_trace_lib *l = bp_trace_lib_at(t, i);

		if (l && l->index == lib)
			m = base_name(l->path);
	}
	return *m ? m : bp_trace_info(t)->comm;
}

static int by_func(const void *a, const void *b)
{
	const struct bp_trace_site *x = *(const struct bp_trace_site *const *)a;
	const struct bp_trace_site *y = *(const struct bp_trace_site *const *)b;
	int c = strcmp(x->site.func ? x->site.func : "?", y->site.func ? y->site.func : "?");

	if (!c)
		c = strcmp(x->site.file ? x->site.file : "", y->site.file ? y->site.file : "");
	if (!c)
		c = x->lib < y->lib ? -1 : x->lib > y->lib;
	if (!c)
		c = x->site.id < y->site.id ? -1 : x->site.id > y->site.id;
	return c;
}

static bool same_func(const struct bp_trace_site *a, const struct bp_trace_site *b)
{
	return !strcmp(a->site.func ? a->site.func : "?", b->site.func ? b->site.func : "?") &&
	       !strcmp(a->site.file ? a->site.file : "", b->site.file ? b->site.file : "") &&
	       a->lib == b->lib;
}

/* A format as one printk_formats line: C escapes for what libtraceevent undoes. */
static void put_escaped(struct bp_out_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			bp_out_puts(b, "\\\\");
		else if (*s == '\t')
			bp_out_puts(b, "\\t");
		else
			bp_out_byte(b, (unsigned char)*s);
	}
}

/* Whether libtraceevent formats site s's records as bprint does. */
static bool site_decodable(struct bp_trace *t, const struct bp_trace_site *s)
{
	const struct bp_site_layout *l = bp_trace_site_layout(t, s->site.id);

	return s->site.kind == BPRINT__SITE_PRINTK && l && decodable(l);
}

/* Synthetic kernel addresses for every site of the table (kallsyms, the
 * ip of its events): functions get consecutive addresses in name order,
 * each site of a function one 16 bytes apart; a format address (printk
 * formats) for each site written as bprint events. */
static int address_sites(struct ex *x)
{
	struct bp_trace *t = x->fx->t;
	size_t n = bp_trace_nsites(t);
	uint32_t max = bp_trace_max_site_id(t);
	const struct bp_trace_site **v = calloc(n ? n : 1, sizeof(*v));
	uint64_t addr = FUNC_BASE, fmt = FMT_BASE;

	x->nsites = (size_t)max + 1;
	x->sites = calloc(x->nsites, sizeof(*x->sites));
	if (!v || !x->sites) {
		free(v);
		return BP_TRACE_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = bp_trace_site_at(t, i);
	qsort(v, n, sizeof(*v), by_func);
	/* records of sites missing from the table: their function is "?", as
	 * bprint report prints it */
	x->unknown_ip = addr;
	bp_out_putf(&x->kallsyms, "%016llx T ?\n", (unsigned long long)addr);
	addr += 0x100;
	for (size_t i = 0; i < n; i++) {
		const struct bp_trace_site *s = v[i];
		struct site_info *si;

		if (i == 0 || !same_func(s, v[i - 1])) {
			addr = (addr + 0xff) & ~0xffull;
			bp_out_putf(&x->kallsyms, "%016llx T %s\t[%s]\n", (unsigned long long)addr,
				    s->site.func ? s->site.func : "?", module_of(t, s->lib));
		}
		if (s->site.id >= x->nsites)
			continue;
		si = &x->sites[s->site.id];
		si->ip = addr;
		addr += 0x10;
		si->decodable = site_decodable(t, s);
		if (si->decodable) {
			si->fmt = fmt;
			bp_out_putf(&x->printk, "0x%llx : \"", (unsigned long long)fmt);
			put_escaped(&x->printk, s->site.format);
			bp_out_puts(&x->printk, "\"\n");
			fmt += (strlen(s->site.format) + 8) & ~(size_t)7;
		}
	}
	/* the last symbol matches only its own address: end the last function */
	addr = (addr + 0xff) & ~0xffull;
	bp_out_putf(&x->kallsyms, "%016llx T _etext\n", (unsigned long long)addr);
	free(v);
	return x->kallsyms.oom || x->printk.oom ? BP_TRACE_ENOMEM : 0;
}

/* ---- one record ------------------------------------------------------------ */

static int tracedat_record(struct bp_export *fx, const struct bp_trace_event *e,
			   const struct bp_export_rec *r)
{
	struct ex *x = fx->own;
	const struct site_info *si = e->site_id < x->nsites && e->ev.site ? &x->sites[e->site_id]
									: NULL;
	struct bp_kstream *s;
	unsigned char *pl = x->payload;
	uint16_t type = ID_PRINT;
	uint64_t ip = si ? si->ip : x->unknown_ip;
	size_t len = 0, blen = 0;
	int32_t pid = e->ev.tid;

	if (!(s = stream_for(x, e->ev.cpu, r->th)))
		return BP_TRACE_ENOMEM;
	/* The recorded block as it is, when libtraceevent decodes it as we do. */
	blen = e->block_words * 4;
	if (si && si->decodable && e->exact && !e->text && blen <= MAX_PAYLOAD - EV_HDR)
		type = ID_BPRINT;
	memset(pl, 0, EV_HDR);
	memcpy(pl, &type, 2);
	memcpy(pl + 4, &pid, 4);
	memcpy(pl + 8, &ip, 8);
	if (type == ID_BPRINT) {
		memcpy(pl + 16, &si->fmt, 8);
		memcpy(pl + EV_HDR, e->block, blen);
		len = EV_HDR + blen;
		x->fx->st.bprint++;
	} else {
		size_t mlen = e->ev.message_len;

		if (16 + mlen + 1 > MAX_PAYLOAD) {
			mlen = MAX_PAYLOAD - 16 - 1;
			x->fx->st.truncated++;
		}
		memcpy(pl + 16, e->ev.message, mlen);
		pl[16 + mlen] = '\0';
		len = 16 + mlen + 1;
		x->fx->st.print++;
	}
	while (len & 3)
		pl[len++] = 0;
	if (bp_kstream_append(&x->spool, s, e->ev.ns, r->lost, pl, len) < 0)
		return spool_failed(x);
	return 0;
}

/* ---- the file ----------------------------------------------------------- */

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

static const char header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

#define COMMON_FIELDS \
	"format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n" \
	"\n" \
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"

static const char print_format[] =
	"name: print\n"
	"ID: 5\n"
	COMMON_FIELDS
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:1;\n"
	"\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

static const char bprint_format[] =
	"name: bprint\n"
	"ID: 6\n"
	COMMON_FIELDS
	"\tfield:const char * fmt;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 buf[];\toffset:24;\tsize:0;\tsigned:0;\n"
	"\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->fmt\n";

/* trace-cmd prints seconds only for some clock names: the nearest one. */
static const char *clock_for(uint32_t clock)
{
	switch (clock) {
	case BP_CLOCK_MONO: return "mono";
	case BP_CLOCK_MONO_RAW: return "mono_raw";
	case BP_CLOCK_TSC: return "mono";	/* calibrated to CLOCK_MONOTONIC's nanoseconds */
	default: return "global";		/* boot, counter: "boot" would print raw numbers */
	}
}

static void blob_text(struct bp_out_buf *b, const char *text)
{
	size_t n = strlen(text);

	bp_out_put64(b, n);
	bp_out_put(b, text, n);
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
	bp_out_put(h, "header_page", 12);
	blob_text(h, header_page);
	bp_out_put(h, "header_event", 13);
	blob_text(h, header_event);
	bp_out_put32(h, 2);
	blob_text(h, print_format);
	blob_text(h, bprint_format);
	bp_out_put32(h, 0);				/* event systems */
	bp_out_put32(h, (uint32_t)x->kallsyms.len);
	bp_out_put(h, x->kallsyms.p, x->kallsyms.len);
	bp_out_put32(h, (uint32_t)x->printk.len);
	bp_out_put(h, x->printk.p, x->printk.len);
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
	blob_text(h, trailer);
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
	return address_sites(x);
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
	bp_out_free(&x->kallsyms);
	bp_out_free(&x->printk);
	return rc;
}

const struct bp_exporter bp_exporter_tracedat = {
	.format = BP_EXPORT_TRACECMD,
	.size = sizeof(struct ex),
	.begin = tracedat_begin,
	.record = tracedat_record,
	.end = tracedat_end,
};
