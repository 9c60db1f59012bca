/*
 * bprint/aggregate.h - values grouped by a key, each group a distribution:
 * what `bprint hist` and `bprint latency` compute, and their renderings
 * (text with bars, JSON, CSV, SVG; docs/bprint.1, "hist" and "latency",
 * has the formats).
 *
 *	bp_key_*()              a group's key built from a record's fields
 *	bp_agg_new()            an empty aggregate of one kind of value
 *	bp_agg_set_*()          what it shows: percentiles, order, limit,
 *	                        --every's windows, names, the spans' list
 *	bp_agg_add()            a value into its key's group (and window)
 *	bp_agg_add_many()       a batch of them
 *	bp_agg_add_span()       a span's duration (bprint/spans.h)
 *	bp_agg_finish()         in order, ready to render (again after adds)
 *	bp_agg_text(), _json(), _csv(), _svg()    the renderings
 *	bp_agg_group()          the groups shown, in order, and their means
 *
 * Each group's distribution keeps count, min, max, sum (exact) and a
 * histogram (log2 or linear buckets, counted exactly); its percentiles are
 * exact while every group's values fit in BP_DIST_EXACT_VALUES in all,
 * and past that come from a relative-error sketch within 1 %, and every
 * rendering says which.  Memory is the groups', never the records'.
 *
 * bp_agg_add() is the hot call: the values of the last few keys added to
 * wait in the aggregate and go into their distributions a batch at a
 * time, and a key found among them needs no lookup, so a loop that adds
 * a value a record pays a call and a compare per record.
 *
 * A key is bytes, one item per value, so that equal values are equal
 * bytes whatever site or conversion they came from: 'u' u64 (an integer
 * >= 0, or a thread id), 'i' i64 (a negative integer), 'f' f64, 's' u32
 * length then the bytes (a %s, or a %c as a one-byte string), '-' (no
 * value: the site lacks the field).  struct bp_key is the caller's buffer
 * for one: its three members are the whole of it, for good (it is built
 * in line at every record).
 *
 * Strings given (names, titles) are borrowed and must outlive the
 * aggregate; an aggregate is not thread-safe.
 */
#ifndef BPRINT_AGGREGATE_H
#define BPRINT_AGGREGATE_H

#include <bprint/reader.h>
#include <bprint/spans.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- values ------------------------------------------------------------- */

/* What the values are. */
enum bp_dist_kind {
	BP_DIST_SIGNED,		/* int64_t */
	BP_DIST_UNSIGNED,	/* uint64_t */
	BP_DIST_FLOAT,		/* double (NaN is counted apart, never in the stats) */
};

/* One value of any kind. */
union bp_dist_value {
	int64_t i;
	uint64_t u;
	double d;
};

/* Histogram buckets. */
enum bp_bucket_kind {
	BP_BUCKETS_LOG2,	/* [0, 1), [1, 2), [2, 4), ... and the negatives mirrored */
	BP_BUCKETS_LINEAR,	/* [k * width, (k + 1) * width) */
};

#define BP_DIST_EXACT_VALUES	(1u << 20)	/* values kept exactly, all groups */

/* ---- keys --------------------------------------------------------------- */

struct bp_key {
	unsigned char *b;
	size_t len, cap;
};
#define BP_KEY_INIT { 0, 0, 0 }

/* Empty, for the next record. */
static inline void bp_key_reset(struct bp_key *k)
{
	k->len = 0;
}

BP_API void bp_key_free(struct bp_key *k);
/* Append one value of field type (enum bp_field_type); false if memory
 * ran out.  (bp_key_add_field() below is its in-line half.) */
BP_API bool bp_key_add_field_slow(struct bp_key *k, uint8_t type, const struct bp_field_value *v);
/* Append a number not below 0 (a thread id), or no value. */
BP_API bool bp_key_add_uint(struct bp_key *k, uint64_t u);
BP_API bool bp_key_add_none(struct bp_key *k);
/* Append n bytes of whole items of another key. */
BP_API bool bp_key_append(struct bp_key *k, const unsigned char *items, size_t n);
/* The bytes of the item that starts at byte pos of key (0 if none does):
 * to take a key apart item by item. */
BP_API size_t bp_key_item_size(const unsigned char *key, size_t len, size_t pos);

#define BP_KEY_SHORT_STRING 16	/* a string this long goes into a key in line */

/* The bytes s[from .. len) (1 to 8 of them) as a word, the first lowest,
 * read inside s (bp_key_add_field()'s). */
static inline uint64_t bp_key_bytes_(const char *s, size_t from, size_t len)
{
	size_t n = len - from;
	uint64_t w = 0;

	if (len >= 8) {
		__builtin_memcpy(&w, s + len - 8, 8);
		return w >> (8 * (8 - n));
	}
	if (len >= 4 && n <= 4) {
		uint32_t x;

		__builtin_memcpy(&x, s + len - 4, 4);
		return (uint64_t)x >> (8 * (4 - n));
	}
	for (size_t i = 0; i < n; i++)
		w |= (uint64_t)(unsigned char)s[from + i] << (8 * i);
	return w;
}

/*
 * Append field value v of type: in line for what keys mostly are, an
 * integer not below 0 or a short string, when the key has room.  A key
 * is hashed and compared 8 bytes at a time right after it is made, so an
 * item in line is stored a word at a time (a load that takes bytes of
 * two stores waits for both to reach the cache: store forwarding fails);
 * the bytes are those bp_key_add_field_slow() writes.
 */
static inline bool bp_key_add_field(struct bp_key *k, uint8_t type, const struct bp_field_value *v)
{
	size_t room = k->cap - k->len;
	unsigned char *p;

	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)	/* the words below are */
		return bp_key_add_field_slow(k, type, v);
	if ((type == BP_FIELD_UNSIGNED || type == BP_FIELD_POINTER ||
	     (type == BP_FIELD_SIGNED && v->v.i >= 0)) && room >= 9) {
		uint64_t w = 'u' | v->v.u << 8;	/* 'u', then the value's 8 bytes */

		p = k->b + k->len;
		__builtin_memcpy(p, &w, 8);
		p[8] = (unsigned char)(v->v.u >> 56);
		k->len += 9;
		return true;
	}
	if (type == BP_FIELD_STRING && v->len <= BP_KEY_SHORT_STRING && room >= 24) {
		/* 's', the length's 4 bytes, the string: the first word holds
		 * 's', the length and up to 3 bytes; words of the rest follow */
		size_t len = v->len;
		const char *s = v->s;
		uint64_t w = 's' | (uint64_t)len << 8;

		p = k->b + k->len;
		if (len >= 4) {
			uint32_t x;

			__builtin_memcpy(&x, s, 4);
			w |= (uint64_t)(x & 0xffffffu) << 40;
		} else if (len) {	/* 1 to 3 bytes */
			w |= (uint64_t)(unsigned char)s[0] << 40 |
			     (uint64_t)(unsigned char)s[len / 2] << (40 + 8 * (len / 2)) |
			     (uint64_t)(unsigned char)s[len - 1] << (32 + 8 * len);
		}
		__builtin_memcpy(p, &w, 8);
		if (len > 11) {
			__builtin_memcpy(&w, s + 3, 8);
			__builtin_memcpy(p + 8, &w, 8);
			w = bp_key_bytes_(s, 11, len);
			__builtin_memcpy(p + 16, &w, 8);
		} else if (len > 3) {
			w = bp_key_bytes_(s, 3, len);
			__builtin_memcpy(p + 8, &w, 8);
		}
		k->len += 5 + len;
		return true;
	}
	return bp_key_add_field_slow(k, type, v);
}

/* ---- the aggregate ------------------------------------------------------ */

struct bp_agg;

/* An empty aggregate of values of kind, its histograms' buckets of kind
 * buckets (width: BP_BUCKETS_LINEAR's, > 0); NULL if memory ran out.  It
 * shows p50, p90, p99 and p99.9, most records first, every group. */
BP_API struct bp_agg *bp_agg_new(enum bp_dist_kind kind, enum bp_bucket_kind buckets,
				 double width);
BP_API void bp_agg_free(struct bp_agg *a);
BP_API enum bp_dist_kind bp_agg_kind(const struct bp_agg *a);

/* The percentiles shown (--percentiles): a list such as "50,95,99,99.99",
 * each a number in (0, 100] written with digits and one point, no two of
 * one JSON name (p9999), at most 12.  0, or -1 with the reason in err; a
 * NULL only checks the list. */
BP_API int bp_agg_set_percentiles(struct bp_agg *a, const char *list, char *err, size_t size);

/* The order of the groups (--sort): by one figure, largest first, or by
 * key, smallest first.  Ties go by count, then key. */
enum bp_agg_order {
	BP_ORDER_COUNT, BP_ORDER_MIN, BP_ORDER_MAX, BP_ORDER_MEAN, BP_ORDER_SUM,
	BP_ORDER_QUANTILE, BP_ORDER_KEY,
};

struct bp_agg_sort {
	enum bp_agg_order by;
	double q;			/* BP_ORDER_QUANTILE's, in (0, 1] */
};

/* "count", "min", "max", "mean", "sum", "key" or "pN" (any percentile N)
 * into *s; false if it is none of them. */
BP_API bool bp_agg_sort_parse(struct bp_agg_sort *s, const char *field);
BP_API void bp_agg_set_sort(struct bp_agg *a, const struct bp_agg_sort *s);
/* Groups shown, 0 for all (the others are counted in the renderings). */
BP_API void bp_agg_set_limit(struct bp_agg *a, size_t limit);
/* --every: each value also into its group of the window of every_ns (of
 * the trace's clock) its record's time falls in, shown after the groups;
 * 0, or -1 if memory ran out. */
BP_API int bp_agg_set_every(struct bp_agg *a, uint64_t every_ns);
/* A live view's rendering (--follow's redraw): --every's last window only. */
BP_API void bp_agg_set_live(struct bp_agg *a, bool live);

/* The words of the renderings: the name of each key item (nkeys of them),
 * the value's name (hist's -v; NULL: counts_only below), and the header
 * ("dur_us of site 4 (a.c:35 worker)"; "values" unless set). */
BP_API void bp_agg_set_names(struct bp_agg *a, const char *const *key_names, size_t nkeys,
			     const char *value_name);
BP_API void bp_agg_set_what(struct bp_agg *a, const char *what);
/* Records per key only (hist without -v): the values added are not shown. */
BP_API void bp_agg_set_counts_only(struct bp_agg *a, bool counts_only);
/* The values are durations in ns (shown as 1.5us, 2ms). */
BP_API void bp_agg_set_time_ns(struct bp_agg *a, bool time_ns);
/* Records the file lacks, and of those, the ones a recorder still at work
 * has not copied yet (shown apart). */
BP_API void bp_agg_set_lost(struct bp_agg *a, uint64_t lost, uint64_t not_yet);

/* Spans (latency): the durations of spans, and the top longest of them
 * listed with their pairing key, whose items are named by key_names.  0,
 * or -1 if memory ran out. */
BP_API int bp_agg_set_spans(struct bp_agg *a, size_t top, const char *const *key_names,
			    size_t nkeys);
/* Opens never closed, closes without an open: shown. */
BP_API void bp_agg_set_unmatched(struct bp_agg *a, uint64_t opens, uint64_t closes);

/*
 * Add value v to key's group, and with --every to its window's (ns: the
 * record's time; unused without).  0, or -1 if memory ran out.
 */
BP_API int bp_agg_add(struct bp_agg *a, const unsigned char *key, size_t keylen,
		      union bp_dist_value v, uint64_t ns);

/* One value of a batch: its key (n bytes at key) and the record's time. */
struct bp_agg_item {
	const unsigned char *key;
	size_t keylen;
	union bp_dist_value v;
	uint64_t ns;
};

/* n values, as n calls of bp_agg_add() in order would add them (one call:
 * the loop inside the library).  0, or -1 if memory ran out. */
BP_API int bp_agg_add_many(struct bp_agg *a, const struct bp_agg_item *items, size_t n);

/* A closed span (bprint/spans.h): its duration, to.ns - from.ns, into the
 * group of its by value, at its to-record's time, and offered to the
 * list of the longest.  0, or -1 if memory ran out. */
BP_API int bp_agg_add_span(struct bp_agg *a, const struct bp_span *sp);

/* Sort the groups (as set; most records first unless set) and finish
 * their distributions: before rendering, again after more adds. */
BP_API void bp_agg_finish(struct bp_agg *a);

/* Renderings (after bp_agg_finish()); false on a write error or out of
 * memory.  Text with bars (each group's histogram) or without (a line a
 * group); one JSON document; CSV with a header line; an SVG document of
 * the plots (the histograms, the percentiles, --every's p50 and p99 over
 * time) under title. */
BP_API bool bp_agg_text(const struct bp_agg *a, FILE *out, bool bars);
BP_API bool bp_agg_json(const struct bp_agg *a, FILE *out);
BP_API bool bp_agg_csv(const struct bp_agg *a, FILE *out);
BP_API bool bp_agg_svg(const struct bp_agg *a, FILE *out, const char *title);

/* An SVG document of stacked bars, one a group of total shown (at most
 * 10, in total's order): group g's bar is parts[0 .. nparts) (at most 4)
 * mean values of g's key, each part coloured and named in the legend by
 * part_names (latency --sched: running, runnable, blocked).  False on a
 * write error. */
BP_API bool bp_agg_svg_parts(const struct bp_agg *total, const struct bp_agg *const *parts,
			     const char *const *part_names, size_t nparts, FILE *out,
			     const char *title, const char *xlabel);

/* The groups the renderings show (after bp_agg_finish()): their number,
 * and group i's key; false past the last. */
BP_API size_t bp_agg_shown(const struct bp_agg *a);
BP_API bool bp_agg_group(const struct bp_agg *a, size_t i, const unsigned char **key,
			 size_t *keylen);
/* The count and mean of key's group (0 and 0 if it has none). */
BP_API uint64_t bp_agg_group_mean(const struct bp_agg *a, const unsigned char *key, size_t keylen,
				  long double *mean);
/* A key as the renderings write it: "cmd=GET status=200", or "all"
 * without key items. */
BP_API void bp_agg_key_text(const struct bp_agg *a, const unsigned char *key, size_t len,
			    FILE *out);

/* A timestamp as report prints it: seconds with 6 decimals, or 9 when
 * nine is set. */
BP_API void bp_agg_seconds(char *buf, size_t size, uint64_t ns, bool nine);

#ifdef __cplusplus
}
#endif

#endif /* BPRINT_AGGREGATE_H */
