// The second translation unit that uses the header-only helper.
#include "tracer_cxx_header.h"

void tracer_cxx_other(long v)
{
	tracer_cxx_header_helper(2, v);
}
