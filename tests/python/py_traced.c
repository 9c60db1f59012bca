/*
 * The traced program of the Python module's tests (tests/python/).  Run
 * with BPRINT_FILE set, it leaves the trace a test reads:
 *
 *   py_traced values          the extremes of every type, bit for bit (the
 *                             tests know the same values: test_values.py)
 *   py_traced server N        a traced server: N requests over 4 threads,
 *                             each with method, path, dur_us, status, bytes;
 *                             a timer tick and a warning now and then
 *   py_traced flood N         N records from one thread (with a small
 *                             BPRINT_BUFFER_SIZE in overwrite mode: lost)
 *   py_traced live N          N records, "ready" on stdout, then for each
 *                             line on stdin N more and "ready" again, until
 *                             stdin ends (a live file of a running program)
 *   py_traced dlopen MODULE   records from MODULE's own sites, dlclose()d
 *                             before the program traces again
 */
#include <bprint.h>

#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the non-constant format is deliberate */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"

static double bits(uint64_t u)
{
	double d;

	memcpy(&d, &u, 8);
	return d;
}

static void values(void)
{
	char dynamic[32];

	trace_printk("min=%lld max=%llu", (long long)INT64_MIN, (unsigned long long)UINT64_MAX);
	/* int arguments of %hh and %h conversions, reduced at read time (clang
	 * warns about them) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
	trace_printk("i8=%hhd u8=%hhu i16=%hd u16=%hu wrap=%hhd", -128, 255, -32768, 65535, 300);
#pragma GCC diagnostic pop
	trace_printk("int=%d uint=%u hex=%x oct=%o", INT32_MIN, UINT32_MAX, 0xdeadbeefu, 0777u);
	trace_printk("long=%ld size=%zu ptrdiff=%td intmax=%jd", (long)INT64_MIN, (size_t)SIZE_MAX,
		     (ptrdiff_t)-1, (intmax_t)INT64_MAX);
	trace_printk("d=%f e=%e g=%g a=%a", 0.1, -0.0, DBL_TRUE_MIN, DBL_MAX);
	trace_printk("nan=%f inf=%f ld=%Lf", bits(0x7ff8000000000123ull), -INFINITY,
		     (long double)1 / 3);
	trace_printk("s=%s utf=%s empty=%s", "he said \"hi\"\n\tand \\left",
		     "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "");
	trace_printk("raw=%s", "not utf-8: \xff\xfe end");
	trace_printk("c=%c nul=%c hi=%c nl=%c quote=%c", 'A', 0, 0xff, '\n', '"');
	trace_printk("p=%p null=%p", (void *)(uintptr_t)0x7f00deadbeefull, (void *)0);
	trace_printk("w=%*d", -12, 34);
	trace_printk("ts=%d tid=%d msg=%s", 1, 2, "field names like the columns");
	trace_printk("mixed=%d", -5);		/* one name, two kinds of value */
	trace_printk("mixed=%s", "five");
	trace_puts("a trace_puts text");
	snprintf(dynamic, sizeof(dynamic), "dyn=%%d of %d", 7);
	trace_printk(dynamic, 5);
}

static const char *const methods[] = { "GET", "PUT", "POST", "DELETE" };
static const char *const paths[] = { "/index.html", "/api/v1/items", "/upload", "/a \"quoted\" path" };

struct worker {
	int id;
	long n;
};

static void *serve(void *arg)
{
	const struct worker *w = arg;
	char name[16];

	snprintf(name, sizeof(name), "worker-%d", w->id);
	pthread_setname_np(pthread_self(), name);
	for (long i = 0; i < w->n; i++) {
		unsigned k = (unsigned)(i * 7 + w->id) % 4;
		unsigned long long x = (unsigned long long)((i * 7919 + w->id * 104729) % 5000);
		unsigned long long dur = 1 + x * x / 2500;	/* 1 to 10000, most short */
		int status = (i % 17) == 0 ? 500 : (i % 5) == 0 ? 404 : 200;

		trace_printk("req method=%s path=%s dur_us=%llu status=%d bytes=%zu", methods[k],
			     paths[(k + (unsigned)i) % 4], dur, status, (size_t)(i * 100 % 65536));
		if (i % 50 == 0)
			trace_printk("tick %d load=%.3f", (int)i, (double)(i % 100) / 7.0);
		if (status == 500)
			trace_printk("warning: slow %c%s took %lld us", methods[k][0], paths[k],
				     (long long)dur);
	}
	return NULL;
}

static int server(long n)
{
	pthread_t th[4];
	struct worker w[4];

	trace_printk("server starting: %d workers", 4);
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ i + 1, n / 4 + (i < n % 4) };
		if (pthread_create(&th[i], NULL, serve, &w[i]))
			return 1;
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	trace_printk("server done: %ld requests", n);
	return 0;
}

static int live(long n)
{
	char line[64];
	long round = 0;

	do {
		for (long i = 0; i < n; i++)
			trace_printk("live round=%ld i=%ld", round, i);
		round++;
		printf("ready\n");
		fflush(stdout);
	} while (fgets(line, sizeof(line), stdin));
	return 0;
}

static int with_module(const char *path)
{
	void *h = dlopen(path, RTLD_NOW);
	void (*fn)(int);

	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	trace_printk("before dlopen'ed code %d", 1);
	*(void **)&fn = dlsym(h, "py_dlmod_trace");
	if (!fn)
		return 1;
	fn(5);
	dlclose(h);
	trace_printk("after dlclose %d", 7);
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 0;

	if (argc > 1 && !strcmp(argv[1], "values")) {
		values();
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "server"))
		return server(n);
	if (argc > 2 && !strcmp(argv[1], "flood")) {
		for (long i = 0; i < n; i++)
			trace_printk("flood %ld of %ld", i, n);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "live"))
		return live(n);
	if (argc > 2 && !strcmp(argv[1], "dlopen"))
		return with_module(argv[2]);
	fprintf(stderr, "usage: py_traced values|server N|flood N|live N|dlopen MODULE\n");
	return 2;
}
