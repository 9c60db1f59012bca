/* bench/cxx_c.c - bench-cxx's rows compiled as C (cxx_rows.h). */
#include <bprint.h>

#include "cxx_rows.h"

BENCH_ROWS(BENCH_LOOP)
const struct bench_row bench_c_rows[] = { BENCH_ROWS(BENCH_ROW) { NULL, NULL } };
