/*
 * reader/keymap.h - a map from 64-bit keys to array positions, for the
 * reader's lookups that must stay constant-time as a trace's rings grow
 * to tens of thousands (a ring chunk's index to its source, a thread id to
 * its first ring).  Open addressing, linear probing, at most half full;
 * the first position stored for a key stays (bp_keymap_put() does not
 * replace it).  Zeroed memory is an empty map; bp_keymap_free() gives it
 * back.
 */
#ifndef BP_FILE_KEYMAP_H
#define BP_FILE_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct bp_keymap_slot {
	uint64_t key;
	size_t pos1;			/* position + 1; 0: an empty slot */
};

struct bp_keymap {
	struct bp_keymap_slot *slot;
	size_t cap, n;			/* cap: 0 or a power of two */
};

static inline size_t bp_keymap_home(uint64_t key, size_t cap)
{
	/* Fibonacci hashing: ring indices and tids are near each other */
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

/* The position stored for key, or SIZE_MAX. */
static inline size_t bp_keymap_find(const struct bp_keymap *m, uint64_t key)
{
	if (!m->cap)
		return SIZE_MAX;
	for (size_t i = bp_keymap_home(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->slot[i].pos1)
			return SIZE_MAX;
		if (m->slot[i].key == key)
			return m->slot[i].pos1 - 1;
	}
}

static inline void bp_keymap_place(struct bp_keymap_slot *slot, size_t cap, uint64_t key,
				   size_t pos1)
{
	size_t i = bp_keymap_home(key, cap);

	while (slot[i].pos1)
		i = (i + 1) & (cap - 1);
	slot[i].key = key;
	slot[i].pos1 = pos1;
}

/* Room for one more key: false when out of memory (the map unchanged). */
static inline bool bp_keymap_reserve(struct bp_keymap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct bp_keymap_slot *slot;

	if (2 * (m->n + 1) <= m->cap)
		return true;
	if (cap > SIZE_MAX / sizeof(*slot) || !(slot = calloc(cap, sizeof(*slot))))
		return false;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slot[i].pos1)
			bp_keymap_place(slot, cap, m->slot[i].key, m->slot[i].pos1);
	free(m->slot);
	m->slot = slot;
	m->cap = cap;
	return true;
}

/* Store pos for key unless key has one: false when out of memory. */
static inline bool bp_keymap_put(struct bp_keymap *m, uint64_t key, size_t pos)
{
	if (bp_keymap_find(m, key) != SIZE_MAX)
		return true;
	if (!bp_keymap_reserve(m))
		return false;
	bp_keymap_place(m->slot, m->cap, key, pos + 1);
	m->n++;
	return true;
}

static inline void bp_keymap_free(struct bp_keymap *m)
{
	free(m->slot);
	m->slot = NULL;
	m->cap = m->n = 0;
}

#endif /* BP_FILE_KEYMAP_H */
