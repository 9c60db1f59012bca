/*
 * rt_long LEN...: for each LEN, a runtime format of LEN bytes ("long %d "
 * and x's) traced twice with its argument, then "done" (issue 19, item 7:
 * a 1 MB runtime format made a site record every reader refused, and the
 * whole file was called damaged).
 */
#include <bprint.h>

#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"

static void trace_runtime(const char *fmt, int a)
{
	trace_printk(fmt, a);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		size_t len = strtoul(argv[i], NULL, 10);
		char *fmt = malloc(len + 1);

		if (!fmt || len < 8)
			return 2;
		memcpy(fmt, "long %d ", 8);
		memset(fmt + 8, 'x', len - 8);
		fmt[len] = '\0';
		trace_runtime(fmt, i);
		trace_runtime(fmt, i);
		free(fmt);
	}
	trace_printk("done");
	return 0;
}
