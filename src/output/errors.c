/* The one-line reason of a failed export (export.h). */
#include "output/export.h"

#include "file/reader.h"

#include <errno.h>
#include <string.h>

void bp_export_reason(int rc, FILE *out, char *err, size_t errlen)
{
	int e = errno;

	if (rc >= 0 || !errlen)
		return;
	if (rc == BP_TRACE_EIO && out && ferror(out))
		bp_snprintf(err, errlen, e ? "write error: %s" : "write error", strerror(e));
	else
		bp_snprintf(err, errlen, "%s", rc == BP_TRACE_ENOMEM ? "out of memory"
			    : "reading the trace failed");
}
