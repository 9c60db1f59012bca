/*
 * What a bprint trace.dat declares (tracedat.h, docs/exporters.md): the
 * kernel's ring-buffer page layout, ftrace's print event (for records
 * that carry text), and one event per call site, system "bprint", whose
 * fields are the site's fields (its layout, docs/fields.md) and the
 * message, so that `trace-cmd report` prints the message (print fmt
 * "%s", __get_str(msg)) and `trace-cmd report -R` and KernelShark show
 * every argument by name; and the synthetic kallsyms that give print
 * events their function.
 */
#include "output/tracedat.h"

#include "file/kernel_layout.h"
#include "reader/site_layout.h"

#include <bprint.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUNC_BASE	0x0000100000000000ull

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
	"\n"

static const char print_format[] =
	"name: print\n"
	"ID: 5\n"
	COMMON_FIELDS
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:1;\n"
	"\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

static void blob_text(struct bp_out_buf *b, const char *text, size_t n)
{
	bp_out_put64(b, n);
	bp_out_put(b, text, n);
}

void td_put_page_formats(struct bp_out_buf *h)
{
	bp_out_put(h, "header_page", 12);
	blob_text(h, header_page, strlen(header_page));
	bp_out_put(h, "header_event", 13);
	blob_text(h, header_event, strlen(header_event));
	bp_out_put32(h, 1);			/* ftrace formats */
	blob_text(h, print_format, strlen(print_format));
}

/* ---- kallsyms: an address per function, one per site inside it ---- */

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
	int c = strcmp(x->func ? x->func : "?", y->func ? y->func : "?");

	if (!c)
		c = strcmp(x->file ? x->file : "", y->file ? y->file : "");
	if (!c)
		c = x->lib < y->lib ? -1 : x->lib > y->lib;
	if (!c)
		c = x->id < y->id ? -1 : x->id > y->id;
	return c;
}

static bool same_func(const struct bp_trace_site *a, const struct bp_trace_site *b)
{
	return !strcmp(a->func ? a->func : "?", b->func ? b->func : "?") &&
	       !strcmp(a->file ? a->file : "", b->file ? b->file : "") &&
	       a->lib == b->lib;
}

/* Functions get consecutive addresses in name order, each site of a
 * function one 16 bytes apart; records of sites missing from the table
 * get "?", as bprint report prints their function. */
static int address_sites(struct ex *x)
{
	struct bp_trace *t = x->fx->t;
	size_t n = bp_trace_nsites(t);
	const struct bp_trace_site **v = calloc(n ? n : 1, sizeof(*v));
	uint64_t addr = FUNC_BASE;

	if (!v)
		return BP_TRACE_ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = bp_trace_site_at(t, i);
	qsort(v, n, sizeof(*v), by_func);
	x->unknown_ip = addr;
	bp_out_putf(&x->kallsyms, "%016llx T ?\n", (unsigned long long)addr);
	addr += 0x100;
	for (size_t i = 0; i < n; i++) {
		const struct bp_trace_site *s = v[i];

		if (i == 0 || !same_func(s, v[i - 1])) {
			addr = (addr + 0xff) & ~0xffull;
			bp_out_putf(&x->kallsyms, "%016llx T %s\t[%s]\n", (unsigned long long)addr,
				    s->func ? s->func : "?", module_of(t, s->lib));
		}
		if (s->id < x->nsites)
			x->sites[s->id].ip = addr;
		addr += 0x10;
	}
	/* the last symbol matches only its own address: end the last function */
	addr = (addr + 0xff) & ~0xffull;
	bp_out_putf(&x->kallsyms, "%016llx T _etext\n", (unsigned long long)addr);
	free(v);
	return x->kallsyms.oom ? BP_TRACE_ENOMEM : 0;
}

/* ---- one event per call site ---- */

/* Each site's event name, by position (x->names): its event name
 * (output/names.h) in the characters ftrace allows, its id appended where
 * two come out the same. */
struct td_name {
	char s[BP_OUT_EVENT_NAME_MAX + 12];
	size_t k;
};

static int by_name(const void *a, const void *b)
{
	const struct td_name *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	return c ? c : x->k < y->k ? -1 : x->k > y->k;
}

static int by_index(const void *a, const void *b)
{
	const struct td_name *x = a, *y = b;

	return x->k < y->k ? -1 : x->k > y->k;
}

static struct td_name *event_names(const struct ex *x, size_t n)
{
	struct td_name *v = calloc(n ? n : 1, sizeof(*v));

	for (size_t k = 0; v && k < n; k++) {
		const char *name = x->fx->names.name[k];
		size_t i = 0;

		for (; name[i]; i++) {
			char c = name[i];

			v[k].s[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
				    (i > 0 && c >= '0' && c <= '9') ? c : '_';
		}
		v[k].k = k;
	}
	if (!v)
		return NULL;
	qsort(v, n, sizeof(*v), by_name);
	for (size_t i = 1; i < n; i++)	/* the later site of two with a name */
		if (!strncmp(v[i].s, v[i - 1].s, BP_OUT_EVENT_NAME_MAX))
			bp_snprintf(v[i].s + strlen(v[i].s), 12, "_%u",
				    (unsigned)bp_trace_site_at(x->fx->t, v[i].k)->id);
	qsort(v, n, sizeof(*v), by_index);
	return v;
}

/* A field's kind and its declaration: type, size, signedness. */
static enum td_kind field_decl(const struct bp_trace_layout *lay, unsigned k, const char **type,
			       unsigned *size)
{
	static const char *const sints[9] = { [1] = "s8", [2] = "short", [4] = "int", [8] = "s64" };
	static const char *const uints[9] = { [1] = "u8", [2] = "unsigned short",
					      [4] = "unsigned int", [8] = "u64" };
	unsigned sz = lay->fields[k].size < 9 ? lay->fields[k].size : 0;
	const struct bp_trace_field *f = &lay->fields[k];

	*size = f->size;
	if (f->type == BP_FIELD_STRING || f->type == BP_FIELD_FLOAT ||
	    bp_out_symbol_letter(lay, k)) {
		*type = "__data_loc char[]", *size = 4;
		return TD_TEXT;
	}
	if (f->type == BP_FIELD_CHAR) {
		*type = "char", *size = 2;
		return TD_CHAR;
	}
	if (f->type == BP_FIELD_POINTER) {
		*type = "void *";
		return TD_POINTER;
	}
	/* an unsigned long prints in hex: so do %x fields */
	*type = f->type == BP_FIELD_SIGNED ? sints[sz] : f->base == 16 ? "unsigned long" : uints[sz];
	if (!*type)
		*type = "s64", *size = 8;
	return TD_NUMBER;
}

/* Site event ev's format text into f, and its fields' places. */
static void declare_event(const char *name, struct td_event *ev, struct bp_out_buf *f)
{
	const struct bp_trace_layout *lay = ev->lay;
	char alias[BP_OUT_FIELD_NAME_MAX];
	unsigned off = 8;

	bp_out_putf(f, "name: %s\nID: %u\n" COMMON_FIELDS, name, (unsigned)ev->id);
	for (unsigned i = 0; lay && i < lay->nfields; i++) {
		const char *type;
		unsigned size, align;
		enum td_kind kind = field_decl(lay, i, &type, &size);

		align = kind == TD_CHAR ? 1 : size;
		off = (off + align - 1) / align * align;
		ev->field[i].kind = (uint8_t)kind;
		ev->field[i].offset = (uint16_t)off;
		bp_out_putf(f, "\tfield:%s %s%s;\toffset:%u;\tsize:%u;\tsigned:%d;\n", type,
			    bp_out_field_name(lay, i, alias), kind == TD_CHAR ? "[2]" : "", off, size,
			    kind == TD_TEXT || kind == TD_CHAR || lay->fields[i].type == BP_FIELD_SIGNED);
		off += size;
	}
	off = (off + 3) & ~3u;
	ev->msg_loc = (uint16_t)off;
	ev->fixed = (uint16_t)(off + 4);
	bp_out_putf(f, "\tfield:__data_loc char[] msg;\toffset:%u;\tsize:4;\tsigned:1;\n\n"
		    "print fmt: \"%%s\", __get_str(msg)\n", off);
}

/* The ID of a kernel event format's text, or -1 if it says none. */
static long kernel_format_id(const char *text)
{
	const char *at = strstr(text, "\nID: ");
	char *end;
	long id;

	if (!at)
		return -1;
	id = strtol(at + 5, &end, 10);
	return end > at + 5 && (*end == '\n' || !*end) ? id : -1;
}

/* May the kernel's event of this ID go into the file as it is?  Not when
 * it would take the print event's ID, or its site is not in the table. */
static bool kernel_id_usable(const struct ex *x, long id)
{
	return id > 0 && id < (long)TD_ID_MAX && id != TD_ID_PRINT &&
	       BP_KERNEL_SITE_BASE + (size_t)id < x->nsites;
}

/* The kernel's event formats, grouped by system, into sys (each system:
 * its name, its count, its formats), marking their sites: the number of
 * systems.  The site events' IDs then start above the kernel's. */
static uint32_t declare_kernel(struct ex *x, struct bp_out_buf *sys)
{
	const struct bp_trace *t = x->fx->t;
	size_t n = bp_trace_kernel_nformats(t);
	uint32_t nsys = 0;
	long top = 0;

	for (size_t i = 0; i < n; i++) {
		const struct bp_trace_kformat *f = bp_trace_kernel_format_at(t, i);
		size_t count_at;
		uint32_t count = 0;
		bool first = true;

		if (f->kind != BP_KERNEL_REC_EVENT)
			continue;
		for (size_t j = 0; j < i && first; j++) {	/* a system already written */
			const struct bp_trace_kformat *g = bp_trace_kernel_format_at(t, j);

			first = !(g->kind == BP_KERNEL_REC_EVENT && !strcmp(g->system, f->system) &&
				  kernel_id_usable(x, kernel_format_id(g->text)));
		}
		if (!first || !kernel_id_usable(x, kernel_format_id(f->text)))
			continue;
		bp_out_put(sys, f->system, strlen(f->system) + 1);
		count_at = sys->len;
		bp_out_put32(sys, 0);
		for (size_t j = i; j < n; j++) {
			const struct bp_trace_kformat *g = bp_trace_kernel_format_at(t, j);
			long id = g->kind == BP_KERNEL_REC_EVENT && !strcmp(g->system, f->system)
				  ? kernel_format_id(g->text) : -1;

			if (!kernel_id_usable(x, id) || x->sites[BP_KERNEL_SITE_BASE + (size_t)id].kernel)
				continue;
			x->sites[BP_KERNEL_SITE_BASE + (size_t)id].kernel = true;
			if (id > top)
				top = id;
			bp_out_put64(sys, strlen(g->text));
			bp_out_put(sys, g->text, strlen(g->text));
			count++;
		}
		if (!sys->oom)
			memcpy(sys->p + count_at, &count, 4);
		nsys++;
	}
	x->first_site_id = top >= (long)TD_ID_SITE0 ? (unsigned)top + 1 : TD_ID_SITE0;
	return nsys;
}

/* The events of the sites that have a layout (but kernel events the file
 * has the kernel's formats of), and the event systems section: "bprint",
 * holding them, and the kernel's. */
static int declare_events(struct ex *x)
{
	struct bp_trace *t = x->fx->t;
	size_t n = bp_trace_nsites(t);
	struct bp_out_buf f = { 0 }, own = { 0 }, kernel = { 0 };
	struct td_name *names = event_names(x, n);
	uint32_t nsys = declare_kernel(x, &kernel);

	if (!names || !(x->events = calloc(n ? n : 1, sizeof(*x->events)))) {
		free(names);
		bp_out_free(&kernel);
		return BP_TRACE_ENOMEM;
	}
	for (size_t k = 0; k < n && x->first_site_id + x->nevents <= TD_ID_MAX; k++) {
		const struct bp_trace_site *s = bp_trace_site_at(t, k);
		struct td_event *ev = &x->events[x->nevents];

		if (!s->format || s->id >= x->nsites || x->sites[s->id].kernel ||
		    !(ev->lay = bp_trace_layout(t, s->id)))
			continue;
		ev->id = (uint16_t)(x->first_site_id + x->nevents++);
		x->sites[s->id].ev = ev;
		f.len = 0;
		declare_event(names[k].s, ev, &f);
		bp_out_put64(&own, f.len);
		bp_out_put(&own, f.p, f.len);
	}
	bp_out_put32(&x->formats, nsys + (x->nevents > 0));
	if (x->nevents) {
		bp_out_put(&x->formats, "bprint", 7);
		bp_out_put32(&x->formats, (uint32_t)x->nevents);
		bp_out_put(&x->formats, own.p, own.len);
	}
	bp_out_put(&x->formats, kernel.p, kernel.len);
	x->formats.oom |= f.oom || own.oom || kernel.oom;
	bp_out_free(&f);
	bp_out_free(&own);
	bp_out_free(&kernel);
	free(names);
	return x->formats.oom ? BP_TRACE_ENOMEM : 0;
}

int td_declare(struct ex *x)
{
	struct bp_trace *t = x->fx->t;
	int rc;

	x->nsites = (size_t)bp_trace_max_site_id(t) + 1;
	if (!(x->sites = calloc(x->nsites, sizeof(*x->sites))))
		return BP_TRACE_ENOMEM;
	if ((rc = address_sites(x)) != 0)
		return rc;
	return declare_events(x);
}
