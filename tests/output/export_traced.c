/*
 * The traced program of the exporter tests: run with BPRINT_FILE set, it
 * leaves a trace with
 *   - formats of every kind: integers of every length, strings with width
 *     and precision, '*', pointers (NULL too), %pS-style text, %%, floats,
 *     and the conversions libtraceevent cannot read (-, space, +, h, hh, c,
 *     j, t, L), trace_puts, a non-constant format, bytes that are not UTF-8;
 *   - several named threads, interleaved;
 *   - a gap of 200 ms (more than the 2^27 ns a ring-buffer delta holds);
 *   - a signal handler's records (a nested ring), with a string argument;
 *   - a lost-records episode: the "flood" thread writes far more than its
 *     ring (BPRINT_BUFFER_SIZE=64K, overwrite mode) holds.
 *
 *   export_traced [flood-records]
 */
#include <bprint.h>

/* the non-constant format is deliberate */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"

#include "trace/thread.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	nanosleep(&ts, NULL);
}

static void integers(int i)
{
	trace_printk("int %d %i %u %x %X %o", -i, i * 1000, 4000000000u, 0xbeefu + (unsigned)i,
		     0xabcdu, 0755u);
	trace_printk("long %ld %lu %lx", -1234567890123L * i, 18446744073709551615UL, 0xfeedfaceUL);
	trace_printk("llong %lld %llu %llx %llX", -9223372036854775807LL - 1, 12345678901234ULL,
		     0x1122334455667788ULL, 0xabcdefULL);
	trace_printk("size %zu %zd %zx", (size_t)i * 4096, (ssize_t)-i, (size_t)0xfff);
	trace_printk("flags %#x %#o %#lx %08x %.5d %5d|%*d|%.*d|%0*x", 0x1f, 8, 0x0UL, 0xabc, 42, -7,
		     6, i, 4, i, 8, 0x5a5a);
	trace_printk("zero %#x %#o %d", 0u, 0u, 0);
}

static void strings(int i)
{
	static const char *names[] = { "alpha", "bravo-longer-name", "c", "" };
	const char *n = names[i % 4];

	trace_printk("str %s|%8s|%.3s|%.*s|%*s|end", n, n, n, 2, n, 10, n);
	trace_printk("path=%s:%d (%s)", "src/x.c", 17 + i, n);
	trace_printk("%s", "only a string");
	trace_printk("%s%s", "two", "strings");	/* ambiguous for a rebuild: text */
	trace_printk("tab\there, percent 100%%, quote \" and backslash \\ %d", i);
	trace_printk("bytes %s", "\xff\xfe ok \xc3\xa9 \xe2\x82\xac");
}

/* Records of 100 bytes to a whole page: type_len 0 events, the page limit. */
static void long_strings(void)
{
	static char s[5000];

	memset(s, 'x', sizeof(s) - 1);
	for (size_t n = 100; n < sizeof(s); n = n * 3 / 2) {
		s[n] = '\0';
		trace_printk("long %zu %s|", n, s);
		s[n] = 'x';
	}
	trace_printk("longest %zu %s|", sizeof(s) - 1, s);	/* cut by the tracer */
}

static void pointers(int i)
{
	void *p = (void *)(uintptr_t)(0x7f0000001000ull + (unsigned)i);

	trace_printk("ptr %p null %p", p, (void *)0);
	trace_printk("sym %pS", (void *)&pointers);	/* %p then "S": %pS to libtraceevent */
	trace_printk("fn %p.", (void *)&strings);
}

static void unreadable(int i)
{
	short h = (short)-i;
	signed char hh = (signed char)i;

	trace_printk("left |%-8s|%-5d|", "ab", i);
	trace_printk("space % d plus %+d", i, i);
	trace_printk("short %hd %hu char %hhd %hhu", h, (unsigned short)h, hh, (unsigned char)hh);
	trace_printk("chr %c%c", 'o', 'k');
	trace_printk("jt %jd %td", (intmax_t)-i, (ptrdiff_t)i);
	trace_printk("float %f %e %g %.3f %a", 3.14159 * i, 1e-5, 2.5, -0.0625, 1.0);
	trace_printk("ldouble %Lf", (long double)i / 3);
}

static void everything(int i)
{
	const char *dyn = i & 1 ? "dynamic %d odd" : "dynamic %d even";

	integers(i);
	strings(i);
	pointers(i);
	unreadable(i);
	trace_puts("a trace_puts literal");
	trace_printk("no arguments at all");
	trace_printk(dyn, i);
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	char name[16];

	snprintf(name, sizeof(name), "worker-%d", id);
	pthread_setname_np(pthread_self(), name);
	for (int i = 0; i < 6; i++) {
		trace_printk("worker %d step %d", id, i);
		everything(id * 10 + i);
		sleep_ms(1);
	}
	return NULL;
}

static atomic_int nested_seen;

static void on_signal(int sig)
{
	trace_printk("in handler sig=%d name=%s", sig, "usr2 \"quoted\" \\");
}

/* Traces until a signal lands inside trace_printk(): its ring 1 exists. */
static void *interrupted(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "interrupted");
	for (long i = 0; !atomic_load(&nested_seen); i++) {
		trace_printk("interrupted %ld", i);
		if (!bp_self || atomic_load(&bp_self->ring[1].mem))
			atomic_store(&nested_seen, 1);	/* no descriptor: tracing is off */
	}
	return NULL;
}

/* A signal-handler ring: SIGUSR2 at a thread busy tracing, for at most 10 s. */
static void signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	pthread_t t;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
	pthread_create(&t, NULL, interrupted, NULL);
	for (int i = 0; i < 500000 && !atomic_load(&nested_seen); i++) {
		pthread_kill(t, SIGUSR2);
		if (i % 64 == 63)
			sleep_ms(1);
	}
	atomic_store(&nested_seen, 1);
	pthread_join(t, NULL);
}

static long flood_n;

static void *flood(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "flood");
	for (long i = 0; i < flood_n; i++)
		trace_printk("flood %ld of %ld", i, flood_n);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w[3], f;

	flood_n = argc > 1 ? atol(argv[1]) : 20000;
	trace_printk("start: %d workers", 3);
	everything(0);
	long_strings();
	signals();
	for (int i = 0; i < 3; i++)
		pthread_create(&w[i], NULL, worker, (void *)(intptr_t)(i + 1));
	for (int i = 0; i < 3; i++)
		pthread_join(w[i], NULL);
	trace_printk("before the gap");
	sleep_ms(200);
	trace_printk("after the gap");
	pthread_create(&f, NULL, flood, NULL);
	pthread_join(f, NULL);
	everything(99);
	trace_printk("done");
	return 0;
}
