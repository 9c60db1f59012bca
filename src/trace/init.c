/*
 * Start-up: configuration, clock, filters, thread hooks, dumps.  Runs as an
 * early constructor (priority 102, after the clock's 101), so that it is in
 * place before the program's own constructors trace anything.
 */
#include "trace/tracer.h"

#include "file/writer.h"
#include "trace/clock.h"
#include "trace/config.h"
#include "trace/site.h"

__attribute__((constructor(102))) static void bprint_init(void)
{
	bp_config_load();
	bp_clock_select((enum bp_clock_id)bp_config.clock);
	if (bp_config.file_path)
		bp_file_open(bp_config.file_path);	/* before anything traces */
	bp_thread_init();
	bp_site_filter_load(bp_config.filter);
	if (bp_config.disabled)
		bprint_off();
	bp_dump_install();
}
