/*
 * bench/peers/peers_tp.h - the LTTng-UST tracepoint provider "bpeer": one
 * fixed-layout event per peer message, its fields the message's arguments
 * (the static string has none; the %s message records its string).
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER bpeer

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "peers_tp.h"

#if !defined(BPRINT_BENCH_PEERS_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define BPRINT_BENCH_PEERS_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

LTTNG_UST_TRACEPOINT_EVENT(bpeer, seed,
	LTTNG_UST_TP_ARGS(uint64_t, jiffies),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, jiffies, jiffies)))

LTTNG_UST_TRACEPOINT_EVENT(bpeer, static_str,
	LTTNG_UST_TP_ARGS(),
	LTTNG_UST_TP_FIELDS())

LTTNG_UST_TRACEPOINT_EVENT(bpeer, one_int,
	LTTNG_UST_TP_ARGS(int, speed),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int, speed, speed)))

LTTNG_UST_TRACEPOINT_EVENT(bpeer, two_ints,
	LTTNG_UST_TP_ARGS(int, consumed, int, allocation),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int, consumed, consumed)
			    lttng_ust_field_integer(int, allocation, allocation)))

LTTNG_UST_TRACEPOINT_EVENT(bpeer, one_double,
	LTTNG_UST_TP_ARGS(double, ratio),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_float(double, ratio, ratio)))

LTTNG_UST_TRACEPOINT_EVENT(bpeer, complex_fmt,
	LTTNG_UST_TP_ARGS(int, rx, int, rx_mb, int, tx, int, tx_mb, double, ms),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int, rx, rx)
			    lttng_ust_field_integer(int, rx_mb, rx_mb)
			    lttng_ust_field_integer(int, tx, tx)
			    lttng_ust_field_integer(int, tx_mb, tx_mb)
			    lttng_ust_field_float(double, ms, ms)))

LTTNG_UST_TRACEPOINT_EVENT(bpeer, one_string,
	LTTNG_UST_TP_ARGS(const char *, locator),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_string(locator, locator)))

#endif /* BPRINT_BENCH_PEERS_TP_H */

#include <lttng/tracepoint-event.h>
