/*
 * bench/hotpath_rows.c - bench-hotpath's rows (hotpath_rows.h) compiled as
 * C, and the strings and the format they trace, filled at start-up.
 */
#include <bprint.h>

#include <string.h>

#include "hotpath_rows.h"

char bench_string_8[8 + 1];
char bench_string_39[sizeof(STRING_ARG)];
char bench_string_200[200 + 1];
char bench_format_nonconst[sizeof(MSG_INT)];

void bench_rows_fill(void)
{
	memcpy(bench_string_8, "eth0.100", 9);
	memcpy(bench_string_39, STRING_ARG, sizeof(STRING_ARG));
	for (int k = 0; k < 200; k++)
		bench_string_200[k] = (char)('a' + k % 26);
	bench_string_200[200] = '\0';
	memcpy(bench_format_nonconst, MSG_INT, sizeof(MSG_INT));
}

BENCH_DEFINE_ROWS(bench_rows_c)
BENCH_DEFINE_MANY(bench_many_c)
