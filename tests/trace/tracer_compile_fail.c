/*
 * Compiled (not run) by tracer_compile.cmake: with TRACER_BAD defined the
 * argument does not match the format and -Werror=format must reject it;
 * without, the same file must compile, so a failure means the format check.
 */
#include <bprint.h>

int main(void)
{
#ifdef TRACER_BAD
	trace_printk("%s", 42);
#else
	trace_printk("%d", 42);
#endif
	return 0;
}
