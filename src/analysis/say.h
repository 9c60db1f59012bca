/*
 * analysis/say.h - the analysis layer's one-line reasons: format into the
 * caller's err buffer (errlen bytes, may be 0) and return -1, the failure
 * every function here returns with a reason.
 */
#ifndef BP_ANALYSIS_SAY_H
#define BP_ANALYSIS_SAY_H

#include <stddef.h>

int bp_say(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* BP_ANALYSIS_SAY_H */
