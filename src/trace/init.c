/*
 * The tracer's start-up, in two steps that the runtime's composition root
 * (src/runtime/start.c) calls around the set-up of the file backing.  The
 * global switch (bprint_on(), bprint_off()) is bit 0 of bprint__gate, in
 * clock.c with the gate.
 */
#include "trace/tracer.h"

#include "trace/clock.h"
#include "trace/config.h"
#include "trace/site.h"

void bp_tracer_configure(void)
{
	bp_config_load();
	bp_clock_select((enum bp_clock_id)bp_config.clock);
}

void bp_tracer_start(void)
{
	bp_thread_init();
	bp_site_filter_load(bp_config.filter);
	if (bp_config.disabled)
		bprint_off();
	bp_dump_install();
}
