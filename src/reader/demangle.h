/*
 * reader/demangle.h - a C++ symbol (an Itanium-ABI "_Z..." name) as a C++
 * programmer reads it, for %pS and %ps: "_ZN2ns4workEi" is
 * "ns::work(int)", as c++filt, gdb and perf print it.
 */
#ifndef BP_FILE_DEMANGLE_H
#define BP_FILE_DEMANGLE_H

#include <stddef.h>

/*
 * name demangled into out (size bytes, NUL-terminated, cut if need be):
 * its length, or 0 when name is no mangled C++ name or cannot be
 * demangled here (then the caller prints name as it is).
 */
size_t bp_demangle(const char *name, char *out, size_t size);

#endif /* BP_FILE_DEMANGLE_H */
