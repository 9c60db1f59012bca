/*
 * tests/trace/tracer_stress.h - what tracer_stress.c shares with its C++
 * call site (tracer_stress_cxx.cpp): the format of the C++ site's records.
 */
#ifndef BP_TEST_TRACER_STRESS_H
#define BP_TEST_TRACER_STRESS_H

#define FMT_CXX "t=%d seq=%llu cxx=%s %c %llx"

#ifdef __cplusplus
extern "C"
#endif
void tracer_stress_cxx(int t, unsigned long long seq, const char *s, char c, unsigned long long v);

#endif
