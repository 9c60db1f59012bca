/*
 * bp_trace_snapshot() (bprint/record.h): the drainer run once over a
 * running process's live file, as an observer (BP_DRAIN_OBSERVE: no
 * consumer, nothing written to the live file), into a closed stream.
 */
#include <bprint/record.h>

#include "file/drain.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int bp_trace_snapshot(int fd, const char *name, const char *out_path,
		      struct bp_record_counts *counts, char *err, size_t errlen)
{
	struct bp_drain_file *df = NULL;
	const struct bp_drain_result *res;
	struct bp_drain_live live;
	int own, rc;

	if (errlen)
		err[0] = '\0';
	if (counts && counts->size < sizeof(*counts))
		return BP_TRACE_EINVAL;
	/* the drainer takes the fd it is given: ours, a copy */
	if ((own = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return errno == ENOMEM || errno == EMFILE || errno == ENFILE ? BP_TRACE_ENOMEM
									      : BP_TRACE_EIO;
	}
	if ((rc = bp_drain_open_fd(own, name, BP_DRAIN_OBSERVE, &df, &live)) <= 0)
		return rc < 0 ? BP_TRACE_ENOMEM : BP_RECORD_E_NOT_READY;
	if (bp_drain_start(df, out_path, 0) != 0 || bp_drain_finish(df, false) != 0) {
		res = bp_drain_result(df);
		snprintf(err, errlen, "%s", res->error[0] ? res->error
							  : "the trace could not be written whole");
		bp_drain_free(df);
		return BP_TRACE_EIO;
	}
	res = bp_drain_result(df);
	if (counts)
		*counts = (struct bp_record_counts){
			.size = counts->size,
			.rings = res->rings,
			.copied = res->copied,
			.lost_records = res->lost_records,
			.discarded = res->discarded,
			.bytes = res->bytes,
		};
	bp_drain_free(df);
	return 0;
}
