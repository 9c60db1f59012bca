// tracer_stress_cxx.cpp - tracer_stress's C++ call site: a string, a char
// and a scalar, written at the call site as a C one would write them.
#include <bprint.h>

#include "tracer_stress.h"

void tracer_stress_cxx(int t, unsigned long long seq, const char *s, char c, unsigned long long v)
{
	trace_printk(FMT_CXX, t, seq, s, c, v);
}
