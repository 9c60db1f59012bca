/* Call-site patterns (pattern.h). */
#include "trace/pattern.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

/*
 * A function: its whole name ("Conn::opened", "ns::sum<int>"), or a C++
 * one's own name without its scope ("opened", "sum<int>") or template
 * arguments ("sum").
 */
static bool func_matches(const char *pattern, const char *func)
{
	char own[4096];
	const char *name = func;
	int depth = 0;

	if (!fnmatch(pattern, func, 0))
		return true;
	for (const char *p = func; *p; p++) {
		if (*p == '<' || *p == '(')
			depth++;
		else if ((*p == '>' || *p == ')') && depth > 0)
			depth--;
		else if (depth == 0 && p[0] == ':' && p[1] == ':')
			name = p + 2;
	}
	if (name == func && !strchr(func, '<'))
		return false;	/* a C function: its name is all there is */
	if (!fnmatch(pattern, name, 0))
		return true;
	snprintf(own, sizeof(own), "%.*s", (int)strcspn(name, "<"), name);
	return own[0] && strcmp(own, name) && !fnmatch(pattern, own, 0);
}

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
	if (!strncmp(pattern, "kernel:", 7))	/* a kernel event's site: file kernel/SYSTEM */
		return !strncmp(file, "kernel/", 7) && s->func && !fnmatch(pattern + 7, s->func, 0);
	if (!strncmp(pattern, "func:", 5))
		pattern += 5;
	return s->func && func_matches(pattern, s->func);
}
