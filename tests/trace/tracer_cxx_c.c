/*
 * tracer_cxx_c.c - the calls of tracer_cxx_calls.h compiled as C, for
 * tracer_cxx_sites.cpp to compare with the same calls compiled as C++; and
 * the text each call must read back as, made by the C library.
 */
#include <bprint.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tracer_cxx_calls.h"

int tracer_cxx_ncalls(void);
void tracer_cxx_c_call(int k, long long v);
void tracer_cxx_expect(int k, long long v, char *buf, size_t size);

#define COUNT(...) +1
int tracer_cxx_ncalls(void)
{
	return 0 TRACER_CXX_CALLS(0, COUNT);
}

void tracer_cxx_c_call(int k, long long v)
{
	int i = 0;

#define C_CALL(...) if (k == i++) { trace_printk(__VA_ARGS__); return; }
	TRACER_CXX_CALLS(v, C_CALL)
}

void tracer_cxx_expect(int k, long long v, char *buf, size_t size)
{
	int i = 0;

#define C_EXPECT(...) if (k == i++) { snprintf(buf, size, __VA_ARGS__); return; }
	TRACER_CXX_CALLS(v, C_EXPECT)
}
