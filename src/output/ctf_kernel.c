/*
 * The kernel's events of a CTF export (ctf.h, docs/exporters.md, "CTF"):
 * a second CTF 1.8 trace in DIR/kernel, shaped as lttng-modules 2.12
 * writes the kernel domain, so that babeltrace2 reads DIR (both traces)
 * as one, merged by time, and Trace Compass opens them as one experiment
 * whose kernel analyses find what they read:
 *
 *   env        domain "kernel", tracer_name "lttng-modules", the host
 *   clock      the program trace's, byte for byte (ctf_write_clock: one
 *              name, one offset, the boot id as uuid)
 *   streams    channel0_CPU, one per CPU; packet context as LTTng's, with
 *              cpu_id; event header id and timestamp; no event context
 *   events     one class per kernel event format, named as the kernel
 *              names it (sched_switch), its fields as the format has them
 *              but that a *pid is a *tid (prev_pid: prev_tid), as
 *              lttng-modules names them, and sched_switch's prev_state
 *              the kernel's state bits (an int64), not bprint's letters
 *
 * Memory: one packet buffer per CPU.  The metadata goes last (the
 * classes are the trace's kernel sites, known from the start, but
 * written once with the rest).
 */
#include "output/ctf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define CTF_MAGIC	0xc1fc1fc1u
#define PACKET_TARGET	(64u * 1024)
#define HEAD_BYTES	(32u + 52u)	/* packet header and context */
#define MAX_CPUS	4096

struct kclass {
	uint32_t site_id;
	const char *name;
	const struct bp_trace_layout *lay;
	bool state;			/* sched_switch: its prev_state as bits */
};

struct kstream {
	struct bp_out_buf buf;		/* the packet's events */
	uint64_t begin, end, seq, discarded, events;
	bool created;
};

struct ctf_kernel {
	struct bp_export *fx;
	int dir;
	unsigned char uuid[16];
	struct kclass *cls;
	size_t ncls;
	struct kstream *cpu;
	size_t ncpu;
};

/* The kernel's name of field k: a *pid is a *tid. */
static void field_name(const struct bp_trace_layout *lay, unsigned k, char *out, size_t size)
{
	const char *n = lay->fields[k].name;
	size_t len = strlen(n);

	if (len >= 3 && !strcmp(n + len - 3, "pid") && len + 1 < size)
		bp_snprintf(out, size, "%.*stid", (int)(len - 3), n);
	else
		bp_snprintf(out, size, "%s", n);
}

static bool is_state(const struct kclass *c, unsigned k)
{
	return c->state && !strcmp(c->lay->fields[k].name, "prev_state");
}

/* prev_state's letters (reader/kernel_source.c) as the kernel's bits. */
static int64_t state_bits(const char *s, size_t n)
{
	static const char letters[] = "SDTtXZPI";
	int64_t v = 0;

	for (size_t i = 0; i < n && s[i]; i++) {
		const char *at = s[i] == 'R' ? NULL : strchr(letters, s[i]);

		if (s[i] == '+')
			v |= 256;
		else if (at)
			v |= 1ll << (at - letters);
	}
	return v;
}

static int classes(struct ctf_kernel *k)
{
	struct bp_trace *t = k->fx->t;
	size_t n = bp_trace_nsites(t);

	if (!(k->cls = calloc(n ? n : 1, sizeof(*k->cls))))
		return BP_TRACE_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct bp_trace_site *s = bp_trace_site_at(t, i);
		struct kclass *c = &k->cls[k->ncls];

		if (s->id < BP_TRACE_KERNEL_SITE_BASE || !s->func)
			continue;
		c->site_id = s->id;
		c->name = s->func;
		c->lay = bp_trace_layout(t, s->id);
		c->state = !strcmp(c->name, "sched_switch");
		k->ncls++;
	}
	return 0;
}

int ctf_kernel_begin(struct bp_export *fx, struct ctf_kernel **out)
{
	struct ctf_kernel *k = calloc(1, sizeof(*k));
	const struct ctf *x = fx->own;
	struct stat st;

	if (!k)
		return BP_TRACE_ENOMEM;
	k->fx = fx;
	memcpy(k->uuid, x->uuid, 16);
	k->uuid[0] ^= 0x6b;		/* another trace: another uuid */
	k->dir = -1;
	if ((mkdirat(fx->fd, "kernel", 0777) != 0 && errno != EEXIST) ||
	    (k->dir = openat(fx->fd, "kernel", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    fstat(k->dir, &st) != 0 || st.st_uid != geteuid()) {
		fx->err = errno ? errno : EPERM;
		*out = k;
		return bp_export_fail(fx, BP_TRACE_EIO, "kernel: %s", strerror(fx->err));
	}
	ctf_clean_dir(k->dir);
	*out = k;
	return classes(k);
}

static const struct kclass *class_of(const struct ctf_kernel *k, uint32_t site_id, size_t *id)
{
	for (size_t i = 0; i < k->ncls; i++)
		if (k->cls[i].site_id == site_id) {
			*id = i;
			return &k->cls[i];
		}
	return NULL;
}

/* Write CPU c's packet in hand to channel0_C. */
static int flush_packet(struct ctf_kernel *k, size_t c)
{
	struct kstream *s = &k->cpu[c];
	unsigned char head[HEAD_BYTES];
	uint32_t magic = CTF_MAGIC, sid = 0, cpu = (uint32_t)c;
	uint64_t inst = c, bits = (uint64_t)(HEAD_BYTES + s->buf.len) * 8;
	uint64_t ctx[6] = { s->begin, s->end, bits, bits, s->seq, s->discarded };
	char path[32];
	int fd, rc;

	memcpy(head, &magic, 4);
	memcpy(head + 4, k->uuid, 16);
	memcpy(head + 20, &sid, 4);
	memcpy(head + 24, &inst, 8);
	memcpy(head + 32, ctx, sizeof(ctx));
	memcpy(head + 80, &cpu, 4);
	bp_snprintf(path, sizeof(path), "channel0_%zu", c);
	fd = openat(k->dir, path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC |
				      (s->created ? 0 : O_EXCL), 0666);
	if (fd < 0)
		return k->fx->err = errno, BP_TRACE_EIO;
	s->created = true;
	rc = bp_export_write(k->fx, fd, head, sizeof(head));
	if (rc == 0)
		rc = bp_export_write(k->fx, fd, s->buf.p, s->buf.len);
	if (close(fd) != 0 && rc == 0)
		rc = BP_TRACE_EIO, k->fx->err = errno;
	s->buf.len = 0;
	s->events = 0;
	s->seq++;
	return rc;
}

static struct kstream *stream_of(struct ctf_kernel *k, int32_t cpu)
{
	if (cpu < 0 || cpu >= MAX_CPUS)
		return NULL;
	if ((size_t)cpu >= k->ncpu) {
		struct kstream *g = realloc(k->cpu, ((size_t)cpu + 1) * sizeof(*g));

		if (!g)
			return NULL;
		memset(g + k->ncpu, 0, ((size_t)cpu + 1 - k->ncpu) * sizeof(*g));
		k->cpu = g;
		k->ncpu = (size_t)cpu + 1;
	}
	return &k->cpu[cpu];
}

int ctf_kernel_record(struct ctf_kernel *k, const struct bp_trace_event *e, uint64_t lost)
{
	struct bp_field_value v[BP_PLAN_MAX_ARGS];
	const struct bp_trace_layout *lay;
	struct kstream *s = stream_of(k, e->cpu);
	size_t id;
	const struct kclass *c = class_of(k, e->site_id, &id);
	unsigned n;
	uint32_t id32;
	int rc;

	if (!c || !s)
		return 0;	/* a kernel event of no CPU or no format: none to write */
	n = bp_out_record_args(k->fx->t, e, &lay, v);
	if (c->lay && n != c->lay->nfields)
		return 0;	/* its values could not be read (damage the reader counted) */
	if (lost && s->events && (rc = flush_packet(k, (size_t)e->cpu)) < 0)
		return rc;	/* the next packet counts them */
	s->discarded += lost;
	if (!s->events)
		s->begin = e->ns;
	s->end = e->ns;
	id32 = (uint32_t)id;
	bp_out_put(&s->buf, &id32, 4);
	bp_out_put(&s->buf, &e->ns, 8);
	for (unsigned i = 0; i < n && c->lay; i++) {
		const struct bp_trace_field *f = &lay->fields[i];

		if (is_state(c, i)) {
			int64_t bits = state_bits(v[i].s, v[i].len);

			bp_out_put(&s->buf, &bits, 8);
		} else if (f->type == BP_FIELD_STRING) {
			bp_out_put(&s->buf, v[i].s, strnlen(v[i].s, v[i].len));
			bp_out_byte(&s->buf, 0);
		} else {
			bp_out_put(&s->buf, &v[i].v.u, f->size);	/* the low bytes */
		}
	}
	if (s->buf.oom)
		return BP_TRACE_ENOMEM;
	s->events++;
	return s->buf.len >= PACKET_TARGET ? flush_packet(k, (size_t)e->cpu) : 0;
}

static void write_env(struct bp_out_buf *m, const struct bp_trace_info *info)
{
	struct utsname u;
	char host[257];

	bp_out_puts(m, "env {\n\tdomain = \"kernel\";\n\ttracer_name = \"lttng-modules\";\n"
		    "\ttracer_major = 2;\n\ttracer_minor = 12;\n\ttracer_patchlevel = 0;\n"
		    "\thostname = ");
	ctf_tsdl_str(m, ctf_host(info, host, sizeof(host)) ? host : "unknown", 256);
	if (uname(&u) == 0 && ctf_host(info, host, sizeof(host))) {
		bp_out_puts(m, ";\n\tsysname = ");
		ctf_tsdl_str(m, u.sysname, 64);
		bp_out_puts(m, ";\n\tkernel_release = ");
		ctf_tsdl_str(m, u.release, 64);
		bp_out_puts(m, ";\n\tkernel_version = ");
		ctf_tsdl_str(m, u.version, 128);
	}
	bp_out_puts(m, ";\n\ttrace_name = \"kernel\";\n};\n\n");
}

static void write_classes(struct ctf_kernel *k, struct bp_out_buf *m)
{
	char name[BP_OUT_FIELD_NAME_MAX + 8];

	bp_out_puts(m,
		CTF_STREAM_HEAD
		"};\n\n");
	for (size_t i = 0; i < k->ncls; i++) {
		const struct kclass *c = &k->cls[i];

		bp_out_puts(m, "event {\n\tname = ");
		ctf_tsdl_str(m, c->name, 127);
		bp_out_putf(m, ";\n\tid = %zu;\n\tstream_id = 0;\n\tfields := struct {\n", i);
		for (unsigned f = 0; c->lay && f < c->lay->nfields; f++) {
			const struct bp_trace_field *d = &c->lay->fields[f];

			field_name(c->lay, f, name, sizeof(name));
			if (is_state(c, f))
				bp_out_puts(m, "\t\tinteger { size = 64; align = 8; signed = 1; base = 10; }");
			else if (d->type == BP_FIELD_STRING)
				bp_out_puts(m, "\t\tstring");
			else
				bp_out_putf(m, "\t\tinteger { size = %u; align = 8; signed = %d; base = %u; }",
					    d->size * 8u, d->type == BP_FIELD_SIGNED, d->base ? d->base : 10u);
			bp_out_putf(m, " _%s;\n", name);
		}
		bp_out_puts(m, "\t};\n};\n\n");
	}
}

static int write_metadata(struct ctf_kernel *k)
{
	struct bp_out_buf m = { 0 };
	int fd = openat(k->dir, "metadata", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			0666);
	int rc;

	if (fd < 0)
		return k->fx->err = errno, BP_TRACE_EIO;
	ctf_write_trace(&m, k->uuid);
	write_env(&m, k->fx->info);
	ctf_write_clock(&m, k->fx->info);
	write_classes(k, &m);
	rc = m.oom ? BP_TRACE_ENOMEM : bp_export_write(k->fx, fd, m.p, m.len);
	if (close(fd) != 0 && rc == 0)
		rc = BP_TRACE_EIO, k->fx->err = errno;
	bp_out_free(&m);
	return rc;
}

int ctf_kernel_end(struct ctf_kernel *k, int rc)
{
	for (size_t c = 0; c < k->ncpu; c++) {
		if (rc == 0 && k->cpu[c].events)
			rc = flush_packet(k, c);
		bp_out_free(&k->cpu[c].buf);
	}
	if (rc == 0 && k->dir >= 0)
		rc = write_metadata(k);
	if (k->dir >= 0)
		close(k->dir);
	free(k->cpu);
	free(k->cls);
	free(k);
	return rc;
}
