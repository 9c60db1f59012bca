/*
 * The runtime's composition root: the one place that knows both the tracer
 * (src/trace/) and the live-file writer (src/file/writer.h), and wires the
 * file backing in between the two steps of the tracer's start-up.  Nothing
 * in trace/ includes file/; this file sits above both.
 *
 * It runs as an early constructor (priority 102, after the clock's 101), so
 * that tracing is in place before the program's own constructors trace.
 */
#include "file/writer.h"
#include "trace/config.h"
#include "trace/tracer.h"

const char bp_init_anchor = 1;

__attribute__((constructor(102))) static void bprint_start(void)
{
	bp_tracer_configure();
	if (bp_config.file_path)
		bp_file_open(bp_config.file_path);	/* before anything traces */
	bp_tracer_start();
}
