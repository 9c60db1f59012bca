/*
 * export_api: bprint/export.h, an export chosen by name.  Each format's
 * properties are those `bprint export` has always applied (ctf a
 * directory, trace-cmd and perfetto binary, trace-cmd's .dat, slices in
 * chrome and perfetto); bp_export_run() writes the bytes the exporters'
 * own entry (output/export.h, bp_export_with()) writes for the same
 * trace and filter, and counts as it does; --span's spans are drawn and
 * counted; structs without their size and unknown names are refused.
 *
 * The program traces into a live file of its own (it sets BPRINT_FILE to
 * a new directory's file and executes itself again) and reads it back.
 */
#include "trace/tracer_check.h"

#include <bprint/export.h>

#include "analysis/span_export.h"
#include "output/export.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static bool even_requests(void *arg, struct bp_trace *t, const struct bp_trace_event *e)
{
	(void)arg;
	(void)t;
	return e->index % 2 == 0;
}

/* The bytes written to a fresh memfd by one export. */
static char *exported(const char *path, bool public_api, bool filtered, size_t *len,
		      struct bp_export_counts *counts)
{
	char err[256];
	struct bp_trace *t = bp_trace_open(path, 0, err, sizeof(err), NULL);
	int fd = memfd_create("export", 0);
	struct stat st;
	char *p;

	CHECK(t != NULL && fd >= 0);
	if (public_api) {
		struct bp_export_options o = BP_EXPORT_OPTIONS_INIT;

		o.chosen = filtered ? even_requests : NULL;
		CHECK_EQ(bp_export_run(t, "chrome", fd, &o, counts, err, sizeof(err)), 0);
	} else {
		struct bp_export_opts o = { .chosen = filtered ? even_requests : NULL };
		struct bp_export_stats s = { 0 };

		CHECK_EQ(bp_export_with(t, "chrome", fd, &o, &s, err, sizeof(err)), 0);
		counts->records = s.records;
		counts->threads = s.threads;
	}
	bp_trace_close(t);
	CHECK_EQ(fstat(fd, &st), 0);
	*len = (size_t)st.st_size;
	p = malloc(*len + 1);
	CHECK(p != NULL);
	CHECK_EQ(pread(fd, p, *len, 0), (ssize_t)*len);
	close(fd);
	return p;
}

static void check_formats(void)
{
	struct bp_export_format_info f = BP_EXPORT_FORMAT_INFO_INIT, unset = { 0 };
	const char *names[] = { "trace-cmd", "chrome", "perfetto", "ctf" };
	const unsigned flags[] = { BP_EXPORT_F_BINARY, BP_EXPORT_F_SPANS,
				   BP_EXPORT_F_BINARY | BP_EXPORT_F_SPANS,
				   BP_EXPORT_F_DIRECTORY | BP_EXPORT_F_BINARY };
	size_t i;

	for (i = 0; bp_export_format_at(i); i++) {
		CHECK(i < 4);
		CHECK_STREQ(bp_export_format_at(i), names[i]);
		CHECK_EQ(bp_export_format_info(names[i], &f), 0);
		CHECK_STREQ(f.name, names[i]);
		CHECK_EQ(f.flags, flags[i]);
		CHECK_STREQ(f.suffix, i == 0 ? ".dat" : "");
		CHECK(f.noun && *f.noun);
	}
	CHECK_EQ(i, 4);
	CHECK_STREQ(f.noun, "a CTF trace");
	CHECK_EQ(bp_export_format_info("trace-cmd", &f), 0);
	CHECK_STREQ(f.noun, "a trace.dat");
	CHECK_EQ(bp_export_format_info("nope", &f), -1);
	CHECK_EQ(bp_export_format_info("chrome", &unset), BP_TRACE_EINVAL);
}

int main(int argc, char **argv)
{
	const char *path = tc_own_file(argv, "bp-export-api");
	struct bp_export_counts pub = BP_EXPORT_COUNTS_INIT, own = { 0 };
	struct bp_export_options unset_opts = { 0 };
	char err[256], dir[128], *a, *b;
	size_t alen, blen;
	struct bp_trace *t;
	const char *why;
	int fd;

	CHECK(argc >= 1);
	for (int i = 0; i < 10; i++) {
		trace_printk("begin req %d", i);
		trace_printk("end req %d dur_us %d", i, 10 * i);
	}
	check_formats();

	/* the same bytes and counts as the exporters' own entry */
	for (int filtered = 0; filtered < 2; filtered++) {
		a = exported(path, true, filtered, &alen, &pub);
		b = exported(path, false, filtered, &blen, &own);
		CHECK_EQ(alen, blen);
		CHECK(memcmp(a, b, alen) == 0);
		CHECK_EQ(pub.records, filtered ? 10 : 20);
		CHECK_EQ(pub.records, own.records);
		CHECK_EQ(pub.threads, 1);
		CHECK_EQ(pub.size, sizeof(pub));
		free(a);
		free(b);
	}

	/* --span: ten spans, none left open */
	t = bp_trace_open(path, 0, err, sizeof(err), NULL);
	CHECK(t != NULL);
	{
		struct bp_span_export *se = bp_span_export_new();
		struct bp_export_options o = BP_EXPORT_OPTIONS_INIT;
		uint64_t opens = 1, closes = 1;

		CHECK(se != NULL);
		CHECK_EQ(bp_span_export_add(se, "fmt:begin*,fmt:end*,req", err, sizeof(err)), 0);
		CHECK_EQ(bp_span_export_check(se, t, err, sizeof(err)), 0);
		o.spans = se;
		fd = memfd_create("spans", 0);
		CHECK_EQ(bp_export_run(t, "perfetto", fd, &o, &pub, err, sizeof(err)), 0);
		CHECK_EQ(pub.spans, 10);
		bp_span_export_unmatched(se, &opens, &closes);
		CHECK_EQ(opens, 0);
		CHECK_EQ(closes, 0);
		close(fd);
		bp_span_export_free(se);
	}
	bp_trace_close(t);

	/* refusals */
	t = bp_trace_open(path, 0, err, sizeof(err), NULL);
	CHECK(t != NULL);
	CHECK_EQ(bp_export_run(t, "nope", 1, NULL, NULL, err, sizeof(err)), BP_TRACE_EFORMAT);
	CHECK_STREQ(err, "no such export format");
	CHECK_EQ(bp_export_run(t, "chrome", 1, &unset_opts, NULL, err, sizeof(err)),
		 BP_TRACE_EINVAL);
	bp_trace_close(t);

	/* outputs: a file, or ctf's directory */
	snprintf(dir, sizeof(dir), "%s.ctf", path);
	fd = bp_export_open("ctf", dir, &why);
	CHECK(fd >= 0);
	{
		struct stat st;

		CHECK_EQ(fstat(fd, &st), 0);
		CHECK(S_ISDIR(st.st_mode));
	}
	close(fd);
	CHECK_EQ(rmdir(dir), 0);
	snprintf(dir, sizeof(dir), "%s.json", path);
	fd = bp_export_open("chrome", dir, &why);
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ(unlink(dir), 0);
	CHECK_EQ(bp_export_open("nope", dir, &why), -1);

	tc_own_file_remove(path);
	return 0;
}
