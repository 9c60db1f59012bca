/*
 * tracer_dlopen: a library with trace_printk() sites is dlopen()ed, called,
 * and dlclose()d until it is unmapped (checked in /proc/self/maps); then
 * its records are read: the message, format, file, function and line all
 * come from the registry's copies, since the library's memory is gone.
 * Twice over (the second load registers fresh sites).  A filter set
 * before the load applies to the library's sites (registered later).
 */
#include "tracer_check.h"

#include <dlfcn.h>

#ifndef TRACER_DSO_PATH
#error "TRACER_DSO_PATH: the test library's path"
#endif

struct dso_where {
	const char *file;
	int printk_line;
	int puts_line;
	int disabled_line;
	const char *printk_fmt;
};

struct expect {
	char *file, *fmt;
	int printk_line, puts_line;
};

static int mapped(const char *path)
{
	char line[4096];
	const char *base = strrchr(path, '/');
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	CHECK(f != NULL);
	base = base ? base + 1 : path;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, base))
			found = 1;
	fclose(f);
	return found;
}

static void load_call_close(int round, struct expect *ex)
{
	void (*where)(struct dso_where *);
	void (*trace)(int, const char *);
	void (*trace_disabled)(int);
	struct dso_where w;
	void *h;

	CHECK(!mapped(TRACER_DSO_PATH));
	h = dlopen(TRACER_DSO_PATH, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		FAIL("dlopen: %s", dlerror());
	CHECK(mapped(TRACER_DSO_PATH));
	*(void **)&where = dlsym(h, "dso_where");
	*(void **)&trace = dlsym(h, "dso_trace");
	*(void **)&trace_disabled = dlsym(h, "dso_trace_disabled");
	CHECK(where && trace && trace_disabled);
	for (int i = 0; i < 10; i++) {
		char name[32];

		tc_expect(name, sizeof(name), "r%d-n%d", round, i);
		trace(round * 100 + i, name);
		trace_disabled(i);
	}
	where(&w);
	ex->file = strdup(w.file);
	ex->fmt = strdup(w.printk_fmt);
	ex->printk_line = w.printk_line;
	ex->puts_line = w.puts_line;
	CHECK(ex->printk_line > 0 && ex->puts_line > 0);
	CHECK_EQ(dlclose(h), 0);
	/* The library, its sites and its strings are unmapped. */
	CHECK(!mapped(TRACER_DSO_PATH));
}

int main(void)
{
	struct expect ex[2];
	struct bprint_reader *r;
	struct bprint_event ev = BPRINT_EVENT_INIT;
	int count[2] = { 0, 0 }, puts_count[2] = { 0, 0 }, scalar_count[2] = { 0, 0 };
	int main_seen = 0, rc;

	/* The library's sites do not exist yet: this counts none of them. */
	CHECK_EQ(bprint_disable("func:dso_trace_disabled"), 0);
	trace_puts("before the library");

	load_call_close(0, &ex[0]);
	load_call_close(1, &ex[1]);

	/* A snapshot dump decodes them, in ftrace form, after the unload. */
	{
		char *buf = NULL, *p;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		int lit = 0, val = 0, sc = 0;

		CHECK(f != NULL);
		CHECK_EQ(bprint_dump(f), 61);
		fclose(f);
		for (p = buf; (p = strstr(p, "] ")); p++) {
			lit += !strncmp(strstr(p, ": ") + 2, "dso_trace: dso literal\n", 23);
			val += !strncmp(strstr(p, ": ") + 2, "dso_trace: dso value=", 21);
			sc += !strncmp(strstr(p, ": ") + 2, "dso_trace: dso scalar ", 22);
		}
		CHECK_EQ(lit, 20);
		CHECK_EQ(val, 20);
		CHECK_EQ(sc, 20);
		free(buf);
	}

	r = bprint_read_begin();
	CHECK(r != NULL);
	while ((rc = bprint_read_next(r, &ev)) == 1) {
		char expect[256], name[32];
		int round, i;

		CHECK(ev.site != NULL);
		if (!strcmp(ev.message, "before the library")) {
			CHECK_STREQ(ev.site->func, "main");
			main_seen++;
			continue;
		}
		if (strstr(ev.message, "disabled"))
			FAIL("a disabled library site recorded: \"%s\"", ev.message);
		/* Which round: records come in time order, round 0 first. */
		round = count[0] + puts_count[0] + scalar_count[0] < 30 ? 0 : 1;
		CHECK_STREQ(ev.site->file, ex[round].file);
		if (!strcmp(ev.message, "dso literal")) {
			CHECK_STREQ(ev.site->format, "dso literal");
			CHECK_STREQ(ev.site->func, "dso_trace");
			CHECK_EQ(ev.site->line, ex[round].puts_line);
			CHECK_EQ(ev.site->kind, BPRINT__SITE_PUTS);
			puts_count[round]++;
			continue;
		}
		if (!strncmp(ev.message, "dso scalar ", 11)) {
			i = scalar_count[round];
			tc_expect(expect, sizeof(expect), "dso scalar %d %llx", round * 100 + i,
				  (unsigned long long)(round * 100 + i) << 40);
			CHECK_STREQ(ev.message, expect);
			CHECK_STREQ(ev.site->func, "dso_trace");
			scalar_count[round]++;
			continue;
		}
		i = count[round];
		tc_expect(name, sizeof(name), "r%d-n%d", round, i);
		tc_expect(expect, sizeof(expect), "dso value=%d name=%s big=%llu",
			  round * 100 + i, name, (unsigned long long)(round * 100 + i) * 1000003ull);
		CHECK_STREQ(ev.message, expect);
		CHECK_STREQ(ev.site->format, ex[round].fmt);
		CHECK_STREQ(ev.site->func, "dso_trace");
		CHECK_EQ(ev.site->line, ex[round].printk_line);
		CHECK_EQ(ev.site->kind, BPRINT__SITE_PRINTK);
		count[round]++;
	}
	CHECK_EQ(rc, 0);
	bprint_read_end(r);
	CHECK_EQ(main_seen, 1);
	for (int k = 0; k < 2; k++) {
		CHECK_EQ(count[k], 10);
		CHECK_EQ(puts_count[k], 10);
		CHECK_EQ(scalar_count[k], 10);
		free(ex[k].file);
		free(ex[k].fmt);
	}

	printf("2 loads x 10 calls decoded after dlclose\n");
	return 0;
}
