/* Call-site patterns (pattern.h). */
#include "trace/pattern.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

bool bp_site_pattern_matches(const char *pattern, const struct bprint_site *s)
{
	char where[4096 + 16];
	const char *file = s->file ? s->file : "";
	const char *base = strrchr(file, '/');

	base = base ? base + 1 : file;
	if (!strncmp(pattern, "file:", 5))
		return !fnmatch(pattern + 5, file, 0) || !fnmatch(pattern + 5, base, 0);
	if (!strncmp(pattern, "line:", 5)) {
		snprintf(where, sizeof(where), "%s:%u", base, s->line);
		if (!fnmatch(pattern + 5, where, 0))
			return true;
		snprintf(where, sizeof(where), "%s:%u", file, s->line);
		return !fnmatch(pattern + 5, where, 0);
	}
	if (!strncmp(pattern, "fmt:", 4))
		return s->format && !fnmatch(pattern + 4, s->format, 0);
	if (!strncmp(pattern, "func:", 5))
		pattern += 5;
	return s->func && !fnmatch(pattern, s->func, 0);
}
