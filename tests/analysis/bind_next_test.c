/*
 * bind_next_test: bp_bind_next() (bprint/analysis.h), which reads a run
 * of one ring's page at a time, against the record-at-a-time path it
 * replaces (bp_trace_next(), bp_bind_site(), bp_bind_decode()) on the
 * same file: the same records of the same sites in the same order, with
 * the same thread, index, time, decode result and wanted fields.
 *
 * The file: this program re-executed with --trace (BPRINT_FILE, set by
 * the test, with ".trace" added) traces from two threads at once, so that
 * the merge interleaves their rings, then from a third alone, three
 * sites (one with a string, one without the field the bindings ask for,
 * so not chosen), then exits: a closed file whose rings are read in
 * place, a page's run at a time.  A reader opened where the last one
 * was closed gets no plan of the last one's (bp_trace_serial()).  Each binding is read with
 * batches of 1, 5 and BP_BIND_NEXT_MAX records and more than that.
 */
#include "check.h"

#include <bprint.h>
#include <bprint/analysis.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define THREADS 3
#define PER_THREAD 20000

static void *tracer(void *arg)
{
	static const char *const words[] = { "GET", "SET", "DELETE", "" };
	unsigned id = (unsigned)(uintptr_t)arg;

	for (unsigned i = 0; i < PER_THREAD; i++) {
		switch ((i + id) % 3) {
		case 0:
			trace_printk("a k=%u s=%s v=%lld", i, words[i % 4], (long long)i * 7919 % 1000);
			break;
		case 1:
			trace_printk("b k=%u v=%d", i, (int)(i % 97) - 40);
			break;
		default:
			trace_printk("c x=%d", (int)i);
			break;
		}
	}
	return NULL;
}

static int trace_child(void)
{
	pthread_t th[THREADS];

	/* two at once (their records interleave: short runs), then the last
	 * alone (a page's run at a time) */
	for (unsigned i = 0; i < THREADS - 1; i++)
		CHECK_EQ(pthread_create(&th[i], NULL, tracer, (void *)(uintptr_t)i), 0);
	for (unsigned i = 0; i < THREADS - 1; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ(pthread_create(&th[THREADS - 1], NULL, tracer, (void *)(uintptr_t)(THREADS - 1)), 0);
	pthread_join(th[THREADS - 1], NULL);
	return 0;
}

/* One record as both paths see it, hashed (FNV-1a, 64 bits). */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t record_hash(const struct bp_bind_site *s, uint32_t site_id, int32_t tid,
			    uint64_t index, uint64_t ns, int n, const struct bp_field_value *v)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = mix(h, &site_id, sizeof(site_id));
	h = mix(h, &tid, sizeof(tid));
	h = mix(h, &index, sizeof(index));
	h = mix(h, &ns, sizeof(ns));
	h = mix(h, &n, sizeof(n));
	for (unsigned k = 0; n >= 0 && k < 64; k++) {
		if (!(s->wanted >> k & 1))
			continue;
		if (s->lay->fields[k].type == BP_FIELD_STRING) {
			h = mix(h, &v[k].len, sizeof(v[k].len));
			h = mix(h, v[k].s, v[k].len);
		} else {
			h = mix(h, &v[k].v.u, sizeof(v[k].v.u));
		}
	}
	return h;
}

/* The record-at-a-time path: each chosen record's hash into out. */
static size_t reference(const char *path, struct bp_bind *b, uint64_t *out, size_t cap)
{
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	struct bp_field_value v[BP_PLAN_MAX_ARGS];
	struct bp_trace *t;
	char err[256];
	size_t n = 0;
	int rc;

	if (!(t = bp_trace_open(path, 0, err, sizeof(err), &rc)))
		FAIL("%s: %s", path, err);
	while ((rc = bp_trace_next(t, &e, BP_TRACE_NEXT_ARGS_ONLY | BP_TRACE_NEXT_TIME)) == 1) {
		const struct bp_bind_site *s = bp_bind_site(b, t, e.site_id);
		int k;

		if (!s)
			continue;
		k = bp_bind_decode(s, &e, v, BP_PLAN_MAX_ARGS);
		CHECK(n < cap);
		out[n++] = record_hash(s, e.site_id, e.tid, e.index, e.ns, k, v);
	}
	CHECK_EQ(rc, 0);
	CHECK_EQ(bp_trace_problems(t, NULL), 0u);
	bp_trace_close(t);
	return n;
}

/* bp_bind_next() in batches of max: the same hashes as ref[0 .. nref). */
static void batched(const char *path, struct bp_bind *b, size_t max, const uint64_t *ref,
		    size_t nref)
{
	struct bp_bind_rec r[BP_BIND_NEXT_MAX + 8];
	struct bp_trace *t;
	char err[256];
	size_t seen = 0, runs = 0;
	int n;

	if (!(t = bp_trace_open(path, 0, err, sizeof(err), &n)))
		FAIL("%s: %s", path, err);
	memset(r, 0, sizeof(r));
	CHECK_EQ(bp_bind_next(b, t, r, max, BP_TRACE_NEXT_TIME), BP_TRACE_EINVAL);	/* no size */
	r[0].size = sizeof(r[0]);
	while ((n = bp_bind_next(b, t, r, max, BP_TRACE_NEXT_TIME)) > 0) {
		CHECK((size_t)n <= max && n <= BP_BIND_NEXT_MAX);
		runs++;
		for (int i = 0; i < n; i++) {
			CHECK_EQ(r[i].size, sizeof(r[i]));
			CHECK(r[i].s != NULL && r[i].s->site_id == r[i].site_id);
			CHECK(seen < nref);
			CHECK_MSG(record_hash(r[i].s, r[i].site_id, r[i].tid, r[i].index, r[i].ns,
					      r[i].n, r[i].vals) == ref[seen],
				  "batch of %zu: record %zu differs", max, seen);
			seen++;
		}
	}
	CHECK_EQ(n, 0);
	CHECK_EQ(bp_bind_next(b, t, r, max, BP_TRACE_NEXT_TIME), 0);	/* and stays at the end */
	CHECK_EQ(seen, nref);
	CHECK_EQ(bp_trace_problems(t, NULL), 0u);
	/* the lone thread's records a page's run at a time: fewer calls than
	 * records (a third of them take a call for up to 64) */
	if (max >= BP_BIND_NEXT_MAX)
		CHECK_MSG(runs * 3 < seen * 2, "%zu calls for %zu records", runs, seen);
	bp_trace_close(t);
}

static void check_binding(const char *path, struct bp_bind *b, const char *what)
{
	static const size_t maxes[] = { 1, 5, BP_BIND_NEXT_MAX, BP_BIND_NEXT_MAX + 8 };
	size_t cap = THREADS * PER_THREAD, n;
	uint64_t *ref = malloc(cap * sizeof(*ref));

	CHECK(ref != NULL);
	n = reference(path, b, ref, cap);
	CHECK_MSG(n > 0, "%s: no record chosen", what);
	for (size_t i = 0; i < sizeof(maxes) / sizeof(maxes[0]); i++)
		batched(path, b, maxes[i], ref, n);
	printf("%s: %zu records the same in batches of 1, 5, %d, %d\n", what, n,
	       BP_BIND_NEXT_MAX, BP_BIND_NEXT_MAX + 8);
	free(ref);
}

int main(int argc, char **argv)
{
	const char *own = getenv("BPRINT_FILE");
	char path[4096];
	struct bp_bind *v_only, *where, *every, *roles;
	struct bp_sites *from, *to;
	struct bp_where *w;
	char err[256];
	pid_t pid;
	int st;

	if (argc == 2 && !strcmp(argv[1], "--trace"))
		return trace_child();
	CHECK(own != NULL);
	/* this process has its own file: the child's is another */
	snprintf(path, sizeof(path), "%s.trace", own);
	unlink(path);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		setenv("BPRINT_FILE", path, 1);
		setenv("BPRINT_BUFFER_SIZE", "1M", 1);
		execl("/proc/self/exe", argv[0], "--trace", (char *)NULL);
		_exit(127);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);

	/* hist -v v: sites a and b chosen, c (no v) read past */
	CHECK((v_only = bp_bind_new(BP_BIND_FIELDS_ONLY)) != NULL);
	CHECK_EQ(bp_bind_field(v_only, "v", BP_BIND_NUMBER), 0);
	check_binding(path, v_only, "-v v");
	/* hist -k s -v v -w 'k > 100': a string key, a field --where reads */
	CHECK((where = bp_bind_new(BP_BIND_FIELDS_ONLY)) != NULL);
	CHECK((w = bp_where_new("k>100", err, sizeof(err))) != NULL);
	CHECK_EQ(bp_bind_field(where, "s", 0), 0);
	CHECK_EQ(bp_bind_field(where, "v", BP_BIND_NUMBER), 1);
	CHECK_EQ(bp_bind_where(where, w), 0);
	check_binding(path, where, "-k s -v v -w k>100");
	/* every field of every site */
	CHECK((every = bp_bind_new(BP_BIND_EVERY_FIELD)) != NULL);
	check_binding(path, every, "every field");
	/* latency's roles: from a, to b, paired by k */
	roles = bp_bind_new(0);
	from = bp_sites_new();
	to = bp_sites_new();
	CHECK(roles && from && to);
	CHECK_EQ(bp_sites_add(from, "fmt:a *"), 0);
	CHECK_EQ(bp_sites_add(to, "fmt:b *"), 0);
	CHECK_EQ(bp_bind_role(roles, from, NULL), 0);
	CHECK_EQ(bp_bind_role(roles, to, NULL), 1);
	CHECK_EQ(bp_bind_field(roles, "k", 0), 0);
	check_binding(path, roles, "roles a -> b by k");

	bp_bind_free(v_only);
	bp_bind_free(where);
	bp_bind_free(every);
	bp_bind_free(roles);
	bp_where_free(w);
	bp_sites_free(from);
	bp_sites_free(to);
	unlink(path);
	return 0;
}
