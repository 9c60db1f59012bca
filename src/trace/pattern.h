/*
 * Call-site patterns, the one syntax of BPRINT_FILTER, bprint_enable(),
 * bprint_disable() and `bprint report --site`:
 *   file:GLOB        the source file, or its base name
 *   line:FILE:LINE   FILE:LINE as a glob, with the base name or the path
 *   func:GLOB        the function: a C++ one's qualified name ("Conn::opened"),
 *                    or its own name ("opened"), with or without its
 *                    template arguments ("sum<int>", "sum")
 *   fmt:GLOB         the format
 *   kernel:GLOB      a kernel event by name (a trace's kernel stream: its
 *                    sites' file is kernel/SYSTEM, docs/kernel-stream.md)
 *   GLOB             a bare glob: the function
 */
#ifndef BP_TRACE_PATTERN_H
#define BP_TRACE_PATTERN_H

#include <bprint.h>

#include <stdbool.h>

bool bp_site_pattern_matches(const char *pattern, const struct bprint_site *s);

#endif /* BP_TRACE_PATTERN_H */
