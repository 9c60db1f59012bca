/*
 * Helpers shared by the printf engine's tests: escaped printing, and buffers that end at a PROT_NONE page so
 * that a read or write one byte past the end faults even without ASan.
 */
#ifndef BP_TEST_FMT_TEST_H
#define BP_TEST_FMT_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The harness is tests/check.h's; the printf engine's tests keep going
 * after a failure, so that one run shows every case that differs. */
#ifndef CHECK_KEEP_GOING
#define CHECK_KEEP_GOING 1000
#endif
#include "check.h"

/* Print n bytes C-escaped, in quotes. */
static inline void t_escape(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			fputc(c, f);
		else
			fprintf(f, "\\x%02x", c);
	}
	fputc('"', f);
}

static inline void t_escape_str(FILE *f, const char *s)
{
	if (s)
		t_escape(f, s, strlen(s));
	else
		fputs("NULL", f);
}

/*
 * A region of `len` usable bytes whose last byte is immediately followed by
 * an inaccessible page.  t_guard_at(g, n) returns the address of n bytes
 * ending exactly at the guard page.
 */
struct t_guard {
	unsigned char *map;
	size_t maplen;
	unsigned char *end;	/* first byte of the PROT_NONE page */
};

static inline void t_guard_init(struct t_guard *g, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t data = (len + page - 1) / page * page;
	void *m;

	g->maplen = data + page;
	m = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	g->map = m;
	g->end = g->map + data;
	if (mprotect(g->end, page, PROT_NONE) != 0) {
		perror("mprotect");
		exit(2);
	}
}

static inline void *t_guard_at(const struct t_guard *g, size_t n)
{
	return g->end - n;
}

static inline void t_guard_free(struct t_guard *g)
{
	munmap(g->map, g->maplen);
}

/* A copy of the string s whose NUL is the last byte before a guard page. */
static inline const char *t_guard_str(const struct t_guard *g, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = t_guard_at(g, n);

	memcpy(p, s, n);
	return p;
}

static inline int t_exit_status(const char *name)
{
	if (check_summary(name))
		return 1;
	printf("%s: ok\n", name);
	return 0;
}

#endif /* BP_TEST_FMT_TEST_H */
