/*
 * copy_string: bprint__copy_string(), the one-pass string copy that call
 * sites and the words path use for %s (include/bprint/internal.h).
 *
 * Every start alignment, string length and bound up to a few blocks: the
 * length returned, the bytes copied and the bytes it must leave alone.
 * Then strings that end right before a page nobody may read (PROT_NONE):
 * the block loads must never touch it, wherever the string starts.
 */
#include "tracer_check.h"

#include <sys/mman.h>

static void check_one(const char *s, size_t len, size_t bound, const char *where)
{
	unsigned char d[128 + 32];
	size_t want = len < bound ? len : bound, n;

	memset(d, 0xa5, sizeof(d));
	n = bprint__copy_string(d, s, bound);
	if (n != want)
		FAIL("%s: length %zu, bound %zu: returned %zu, want %zu", where, len, bound, n, want);
	if (memcmp(d, s, want))
		FAIL("%s: length %zu, bound %zu: bytes differ", where, len, bound);
	/* nothing written at or past the bound */
	for (size_t i = bound; i < sizeof(d); i++)
		if (d[i] != 0xa5)
			FAIL("%s: length %zu, bound %zu: byte %zu written", where, len, bound, i);
}

int main(void)
{
	static char src[256] __attribute__((aligned(64)));
	long page = sysconf(_SC_PAGESIZE), checked = 0;
	char *two;

	for (size_t off = 0; off < 32; off++)
		for (size_t len = 0; len < 80; len++)
			for (size_t bound = 0; bound <= 100; bound++) {
				memset(src, 'x', sizeof(src));
				src[off + len] = '\0';
				check_one(src + off, len, bound, "aligned buffer");
				checked++;
			}

	/* the last bytes before a page that faults */
	two = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	CHECK(two != MAP_FAILED);
	CHECK_EQ(mprotect(two + page, (size_t)page, PROT_NONE), 0);
	for (size_t len = 0; len < 40; len++) {
		char *s = two + page - 1 - len;	/* s[len] is the page's last byte */

		memset(two, 'y', (size_t)page);
		s[len] = '\0';
		check_one(s, len, 100, "string ending at a page's end");
		check_one(s, len, len + 1, "string ending at a page's end, bound its size");
		/* no NUL at all: the bound ends it at the page's end */
		s[len] = 'z';
		check_one(s, len + 1, len + 1, "bytes up to a page's end, no NUL");
		checked += 3;
	}
	munmap(two, (size_t)page * 2);
	printf("copy_string: %ld copies checked\n", checked);
	return 0;
}
