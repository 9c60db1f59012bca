/* A library py_traced dlopen()s, traces from with its own call sites, then dlclose()s. */
#include <bprint.h>

void py_dlmod_trace(int n);

void py_dlmod_trace(int n)
{
	for (int i = 0; i < n; i++)
		trace_printk("dl n=%d s=%s x=%f", i, "from the module", i / 4.0);
	trace_puts("dl puts");
}
