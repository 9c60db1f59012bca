/* A library the writer_sites_dlopen test dlopen()s, traces from, then dlclose()s. */
#include <bprint.h>

void writer_dlmod_trace(int n);

void writer_dlmod_trace(int n)
{
	for (int i = 0; i < n; i++)
		trace_printk("dl n=%d s=%s", i, "hello");
	trace_puts("dl puts");
}
