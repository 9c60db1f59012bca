/*
 * A trace file as a CTF 1.8 trace directory (docs/exporters.md, "CTF"),
 * for babeltrace2 and Trace Compass: a `metadata` file in TSDL
 * (ctf_meta.c) and one binary stream file per thread, `stream_TID`.
 *
 * The records, as read: each thread's events go into its stream's packet
 * buffer; a packet is written (appended to its file) when it is full,
 * when the record's CPU is not the packet's (cpu_id is in the packet
 * context, as LTTng-UST has it), and before a record that follows lost
 * records, so that the next packet's events_discarded counter grows by
 * exactly that many.  Memory: one packet buffer per thread.
 */
#include "output/ctf.h"

#include "reader/site_layout.h"

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
	uint32_t cpu;			/* the packet's cpu_id */
	struct bp_out_buf buf;		/* the packet's events */
	uint64_t begin, end;		/* first and last timestamp of the packet */
	uint64_t seq, discarded;	/* packets written, records lost so far */
	uint64_t events;		/* in the packet */
	bool created;			/* the file exists (truncated once) */
};

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
	unsigned char head[32 + 48 + 4];
	size_t hn = 0;
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
	bits = (uint64_t)(sizeof(head) + s->buf.len) * 8;
	ctx[0] = s->begin, ctx[1] = s->end, ctx[2] = bits, ctx[3] = bits;
	ctx[4] = s->seq, ctx[5] = s->discarded;
	memcpy(head + hn, ctx, sizeof(ctx)), hn += sizeof(ctx);
	memcpy(head + hn, &s->cpu, 4), hn += 4;
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
		s->tid = e->tid;
		th->lane = s;
	}
	return th->lane;
}

/*
 * Start a packet for a record on cpu at ts when lost records or its CPU
 * say so.  Records lost before it: the packet in hand is written (for a
 * thread's first record, an empty one: a first packet's counter reads as
 * lost before the trace), then an empty packet at ts with the counter N
 * higher, so that babeltrace2 reports the N discarded events between the
 * two and no packet straddles the gap (its trimmer and CTF writer fail on
 * a discarded-events range that ends inside a packet).
 */
static int packet_for(struct ctf *x, struct ctf_stream *s, const struct bp_export_rec *r,
		      uint64_t ts, uint32_t cpu)
{
	int rc;

	if (r->lost) {
		if (!s->events && s->seq == 0)
			s->begin = s->end = ts, s->cpu = cpu;
		if ((s->events || s->seq == 0) && (rc = flush_packet(x, s)) < 0)
			return rc;
		s->discarded += r->lost;
		s->begin = s->end = ts;
		s->cpu = cpu;
		return flush_packet(x, s);
	}
	if (cpu != s->cpu && s->events && (rc = flush_packet(x, s)) < 0)
		return rc;
	s->cpu = cpu;
	return 0;
}

/* Fields CTF writes as strings that are not strings: %c and %pS. */
static void string_values(struct ctf *x, const struct ctf_class *c)
{
	for (unsigned k = 0; k < c->lay->nfields; k++) {
		struct bp_field_value *v = &x->val[k];
		char letter;

		if (c->kind[k] != CTF_STRING || c->lay->fields[k].type == BP_FIELD_STRING)
			continue;
		if (c->lay->fields[k].type == BP_FIELD_CHAR) {
			x->sym[k][0] = (char)v->v.u;
			v->len = v->v.u != 0;	/* a NUL byte: the empty string */
		} else {
			letter = bp_out_symbol_letter(c->lay, k);
			v->len = bp_out_symbol(x->fx->t, letter, v->v.u, x->sym[k], sizeof(x->sym[k]));
		}
		v->s = x->sym[k];
	}
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
	if (lo == x->ncls || x->cls[lo].site_id != e->site_id || !e->site)
		return x->ncls;
	if (!x->cls[lo].lay || x->cls[lo].lay->nfields == 0)
		return lo;
	if (e->text || bp_site_layout_decode(bp_site_layout_of(x->cls[lo].lay), e->block,
					     e->block_words, x->val, BP_PLAN_MAX_ARGS) < 0)
		return x->ncls;
	string_values(x, &x->cls[lo]);
	return lo;
}

static size_t args_bytes(const struct ctf_class *c, const struct bp_field_value *v)
{
	size_t n = 0;

	for (unsigned i = 0; i < c->lay->nfields; i++)
		n += c->kind[i] == CTF_STRING ? v[i].len + 1
		     : c->kind[i] == CTF_DOUBLE ? 8 : c->lay->fields[i].size;
	return n;
}

static void put_args(struct ctf_stream *s, const struct ctf_class *c,
		     const struct bp_field_value *v)
{
	for (unsigned i = 0; i < c->lay->nfields; i++) {
		uint8_t u8 = (uint8_t)v[i].v.u, size = c->lay->fields[i].size;
		uint16_t u16 = (uint16_t)v[i].v.u;
		uint32_t u32 = (uint32_t)v[i].v.u;

		if (c->kind[i] == CTF_STRING) {
			put(s, v[i].s, v[i].len);
			put(s, "", 1);
		} else if (c->kind[i] == CTF_DOUBLE || size == 8) {
			put(s, &v[i].v, 8);
		} else {
			put(s, size == 1 ? (void *)&u8 : size == 2 ? (void *)&u16 : (void *)&u32,
			    size);
		}
	}
}

/* The event header and context: id, timestamp, _vtid, _vpid, _procname, _level. */
static void put_head(struct ctf_stream *s, uint32_t id, uint64_t ts, int32_t vpid,
		     const struct bp_trace_event *e, const char *comm)
{
	char procname[CTF_PROCNAME_LEN] = { 0 };
	uint8_t level = (uint8_t)(e->level > 255 ? 255 : e->level);
	int32_t vtid = e->tid;

	memcpy(procname, comm, strnlen(comm, CTF_PROCNAME_LEN));
	put(s, &id, 4);
	put(s, &ts, 8);
	put(s, &vtid, 4);
	put(s, &vpid, 4);
	put(s, procname, sizeof(procname));
	put(s, &level, 1);
}

static int ctf_record(struct bp_export *fx, const struct bp_trace_event *e,
		      const struct bp_export_rec *r)
{
	struct ctf *x = fx->own;
	struct ctf_stream *s;
	uint64_t ts;
	size_t cls, msg, need;
	uint32_t cpu = e->cpu >= 0 ? (uint32_t)e->cpu : CTF_CPU_UNKNOWN;
	int rc;

	if (x->kernel && bp_trace_event_kernel(fx->t) != BP_TRACE_FROM_PROGRAM)
		return ctf_kernel_record(x->kernel, e, r->lost);
	if (!(s = stream_of(r->th, e)))
		return BP_TRACE_ENOMEM;
	ts = e->ns < s->end ? s->end : e->ns;	/* a live writer can go back */
	if ((rc = packet_for(x, s, r, ts, cpu)) < 0)
		return rc;
	cls = class_of(x, e);
	msg = strnlen(e->message, e->message_len);
	need = 4 + 8 + 4 + 4 + CTF_PROCNAME_LEN + 1 + msg + 1 + 4;
	if (cls < x->ncls && x->cls[cls].lay)
		need += args_bytes(&x->cls[cls], x->val);
	if (!bp_out_room(&s->buf, need))
		return BP_TRACE_ENOMEM;
	if (!s->events)
		s->begin = ts;
	s->end = ts;
	put_head(s, (uint32_t)cls, ts, (int32_t)fx->info->pid, e, r->th->comm);
	put(s, e->message, msg);
	put(s, "", 1);
	if (cls < x->ncls && x->cls[cls].lay)
		put_args(s, &x->cls[cls], x->val);
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
	if (bp_trace_max_site_id(fx->t) >= BP_TRACE_KERNEL_SITE_BASE) {
		int rc = ctf_kernel_begin(fx, &x->kernel);

		if (rc < 0)
			return rc;
	}
	return ctf_write_metadata(x);
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
	if (x->kernel)
		rc = ctf_kernel_end(x->kernel, rc);
	return rc;
}

const struct bp_exporter bp_exporter_ctf = {
	.name = "ctf",
	.help = "CTF 1.8 trace directory (-o DIR required) for\n"
		"babeltrace2 and Trace Compass",
	.size = sizeof(struct ctf),
	.begin = ctf_begin,
	.record = ctf_record,
	.end = ctf_end,
	.flags = BP_EXPORT_F_DIRECTORY | BP_EXPORT_F_BINARY,
	.suffix = "",
	.noun = "a CTF trace",
};

/* (export.h) */
int bp_export_ctf_dir(const char *dir)
{
	int fd;
	struct stat st;

	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return -1;
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid()) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	ctf_clean_dir(fd);
	return fd;
}

void ctf_clean_dir(int dirfd)
{
	int listing = dup(dirfd), kfd;
	DIR *d;
	struct dirent *de;

	if (listing < 0 || !(d = fdopendir(listing))) {
		if (listing >= 0)
			close(listing);
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, "metadata") || !strncmp(de->d_name, "stream_", 7) ||
		    !strncmp(de->d_name, "channel0_", 9))
			unlinkat(dirfd, de->d_name, 0);
		else if (!strcmp(de->d_name, "kernel") &&
			 (kfd = openat(dirfd, "kernel", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
							O_CLOEXEC)) >= 0) {
			ctf_clean_dir(kfd);	/* an earlier export's kernel trace */
			close(kfd);
		}
	}
	closedir(d);
}
