/*
 * symbols_check TRACED MODULE REBUILT BPRINT NM DIR - %pS and %ps, offline
 * and in process (symbols.cmake).
 *
 * TRACED (symbols_traced.c) runs with BPRINT_FILE=DIR/trace and MODULE
 * copied to DIR/libbpsym.so.1.  The expected text is computed here from
 * the ELF symbol tables with NM -S (name, value, size), not by the code
 * under test.  Then:
 *   1. bprint report --msg-only and the reader (both symbol backends)
 *      print "name+0x0/0x<size>" (" [libbpsym.so.1]" for the library's),
 *      "name" for %ps, and glibc's %p text for what is in no symbol;
 *   2. TRACED's own bprint_dump() printed the same for the symbols in
 *      the dynamic tables (the static function prints as %p there);
 *   3. REBUILT (another build-id) copied over DIR/libbpsym.so.1: the
 *      library's addresses print "0x... [libbpsym.so.1+0x<value>]", the
 *      rest as before, the stale library is counted, nothing crashes;
 *   4. the library deleted: the same text, counted as missing.
 * NCOPIES more copies of MODULE, traced in turn, are more libraries than
 * the reader keeps open at once: they resolve all the same.
 */
#include "reader/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NCOPIES (BP_SYMBOLS_OPEN + 2)

static int failures;

__attribute__((format(printf, 1, 2)))
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "FAIL: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	failures++;
}

/* Run argv with stdout to out (if not NULL) and BPRINT_FILE=trace (if not
 * NULL); its exit status, or -1. */
static int run(char *const argv[], const char *out, const char *trace)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (out) {
			int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

			if (fd < 0 || dup2(fd, 1) < 0)
				_exit(126);
		}
		if (trace)
			setenv("BPRINT_FILE", trace, 1);
		else
			unsetenv("BPRINT_FILE");
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

static int copy_file(const char *from, const char *to)
{
	char tmp[4200];
	char *argv[] = { "/bin/cp", (char *)from, tmp, NULL };

	if (snprintf(tmp, sizeof(tmp), "%s.new", to) >= (int)sizeof(tmp) ||
	    run(argv, NULL, NULL) != 0)
		return -1;
	return rename(tmp, to);	/* a new file: the traced program's mapping is not touched */
}

/* value and size of a defined symbol, from nm -S. */
static int nm_symbol(const char *nm, const char *file, const char *out, const char *name,
		     unsigned long long *value, unsigned long long *size)
{
	char *argv[] = { (char *)nm, "-S", "--defined-only", (char *)file, NULL };
	char *text, *line, *save = NULL;
	int found = -1;

	if (run(argv, out, NULL) != 0 || !(text = slurp(out))) {
		fail("%s -S %s failed", nm, file);
		return -1;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char type, sym[256];

		if (sscanf(line, "%llx %llx %c %255s", value, size, &type, sym) == 4 &&
		    !strcmp(sym, name)) {
			found = 0;
			break;
		}
	}
	free(text);
	if (found)
		fail("%s: no sized symbol %s in nm -S", file, name);
	return found;
}

/* Is line one of text's lines (suffix: a line ending with ": " line)? */
static int has_line(const char *text, const char *line, int suffix)
{
	size_t n = strlen(line);

	for (const char *p = text; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && !suffix && !memcmp(p, line, n))
			return 1;
		if (suffix && len >= n + 2 && !memcmp(p + len - n, line, n) &&
		    !memcmp(p + len - n - 2, ": ", 2))
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

static void expect_lines(const char *what, const char *text, char lines[][512], int n,
			 int suffix)
{
	for (int i = 0; i < n; i++)
		if (!has_line(text, lines[i], suffix))
			fail("%s: no line \"%s\"", what, lines[i]);
}

/* The messages through the reader, one backend; its symbol counters. */
static char *read_messages(const char *trace, unsigned flags, struct bp_symbols_stats *st)
{
	char err[256];
	struct bp_trace *t = bp_trace_open(trace, flags, err, sizeof(err), NULL);
	struct bp_trace_event ev = BP_TRACE_EVENT_INIT;
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap);

	if (!t || !out) {
		fail("%s: %s", trace, t ? "no memory" : err);
		free(out);
		bp_trace_close(t);
		return NULL;
	}
	out[0] = '\0';
	while (bp_trace_next(t, &ev, 0) == 1) {
		int n = snprintf(out + len, cap - len, "%s\n", ev.message);

		if (n > 0 && (size_t)n < cap - len)
			len += (size_t)n;
	}
	if (bp_trace_problems(t, NULL))
		fail("%s: the reader met problems", trace);
	bp_trace_symbol_stats(t, st);
	bp_trace_close(t);
	return out;
}

static void check_stats(const char *what, const struct bp_symbols_stats *st,
			unsigned stale, unsigned missing, unsigned long long unverified)
{
	printf("%s: resolved %llu unresolved %llu unverified %llu stale %u missing %u opened %u%s%s\n",
	       what, (unsigned long long)st->resolved, (unsigned long long)st->unresolved,
	       (unsigned long long)st->unverified, st->stale_libs, st->missing_libs, st->opened,
	       st->first_bad[0] ? " first bad " : "", st->first_bad);
	/* main, plus1, main, local x2, width x2, %pS!: 8 from the program,
	 * dl x2 from the library, 2 per copy */
	if (st->resolved != 8 + (unverified ? 0 : 2) + 2 * NCOPIES)
		fail("%s: %llu resolved", what, (unsigned long long)st->resolved);
	if (st->unresolved != 3)	/* none x2, null */
		fail("%s: %llu unresolved", what, (unsigned long long)st->unresolved);
	if (st->unverified != unverified || st->stale_libs != stale || st->missing_libs != missing)
		fail("%s: unverified %llu stale %u missing %u", what,
		     (unsigned long long)st->unverified, st->stale_libs, st->missing_libs);
	if ((stale || missing) && !strstr(st->first_bad, "libbpsym.so.1"))
		fail("%s: first bad library \"%s\"", what, st->first_bad);
	/* round robin over more libraries than stay open: each use reopens */
	if (st->opened < 2 * NCOPIES)
		fail("%s: %u library opens, expected at least %d", what, st->opened, 2 * NCOPIES);
}

int main(int argc, char **argv)
{
	const char *traced, *mod, *rebuilt, *tool, *nm, *dir;
	char lib[4200], trace[4200], dump[4200], side[4200], report[4200], nmout[4200];
	unsigned long long mval, msize, lval, lsize, dval, dsize;
	char main_p[64] = "", dl_p[64] = "", local_p[64] = "";
	char off[8 + NCOPIES][512], inproc[8 + NCOPIES][512], stale[8 + NCOPIES][512];
	char copies[NCOPIES][4200];
	const int nlines = 8 + NCOPIES;
	char *text, *line, *save = NULL;
	struct bp_symbols_stats st;

	if (argc != 7) {
		fprintf(stderr, "usage: symbols_check TRACED MODULE REBUILT BPRINT NM DIR\n");
		return 2;
	}
	traced = argv[1], mod = argv[2], rebuilt = argv[3], tool = argv[4], nm = argv[5];
	dir = argv[6];
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return 1;
	snprintf(lib, sizeof(lib), "%s/libbpsym.so.1", dir);
	snprintf(trace, sizeof(trace), "%s/trace", dir);
	snprintf(dump, sizeof(dump), "%s/dump.txt", dir);
	snprintf(side, sizeof(side), "%s/side.txt", dir);
	snprintf(report, sizeof(report), "%s/report.txt", dir);
	snprintf(nmout, sizeof(nmout), "%s/nm.txt", dir);
	unlink(trace);
	if (copy_file(mod, lib) != 0) {
		fprintf(stderr, "cannot copy %s to %s\n", mod, lib);
		return 1;
	}
	for (int i = 0; i < NCOPIES; i++) {
		snprintf(copies[i], sizeof(copies[i]), "%s/libbpsym_%d.so", dir, i);
		if (copy_file(mod, copies[i]) != 0)
			return 1;
	}

	/* Record. */
	{
		char *av[4 + NCOPIES + 1] = { (char *)traced, lib, dump, side };
		int rc;

		for (int i = 0; i < NCOPIES; i++)
			av[4 + i] = copies[i];
		av[4 + NCOPIES] = NULL;
		rc = run(av, NULL, trace);

		if (rc != 0) {
			fprintf(stderr, "%s exited %d\n", traced, rc);
			return 1;
		}
	}
	if (!(text = slurp(side)))
		return 1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		sscanf(line, "main %63s", main_p);
		sscanf(line, "dl %63s", dl_p);
		sscanf(line, "local %63s", local_p);
	}
	free(text);

	/* The expectation, from the symbol tables. */
	if (nm_symbol(nm, traced, nmout, "symbols_main_fn", &mval, &msize) ||
	    nm_symbol(nm, traced, nmout, "symbols_local_fn", &lval, &lsize) ||
	    nm_symbol(nm, mod, nmout, "symbols_dl_fn", &dval, &dsize))
		return 1;
	printf("nm: symbols_main_fn 0x%llx/0x%llx, symbols_local_fn 0x%llx/0x%llx, "
	       "symbols_dl_fn 0x%llx/0x%llx\n", mval, msize, lval, lsize, dval, dsize);
	snprintf(off[0], 512, "main symbols_main_fn+0x0/0x%llx at symbols_main_fn", msize);
	snprintf(off[1], 512, "plus1 symbols_main_fn+0x1/0x%llx", msize);
	snprintf(off[2], 512, "dl symbols_dl_fn+0x0/0x%llx [libbpsym.so.1] at symbols_dl_fn", dsize);
	snprintf(off[3], 512, "local symbols_local_fn+0x0/0x%llx at symbols_local_fn", lsize);
	snprintf(off[4], 512, "none 0x10 0x10");
	snprintf(off[5], 512, "null (nil)");
	snprintf(off[6], 512, "width [%24s] [%-24s]", "symbols_main_fn", "symbols_main_fn");
	snprintf(off[7], 512, "plain %s symbols_main_fn+0x0/0x%llx!", main_p, msize);
	for (int i = 0; i < NCOPIES; i++)
		snprintf(off[8 + i], 512, "many %d symbols_dl_fn+0x0/0x%llx [libbpsym_%d.so]", i,
			 dsize, i);
	memcpy(inproc, off, sizeof(off));
	snprintf(inproc[3], 512, "local %s at %s", local_p, local_p);
	memcpy(stale, off, sizeof(off));
	snprintf(stale[2], 512, "dl %s [libbpsym.so.1+0x%llx] at %s", dl_p, dval, dl_p);

	/* 1. Offline: the command, then the reader with each backend. */
	{
		char *av[] = { (char *)tool, "report", "--msg-only", trace, NULL };
		int rc = run(av, report, NULL);

		if (rc != 0)
			fail("bprint report exited %d", rc);
		if ((text = slurp(report))) {
			printf("-- bprint report --msg-only:\n%s", text);
			expect_lines("bprint report", text, off, nlines, 0);
			free(text);
		}
	}
	if ((text = read_messages(trace, BP_TRACE_OPEN_DEFAULT, &st))) {
		expect_lines("reader", text, off, nlines, 0);
		check_stats("reader", &st, 0, 0, 0);
		free(text);
	}
	if ((text = read_messages(trace, BP_TRACE_OPEN_ELF_READER, &st))) {
		expect_lines("reader (own ELF reader)", text, off, nlines, 0);
		check_stats("reader (own ELF reader)", &st, 0, 0, 0);
		free(text);
	}
	if ((text = read_messages(trace, BP_TRACE_OPEN_NO_SYMBOLS, &st))) {
		char want[512];

		snprintf(want, sizeof(want), "main %sS at %ss", main_p, main_p);
		if (!has_line(text, want, 0))
			fail("reader without symbols: no line \"%s\"", want);
		if (st.resolved || st.unresolved || st.opened)
			fail("reader without symbols looked symbols up");
		free(text);
	}

	/* 2. In process. */
	if ((text = slurp(dump))) {
		printf("-- bprint_dump():\n%s", text);
		expect_lines("bprint_dump", text, inproc, nlines, 1);
		free(text);
	} else {
		fail("no dump");
	}

	/* 3. Another build at the library's path. */
	if (copy_file(rebuilt, lib) != 0) {
		fprintf(stderr, "cannot copy %s\n", rebuilt);
		return 1;
	}
	{
		char *av[] = { (char *)tool, "report", "--msg-only", trace, NULL };
		int rc = run(av, report, NULL);

		if (rc != 0)
			fail("bprint report (stale library) exited %d", rc);
		if ((text = slurp(report))) {
			printf("-- bprint report --msg-only, library rebuilt:\n%s", text);
			expect_lines("bprint report (stale library)", text, stale, nlines, 0);
			free(text);
		}
	}
	if ((text = read_messages(trace, BP_TRACE_OPEN_DEFAULT, &st))) {
		expect_lines("reader (stale library)", text, stale, nlines, 0);
		check_stats("reader (stale library)", &st, 1, 0, 2);
		free(text);
	}
	if ((text = read_messages(trace, BP_TRACE_OPEN_ELF_READER, &st))) {
		expect_lines("reader (own ELF reader, stale library)", text, stale, nlines, 0);
		check_stats("reader (own ELF reader, stale library)", &st, 1, 0, 2);
		free(text);
	}

	/* 4. The library gone. */
	unlink(lib);
	if ((text = read_messages(trace, BP_TRACE_OPEN_DEFAULT, &st))) {
		expect_lines("reader (library gone)", text, stale, nlines, 0);
		check_stats("reader (library gone)", &st, 0, 1, 2);
		free(text);
	}

	if (failures) {
		fprintf(stderr, "%d failures; files in %s\n", failures, dir);
		return 1;
	}
	for (int i = 0; i < NCOPIES; i++)
		unlink(copies[i]);
	unlink(trace);
	unlink(dump);
	unlink(side);
	unlink(report);
	unlink(nmout);
	rmdir(dir);
	printf("symbols: all checks passed\n");
	return 0;
}
