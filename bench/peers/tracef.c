/*
 * bench/peers/tracef: LTTng-UST's tracef() on the peer messages (the text
 * is formatted at each call and recorded as one string field).
 */
#include <lttng/tracef.h>

#define PEER_NAME "tracef"
#define PEER_PRINTF(...) lttng_ust_tracef(__VA_ARGS__)

#include "peers.h"
