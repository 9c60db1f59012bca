/*
 * The traced program of the hist and latency tests (analysis.sh): records
 * whose values follow formulas the test's reference computes on its own,
 * and spans across threads, nested, and unmatched.
 *
 *   analysis_traced N [slow]
 *
 * (slow: a millisecond's pause every 20 records of the main thread, so
 * that a follower sees the file grow.)
 *
 * - N records "cmd %s argc %d dur_us %lld ratio %f flag %c" from the main
 *   thread: i = 0 .. N-1, cmd = CMDS[i % 3], argc = i % 5 - 2,
 *   dur_us = (i * 7919) % 1000 + 1 (GET), 2 * that (SET), 7 (DEL),
 *   ratio = i / 8.0 - 3, flag = 'a' + i % 4; and one with dur_us
 *   INT64_MIN (ratio 0.0), one with INT64_MAX (ratio -0.0) (cmd "EDGE");
 * - N / 4 requests "begin req %d kind %s" on a producer thread, each closed
 *   by "end req %d status %u" on a consumer thread (a queue between them),
 *   the requests whose id is a multiple of 50 never closed, and 3 ends of
 *   ids never begun;
 * - on a third thread, nested "enter depth %d" / "leave depth %d" pairs
 *   (depth 0 1 2 2 1 0 ...) with no key: they pair within the thread.
 */
#define _POSIX_C_SOURCE 200809L
#include <bprint.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static const char *const cmds[] = { "GET", "SET", "DEL" };

#define QUEUE 1024
static int queue[QUEUE];
static unsigned head, tail;
static int done;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int nreq;

static void *producer(void *arg)
{
	(void)arg;
	for (int id = 0; id < nreq; id++) {
		trace_printk("begin req %d kind %s", id, id % 2 ? "read" : "write");
		if (id % 50 == 0)
			continue;	/* never closed */
		pthread_mutex_lock(&lock);
		while (head - tail == QUEUE)
			pthread_cond_wait(&cond, &lock);
		queue[head++ % QUEUE] = id;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	for (;;) {
		int id;

		pthread_mutex_lock(&lock);
		while (head == tail && !done)
			pthread_cond_wait(&cond, &lock);
		if (head == tail) {
			pthread_mutex_unlock(&lock);
			break;
		}
		id = queue[tail++ % QUEUE];
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
		trace_printk("end req %d status %u", id, 200u + (unsigned)(id % 3));
	}
	for (int k = 1; k <= 3; k++)
		trace_printk("end req %d status %u", -k, 500u);	/* never begun */
	return NULL;
}

static void *nester(void *arg)
{
	int n = *(int *)arg;

	for (int i = 0; i < n; i++) {
		trace_printk("enter depth %d", 0);
		trace_printk("enter depth %d", 1);
		trace_printk("enter depth %d", 2);
		trace_printk("leave depth %d", 2);
		trace_printk("leave depth %d", 1);
		trace_printk("leave depth %d", 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3000, nest = n / 30;
	int slow = argc > 2;
	pthread_t p, c, t;

	for (int i = 0; i < n; i++) {
		long long base = (long long)((i * 7919) % 1000 + 1);
		long long dur = i % 3 == 0 ? base : i % 3 == 1 ? 2 * base : 7;

		trace_printk("cmd %s argc %d dur_us %lld ratio %f flag %c", cmds[i % 3], i % 5 - 2, dur,
			     i / 8.0 - 3, (char)('a' + i % 4));
		if (slow && i % 20 == 19)
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	trace_printk("cmd %s argc %d dur_us %lld ratio %f flag %c", "EDGE", 0, (long long)INT64_MIN,
		     0.0, 'z');
	trace_printk("cmd %s argc %d dur_us %lld ratio %f flag %c", "EDGE", 0, (long long)INT64_MAX,
		     -0.0, 'z');
	nreq = n / 4;
	pthread_create(&p, NULL, producer, NULL);
	pthread_create(&c, NULL, consumer, NULL);
	pthread_create(&t, NULL, nester, &nest);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	pthread_join(t, NULL);
	return 0;
}
