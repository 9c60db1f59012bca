/* Trace, then print the trace: the smallest program that uses bprint. */
#include <bprint.h>

#include <stdio.h>

int main(int argc, char **argv)
{
	(void)argv;
	for (int i = 0; i < 3; i++)
		trace_printk("hello %d of %d (argc %d)", i + 1, 3, argc);
	trace_puts("goodbye");
	return bprint_dump_fmt(stdout, BPRINT_OUTPUT_MSG) == 4 ? 0 : 1;
}
