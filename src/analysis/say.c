/* One-line reasons (analysis/say.h). */
#include "analysis/say.h"

#include <stdarg.h>
#include <stdio.h>

int bp_say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}
