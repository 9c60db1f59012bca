/*
 * A request server in miniature, for the README's worked example of
 * `bprint hist` and `bprint latency`: client threads hand requests to a
 * queue, worker threads serve them.  Each request is traced where it is
 * queued (a client thread) and where it is answered (a worker thread), so
 * that its latency is a span across two threads, keyed by its id.
 *
 *   bprint record -o server.dat -- build/examples/server [REQUESTS]
 *   bprint hist -s 'fmt:served*' -v dur_us -k cmd server.dat
 *   bprint latency --from 'fmt:queued*' --to 'fmt:served*' -k req --by cmd server.dat
 *
 * The commands take different times: GET is quick, SET writes (a little
 * longer), SCAN walks many keys (long, and longer on a miss), and one GET
 * in a thousand waits for a lock held elsewhere (the tail to find).  The
 * clients send at about half what the workers can serve, so that queueing
 * adds to the service time mostly when a SCAN is in the way.
 *
 *   server [REQUESTS [PAUSE_US]]
 *
 * PAUSE_US sets the clients' pause between two requests (PAUSE_US to
 * 5/3 of it; default 60); given, the server prints its requests a second
 * at the end.  0: no pause, the clients queue as fast as the workers
 * serve, as a benchmark's clients do (bench/kernel_server.sh).
 */
#define _GNU_SOURCE
#include <bprint.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CLIENTS 3
#define WORKERS 2
#define QUEUE 256

struct request {
	unsigned id;
	const char *cmd;
	unsigned key;
};

static struct request queue[QUEUE];
static unsigned head, tail, left_to_queue, pause_ns = 60000;
static int closing;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Work for about us microseconds, on the CPU as a real handler would. */
static void work(unsigned us)
{
	uint64_t end = now_us() + us;

	while (now_us() < end)
		;
}

/* A small deterministic generator per thread. */
static unsigned next_rand(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static void *client(void *arg)
{
	static const char *const cmds[] = { "GET", "GET", "GET", "SET", "SET", "SCAN" };
	unsigned seed = (unsigned)(uintptr_t)arg;

	pthread_setname_np(pthread_self(), "client");
	for (;;) {
		struct request r;

		pthread_mutex_lock(&lock);
		while (head - tail == QUEUE && left_to_queue)
			pthread_cond_wait(&changed, &lock);
		if (!left_to_queue) {
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		r = (struct request){ .id = left_to_queue--, .cmd = cmds[next_rand(&seed) % 6],
				      .key = next_rand(&seed) % 10000 };
		queue[head++ % QUEUE] = r;
		trace_printk("queued req %u cmd %s key %u", r.id, r.cmd, r.key);
		pthread_cond_broadcast(&changed);
		pthread_mutex_unlock(&lock);
		/* about half the workers' capacity: the queue is short, mostly */
		if (pause_ns)
			nanosleep(&(struct timespec){ .tv_nsec = pause_ns + next_rand(&seed) %
								      (pause_ns * 2 / 3) }, NULL);
	}
}

/* Serve r: its status and how long it took. */
static int serve(const struct request *r, unsigned *seed)
{
	if (!strcmp(r->cmd, "GET")) {
		work(2 + next_rand(seed) % 6);
		if (next_rand(seed) % 1000 == 0)
			work(400);	/* a lock held elsewhere */
		return r->key % 10 ? 200 : 404;
	}
	if (!strcmp(r->cmd, "SCAN")) {
		work(40 + next_rand(seed) % 80 + (r->key % 3 ? 0 : 150));
		return 200;
	}
	work(8 + next_rand(seed) % 12);	/* SET */
	return 201;
}

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	pthread_setname_np(pthread_self(), "worker");
	for (;;) {
		struct request r;
		uint64_t t0;
		int status;

		pthread_mutex_lock(&lock);
		while (head == tail && !closing)
			pthread_cond_wait(&changed, &lock);
		if (head == tail) {
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		r = queue[tail++ % QUEUE];
		pthread_cond_broadcast(&changed);
		pthread_mutex_unlock(&lock);
		t0 = now_us();
		status = serve(&r, &seed);
		trace_printk("served req %u cmd %s status %d dur_us %llu", r.id, r.cmd, status,
			     (unsigned long long)(now_us() - t0));
	}
}

int main(int argc, char **argv)
{
	pthread_t c[CLIENTS], w[WORKERS];
	unsigned requests;
	uint64_t t0 = now_us();

	requests = left_to_queue = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 20000;
	if (argc > 2)
		pause_ns = (unsigned)strtoul(argv[2], NULL, 10) % 1000000u * 1000u;
	trace_printk("server starting: %d clients, %d workers, %u requests", CLIENTS, WORKERS,
		     left_to_queue);
	for (uintptr_t i = 0; i < WORKERS; i++)
		pthread_create(&w[i], NULL, worker, (void *)(i + 1));
	for (uintptr_t i = 0; i < CLIENTS; i++)
		pthread_create(&c[i], NULL, client, (void *)(i + 100));
	for (int i = 0; i < CLIENTS; i++)
		pthread_join(c[i], NULL);
	pthread_mutex_lock(&lock);
	closing = 1;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i], NULL);
	trace_puts("server done");
	if (argc > 2)
		printf("%.0f\n", requests * 1e6 / (double)(now_us() - t0 + 1));
	return 0;
}
