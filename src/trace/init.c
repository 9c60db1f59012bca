/*
 * Start-up and the global switch.  bprint_init() reads the configuration
 * and sets up the clock, filters, thread hooks and dumps.  It runs as an
 * early constructor (priority 102, after the clock's 101), so that it is in
 * place before the program's own constructors trace anything.
 *
 * The switch is bit 0 of bprint__gate, which lives with the clock (clock.c)
 * because its bit 1 says whether the clock is the TSC, and tools that only
 * read traces link the clock but must not get this file's constructor.
 * Every program that traces links this file, constructor included, even
 * from the static library (which links only the objects it needs): the
 * out-of-line half of trace_printk() refers to bp_init_anchor.
 */
#include "trace/tracer.h"

#include "file/writer.h"
#include "trace/clock.h"
#include "trace/config.h"
#include "trace/site.h"

const char bp_init_anchor = 1;

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
