/*
 * The runtime's composition root: the one place that knows both the tracer
 * (src/trace/) and the live-file writer (src/writer/writer.h), and wires the
 * file backing in between the two steps of the tracer's start-up.  Nothing
 * in trace/ includes file/; this file sits above both.
 *
 * It runs as an early constructor (priority 102, after the clock's 101), so
 * that tracing is in place before the program's own constructors trace.
 */
#include "writer/writer.h"
#include "trace/config.h"
#include "trace/tracer.h"

#include <stdlib.h>
#include <string.h>

const char bp_init_anchor = 1;

/*
 * BPRINT_ATTACH=0 keeps the rings in anonymous memory, out of reach of
 * bprint snapshot and its kin; anything else, or nothing, keeps them in
 * shared memory.  Read with secure_getenv(), as the configuration is.
 */
static int attachable(void)
{
	const char *v = secure_getenv("BPRINT_ATTACH");

	return !v || strcmp(v, "0") != 0;
}

__attribute__((constructor(102))) static void bprint_start(void)
{
	bp_tracer_configure();
	if (bp_config.file_path)
		bp_file_open(bp_config.file_path);	/* before anything traces */
	else if (attachable())
		bp_file_open_memory();	/* readable from outside (docs/attach.md) */
	bp_tracer_start();
}
