/*
 * analysis/glob.h - shell-style globs over byte strings that are not
 * NUL-terminated (the %s values of a record): * any run, ? any byte,
 * [abc], [a-z], [!x] or [^x] a byte class, \x the byte x.  No locale, no
 * special case for '/' or a leading '.'.
 */
#ifndef BP_ANALYSIS_GLOB_H
#define BP_ANALYSIS_GLOB_H

#include <stdbool.h>
#include <stddef.h>

bool bp_glob_match(const char *pat, size_t plen, const char *s, size_t slen);

#endif /* BP_ANALYSIS_GLOB_H */
