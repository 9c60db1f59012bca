/*
 * bench/peers/msgs.h - the messages every peer program traces, and the
 * arguments of call number i: the seed's "This is the timer interrupt: %llu"
 * and NanoLog's benchmark set (a static string, one int, two ints, one
 * double, a complex format, one %s of 39 characters).
 */
#ifndef BPRINT_BENCH_PEERS_MSGS_H
#define BPRINT_BENCH_PEERS_MSGS_H

#define MSG_SEED	"This is the timer interrupt: %llu"
#define MSG_STATIC	"Starting backup replica garbage collector thread"
#define MSG_INT		"Backup storage speeds (min): %d MB/s read"
#define MSG_TWO_INTS	"buffer has consumed %d bytes of extra storage, current allocation: %d bytes"
#define MSG_DOUBLE	"Using tombstone ratio balancer with ratio = %0.6lf"
#define MSG_COMPLEX	"Initialized InfUdDriver buffers: %d receive buffers (%d MB), " \
			"%d transmit buffers (%d MB), took %.1lf ms"
#define MSG_STRING	"Opened session with coordinator at %s"
#define STRING_ARG	"basic+udp:host=192.168.1.140,port=12246"	/* 39 characters */

/* The arguments of call i (size_t), the same for every tracer. */
#define A_SEED(i)	((unsigned long long)(i))
#define A_INT(i)	((int)((i) & 0xffff))
#define A_INT2(i)	((int)((i) * 3u & 0xffffff))
#define A_DOUBLE(i)	((double)(i) * 0.001)
#define A_CX1(i)	((int)((i) & 1023))
#define A_CX2(i)	32
#define A_CX3(i)	((int)((i) & 511))
#define A_CX4(i)	16
#define A_CX5(i)	((double)((i) & 4095) * 0.1)
/*
 * STRING_ARG read through a volatile pointer at each call: no tracer may
 * measure or copy the string at compile time, which it could not do with
 * a real one either.
 */
static const char *volatile peer_string __attribute__((unused)) = STRING_ARG;
#define A_STRING(i)	((const char *)peer_string)

#define ARGS_seed(i)		MSG_SEED, A_SEED(i)
#define ARGS_static_str(i)	MSG_STATIC
#define ARGS_one_int(i)		MSG_INT, A_INT(i)
#define ARGS_two_ints(i)	MSG_TWO_INTS, A_INT(i), A_INT2(i)
#define ARGS_one_double(i)	MSG_DOUBLE, A_DOUBLE(i)
#define ARGS_complex_fmt(i)	MSG_COMPLEX, A_CX1(i), A_CX2(i), A_CX3(i), A_CX4(i), A_CX5(i)
#define ARGS_one_string(i)	MSG_STRING, A_STRING(i)

#define PEER_MSGS(X) X(seed) X(static_str) X(one_int) X(two_ints) X(one_double) \
	X(complex_fmt) X(one_string)

#endif /* BPRINT_BENCH_PEERS_MSGS_H */
