// bench/hotpath_rows.cpp - bench-hotpath's rows (hotpath_rows.h) compiled
// as C++: the same calls as hotpath_rows.c, through C++'s call sites.
#include <bprint.h>

#include "hotpath_rows.h"

BENCH_DEFINE_ROWS(bench_rows_cxx)
BENCH_DEFINE_MANY(bench_many_cxx)
