/*
 * A call site's function as a C++ programmer reads it.  A C++ call site
 * holds its __PRETTY_FUNCTION__ (include/bprint/internal.h), the whole
 * signature in the compiler's words; registration keeps, once, the
 * qualified name alone, with the template arguments of the instance:
 *
 *   void Conn::opened(int)                        Conn::opened
 *   T ns::sum(T, T) [with T = int]                ns::sum<int>
 *   void Box<T>::get(U) [with U = char; T = int]  Box<int>::get<char>
 *   main()::<lambda(int)>                         main::<lambda>
 *   auto main()::(anonymous class)::operator()(int) const
 *                                                 main::<lambda>
 *   void {anonymous}::helper()                    (anonymous namespace)::helper
 *
 * g++'s and clang++'s spellings give the same names (but for what the
 * compilers spell differently inside a type, such as std::string, or an
 * inline namespace that only g++ names).  A C site's __func__ is an
 * identifier and stays as it is.
 */
#ifndef BP_TRACE_FUNCNAME_H
#define BP_TRACE_FUNCNAME_H

#include <stddef.h>

/*
 * The readable name of func into out (size bytes, NUL-terminated, cut if
 * need be); func itself when it is not a signature this reads (an
 * identifier, or something unexpected).  Returns the length it would have.
 */
size_t bp_func_name(char *out, size_t size, const char *func);

/* The same, allocated (free() it); NULL for NULL or no memory. */
char *bp_func_name_dup(const char *func);

#endif /* BP_TRACE_FUNCNAME_H */
