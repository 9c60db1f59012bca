/*
 * The CTF export's metadata (ctf.h, docs/exporters.md, "CTF"): TSDL text
 * in the shape of the metadata LTTng-UST 2.12 traces carry (lttng-tools
 * writes it), so that Trace Compass recognises an LTTng-UST trace: the
 * environment it validates (domain "ust", tracer name and version), the
 * packet context with cpu_id, the event context with _vtid, _vpid and
 * _procname.  Every name is a TSDL identifier that is no keyword (the env
 * key "clock" made babeltrace2's CTF writer stop), every field is
 * byte-aligned (align = 8), in the writer's byte order.
 */
#include "output/ctf.h"
#include "output/json.h"
#include "output/wallclock.h"

#include "trace/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * A TSDL string literal of the bytes of s (up to a NUL or max): printable
 * ASCII and well-formed UTF-8 as they are (a command line's "café" stays
 * "café"), '"' and '\' escaped, and every other byte (controls, a byte
 * that is not UTF-8) as an octal escape, \ooo, which the TSDL parser
 * turns back into that byte.
 */
void ctf_tsdl_str(struct bp_out_buf *f, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = s ? strnlen(str, max) : 0, len;

	bp_out_byte(f, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			bp_out_byte(f, '\\');
			bp_out_byte(f, c);
			i++;
		} else if (c >= 0x20 && c < 0x7f) {
			bp_out_byte(f, c);
			i++;
		} else if (c >= 0x80 && (len = bp_utf8_len(s + i, n - i)) > 0) {
			bp_out_put(f, s + i, len);
			i += len;
		} else {
			bp_out_putf(f, "\\%03o", c);
			i++;
		}
	}
	bp_out_byte(f, '"');
}

static void uuid_str(struct bp_out_buf *f, const unsigned char *u)
{
	for (int i = 0; i < 16; i++)
		bp_out_putf(f, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u[i]);
}

/* The clock's name: LTTng's "monotonic" for the clocks that count
 * CLOCK_MONOTONIC's nanoseconds (the clock table's ctf_name). */
static const char *clock_name(const struct bp_trace_info *info)
{
	const struct bp_clock_desc *d = bp_clock_desc((enum bp_clock_id)info->clock);

	return d ? d->ctf_name : "counter";
}

static const char *const trace_head =
	"/* CTF 1.8 */\n\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n\n";

void ctf_write_trace(struct bp_out_buf *f, const unsigned char *uuid)
{
	bp_out_puts(f, trace_head);
	bp_out_puts(f, "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"");
	uuid_str(f, uuid);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	bp_out_puts(f, "\";\n\tbyte_order = be;\n");
#else
	bp_out_puts(f, "\";\n\tbyte_order = le;\n");
#endif
	bp_out_puts(f, "\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
		    "\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};\n};\n\n");
}

/* An LTTng date: 20261203T180726+0000 (UTC). */
static void tsdl_date(struct bp_out_buf *f, uint64_t realtime_ns)
{
	time_t sec = (time_t)(realtime_ns / 1000000000u);
	struct tm tm;
	char date[32];

	if (!gmtime_r(&sec, &tm) || !strftime(date, sizeof(date), "%Y%m%dT%H%M%S+0000", &tm))
		date[0] = '\0';
	ctf_tsdl_str(f, date, sizeof(date));
}

/*
 * Was the trace recorded since this machine booted?  Its realtime start
 * less its monotonic start is the boot's realtime; this boot's is now's
 * realtime less now's monotonic.  The two differ by what the realtime
 * clock was stepped (and a suspend) since: a second apart is another
 * boot, or another machine.
 */
static bool this_boot(const struct bp_trace_info *info)
{
	struct timespec rt, mono;
	int64_t then, now;

	if (!info->start_realtime_ns || !info->start_mono_ns ||
	    clock_gettime(CLOCK_REALTIME, &rt) || clock_gettime(CLOCK_MONOTONIC, &mono))
		return false;
	then = (int64_t)(info->start_realtime_ns - info->start_mono_ns);
	now = ((int64_t)rt.tv_sec - (int64_t)mono.tv_sec) * 1000000000 +
	      ((int64_t)rt.tv_nsec - (int64_t)mono.tv_nsec);
	return (then > now ? then - now : now - then) < 1000000000;
}

/* This boot's id, as the kernel gives it (8-4-4-4-12 lower-case hex), into
 * id (37 bytes); false if it cannot be read or is not one. */
static bool read_boot_id(char *id)
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, id, 36);

	if (fd >= 0)
		close(fd);
	if (n != 36)
		return false;
	id[36] = '\0';
	for (int i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? id[i] != '-' : !((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
			return false;
	}
	return true;
}

/* The environment: LTTng-UST 2.12's keys (per-process buffers), then ours.
 * host: the host's name (a trace of this boot), else NULL. */
static void write_env(struct bp_out_buf *f, const struct bp_trace_info *info, const char *host)
{
	bp_out_putf(f, "env {\n\tdomain = \"ust\";\n\ttracer_name = \"lttng-ust\";\n"
		    "\ttracer_major = 2;\n\ttracer_minor = 12;\n"
		    "\ttracer_buffering_scheme = \"pid\";\n\ttracer_buffering_id = %lld;\n"
		    "\tarchitecture_bit_width = %u;\n\ttrace_name = ",
		    (long long)info->pid, info->word_size ? info->word_size * 8u : 64u);
	ctf_tsdl_str(f, info->comm, 16);
	/* babeltrace2 names a trace by its hostname (sink.ctf.fs writes it to
	 * OUT/HOSTNAME/...); a trace from another boot says it is unknown */
	bp_out_puts(f, ";\n\thostname = ");
	ctf_tsdl_str(f, host ? host : "unknown", 256);
	if (info->start_realtime_ns) {
		bp_out_puts(f, ";\n\ttrace_creation_datetime = ");
		tsdl_date(f, info->start_realtime_ns);
	}
	bp_out_putf(f, ";\n\ttracer_patchlevel = 0;\n\tvpid = %lld;\n\tprocname = ",
		    (long long)info->pid);
	ctf_tsdl_str(f, info->comm, 16);
	if (info->start_realtime_ns) {
		bp_out_puts(f, ";\n\tvpid_datetime = ");
		tsdl_date(f, info->start_realtime_ns);
	}
	bp_out_puts(f, ";\n\tbprint_clock = ");
	ctf_tsdl_str(f, info->clock_name, 32);
	bp_out_puts(f, ";\n\tbprint_cmdline = ");
	ctf_tsdl_str(f, info->cmdline, 1024);
	bp_out_puts(f, ";\n};\n\n");
}

const char *ctf_host(const struct bp_trace_info *info, char *host, size_t size)
{
	host[size - 1] = '\0';
	return this_boot(info) && gethostname(host, size - 1) == 0 ? host : NULL;
}

static void write_clock(struct bp_out_buf *f, const struct bp_trace_info *info,
			const char *boot_id)
{
	int64_t off;

	bp_out_putf(f, "clock {\n\tname = \"%s\";\n", clock_name(info));
	if (boot_id && info->clock != BP_CLOCK_COUNTER)
		bp_out_putf(f, "\tuuid = \"%s\";\n", boot_id);
	bp_out_puts(f, "\tdescription = ");
	ctf_tsdl_str(f, info->clock_name, 32);
	bp_out_puts(f, ";\n\tfreq = 1000000000;\n\tprecision = 1;\n");
	if (bp_out_wallclock_offset(info, &off) == 0) {
		int64_t sec = off / 1000000000, ns = off % 1000000000;

		if (ns < 0)
			sec--, ns += 1000000000;
		bp_out_putf(f, "\toffset_s = %lld;\n\toffset = %lld;\n\tabsolute = true;\n",
			    (long long)sec, (long long)ns);
	}
	bp_out_putf(f, "};\n\n"
		    "typealias integer { size = 64; align = 8; signed = false;"
		    " map = clock.%s.value; } := clock_u64;\n\n", clock_name(info));
}

void ctf_write_clock(struct bp_out_buf *f, const struct bp_trace_info *info)
{
	char boot_id[37];

	write_clock(f, info, this_boot(info) && read_boot_id(boot_id) ? boot_id : NULL);
}

/* The stream class: LTTng-UST's packet context and event contexts, and
 * our signal-nesting level. */
static void write_stream(struct bp_out_buf *f)
{
	bp_out_puts(f,
		CTF_STREAM_HEAD
		"\tevent.context := struct {\n"
		"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _vtid;\n"
		"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _vpid;\n"
		"\t\tinteger { size = 8; align = 8; signed = 1; encoding = UTF8; base = 10; }"
		" _procname[16];\n"
		"\t\tuint8_t _level;\n"
		"\t};\n};\n\n");
}

enum ctf_kind ctf_kind(const struct bp_trace_layout *lay, unsigned k)
{
	const struct bp_trace_field *d = &lay->fields[k];

	if (d->type == BP_FIELD_FLOAT)
		return CTF_DOUBLE;
	if (d->type == BP_FIELD_STRING || d->type == BP_FIELD_CHAR || bp_out_symbol_letter(lay, k))
		return CTF_STRING;
	return CTF_INTEGER;
}

/* The TSDL type of field k. */
static void field_type(struct bp_out_buf *f, const struct bp_trace_layout *lay, unsigned k)
{
	const struct bp_trace_field *d = &lay->fields[k];

	switch (ctf_kind(lay, k)) {
	case CTF_INTEGER:
		bp_out_putf(f, "integer { size = %u; align = 8; signed = %s; base = %u; }",
			    d->size * 8u, d->type == BP_FIELD_SIGNED ? "true" : "false", d->base);
		break;
	case CTF_DOUBLE:
		bp_out_puts(f, "floating_point { exp_dig = 11; mant_dig = 53; align = 8; }");
		break;
	default:
		bp_out_puts(f, "string");
	}
}

static void write_class(struct bp_out_buf *f, size_t id, const char *name,
			const struct bp_trace_layout *lay, bool fallback)
{
	char alias[BP_OUT_FIELD_NAME_MAX];

	bp_out_puts(f, "event {\n\tname = ");
	ctf_tsdl_str(f, name, 127);
	bp_out_putf(f, ";\n\tid = %zu;\n\tstream_id = 0;\n\tfields := struct {\n\t\tstring msg;\n", id);
	for (unsigned i = 0; lay && i < lay->nfields; i++) {
		bp_out_puts(f, "\t\t");
		field_type(f, lay, i);
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
	const struct bp_out_names *names = &x->fx->names;
	size_t n = names->n;
	bool text_taken = false;

	if (!(x->cls = calloc(n + 1, sizeof(*x->cls))))
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct bp_trace_site *ts = bp_trace_site_at(t, i);

		x->cls[i].site_id = ts->id;
		x->cls[i].lay = bp_trace_layout(t, ts->id);
		for (unsigned k = 0; x->cls[i].lay && k < x->cls[i].lay->nfields; k++)
			x->cls[i].kind[k] = (uint8_t)ctf_kind(x->cls[i].lay, k);
		write_class(m, i, names->name[i], x->cls[i].lay, false);
		text_taken |= !strcmp(names->name[i], "bprint_text");
	}
	x->ncls = n;
	write_class(m, n, text_taken ? "bprint_text#" : "bprint_text", NULL, true);
	return !m->oom;
}

int ctf_write_metadata(struct ctf *x)
{
	const struct bp_trace_info *info = x->fx->info;
	struct bp_out_buf m = { 0 };
	int fd = openat(x->fx->fd, "metadata",
			O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	int rc = 0;

	if (fd < 0)
		return x->fx->err = errno, BP_TRACE_EIO;
	char host[257];

	ctf_write_trace(&m, x->uuid);
	write_env(&m, info, ctf_host(info, host, sizeof(host)));
	ctf_write_clock(&m, info);
	write_stream(&m);
	if (!write_classes(x, &m))
		rc = BP_TRACE_ENOMEM;
	else
		rc = bp_export_write(x->fx, fd, m.p, m.len);
	if (close(fd) != 0 && !rc)
		rc = BP_TRACE_EIO, x->fx->err = errno;
	bp_out_free(&m);
	return rc;
}
