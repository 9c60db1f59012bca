/*
 * tests/trace/tracer_cxx_calls.h - one list of trace_printk() calls that
 * tracer_cxx_c.c compiles as C and tracer_cxx_sites.cpp as C++, so that
 * the two languages' records of the same call can be compared byte by
 * byte.  TRACER_CXX_CALLS(v, X) expands X(format, arguments...) for each
 * call, its arguments made from the long long v.  Scalars of every size
 * (the inline path; six arguments, the last count BPRINT__PICK7's window
 * holds, and seven, past it), then strings, chars and a long double (out
 * of line).
 */
#ifndef BP_TEST_TRACER_CXX_CALLS_H
#define BP_TEST_TRACER_CXX_CALLS_H

enum tracer_cxx_color { TRACER_CXX_RED = 1, TRACER_CXX_BLUE = 7 };

#define TRACER_CXX_CALLS(v, X)							\
	X("seed %d", (int)(v))							\
	X("two %d %u", (int)(v) - 5, (unsigned)(v) * 3u)			\
	X("longs %ld %lld %lu", (long)(v) * -7, (long long)((unsigned long long)(v) << 20),		\
	  (unsigned long)(v))							\
	X("small %d %d %d %d", (char)(v), (signed char)(v), (unsigned char)(v), \
	  (short)(v))								\
	X("enum %d", (v) & 1 ? TRACER_CXX_RED : TRACER_CXX_BLUE)		\
	X("double %f %.3f", (double)(v) / 3.0, (float)(v) / 7.0f)		\
	X("ptr %p size %zu", (const void *)(uintptr_t)((v) * 4096), (size_t)(v)) \
	X("mixed %x %lf %hd %llx", (unsigned)(v), (double)(v) * 1e-3,		\
	  (short)(v), (unsigned long long)(v) * 0x9e3779b97f4a7c15ull)		\
	X("the timer: %llu", (unsigned long long)(v))				\
	X("six %d %f %p %ld %f %u", -(int)(v), (double)(v) / 8.0,		\
	  (const void *)(uintptr_t)(v), (long)(v) * -3, (float)(v) / 2.0f, (unsigned)(v)) \
	X("seven %d %d %d %d %d %d %f", (int)(v), -1, 2, -3, 4, -5, (double)(v)) \
	X("none")								\
	X("char %c", (char)('a' + (v) % 26))					\
	X("%s port %d", (v) & 1 ? "eth0" : "", (int)(v))			\
	X("prec %.*s|%.3s", (int)((v) % 5), "abcdef", "xy")			\
	X("long double %Lf", (long double)(v) / 4.0L)

#endif
