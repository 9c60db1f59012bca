/*
 * The shared library of the symbols test (symbols.cmake), built twice: as
 * recorded, and as a different build (SYMBOLS_REBUILT: other code, so
 * another GNU build-id) put at the same path afterwards.  It traces too:
 * the writer records an object loaded after start-up in the trace file's
 * library map when the object registers a call site.
 */
#include <bprint.h>

void symbols_dl_fn(int *x);
int symbols_dl_other(int x);

void symbols_dl_fn(int *x)
{
#ifdef SYMBOLS_REBUILT
	for (int i = 0; i < 3; i++)
		*x = *x * 7 + i;
#else
	*x += 1;
#endif
	trace_printk("dl fn %d", *x);
}

int symbols_dl_other(int x)
{
	return x * 3;
}
