/*
 * tests/trace/tracer_cxx_header.h - a header-only helper with a call
 * site, used from two C++ translation units (tracer_cxx_sites.cpp,
 * tracer_cxx_other.cpp): both must link, and both calls read back.
 */
#ifndef BP_TEST_TRACER_CXX_HEADER_H
#define BP_TEST_TRACER_CXX_HEADER_H

#include <bprint.h>

inline void tracer_cxx_header_helper(int who, long v)
{
	trace_printk("header helper from %d: %ld", who, v);
}

void tracer_cxx_other(long v);

#endif
