/*
 * The traced program of the pairing tests (pairing.sh): pipelined
 * connections, where one read brings a batch of requests that are
 * answered in order, so that which request a reply closes depends on the
 * pairing rule.
 *
 *   pipeline_traced THREADS CONNS BATCHES DEPTH
 *
 * Each of THREADS threads serves CONNS connections of its own (conn =
 * thread * CONNS + c), in turns: per turn and connection, one record
 * "read conn %d n %d", then DEPTH records "req conn %d seq %d cmd %s"
 * (seq 1 .. DEPTH, cmd cycling through set, get, incr, lpush), then DEPTH
 * records "reply conn %d seq %d status %s" in the same order (status "err"
 * when seq is a multiple of 5, else "ok").  A short spin between records
 * makes the durations differ.  The test computes every span from the
 * records' times, not from these rules.
 */
#define _POSIX_C_SOURCE 200809L
#include <bprint.h>

#include <pthread.h>
#include <stdlib.h>

static const char *const cmds[] = { "set", "get", "incr", "lpush" };
static int nconns, nbatches, depth;

static void spin(unsigned n)
{
	for (volatile unsigned i = 0; i < n; i++)
		;
}

static void *serve(void *arg)
{
	int first = (int)(long)arg * nconns;

	for (int b = 0; b < nbatches; b++)
		for (int c = first; c < first + nconns; c++) {
			trace_printk("read conn %d n %d", c, depth);
			for (int s = 1; s <= depth; s++) {
				trace_printk("req conn %d seq %d cmd %s", c, s, cmds[(s + b) % 4]);
				spin(50u * (unsigned)((s * 7 + b) % 13));
			}
			for (int s = 1; s <= depth; s++) {
				spin(40u * (unsigned)((s * 5 + c) % 11));
				trace_printk("reply conn %d seq %d status %s", c, s, s % 5 ? "ok" : "err");
			}
		}
	return NULL;
}

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[64];

	nconns = argc > 2 ? atoi(argv[2]) : 4;
	nbatches = argc > 3 ? atoi(argv[3]) : 40;
	depth = argc > 4 ? atoi(argv[4]) : 16;
	if (nthreads < 1 || nthreads > 64)
		return 1;
	for (long i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, serve, (void *)i))
			return 1;
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
