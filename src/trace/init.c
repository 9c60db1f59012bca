/*
 * The tracer's start-up, in two steps that the runtime's composition root
 * (src/runtime/start.c) calls around the set-up of the file backing, and
 * the global switch.
 *
 * The switch is bit 0 of bprint__gate, which lives with the clock (clock.c)
 * because its bit 1 says whether the clock is the TSC.
 */
#include "trace/tracer.h"

#include "trace/clock.h"
#include "trace/config.h"
#include "trace/site.h"

void bprint_on(void)
{
	__atomic_fetch_or(&bprint__gate.bits, BPRINT__GATE_ON, __ATOMIC_RELAXED);
}

void bprint_off(void)
{
	__atomic_fetch_and(&bprint__gate.bits, ~BPRINT__GATE_ON, __ATOMIC_RELAXED);
}

int bprint_is_on(void)
{
	return bp_tracing_is_on();
}

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
