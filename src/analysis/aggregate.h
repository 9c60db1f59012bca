/*
 * analysis/aggregate.h - what `bprint hist` and `bprint latency` compute:
 * values grouped by key, each group a distribution (analysis/dist.h), and
 * what the answer must not hide (records the file lacks, spans never
 * closed, the longest spans); and its renderings: text with bars, JSON,
 * CSV, SVG (docs/bprint.1, "hist" and "latency", has the formats).
 * The API is bprint/aggregate.h (its calls are aggregate.c's and
 * render.c's); this is the struct behind its handle.
 */
#ifndef BP_ANALYSIS_AGGREGATE_H
#define BP_ANALYSIS_AGGREGATE_H

#include "analysis/dist.h"
#include "analysis/groups.h"
#include "analysis/spans.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define BP_AGG_BATCH 128	/* values handed to a distribution at once */
#define BP_AGG_LANES 8		/* keys whose values wait at once */
#define BP_AGG_PENDING 16	/* values a group without a lane holds back */
#define BP_AGG_RETRY 64		/* adds that missed the lanes before one is
				 * given to another key */

/* A recent key's group and its values not in its distribution yet. */
struct bp_agg_lane {
	struct bp_group *g;		/* NULL: unused */
	unsigned n;
	unsigned hits;			/* adds since a lane last changed hands */
	union bp_dist_value v[BP_AGG_BATCH];
};

/* A group's data: its distribution, and the values of a key that found no
 * lane, waiting to go in a few at a time (the distribution first, so that
 * the data is a struct bp_dist to every reader; bp_agg_finish() hands the
 * waiting values over). */
struct bp_agg_group {
	struct bp_dist d;
	unsigned n;
	union bp_dist_value v[BP_AGG_PENDING];
};

#define BP_AGG_MAX_QUANTILES 12	/* percentiles a rendering shows, at most */

/* The percentiles the renderings show (--percentiles), in the order given. */
struct bp_quantile {
	double q;			/* in (0, 1] */
	char text[16];			/* "p99.9" */
	char json[16];			/* "p999": the JSON and CSV name, the point dropped */
};

struct bp_quantiles {
	struct bp_quantile v[BP_AGG_MAX_QUANTILES];
	size_t n;
};

/* p50, p90, p99 and p99.9. */
void bp_quantiles_default(struct bp_quantiles *qs);
/* A list of percentiles, "50,95,99,99.99": each a number in (0, 100]
 * written with digits and one point, no two of one JSON name; false with
 * the reason in err otherwise. */
bool bp_quantiles_parse(struct bp_quantiles *qs, const char *list, char *err, size_t size);

struct bp_agg {
	struct bp_dist_pool pool;
	struct bp_groups groups;	/* data: struct bp_dist */
	struct bp_group **sorted;	/* by bp_agg_finish() */
	/* values of the last keys added to, waiting (keys that alternate, as
	 * -k cmd's do, batch as well as runs of one key) */
	struct bp_agg_lane lane[BP_AGG_LANES];
	unsigned cur;			/* the lane added to last */
	unsigned nlanes;		/* lanes in use (the first ones) */
	unsigned misses;		/* adds that found no lane, since a lane
					 * last changed hands */
	enum bp_dist_kind kind;		/* of every group's values */
	const char *const *key_names;	/* a name per key item */
	size_t nkeys;
	const char *value_name;		/* the -v field, or "latency" */
	const char *what;		/* the header: "dur_us of site 4 (a.c:35 worker)" */
	struct bp_quantiles quantiles;	/* shown (the default set by bp_agg_init()) */
	struct bp_agg_sort sort;	/* by count unless set */
	size_t limit;			/* groups shown, 0 for all (the others counted) */
	bool counts_only;		/* hist without -v: counts per key */
	bool time_ns;			/* values are durations in ns */
	uint64_t records;		/* records that went into a group */
	uint64_t lost;			/* records the file lacks */
	uint64_t not_yet;		/* of those, not copied yet by a recorder still at
					 * work (a stream followed live): shown apart */
	/* --every: the same values per window of every_ns of the trace's clock
	 * (keys: the window's index, then the group's key), shown after the
	 * groups; series_last shows the last window only (a live view) */
	struct bp_agg *series;
	uint64_t every_ns;
	bool series_last;
	bool own_series;		/* series is this aggregate's (bp_agg_set_every()) */
	struct bp_key window_key;	/* the series' key being built */
	/* latency */
	bool spans;
	uint64_t unmatched_opens, unmatched_closes;
	struct bp_top top;
	const char *const *top_key_names;	/* the -k names, or "tid" */
	size_t ntop_keys;
};

/* An aggregate in the caller's memory (bp_agg_new() is the API's). */
void bp_agg_init(struct bp_agg *a, enum bp_dist_kind kind, enum bp_bucket_kind buckets,
		 double width);
void bp_agg_fini(struct bp_agg *a);

/*
 * Add a value to key's group; false if memory ran out.  The values of a
 * few keys wait in lanes and go into their distributions a batch at a
 * time (bp_dist_add_many: a fifth faster than one by one); a key found in
 * a lane needs no lookup in the groups.  A key without a lane is looked
 * up, and its values wait in its group, BP_AGG_PENDING at a time; every
 * BP_AGG_RETRY such adds, the lane added to least since gives its place
 * to that key (more keys than lanes, in turns: no lane handed over at
 * every add, with a batch of one or two values).  The group's
 * distribution has them all after bp_agg_finish().  (bp_agg_add() is the
 * API's call: this, and the window's add.)
 */
bool bp_agg_add_slow(struct bp_agg *a, const unsigned char *key, size_t keylen,
		     union bp_dist_value v);
/* (Called once the lanes were looked at: a key in a lane whose values
 * must go in first, or counted only, is the current lane's, a->cur.) */

/* v into key's lane, if a lane holds key and has room (and values are
 * kept, not only counted): true; else false, with a->cur key's lane if it
 * has one. */
static inline bool bp_agg_lane_put(struct bp_agg *a, const unsigned char *key, size_t keylen,
				   union bp_dist_value v)
{
	/* the lanes looked at in line: keys that alternate find theirs here */
	for (unsigned i = 0; i < BP_AGG_LANES; i++) {
		struct bp_agg_lane *l = &a->lane[i];
		const struct bp_group *g = l->g;

		if (!g || g->keylen != keylen || !bp_key_equal(g->key, key, keylen))
			continue;
		a->cur = i;	/* for bp_agg_add_slow() */
		if (a->counts_only || l->n + 1 >= BP_AGG_BATCH)
			return false;
		a->records++;
		l->hits++;
		l->v[l->n++] = v;
		return true;
	}
	return false;
}

static inline bool bp_agg_add_inline(struct bp_agg *a, const unsigned char *key, size_t keylen,
				     union bp_dist_value v)
{
	return bp_agg_lane_put(a, key, keylen, v) || bp_agg_add_slow(a, key, keylen, v);
}

/* --every: the key of ns's window and key into w (the series' key);
 * false if memory ran out. */
bool bp_agg_window_key(struct bp_key *w, uint64_t every_ns, uint64_t ns, const unsigned char *key,
		       size_t keylen);

/* A window's group (of a->series): the window's index, and the group's key
 * after it. */
uint64_t bp_agg_window_of(const struct bp_group *g, const unsigned char **key, size_t *len);

#endif /* BP_ANALYSIS_AGGREGATE_H */
