/* Wall-clock dates of trace nanoseconds (wallclock.h). */
#include "output/wallclock.h"

#include "file/reader.h"

#include <string.h>

bool bp_out_realtime_offset(const struct bp_trace_info *info, int64_t *offset)
{
	if (strcmp(info->clock_name, "mono") && strcmp(info->clock_name, "tsc"))
		return false;
	*offset = (int64_t)(info->start_realtime_ns - info->start_mono_ns);
	return true;
}
