/*
 * Start-up and the global switch.  bprint_init() reads the configuration
 * and sets up the clock, filters, thread hooks and dumps.  It runs as an
 * early constructor (priority 102, after the clock's 101), so that it is in
 * place before the program's own constructors trace anything.
 *
 * The switch, bp_tracing_on, lives here on purpose: the hot path reads it,
 * so every program that traces links this file, constructor included, even
 * from the static library (which links only the objects it needs).
 */
#include "trace/tracer.h"

#include "file/writer.h"
#include "trace/clock.h"
#include "trace/config.h"
#include "trace/site.h"

_Atomic int bp_tracing_on = 1;

void bprint_on(void)
{
	atomic_store_explicit(&bp_tracing_on, 1, memory_order_relaxed);
}

void bprint_off(void)
{
	atomic_store_explicit(&bp_tracing_on, 0, memory_order_relaxed);
}

int bprint_is_on(void)
{
	return atomic_load_explicit(&bp_tracing_on, memory_order_relaxed);
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
