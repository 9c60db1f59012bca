/*
 * analysis/groups.h - records grouped by a key: the tuple of some fields'
 * values (hist's -k, latency's -k and --by), or a thread id.
 *
 * (The key builder, struct bp_key, is bprint/aggregate.h's.)
 * A key is kept as bytes, one item per value, so that equal values are
 * equal bytes whatever site or conversion they came from:
 *
 *	'u' u64	an integer >= 0 (%d, %u, %x, %p alike), or a thread id
 *	'i' i64	a negative integer
 *	'f' f64	a double (-0 as 0, one NaN)
 *	's' u32 len, bytes	a %s, or a %c as a one-byte string
 *	'-'	no value (the record's site lacks the field)
 *
 * The table keeps its groups in the order they were first seen (until one
 * is removed); memory is the groups' own, never the records'.
 */
#ifndef BP_ANALYSIS_GROUPS_H
#define BP_ANALYSIS_GROUPS_H

#include <bprint/aggregate.h>
#include <bprint/reader.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Walk a key's items: their count, and item i printed as text (strings as
 * they are, cut to fit), or as JSON (strings quoted and escaped). */
size_t bp_key_items(const unsigned char *key, size_t len);
void bp_key_item_text(const unsigned char *key, size_t len, size_t i, char *buf, size_t size);
void bp_key_item_json(const unsigned char *key, size_t len, size_t i, FILE *out);
/* Item i as a number, for sorting; false for a string or no value. */
bool bp_key_item_number(const unsigned char *key, size_t len, size_t i, long double *x);

/* Are keys a and b (n bytes each) equal?  Keys are short: compared a word
 * at a time in line, where a call to memcmp() costs more than the compare. */
static inline bool bp_key_equal(const unsigned char *a, const unsigned char *b, size_t n)
{
	uint64_t x, y;

	for (; n >= 8; a += 8, b += 8, n -= 8) {
		__builtin_memcpy(&x, a, 8);
		__builtin_memcpy(&y, b, 8);
		if (x != y)
			return false;
	}
	for (; n; a++, b++, n--)
		if (*a != *b)
			return false;
	return true;
}

struct bp_group {
	unsigned char *key;		/* after data, in the same allocation */
	size_t keylen;
	uint64_t hash;
	size_t pos;		/* in the list */
	void *data;		/* the user's, zeroed at creation, freed by the user */
	size_t room;		/* key bytes the allocation holds (and the data
				 * after the group stays 16-byte aligned) */
};

#define BP_GROUPS_SPARE 16	/* groups removed, kept for the next ones */

struct bp_groups {
	struct bp_group **slots;	/* open addressing, at most half full */
	size_t cap;
	struct bp_group **list;		/* first seen first */
	size_t n, capl;
	size_t data_size;
	/* removed groups, to be the next new ones: the open spans of
	 * `bprint latency` come and go a record at a time */
	struct bp_group *spare[BP_GROUPS_SPARE];
	unsigned nspare;
};

void bp_groups_init(struct bp_groups *g, size_t data_size);
/* The group of key (created, with data_size zeroed bytes, if new); NULL if
 * memory ran out. */
struct bp_group *bp_groups_get(struct bp_groups *g, const unsigned char *key, size_t len);
/* The group of key if it exists. */
struct bp_group *bp_groups_find(const struct bp_groups *g, const unsigned char *key, size_t len);
/* Take a group out of the table and free it, or keep it for a new group
 * (call fn on its data first, if fn).  The last group of the list takes
 * its place there. */
void bp_groups_remove(struct bp_groups *g, struct bp_group *gr, void (*fn)(void *data));
/* Free every group (call fn on each group's data first, if fn). */
void bp_groups_free(struct bp_groups *g, void (*fn)(void *data));

#endif /* BP_ANALYSIS_GROUPS_H */
