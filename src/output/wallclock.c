/* Wall-clock offset of a trace (wallclock.h). */
#include "output/wallclock.h"

#include "file/reader.h"

#include <string.h>

int bp_out_wallclock_offset(const struct bp_trace_info *info, int64_t *offset_ns)
{
	const char *c = info->clock_name;

	if (!c || (strcmp(c, "mono") && strcmp(c, "tsc") && strcmp(c, "mono_raw")))
		return -1;
	if (info->start_realtime_ns == 0 || info->start_realtime_ns > INT64_MAX ||
	    info->start_mono_ns > INT64_MAX)
		return -1;	/* an old or damaged header */
	*offset_ns = (int64_t)info->start_realtime_ns - (int64_t)info->start_mono_ns;
	return 0;
}
