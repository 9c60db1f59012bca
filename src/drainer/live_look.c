/*
 * A running process's live trace file seen through one of its
 * descriptors, as bprint/record.h gives it to the command's attach: is it
 * that process's live file, of which version, closed yet, and which
 * process drains its rings.  Reads only (pread), so a descriptor opened
 * read-only is enough and nothing in the file changes.
 */
#include <bprint/record.h>

#include "file/layout.h"
#include "file/valid.h"
#include "ring/ring.h"

#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *bp_record_memfd_name(void)
{
	return BP_FILE_MEMFD_NAME;
}

size_t bp_record_header_bytes(void)
{
	return BP_FILE_HEADER_BYTES;
}

void bp_record_format_version(unsigned *major, unsigned *minor)
{
	*major = BP_FILE_MAJOR;
	*minor = BP_FILE_MINOR;
}

int bp_record_live_look(int fd, int32_t pid, unsigned *major, unsigned *minor)
{
	struct bp_file_header h;
	uint32_t flags;

	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, BP_FILE_MAGIC, sizeof(h.magic)) != 0 || h.pid != (uint64_t)pid)
		return BP_RECORD_LOOK_NONE;	/* not a trace, or the parent's (a fork child) */
	/* relaxed: a copy read by pread, no other access pairs with it */
	flags = atomic_load_explicit(&h.flags, memory_order_relaxed);
	if (flags & BP_FILE_F_STREAM)
		return BP_RECORD_LOOK_NONE;	/* a stream file it writes (a bprint of its own) */
	*major = h.major;
	*minor = h.minor;
	if (h.major != BP_FILE_MAJOR || h.minor > BP_FILE_MINOR ||
	    h.word_size != sizeof(void *) || h.header_bytes != BP_FILE_HEADER_BYTES)
		return BP_RECORD_LOOK_OTHER_VERSION;
	return BP_RECORD_LOOK_LIVE;
}

bool bp_record_live_closed(int fd)
{
	uint32_t flags = 0;

	return pread(fd, &flags, sizeof(flags), offsetof(struct bp_file_header, flags)) ==
		       (ssize_t)sizeof(flags) && (flags & BP_FILE_F_CLOSED);
}

long bp_record_live_consumer(int fd, bool (*take)(void *arg, long pid), void *arg)
{
	struct stat st;
	struct bp_chunk_walk w = { fd, BP_FILE_HEADER_BYTES, 0 };
	struct bp_file_chunk c;
	enum bp_chunk_seen seen;

	if (fstat(fd, &st) != 0)
		return 0;
	w.file_size = (uint64_t)st.st_size;
	while ((seen = bp_chunk_walk_look(&w, &c)) != BP_CHUNK_SEEN_END) {
		uint64_t consumer;

		if (seen == BP_CHUNK_SEEN_COMPLETE && c.type == BP_CHUNK_RING &&
		    pread(fd, &consumer, sizeof(consumer),
			  (off_t)(w.off + BP_FILE_RING_OFFSET +
				  offsetof(struct bp_ring_ctl, consumer))) == (ssize_t)sizeof(consumer) &&
		    consumer && consumer <= INT32_MAX && take(arg, (long)consumer))
			return (long)consumer;
		bp_chunk_walk_pass(&w, seen, &c);
	}
	return 0;
}
