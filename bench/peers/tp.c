/* bench/peers/tp.c - the probes of the "bpeer" tracepoint provider. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE

#include "peers_tp.h"
