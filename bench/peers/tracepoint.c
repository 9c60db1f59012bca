/*
 * bench/peers/tracepoint: an LTTng-UST fixed-layout tracepoint per peer
 * message (provider "bpeer", peers_tp.h): the event identifies the
 * message, its fields carry the arguments in binary.
 */
#include "msgs.h"
#include "peers_tp.h"

#define PEER_NAME "tracepoint"
#define PEER_EMIT_seed(i) lttng_ust_tracepoint(bpeer, seed, A_SEED(i))
#define PEER_EMIT_static_str(i) do { (void)(i); lttng_ust_tracepoint(bpeer, static_str); } while (0)
#define PEER_EMIT_one_int(i) lttng_ust_tracepoint(bpeer, one_int, A_INT(i))
#define PEER_EMIT_two_ints(i) lttng_ust_tracepoint(bpeer, two_ints, A_INT(i), A_INT2(i))
#define PEER_EMIT_one_double(i) lttng_ust_tracepoint(bpeer, one_double, A_DOUBLE(i))
#define PEER_EMIT_complex_fmt(i)						\
	lttng_ust_tracepoint(bpeer, complex_fmt, A_CX1(i), A_CX2(i), A_CX3(i), A_CX4(i), \
			     A_CX5(i))
#define PEER_EMIT_one_string(i)						\
	lttng_ust_tracepoint(bpeer, one_string, A_STRING(i))

#include "peers.h"
