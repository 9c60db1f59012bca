/*
 * bench/hotpath_check.c - bench-hotpath --check (ctest bench_hotpath_rows):
 * the rows, and the many-sites row, time what their labels say.
 */
#include <bprint.h>

#include "hotpath_rows.h"

#include <stdio.h>
#include <string.h>

/* Consume every record there is. */
static void drain(void)
{
	struct bprint_reader *r = bprint_read_begin();
	struct bprint_event ev = BPRINT_EVENT_INIT;

	while (bprint_read_next(r, &ev) == 1)
		;
	bprint_read_end(r);
}

/*
 * --check: every row, in each language, records what it says it does.
 * Each row's loop makes CHECK_CALLS calls (i = 0, 1, 2), read back at once
 * and compared with glibc's snprintf of the same format and arguments;
 * the disabled row must record nothing.  Returns the number of rows that do not.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static int expected_text(int row, size_t i, char *out, size_t size)
{
	(void)i;
	switch (row) {
#define BENCH_EXPECT(name, kind, label, ...)					\
	case BENCH_ROW_##name:							\
		return snprintf(out, size, __VA_ARGS__);
	BENCH_ROWS(BENCH_EXPECT)
#undef BENCH_EXPECT
	}
	return -1;
}
#pragma GCC diagnostic pop

#define CHECK_CALLS 3

/* The many-sites row: one turn, each site's record in order; 1 if not. */
static int check_many(void (*many)(size_t), const char *lang)
{
	struct bprint_reader *r;
	struct bprint_event ev = BPRINT_EVENT_INIT;
	char want[64];
	int n = 0, same = 1;

	many(BENCH_MANY);
	r = bprint_read_begin();
	while (bprint_read_next(r, &ev) == 1) {
		snprintf(want, sizeof(want), "many sites %d%d: 0", n / 8, n % 8);
		same &= !strcmp(ev.message, want);
		n++;
	}
	bprint_read_end(r);
	printf("%s %-4s %-14s %d records\n", n == BENCH_MANY && same ? "ok  " : "FAIL", lang,
	       "many sites", n);
	return !(n == BENCH_MANY && same);
}

int bench_check_rows(const struct bench_row *rows_cxx)
{
	const struct bench_row *langs[2] = { bench_rows_c, rows_cxx };
	const char *lang_names[2] = { "C", "C++" };
	int bad = 0;

	drain();
	for (int l = 0; l < 2; l++) {
		if (!langs[l]) {
			printf("FAIL C++ rows: not built\n");
			bad++;
			continue;
		}
		for (int k = 0; k < BENCH_NROWS; k++) {
			struct bprint_reader *r;
			struct bprint_event ev = BPRINT_EVENT_INIT;
			int disabled = langs[l][k].kind == BENCH_DISABLED;
			char want[512] = "", got[512] = "";
			int n = 0, same = 1, ok;

			langs[l][k].loop(CHECK_CALLS);
			r = bprint_read_begin();
			while (bprint_read_next(r, &ev) == 1) {
				expected_text(k, (size_t)n, want, sizeof(want));
				if (same && strcmp(ev.message, want)) {
					snprintf(got, sizeof(got), "%s", ev.message);
					same = 0;
				}
				n++;
			}
			bprint_read_end(r);
			ok = disabled ? n == 0 : n == CHECK_CALLS && same;
			printf("%s %-4s %-14s %d records", ok ? "ok  " : "FAIL", lang_names[l],
			       langs[l][k].name, n);
			if (!same)
				printf(", want \"%s\", got \"%s\"", want, got);
			else if (n)
				printf(", the last \"%s\"", want);
			printf("\n");
			bad += !ok;
		}
	}
	bad += check_many(bench_many_c, "C");
	if (rows_cxx)
		bad += check_many(bench_many_cxx, "C++");
	return bad;
}
