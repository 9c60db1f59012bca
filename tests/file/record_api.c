/*
 * record_api: bprint/record.h.  A running program's trace copied out of
 * its live file into a closed stream (as `bprint snapshot PID`): the
 * stream holds every record, its counts say so, the live file keeps its
 * records (nothing consumed: a second copy holds them all again); a file
 * that is no live trace, a counts struct without its size and an output
 * that cannot be made are refused.  A live file probed (its process),
 * and one left behind finished into a stream and removed (as `bprint
 * recover` does when the stream was never made; record_killed resumes
 * streams through the command).  The recorder's parts: a first-version
 * counts struct filled only as far as its size; the drainer run by hand
 * as an observer (open, start, pass, finish, counts); the live file seen
 * from outside; the settings the command checks.
 *
 * The program traces into a live file of its own (it sets BPRINT_FILE to
 * a new directory's file and executes itself again) and copies it.
 */
#include "trace/tracer_check.h"

#include <bprint/record.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int records_in(const char *path, uint32_t *flags)
{
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	char err[256];
	struct bp_trace *t = bp_trace_open(path, 0, err, sizeof(err), NULL);
	int n = 0;

	if (!t)
		FAIL("%s: %s", path, err);
	*flags = bp_trace_info(t)->flags;
	while (bp_trace_next(t, &e, BP_TRACE_NEXT_NO_MESSAGE) == 1)
		n++;
	bp_trace_close(t);
	return n;
}

int main(int argc, char **argv)
{
	const char *path = tc_own_file(argv, "bp-record-api");
	struct bp_record_live live = BP_RECORD_LIVE_INIT, unset_live = { 0 };
	char left[200], buf[65536];
	struct stat st;
	ssize_t got;
	int lfd;
	struct bp_record_counts counts = BP_RECORD_COUNTS_INIT, unset = { 0 };
	char out[160], zero[160], err[256];
	uint32_t flags;
	int fd, zfd;

	CHECK(argc >= 1);
	for (int i = 0; i < 100; i++)
		trace_printk("copied %d", i);
	snprintf(out, sizeof(out), "%s.snap", path);
	CHECK((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0);

	for (int round = 0; round < 2; round++) {
		CHECK_EQ(bp_trace_snapshot(fd, "own", out, &counts, err, sizeof(err)), 0);
		CHECK_EQ(counts.size, sizeof(counts));
		CHECK_EQ(counts.copied, 100);
		CHECK_EQ(counts.lost_records, 0);
		CHECK(counts.rings >= 1);
		CHECK(counts.bytes > 0);
		CHECK_EQ(records_in(out, &flags), 100);
		CHECK((flags & (BP_TRACE_F_STREAM | BP_TRACE_F_CLOSED)) ==
		      (BP_TRACE_F_STREAM | BP_TRACE_F_CLOSED));
	}
	/* the live file kept them: the program's own reading sees them all */
	CHECK_EQ(records_in(path, &flags), 100);
	CHECK_EQ(bp_trace_snapshot(fd, "own", out, NULL, err, sizeof(err)), 0);

	CHECK_EQ(bp_trace_snapshot(fd, "own", out, &unset, err, sizeof(err)), BP_TRACE_EINVAL);
	CHECK_EQ(bp_trace_snapshot(fd, "own", "/nonexistent-dir/x.dat", &counts, err, sizeof(err)),
		 BP_TRACE_EIO);
	CHECK(err[0] != '\0');

	snprintf(zero, sizeof(zero), "%s.zero", path);
	CHECK((zfd = open(zero, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) >= 0);
	CHECK_EQ(ftruncate(zfd, 8192), 0);
	CHECK_EQ(bp_trace_snapshot(zfd, "zero", out, &counts, err, sizeof(err)),
		 BP_RECORD_E_NOT_READY);
	CHECK(fcntl(zfd, F_GETFD) >= 0);	/* not closed */
	close(zfd);
	unlink(zero);

	/* probed: ours */
	CHECK_EQ(bp_trace_live_probe(path, &live), 1);
	CHECK_EQ(live.pid, getpid());
	CHECK(live.start_realtime_ns > 0);
	CHECK_EQ(bp_trace_live_probe(out, &live), 0);	/* a stream */
	CHECK_EQ(bp_trace_live_probe(path, &unset_live), BP_TRACE_EINVAL);

	/* a live file left behind (a copy of ours): finished, then removed */
	snprintf(left, sizeof(left), "%s.live", out);
	CHECK((lfd = open(left, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) >= 0);
	for (off_t at = 0; (got = pread(fd, buf, sizeof(buf), at)) > 0; at += got)
		CHECK_EQ(write(lfd, buf, (size_t)got), got);
	close(lfd);
	unlink(out);
	CHECK_EQ(bp_trace_recover(left, out, 0, &counts, err, sizeof(err)), 0);
	CHECK_EQ(counts.copied, 100);
	CHECK_EQ(records_in(out, &flags), 100);
	CHECK(flags & BP_TRACE_F_CLOSED);
	CHECK(stat(left, &st) != 0);	/* removed */
	CHECK_EQ(bp_trace_recover(left, out, 0, &counts, err, sizeof(err)), BP_RECORD_E_NOT_READY);

	/* a caller of the first version: 56 bytes written, not one more */
	{
		union {
			struct bp_record_counts c;
			unsigned char raw[sizeof(struct bp_record_counts)];
		} v1;

		memset(&v1, 0xa5, sizeof(v1));
		v1.c.size = BP_RECORD_COUNTS_SIZE_1;
		CHECK_EQ(bp_trace_snapshot(fd, "own", out, &v1.c, err, sizeof(err)), 0);
		CHECK_EQ(v1.c.copied, 100);
		CHECK_EQ(v1.c.size, BP_RECORD_COUNTS_SIZE_1);
		for (size_t i = BP_RECORD_COUNTS_SIZE_1; i < sizeof(v1); i++)
			CHECK_EQ(v1.raw[i], 0xa5);
	}

	/* the drainer by hand, as an observer: the same 100 records */
	{
		struct bp_drain_file *df;
		struct bp_record_counts c = BP_RECORD_COUNTS_INIT;
		int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);

		CHECK_EQ(bp_drain_open("/nonexistent-dir/x.live", &df, &live), 0);
		CHECK_EQ(live.open_errno, 0);
		CHECK_EQ(bp_drain_open(path, &df, &unset_live), BP_TRACE_EINVAL);
		CHECK_EQ(bp_drain_open_fd(own, "own", BP_DRAIN_OBSERVE, &df, &live), 1);
		CHECK_EQ(live.pid, getpid());
		CHECK_EQ(bp_drain_start(df, out, 0), 0);
		CHECK(bp_drain_pass(df) >= 0);
		CHECK_EQ(bp_drain_finish(df, false), 0);
		CHECK_EQ(bp_drain_counts(df, &unset), BP_TRACE_EINVAL);
		CHECK_EQ(bp_drain_counts(df, &c), 0);
		CHECK_EQ(c.copied, 100);
		CHECK_EQ(c.written + c.dropped, 100);
		CHECK(c.rings >= 1 && c.pages >= 1 && c.bytes > 0);
		CHECK_EQ(c.truncated, 0);
		CHECK_EQ(bp_drain_error(df)[0], '\0');
		bp_drain_free(df);
		CHECK_EQ(records_in(out, &flags), 100);
	}

	/* seen from outside: our live file, not another process's, not a stream */
	{
		unsigned major = 0, minor = 0, ours_major, ours_minor;
		int sfd = open(out, O_RDONLY | O_CLOEXEC);

		CHECK_EQ(bp_record_live_look(fd, getpid(), &major, &minor), BP_RECORD_LOOK_LIVE);
		bp_record_format_version(&ours_major, &ours_minor);
		CHECK(major == ours_major && minor <= ours_minor);
		CHECK_EQ(bp_record_live_look(fd, getpid() + 1, &major, &minor), BP_RECORD_LOOK_NONE);
		CHECK(sfd >= 0);
		CHECK_EQ(bp_record_live_look(sfd, getpid(), &major, &minor), BP_RECORD_LOOK_NONE);
		close(sfd);
		CHECK(!bp_record_live_closed(fd));
		CHECK(strlen(bp_record_memfd_name()) > 0);
		CHECK(bp_record_header_bytes() >= 64);
	}

	/* the settings, by the program's rules */
	CHECK_EQ(bp_record_parse_size("64K"), 65536);
	CHECK_EQ(bp_record_parse_size("x"), 0);
	CHECK_EQ(bp_record_parse_duration("100ms"), 100000000);
	CHECK(bp_record_mode_known("overwrite") && !bp_record_mode_known("Overwrite"));
	CHECK(bp_record_clock_known("mono") && !bp_record_clock_known("MONO"));
	CHECK(bp_record_clock_known(bp_record_clock_default()));
	CHECK(bp_record_buffer_max() >= ((size_t)1 << 30));
	CHECK(bp_record_is_trace("BPTRACE", 8) && !bp_record_is_trace("BPTRACE", 7));
	CHECK(!strcmp(bp_record_kernel_clock("tsc"), "x86-tsc"));
	CHECK(bp_record_kernel_clock("counter") == NULL);

	close(fd);
	unlink(out);
	tc_own_file_remove(path);
	return 0;
}
