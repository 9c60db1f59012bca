/*
 * bench/peers/bprint: trace_printk() on the peer messages.
 *
 * The same program is both bprint variants: run alone it traces into the
 * in-memory per-thread rings (flight recorder, no consumer); run under
 * `bprint record` (or with BPRINT_FILE set) its rings are the trace file.
 */
#include <bprint.h>

#define PEER_NAME "bprint"
#define PEER_PRINTF(...) trace_printk(__VA_ARGS__)

#include "peers.h"
