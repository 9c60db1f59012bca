/*
 * The traced program of bench/python.py (bench-python): N records of one
 * call site, run with BPRINT_FILE set.
 *
 *   python-traced scalar N   "req key=%d dur_us=%llu status=%d": scalars only
 *   python-traced string N   "req method=%s dur_us=%llu status=%d": one string
 */
#include <bprint.h>

#include <stdlib.h>
#include <string.h>

static const char *const methods[] = { "GET", "PUT", "POST", "DELETE", "PATCH", "HEAD" };

int main(int argc, char **argv)
{
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;

	if (argc > 2 && !strcmp(argv[1], "scalar")) {
		for (unsigned long i = 0; i < n; i++)
			trace_printk("req key=%d dur_us=%llu status=%d", (int)(i % 64),
				     (unsigned long long)(i * 7919 % 100000), 200 + (int)(i % 5));
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "string")) {
		for (unsigned long i = 0; i < n; i++)
			trace_printk("req method=%s dur_us=%llu status=%d", methods[i % 6],
				     (unsigned long long)(i * 7919 % 100000), 200 + (int)(i % 5));
		return 0;
	}
	return 2;
}
