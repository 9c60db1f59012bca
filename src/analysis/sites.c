/*
 * Sets of call sites (bprint/query.h): ids or patterns, the one syntax of
 * BPRINT_FILTER (trace/pattern.h), answered per site id from a table that
 * is rebuilt when the trace's site table grows.
 */
#include <bprint/query.h>

#include "reader/reader.h"
#include "trace/pattern.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct bp_sites {
	char **pats;
	size_t n;
	/* per site id: 1 in the set; built for a table of `built_for` sites */
	unsigned char *ok;
	size_t nok;
	size_t built_for;
	const struct bp_trace *built_of;
};

struct bp_sites *bp_sites_new(void)
{
	return calloc(1, sizeof(struct bp_sites));
}

void bp_sites_free(struct bp_sites *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->pats[i]);
	free(s->pats);
	free(s->ok);
	free(s);
}

int bp_sites_add(struct bp_sites *s, const char *pattern)
{
	char **grown;

	if (!pattern || !*pattern || !(grown = realloc(s->pats, (s->n + 1) * sizeof(*grown))))
		return -1;
	s->pats = grown;
	if (!(s->pats[s->n] = strdup(pattern)))
		return -1;
	s->n++;
	s->built_of = NULL;	/* the answers change */
	return 0;
}

size_t bp_sites_count(const struct bp_sites *s)
{
	return s ? s->n : 0;
}

/* The pattern as a decimal site id, or -1. */
static int64_t as_id(const char *pat)
{
	char *end;
	unsigned long long id;

	if (*pat < '0' || *pat > '9')
		return -1;
	id = strtoull(pat, &end, 10);
	return *end || id > UINT32_MAX ? -1 : (int64_t)id;
}

static bool one_matches(const char *pat, const struct bp_trace_site *site)
{
	int64_t id = as_id(pat);

	return id >= 0 ? (uint64_t)id == site->id : bp_site_pattern_matches(pat, bp_trace_site_runtime(site));
}

static void build(struct bp_sites *s, struct bp_trace *t)
{
	size_t nsites = bp_trace_nsites(t), len = (size_t)bp_trace_max_site_id(t) + 1;

	free(s->ok);
	s->ok = calloc(len, 1);
	s->nok = s->ok ? len : 0;
	for (size_t i = 0; i < nsites && s->ok; i++) {
		const struct bp_trace_site *ts = bp_trace_site_at(t, i);

		for (size_t k = 0; ts && k < s->n; k++)
			if (one_matches(s->pats[k], ts)) {
				s->ok[ts->id] = 1;
				break;
			}
	}
	s->built_for = nsites;
	s->built_of = t;
}

int bp_sites_match(struct bp_sites *s, struct bp_trace *t, uint32_t site_id)
{
	if (!s || !s->n)
		return 1;
	if (s->built_of != t || s->built_for != bp_trace_nsites(t))
		build(s, t);
	if (site_id < s->nok && bp_trace_site(t, site_id))
		return s->ok[site_id];
	/* not in the table: only its number names it */
	for (size_t k = 0; k < s->n; k++)
		if (as_id(s->pats[k]) == (int64_t)site_id)
			return 1;
	return 0;
}

const char *bp_sites_unmatched(const struct bp_sites *s, struct bp_trace *t)
{
	size_t nsites = bp_trace_nsites(t);

	for (size_t k = 0; s && k < s->n; k++) {
		size_t i;

		for (i = 0; i < nsites; i++) {
			const struct bp_trace_site *ts = bp_trace_site_at(t, i);

			if (ts && one_matches(s->pats[k], ts))
				break;
		}
		if (i == nsites)
			return s->pats[k];
	}
	return NULL;
}
