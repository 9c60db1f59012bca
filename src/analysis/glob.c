/*
 * Globs over byte strings (analysis/glob.h).  The classic two-pointer walk:
 * on a mismatch after a '*', retry with the star taking one more byte, so
 * the time is at most the product of the lengths, never exponential.
 */
#include "analysis/glob.h"

/* Does class [...] at pat (after the '[') take byte c?  *used: the class's
 * length up to and including its ']'; 0 if it is not closed (then '[' is a
 * plain byte). */
static bool class_match(const char *pat, size_t plen, unsigned char c, size_t *used)
{
	size_t i = 0;
	bool negate = false, hit = false;

	if (i < plen && (pat[i] == '!' || pat[i] == '^'))
		negate = true, i++;
	for (bool first = true; i < plen && (first || pat[i] != ']'); first = false) {
		unsigned char lo = (unsigned char)pat[i], hi;

		if (lo == '\\' && i + 1 < plen)
			lo = (unsigned char)pat[++i];
		hi = lo;
		if (i + 2 < plen && pat[i + 1] == '-' && pat[i + 2] != ']') {
			hi = (unsigned char)pat[i + 2];
			i += 2;
			if (hi == '\\' && i + 1 < plen)
				hi = (unsigned char)pat[++i];
		}
		hit |= c >= lo && c <= hi;
		i++;
	}
	if (i >= plen) {
		*used = 0;
		return false;
	}
	*used = i + 1;
	return hit != negate;
}

bool bp_glob_match(const char *pat, size_t plen, const char *s, size_t slen)
{
	size_t p = 0, i = 0, star_p = (size_t)-1, star_i = 0;

	while (i < slen) {
		unsigned char c = (unsigned char)s[i];
		size_t used;

		if (p < plen && pat[p] == '*') {
			star_p = ++p, star_i = i;
			continue;
		}
		if (p < plen && pat[p] == '?') {
			p++, i++;
			continue;
		}
		if (p < plen && pat[p] == '[') {
			bool hit = class_match(pat + p + 1, plen - p - 1, c, &used);

			if (used) {
				if (hit) {
					p += used + 1, i++;
					continue;
				}
				goto retry;
			}
		}
		if (p < plen && pat[p] == '\\' && p + 1 < plen) {
			if ((unsigned char)pat[p + 1] == c) {
				p += 2, i++;
				continue;
			}
			goto retry;
		}
		if (p < plen && (unsigned char)pat[p] == c) {
			p++, i++;
			continue;
		}
retry:
		if (star_p == (size_t)-1)
			return false;
		p = star_p, i = ++star_i;
	}
	while (p < plen && pat[p] == '*')
		p++;
	return p == plen;
}
