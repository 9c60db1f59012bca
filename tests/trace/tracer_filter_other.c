/* A second translation unit for tracer_filter's file: patterns. */
#include <bprint.h>

void other_fn(int round);

void other_fn(int round)
{
	trace_printk("other-file r=%d", round);
}
