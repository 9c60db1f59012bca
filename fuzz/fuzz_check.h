/*
 * fuzz/fuzz_check.h - the check of the fuzz targets: a broken property
 * aborts, which libFuzzer reports as a crash and keeps the input of.
 */
#ifndef BP_FUZZ_CHECK_H
#define BP_FUZZ_CHECK_H

#include <stdlib.h>

#define CHECK(c)                                                        \
	do {                                                            \
		if (!(c))                                               \
			abort();                                        \
	} while (0)

#endif /* BP_FUZZ_CHECK_H */
