/*
 * A trace file as a CTF 1.8 trace directory (docs/exporters.md, "CTF"),
 * for babeltrace2 and Trace Compass: a `metadata` file in TSDL and one
 * binary stream file per thread, `stream_TID`.
 *
 * The metadata is written first, from the site table: one event class per
 * site (its function's name, made unique), with a string `msg` and one
 * typed field per field of the site's layout (docs/fields.md), written
 * `_NAME` as LTTng writes its fields (readers drop the '_', so that no
 * name is a TSDL keyword), and one class for the records
 * whose block cannot give those fields.  Then the records, as read: each
 * thread's events go into its stream's packet buffer; a packet is written
 * (appended to its file) when it is full, when the thread's name changes
 * (the name is in the packet context), and before a record that follows
 * lost records, so that the next packet's events_discarded counter grows
 * by exactly that many.  Memory: one packet buffer per thread.
 *
 * All fields are byte-aligned (align = 8), in the writer's byte order.
 */
#include "output/frame.h"
#include "output/names.h"
#include "output/wallclock.h"

#include "file/site_layout.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define CTF_MAGIC 0xc1fc1fc1u
#define PACKET_TARGET (64u * 1024)	/* event bytes per packet, about */

struct ctf_stream {
	int32_t tid;
	char comm[17];
	struct bp_out_buf buf;		/* the packet's events */
	uint64_t begin, end;		/* first and last timestamp of the packet */
	uint64_t seq, discarded;	/* packets written, records lost so far */
	uint64_t events;		/* in the packet */
	bool created;			/* the file exists (truncated once) */
};

struct ctf_class {
	uint32_t site_id;
	const struct bp_trace_layout *lay;	/* NULL: msg only */
};

struct ctf {
	struct bp_export *fx;		/* fx->fd: the directory */
	unsigned char uuid[16];
	struct ctf_class *cls;
	size_t ncls;			/* one per site; id ncls is the fallback */
	struct bp_field_value val[BP_PLAN_MAX_ARGS];
};

/* ---- metadata ---- */

/* A TSDL string literal: printable ASCII, '"' and '\' escaped, others '_'. */
static void tsdl_str(struct bp_out_buf *f, const char *s, size_t max)
{
	bp_out_byte(f, '"');
	for (size_t i = 0; s && s[i] && i < max; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			bp_out_byte(f, '\\');
		bp_out_byte(f, c >= 0x20 && c < 0x7f ? c : '_');
	}
	bp_out_byte(f, '"');
}

static void uuid_str(struct bp_out_buf *f, const unsigned char *u)
{
	for (int i = 0; i < 16; i++)
		bp_out_putf(f, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u[i]);
}

/* A version-4-style uuid from the trace's identity: the same file, the same uuid. */
static void make_uuid(const struct bp_trace_info *info, unsigned char *u)
{
	uint64_t h[2] = { info->start_realtime_ns ^ 0x9e3779b97f4a7c15ull,
			  info->start_mono_ns ^ (uint64_t)info->pid * 0xff51afd7ed558ccdull };

	for (int r = 0; r < 2; r++) {
		h[0] ^= h[1] >> 29, h[0] *= 0xbf58476d1ce4e5b9ull;
		h[1] ^= h[0] >> 31, h[1] *= 0x94d049bb133111ebull;
	}
	memcpy(u, h, 16);
	u[6] = (u[6] & 0x0f) | 0x40;
	u[8] = (u[8] & 0x3f) | 0x80;
}

static const char *const trace_head =
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n\n";

static void write_clock(struct bp_out_buf *f, const struct bp_trace_info *info)
{
	int64_t off;

	bp_out_puts(f, "clock {\n\tname = bprint;\n\tdescription = ");
	tsdl_str(f, info->clock_name, 32);
	bp_out_puts(f, ";\n\tfreq = 1000000000;\n\tprecision = 1;\n");
	if (bp_out_wallclock_offset(info, &off) == 0) {
		int64_t sec = off / 1000000000, ns = off % 1000000000;

		if (ns < 0)
			sec--, ns += 1000000000;
		bp_out_putf(f, "\toffset_s = %lld;\n\toffset = %lld;\n\tabsolute = true;\n",
			(long long)sec, (long long)ns);
	}
	bp_out_puts(f, "};\n\n"
	      "typealias integer { size = 64; align = 8; signed = false;"
	      " map = clock.bprint.value; } := clock_u64;\n\n");
}

static void write_trace(struct bp_out_buf *f, const struct ctf *x, const struct bp_trace_info *info)
{
	bp_out_puts(f, "/* CTF 1.8 */\n\n");
	bp_out_puts(f, trace_head);
	bp_out_puts(f, "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"");
	uuid_str(f, x->uuid);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	bp_out_puts(f, "\";\n\tbyte_order = be;\n");
#else
	bp_out_puts(f, "\";\n\tbyte_order = le;\n");
#endif
	bp_out_puts(f, "\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
	      "\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};\n};\n\n");
	bp_out_putf(f, "env {\n\ttracer_name = \"bprint\";\n\tpid = %lld;\n\tprocname = ",
		(long long)info->pid);
	tsdl_str(f, info->comm, 16);
	bp_out_puts(f, ";\n\tcmdline = ");
	tsdl_str(f, info->cmdline, 1024);
	bp_out_puts(f, ";\n\tclock = ");
	tsdl_str(f, info->clock_name, 32);
	bp_out_puts(f, ";\n};\n\n");
	write_clock(f, info);
	bp_out_puts(f, "stream {\n\tid = 0;\n"
	      "\tpacket.context := struct {\n"
	      "\t\tclock_u64 timestamp_begin;\n\t\tclock_u64 timestamp_end;\n"
	      "\t\tuint64_t content_size;\n\t\tuint64_t packet_size;\n"
	      "\t\tuint64_t packet_seq_num;\n\t\tuint64_t events_discarded;\n"
	      "\t\tint32_t tid;\n\t\tstring thread_name;\n\t};\n"
	      "\tevent.header := struct {\n\t\tuint32_t id;\n\t\tclock_u64 timestamp;\n\t};\n"
	      "\tevent.context := struct {\n\t\tint32_t cpu;\n\t\tuint8_t level;\n\t};\n};\n\n");
}

/* The TSDL type of one argument. */
static void field_type(struct bp_out_buf *f, const struct bp_trace_field *d)
{
	switch (d->type) {
	case BP_FIELD_SIGNED:
	case BP_FIELD_UNSIGNED:
	case BP_FIELD_POINTER:
		bp_out_putf(f, "integer { size = %u; align = 8; signed = %s; base = %u; }",
			d->size * 8u, d->type == BP_FIELD_SIGNED ? "true" : "false",
			d->base ? d->base : 10u);
		break;
	case BP_FIELD_FLOAT:
		bp_out_puts(f, "floating_point { exp_dig = 11; mant_dig = 53; align = 8; }");
		break;
	default:	/* strings, and %c as a string of its one byte */
		bp_out_puts(f, "string");
	}
}

/* Is name already the name of one of the first n classes' sites? */
static bool name_taken(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], name))
			return true;
	return false;
}

/* The start of a class name: the function, else the start of the format,
 * else "site_ID". */
static void class_base(const struct bprint_site *s, char *out, size_t size)
{
	if (s->func && s->func[0])
		bp_snprintf(out, size, "%s", s->func);
	else if (s->format && s->format[0])
		bp_snprintf(out, size, "%.40s", s->format);
	else
		bp_snprintf(out, size, "site_%u", (unsigned)s->id);
}

#define BASE_MAX 96

static int cmp_base(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Each site's class name: its base, "base:LINE" when several sites share
 * the base, "base:LINE#ID" if that is taken too.  false if out of memory. */
static bool class_names(struct bp_trace *t, char **names, size_t n)
{
	char (*bases)[BASE_MAX] = malloc(n * sizeof(*bases) + 1);
	const char **order = malloc(n * sizeof(*order) + 1);
	bool *shared = calloc(n + 1, sizeof(*shared)), ok = bases && order && shared;

	for (size_t i = 0; ok && i < n; i++) {
		class_base(&bp_trace_site_at(t, i)->site, bases[i], sizeof(bases[i]));
		order[i] = bases[i];
	}
	if (ok)
		qsort(order, n, sizeof(*order), cmp_base);
	for (size_t k = 1; ok && k < n; k++)
		if (!strcmp(order[k], order[k - 1])) {
			shared[(size_t)(order[k] - bases[0]) / BASE_MAX] = true;
			shared[(size_t)(order[k - 1] - bases[0]) / BASE_MAX] = true;
		}
	for (size_t i = 0; ok && i < n; i++) {
		const struct bprint_site *s = &bp_trace_site_at(t, i)->site;

		if (!(names[i] = malloc(128))) {
			ok = false;
			break;
		}
		bp_snprintf(names[i], 128, shared[i] ? "%s:%u" : "%s", bases[i], (unsigned)s->line);
		if (shared[i] && name_taken((const char *const *)names, i, names[i]))
			bp_snprintf(names[i], 128, "%s:%u#%u", bases[i], (unsigned)s->line,
				    (unsigned)s->id);
	}
	free(bases), free(order), free(shared);
	return ok;
}

static void write_class(struct bp_out_buf *f, size_t id, const char *name, const struct bp_trace_layout *lay,
			bool fallback)
{
	char alias[BP_OUT_FIELD_NAME_MAX];

	bp_out_putf(f, "event {\n\tname = ");
	tsdl_str(f, name, 127);
	bp_out_putf(f, ";\n\tid = %zu;\n\tstream_id = 0;\n\tfields := struct {\n\t\tstring msg;\n", id);
	for (unsigned i = 0; lay && i < lay->nfields; i++) {
		bp_out_puts(f, "\t\t");
		field_type(f, &lay->fields[i]);
		bp_out_putf(f, " _%s;\n", bp_out_field_name(lay, i, alias));
	}
	if (fallback)
		bp_out_puts(f, "\t\tuint32_t site;\n");
	bp_out_puts(f, "\t};\n};\n\n");
}

/* The classes, into the metadata text m; false if out of memory. */
static bool write_classes(struct ctf *x, struct bp_out_buf *m)
{
	struct bp_trace *t = x->fx->t;
	size_t n = bp_trace_nsites(t);
	char **names = calloc(n + 1, sizeof(*names));
	bool ok = names && (x->cls = calloc(n + 1, sizeof(*x->cls))) && class_names(t, names, n);

	for (size_t i = 0; ok && i < n; i++) {
		const struct bp_trace_site *ts = bp_trace_site_at(t, i);

		x->cls[i].site_id = ts->site.id;
		x->cls[i].lay = bp_trace_layout(t, ts->site.id);
		write_class(m, i, names[i], x->cls[i].lay, false);
	}
	if (ok) {
		x->ncls = n;
		write_class(m, n, name_taken((const char *const *)names, n, "bprint_text")
				  ? "bprint_text#" : "bprint_text", NULL, true);
	}
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	return ok && !m->oom;
}

/* The whole metadata file; 0 or a BP_TRACE_E* code. */
static int write_metadata(struct ctf *x)
{
	struct bp_out_buf m = { 0 };
	int fd = openat(x->fx->fd, "metadata",
			O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	int rc = 0;

	if (fd < 0)
		return x->fx->err = errno, BP_TRACE_EIO;
	write_trace(&m, x, x->fx->info);
	if (!write_classes(x, &m))
		rc = BP_TRACE_ENOMEM;
	else
		rc = bp_export_write(x->fx, fd, m.p, m.len);
	if (close(fd) != 0 && !rc)
		rc = BP_TRACE_EIO, x->fx->err = errno;
	bp_out_free(&m);
	return rc;
}

/* ---- streams ---- */

/* Append to the packet, into room reserved for the whole event before. */
static void put(struct ctf_stream *s, const void *p, size_t n)
{
	memcpy(s->buf.p + s->buf.len, p, n);
	s->buf.len += n;
}

/* Write the packet in hand (possibly empty: begin = end = ts) and start the next. */
static int flush_packet(struct ctf *x, struct ctf_stream *s)
{
	unsigned char head[32 + 48 + 4 + 17];
	size_t hn = 0, comm = strnlen(s->comm, 16);
	uint32_t magic = CTF_MAGIC, sid = 0;
	uint64_t inst = (uint64_t)(uint32_t)s->tid, bits, ctx[6];
	struct iovec iov[2];
	char path[32];
	int fd;
	ssize_t w;

	memcpy(head, &magic, 4), hn = 4;
	memcpy(head + hn, x->uuid, 16), hn += 16;
	memcpy(head + hn, &sid, 4), hn += 4;
	memcpy(head + hn, &inst, 8), hn += 8;
	bits = (uint64_t)(hn + sizeof(ctx) + 4 + comm + 1 + s->buf.len) * 8;
	ctx[0] = s->begin, ctx[1] = s->end, ctx[2] = bits, ctx[3] = bits;
	ctx[4] = s->seq, ctx[5] = s->discarded;
	memcpy(head + hn, ctx, sizeof(ctx)), hn += sizeof(ctx);
	memcpy(head + hn, &s->tid, 4), hn += 4;
	memcpy(head + hn, s->comm, comm), hn += comm;
	head[hn++] = '\0';
	bp_snprintf(path, sizeof(path), "stream_%d", s->tid);
	/* new in the directory the first time (bp_export_ctf_dir() removed old
	 * ones): never through a link someone put there since */
	fd = openat(x->fx->fd, path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW |
		    (s->created ? 0 : O_CREAT | O_EXCL), 0666);
	if (fd < 0)
		return x->fx->err = errno, BP_TRACE_EIO;
	s->created = true;
	iov[0] = (struct iovec){ head, hn };
	iov[1] = (struct iovec){ s->buf.p, s->buf.len };
	w = writev(fd, iov, 2);
	if (w != (ssize_t)(hn + s->buf.len)) {
		x->fx->err = w < 0 ? errno : ENOSPC;
		close(fd);
		return BP_TRACE_EIO;
	}
	if (close(fd) != 0)
		return x->fx->err = errno, BP_TRACE_EIO;
	s->seq++;
	s->buf.len = 0;
	s->events = 0;
	return 0;
}

/* The stream of a thread, made on its first record. */
static struct ctf_stream *stream_of(struct bp_out_thread *th, const struct bp_trace_event *e)
{
	struct ctf_stream *s;

	if (!th->lane) {
		if (!(s = calloc(1, sizeof(*s))))
			return NULL;
		s->tid = e->ev.tid;
		th->lane = s;
	}
	return th->lane;
}

/* Start a packet for e when lost records or a new thread name say so. */
static int packet_for(struct ctf *x, struct ctf_stream *s, const struct bp_export_rec *r,
		      uint64_t ts)
{
	int rc;

	if ((r->lost || r->renamed) && s->events) {
		if ((rc = flush_packet(x, s)) < 0)
			return rc;
	} else if (r->lost && s->seq == 0) {
		/* the first packet's counter reads as lost before it: start at 0 */
		s->begin = s->end = ts;
		memcpy(s->comm, r->th->comm, sizeof(s->comm));
		if ((rc = flush_packet(x, s)) < 0)
			return rc;
	}
	if (r->renamed)
		memcpy(s->comm, r->th->comm, sizeof(s->comm));
	s->discarded += r->lost;
	return 0;
}

/* The class of e and its values in x->val; the fallback class if the
 * block does not give the site's fields. */
static size_t class_of(struct ctf *x, const struct bp_trace_event *e)
{
	size_t lo = 0, hi = x->ncls;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->cls[mid].site_id < e->site_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == x->ncls || x->cls[lo].site_id != e->site_id || !e->ev.site)
		return x->ncls;
	if (!x->cls[lo].lay || x->cls[lo].lay->nfields == 0)
		return lo;
	if (e->text || bp_site_layout_decode(bp_site_layout_of(x->cls[lo].lay), e->block,
					     e->block_words, x->val, BP_PLAN_MAX_ARGS) < 0)
		return x->ncls;
	return lo;
}

static size_t args_bytes(const struct bp_trace_layout *lay, const struct bp_field_value *v)
{
	size_t n = 0;

	for (unsigned i = 0; i < lay->nfields; i++)
		n += lay->fields[i].type == BP_FIELD_STRING ? v[i].len + 1
		     : lay->fields[i].type == BP_FIELD_CHAR ? 2 : lay->fields[i].size;
	return n;
}

static void put_args(struct ctf_stream *s, const struct bp_trace_layout *lay,
		     const struct bp_field_value *v)
{
	for (unsigned i = 0; i < lay->nfields; i++) {
		const struct bp_trace_field *d = &lay->fields[i];
		uint8_t u8 = (uint8_t)v[i].v.u;
		uint16_t u16 = (uint16_t)v[i].v.u;
		uint32_t u32 = (uint32_t)v[i].v.u;

		if (d->type == BP_FIELD_STRING) {
			put(s, v[i].s, v[i].len);
			put(s, "", 1);
		} else if (d->type == BP_FIELD_CHAR) {
			put(s, &u8, u8 != 0);	/* a NUL byte: the empty string */
			put(s, "", 1);
		} else if (d->type == BP_FIELD_FLOAT || d->size == 8) {
			put(s, &v[i].v, 8);
		} else {
			put(s, d->size == 1 ? (void *)&u8 : d->size == 2 ? (void *)&u16
								  : (void *)&u32, d->size);
		}
	}
}

static int ctf_record(struct bp_export *fx, const struct bp_trace_event *e,
		      const struct bp_export_rec *r)
{
	struct ctf *x = fx->own;
	struct ctf_stream *s = stream_of(r->th, e);
	uint64_t ts;
	size_t cls, msg, need;
	uint32_t id;
	int32_t cpu = e->ev.cpu;
	uint8_t level = (uint8_t)(e->level > 255 ? 255 : e->level);
	int rc;

	if (!s)
		return BP_TRACE_ENOMEM;
	ts = e->ev.ns < s->end ? s->end : e->ev.ns;	/* a live writer can go back */
	if ((rc = packet_for(x, s, r, ts)) < 0)
		return rc;
	cls = class_of(x, e);
	msg = strnlen(e->ev.message, e->ev.message_len);
	need = 4 + 8 + 4 + 1 + msg + 1 + 4;
	if (cls < x->ncls && x->cls[cls].lay)
		need += args_bytes(x->cls[cls].lay, x->val);
	if (!bp_out_room(&s->buf, need))
		return BP_TRACE_ENOMEM;
	if (!s->events)
		s->begin = ts;
	s->end = ts;
	id = (uint32_t)cls;
	put(s, &id, 4);
	put(s, &ts, 8);
	put(s, &cpu, 4);
	put(s, &level, 1);
	put(s, e->ev.message, msg);
	put(s, "", 1);
	if (cls < x->ncls && x->cls[cls].lay)
		put_args(s, x->cls[cls].lay, x->val);
	else if (cls == x->ncls)
		put(s, &e->site_id, 4);
	s->events++;
	return s->buf.len >= PACKET_TARGET ? flush_packet(x, s) : 0;
}

static int ctf_begin(struct bp_export *fx)
{
	struct ctf *x = fx->own;

	x->fx = fx;
	make_uuid(fx->info, x->uuid);
	return write_metadata(x);
}

/* Write every packet still in hand (rc 0); free the streams. */
static int ctf_end(struct bp_export *fx, int rc)
{
	struct ctf *x = fx->own;

	for (size_t i = 0; i < fx->thr.cap; i++) {
		struct ctf_stream *s = fx->thr.slot[i].used ? fx->thr.slot[i].lane : NULL;

		if (s && s->events && rc == 0)
			rc = flush_packet(x, s);
		if (s)
			bp_out_free(&s->buf);
		free(s);
	}
	free(x->cls);
	return rc;
}

const struct bp_exporter bp_exporter_ctf = {
	.format = BP_EXPORT_CTF,
	.size = sizeof(struct ctf),
	.begin = ctf_begin,
	.record = ctf_record,
	.end = ctf_end,
};

/* (export.h) */
int bp_export_ctf_dir(const char *dir)
{
	int fd, listing;
	struct stat st;
	DIR *d;
	struct dirent *de;

	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return -1;
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid()) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	if ((listing = dup(fd)) < 0 || !(d = fdopendir(listing))) {
		if (listing >= 0)
			close(listing);
		return fd;	/* nothing listed: the streams are truncated anyway */
	}
	while ((de = readdir(d)))
		if (!strcmp(de->d_name, "metadata") || !strncmp(de->d_name, "stream_", 7))
			unlinkat(fd, de->d_name, 0);
	closedir(d);
	return fd;
}
