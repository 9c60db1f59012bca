/*
 * Compiled (not run) by tracer_compile.cmake: trace_printk() takes at most
 * 64 arguments after the format.  With TRACER_BAD, 65: one clear error, a
 * static assertion that names the limit; without, 64 compile.
 */
#include <bprint.h>

int main(void)
{
	int a0 = 0, a1 = 1, a2 = 2, a3 = 3, a4 = 4, a5 = 5, a6 = 6, a7 = 7;

#ifdef TRACER_BAD
	trace_printk("%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
		     "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
		     "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
		     "%d %d %d %d %d",
		     a0, a0, a1, a2, a3, a4, a5, a6, a7, a0, a1, a2, a3, a4, a5, a6, a7, a0,
		     a1, a2, a3, a4, a5, a6, a7, a0, a1, a2, a3, a4, a5, a6, a7, a0, a1,
		     a2, a3, a4, a5, a6, a7, a0, a1, a2, a3, a4, a5, a6, a7, a0, a1, a2,
		     a3, a4, a5, a6, a7, a0, a1, a2, a3, a4, a5, a6, a7);
#else
	trace_printk("%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
		     "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
		     "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
		     "%d %d %d %d",
		     a0, a1, a2, a3, a4, a5, a6, a7, a0, a1, a2, a3, a4, a5, a6, a7, a0,
		     a1, a2, a3, a4, a5, a6, a7, a0, a1, a2, a3, a4, a5, a6, a7, a0, a1,
		     a2, a3, a4, a5, a6, a7, a0, a1, a2, a3, a4, a5, a6, a7, a0, a1, a2,
		     a3, a4, a5, a6, a7, a0, a1, a2, a3, a4, a5, a6, a7);
#endif
	return 0;
}
