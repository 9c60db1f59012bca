/*
 * analysis/glob.h against glibc's fnmatch() (flags 0, the C locale) on
 * random patterns and strings over a small alphabet that makes matches
 * and every special character likely, then the cases fnmatch cannot take:
 * strings that are not NUL-terminated, with bytes past their length.
 */
#define CHECK_KEEP_GOING 20
#include "check.h"

#include "analysis/glob.h"

#include <fnmatch.h>
#include <locale.h>
#include <stdint.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static unsigned pick(unsigned n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static void random_text(char *out, size_t max, const char *alphabet)
{
	size_t n = pick((unsigned)max), k = strlen(alphabet);

	for (size_t i = 0; i < n; i++)
		out[i] = alphabet[pick((unsigned)k)];
	out[n] = '\0';
}

int main(void)
{
	char pat[16], str[16];
	char buf[8] = { 'a', 'b', 'c', 'X', 'X', 'X', 'X', 'X' };
	long matched = 0;

	setlocale(LC_ALL, "C");
	for (int i = 0; i < 300000; i++) {
		bool mine, theirs;

		random_text(pat, 9, "ab*?[]!-c");
		random_text(str, 9, "abc-]!");
		mine = bp_glob_match(pat, strlen(pat), str, strlen(str));
		theirs = fnmatch(pat, str, 0) == 0;
		CHECK_MSG(mine == theirs, "pattern '%s' on '%s': %d, fnmatch %d", pat, str, mine, theirs);
		matched += theirs;
	}
	/* the sample has both answers in numbers */
	CHECK_MSG(matched > 5000 && matched < 295000, "%ld of 300000 matched", matched);
	/* escapes, as fnmatch takes them outside classes */
	CHECK(bp_glob_match("a\\*", 3, "a*", 2));
	CHECK(!bp_glob_match("a\\*", 3, "ab", 2));
	/* the length bounds the string: bytes past it are not read */
	CHECK(bp_glob_match("abc", 3, buf, 3));
	CHECK(bp_glob_match("*c", 2, buf, 3));
	CHECK(!bp_glob_match("abcX", 4, buf, 3));
	CHECK(bp_glob_match("", 0, buf, 0));
	CHECK(bp_glob_match("*", 1, buf, 0));
	/* long runs of stars stay fast (not exponential) */
	{
		char s[4001];

		memset(s, 'a', 4000);
		s[4000] = '\0';
		CHECK(!bp_glob_match("*a*a*a*a*a*a*a*a*b", 18, s, 4000));
	}
	return check_summary("glob_test");
}
