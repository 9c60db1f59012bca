/*
 * reader_probe: bp_trace_probe() and bp_trace_ring_mode_name() (the
 * command's look at a path before opening it).  The program traces into
 * its own live file (BPRINT_FILE, set by the test) and probes it, a copy
 * cut inside its header, a file that is not a trace, a missing one and a
 * link to its trace (not followed).
 */
#include "check.h"

#include <bprint.h>
#include <bprint/reader.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0);
	CHECK_EQ(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

int main(void)
{
	const char *path = getenv("BPRINT_FILE");
	struct bp_trace_probe p = BP_TRACE_PROBE_INIT, nosize = { 0 };
	char other[4096], head[64];
	int fd;

	CHECK(path != NULL);
	trace_printk("probe me %d", 1);
	CHECK_EQ(bp_trace_probe(path, &p), 1);
	CHECK_EQ(p.pid, (int64_t)getpid());
	CHECK(!(p.flags & BP_TRACE_F_STREAM));
	CHECK(p.valid);
	CHECK_EQ(bp_trace_probe(path, &nosize), BP_TRACE_EINVAL);

	/* cut inside its header: still its magic and pid, no longer valid */
	CHECK((fd = open(path, O_RDONLY)) >= 0);
	CHECK_EQ(read(fd, head, sizeof(head)), (ssize_t)sizeof(head));
	close(fd);
	snprintf(other, sizeof(other), "%s.cut", path);
	write_file(other, head, sizeof(head));
	p = (struct bp_trace_probe)BP_TRACE_PROBE_INIT;
	CHECK_EQ(bp_trace_probe(other, &p), 1);
	CHECK_EQ(p.pid, (int64_t)getpid());
	CHECK(!p.valid);
	write_file(other, head, 8);		/* the magic alone */
	CHECK_EQ(bp_trace_probe(other, &p), 0);
	write_file(other, "not a trace at all, not a trace at all, not a trace", 50);
	CHECK_EQ(bp_trace_probe(other, &p), 0);
	unlink(other);
	errno = 0;
	CHECK_EQ(bp_trace_probe(other, &p), -1);
	CHECK_EQ(errno, ENOENT);
	CHECK_EQ(symlink(path, other), 0);
	CHECK_EQ(bp_trace_probe(other, &p), -1);	/* a link: not followed */
	unlink(other);

	CHECK_STREQ(bp_trace_ring_mode_name(BP_TRACE_MODE_OVERWRITE), "overwrite");
	CHECK_STREQ(bp_trace_ring_mode_name(BP_TRACE_MODE_DISCARD), "discard");
	CHECK_STREQ(bp_trace_ring_mode_name(BP_TRACE_MODE_BLOCK), "block");
	CHECK(bp_trace_ring_mode_name(99) == NULL);
	printf("ok: probes of a trace, a cut one, a foreign file, a missing one, a link\n");
	return 0;
}
