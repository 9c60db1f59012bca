/*
 * A look at a path before opening it as a trace (bprint/reader.h): its
 * header only, read once, without following a final link or blocking on
 * a FIFO; and the ring modes' names.  For the command's checks (is this
 * argument a trace, which file is this PID's) without its reaching into
 * the file layout.
 */
#include <bprint/reader.h>

#include "file/layout.h"
#include "file/valid.h"
#include "ring/ring.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

int bp_trace_probe(const char *path, struct bp_trace_probe *out)
{
	struct bp_file_header h;
	char why[128];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC), saved;
	ssize_t n;

	if (!out || out->size < sizeof(*out))
		return BP_TRACE_EINVAL;
	if (fd < 0)
		return -1;
	n = read(fd, &h, sizeof(h));
	saved = errno;
	close(fd);
	if (n < 0) {
		errno = saved;
		return -1;
	}
	if ((size_t)n < offsetof(struct bp_file_header, start_realtime_ns) ||
	    memcmp(h.magic, BP_FILE_MAGIC, sizeof(h.magic)))
		return 0;
	out->flags = atomic_load_explicit(&h.flags, memory_order_relaxed) &
		     (BP_TRACE_F_STREAM | BP_TRACE_F_CLOSED | BP_TRACE_F_CRC);
	out->pid = (int64_t)h.pid;
	out->valid = !bp_valid_header(&h, (size_t)n, why, sizeof(why));
	return 1;
}

_Static_assert(BP_TRACE_MODE_OVERWRITE == BP_RING_OVERWRITE && BP_TRACE_MODE_DISCARD == BP_RING_DISCARD &&
	       BP_TRACE_MODE_BLOCK == BP_RING_BLOCK, "the public ring modes are the ring's");

const char *bp_trace_ring_mode_name(uint32_t mode)
{
	return bp_ring_mode_name(mode);
}
