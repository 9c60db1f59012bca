/*
 * Keys and groups (analysis/groups.h).
 */
#include "analysis/groups.h"

#include "output/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- keys --------------------------------------------------------------- */

void bp_key_free(struct bp_key *k)
{
	free(k->b);
	*k = (struct bp_key){ 0 };
}

/* Room for n more bytes: grown out of line, checked in line (keys are
 * built at every record of hist -k and latency). */
static bool key_grow(struct bp_key *k, size_t n)
{
	size_t cap = k->cap ? k->cap : 64;
	unsigned char *grown;

	while (cap - k->len < n)
		cap *= 2;
	if (!(grown = realloc(k->b, cap)))
		return false;
	k->b = grown, k->cap = cap;
	return true;
}

static inline bool key_room(struct bp_key *k, size_t n)
{
	return k->cap - k->len >= n || key_grow(k, n);
}

/* One item: its tag and n bytes of value (room made first); in line, so
 * that n is a constant and the copy a store. */
static inline bool key_item(struct bp_key *k, char tag, const void *p, size_t n)
{
	if (!key_room(k, n + 1))
		return false;
	k->b[k->len] = (unsigned char)tag;
	if (n)
		memcpy(k->b + k->len + 1, p, n);
	k->len += n + 1;
	return true;
}

bool bp_key_append(struct bp_key *k, const unsigned char *items, size_t n)
{
	if (!key_room(k, n))
		return false;
	if (n)
		memcpy(k->b + k->len, items, n);
	k->len += n;
	return true;
}

bool bp_key_add_uint(struct bp_key *k, uint64_t u)
{
	return key_item(k, 'u', &u, 8);
}

bool bp_key_add_none(struct bp_key *k)
{
	return key_item(k, '-', NULL, 0);
}

/* A string item: 's', its length in 4 bytes, its bytes. */
static bool key_string(struct bp_key *k, const char *s, uint32_t len)
{
	if (!key_room(k, (size_t)len + 5))
		return false;
	k->b[k->len] = 's';
	memcpy(k->b + k->len + 1, &len, 4);
	memcpy(k->b + k->len + 5, s, len);
	k->len += (size_t)len + 5;
	return true;
}

bool bp_key_add_field_slow(struct bp_key *k, uint8_t type, const struct bp_field_value *v)
{
	switch (type) {
	case BP_FIELD_SIGNED:
		if (v->v.i < 0)
			return key_item(k, 'i', &v->v.i, 8);
		return bp_key_add_uint(k, (uint64_t)v->v.i);
	case BP_FIELD_UNSIGNED:
	case BP_FIELD_POINTER:
		return bp_key_add_uint(k, v->v.u);
	case BP_FIELD_FLOAT: {
		double d = v->v.d == 0 ? 0.0 : isnan(v->v.d) ? NAN : v->v.d;

		return key_item(k, 'f', &d, 8);
	}
	case BP_FIELD_CHAR: {
		char c = (char)v->v.u;

		return key_string(k, &c, 1);
	}
	case BP_FIELD_STRING:
		return key_string(k, v->s, v->len > UINT32_MAX ? UINT32_MAX : (uint32_t)v->len);
	default:
		return bp_key_add_none(k);
	}
}

/* The item at *pos: its tag, value and the position after it. */
struct item {
	char tag;
	union { uint64_t u; int64_t i; double d; } v;
	const char *s;
	uint32_t len;
};

static bool next_item(const unsigned char *key, size_t len, size_t *pos, struct item *it)
{
	if (*pos >= len)
		return false;
	it->tag = (char)key[(*pos)++];
	switch (it->tag) {
	case 'u':
	case 'i':
	case 'f':
		if (len - *pos < 8)
			return false;
		memcpy(&it->v, key + *pos, 8);
		*pos += 8;
		return true;
	case 's':
		if (len - *pos < 4)
			return false;
		memcpy(&it->len, key + *pos, 4);
		*pos += 4;
		if (len - *pos < it->len)
			return false;
		it->s = (const char *)key + *pos;
		*pos += it->len;
		return true;
	default:
		return true;
	}
}

static bool item_at(const unsigned char *key, size_t len, size_t i, struct item *it)
{
	size_t pos = 0;

	for (size_t k = 0; next_item(key, len, &pos, it); k++)
		if (k == i)
			return true;
	return false;
}

size_t bp_key_item_size(const unsigned char *key, size_t len, size_t pos)
{
	struct item it = { 0 };
	size_t end = pos;

	return next_item(key, len, &end, &it) ? end - pos : 0;
}

size_t bp_key_items(const unsigned char *key, size_t len)
{
	struct item it = { 0 };
	size_t pos = 0, n = 0;

	while (next_item(key, len, &pos, &it))
		n++;
	return n;
}

void bp_key_item_text(const unsigned char *key, size_t len, size_t i, char *buf, size_t size)
{
	struct item it = { 0 };

	if (!size)
		return;
	if (!item_at(key, len, i, &it)) {
		snprintf(buf, size, "-");
		return;
	}
	switch (it.tag) {
	case 'u':
		snprintf(buf, size, "%llu", (unsigned long long)it.v.u);
		break;
	case 'i':
		snprintf(buf, size, "%lld", (long long)it.v.i);
		break;
	case 'f':
		snprintf(buf, size, "%.17g", it.v.d);
		break;
	case 's':
		snprintf(buf, size, "%.*s", (int)(it.len < size ? it.len : size - 1), it.s);
		break;
	default:
		snprintf(buf, size, "-");
	}
}

void bp_key_item_json(const unsigned char *key, size_t len, size_t i, FILE *out)
{
	struct item it = { 0 };

	if (!item_at(key, len, i, &it) || it.tag == '-') {
		fputs("null", out);
		return;
	}
	switch (it.tag) {
	case 'u':
		fprintf(out, "%llu", (unsigned long long)it.v.u);
		break;
	case 'i':
		fprintf(out, "%lld", (long long)it.v.i);
		break;
	case 'f':
		bp_json_double(out, it.v.d);
		break;
	default:
		bp_json_str(out, it.s, it.len);
	}
}

bool bp_key_item_number(const unsigned char *key, size_t len, size_t i, long double *x)
{
	struct item it = { 0 };

	if (!item_at(key, len, i, &it))
		return false;
	switch (it.tag) {
	case 'u':
		*x = (long double)it.v.u;
		return true;
	case 'i':
		*x = (long double)it.v.i;
		return true;
	case 'f':
		*x = it.v.d;
		return true;
	default:
		return false;
	}
}

/* ---- the table ---------------------------------------------------------- */

/* Keys are short: 8 bytes at a time, each word mixed in by a multiply and
 * a shift (the murmur3 finaliser's constants), the length folded in last.
 * (Loads of the sizes the key's items were stored with: an integer's 'u'
 * and first 7 bytes in one word, then its last byte.  A load across two
 * of those stores, as overlapping loads would be, waits for both: store
 * forwarding fails.) */
static inline uint64_t hash_of(const unsigned char *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	if (i < n) {	/* the tail: loads of a fixed size, not a call to memcpy() */
		size_t left = n - i, at = 0;
		uint32_t w4 = 0;
		uint16_t w2 = 0;

		w = 0;
		if (left & 4)
			memcpy(&w4, p + i, 4), w = w4, at = 4;
		if (left & 2)
			memcpy(&w2, p + i + at, 2), w |= (uint64_t)w2 << (8 * at), at += 2;
		if (left & 1)
			w |= (uint64_t)p[i + at] << (8 * at);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
	}
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

void bp_groups_init(struct bp_groups *g, size_t data_size)
{
	*g = (struct bp_groups){ .data_size = data_size };
}

static inline struct bp_group **slot_of(struct bp_group **slots, size_t cap, uint64_t h,
					const unsigned char *key, size_t len)
{
	size_t i = (size_t)h & (cap - 1);

	while (slots[i] && !(slots[i]->hash == h && slots[i]->keylen == len &&
			     bp_key_equal(slots[i]->key, key, len)))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

struct bp_group *bp_groups_find(const struct bp_groups *g, const unsigned char *key, size_t len)
{
	return g->cap ? *slot_of(g->slots, g->cap, hash_of(key, len), key, len) : NULL;
}

static bool grow_table(struct bp_groups *g)
{
	size_t cap = g->cap ? g->cap * 2 : 64;
	struct bp_group **slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return false;
	for (size_t i = 0; i < g->n; i++) {
		struct bp_group *gr = g->list[i];

		*slot_of(slots, cap, gr->hash, gr->key, gr->keylen) = gr;
	}
	free(g->slots);
	g->slots = slots, g->cap = cap;
	return true;
}

/* The user's data follows the group, aligned for any type. */
_Static_assert(sizeof(struct bp_group) % 16 == 0, "group data alignment");

struct bp_group *bp_groups_get(struct bp_groups *g, const unsigned char *key, size_t len)
{
	uint64_t h = hash_of(key, len);
	struct bp_group **slot, *gr;

	slot = g->cap ? slot_of(g->slots, g->cap, h, key, len) : NULL;
	if (slot && *slot)
		return *slot;
	if ((g->n + 1) * 4 > g->cap) {
		if (!grow_table(g))
			return NULL;
		slot = NULL;	/* a new table: its slot found below */
	}
	if (g->n == g->capl) {
		size_t capl = g->capl ? g->capl * 2 : 64;
		struct bp_group **grown = realloc(g->list, capl * sizeof(*grown));

		if (!grown)
			return NULL;
		g->list = grown, g->capl = capl;
	}
	/* one allocation: the group, its data, its key; a spare one if it has
	 * room (malloc() and free() were a fifth of `bprint latency`) */
	if (g->nspare && g->spare[g->nspare - 1]->room >= len) {
		gr = g->spare[--g->nspare];
		memset(gr + 1, 0, g->data_size);
	} else if ((gr = calloc(1, sizeof(*gr) + g->data_size + len))) {
		gr->room = len;
	} else {
		return NULL;
	}
	gr->key = (unsigned char *)(gr + 1) + g->data_size;
	if (len)	/* no -k: an empty key, which may be NULL */
		memcpy(gr->key, key, len);
	gr->keylen = len, gr->hash = h;
	gr->data = g->data_size ? (void *)(gr + 1) : NULL;
	if (!slot)
		slot = slot_of(g->slots, g->cap, h, key, len);
	*slot = gr;
	gr->pos = g->n;
	g->list[g->n++] = gr;
	return gr;
}

void bp_groups_remove(struct bp_groups *g, struct bp_group *gr, void (*fn)(void *data))
{
	size_t mask = g->cap - 1;
	size_t i = (size_t)gr->hash & mask;

	while (g->slots[i] != gr)	/* its own slot: pointers compared, not keys */
		i = (i + 1) & mask;

	/* linear probing's deletion: pull back every entry of the run that
	 * would no longer be found past the hole */
	g->slots[i] = NULL;
	for (size_t j = (i + 1) & mask; g->slots[j]; j = (j + 1) & mask) {
		size_t home = (size_t)g->slots[j]->hash & mask;
		bool stays = i <= j ? home > i && home <= j : home > i || home <= j;

		if (!stays) {
			g->slots[i] = g->slots[j];
			g->slots[j] = NULL;
			i = j;
		}
	}
	g->list[gr->pos] = g->list[--g->n];
	g->list[gr->pos]->pos = gr->pos;
	if (fn)
		fn(gr->data);
	if (g->nspare < BP_GROUPS_SPARE)
		g->spare[g->nspare++] = gr;
	else
		free(gr);
}

void bp_groups_free(struct bp_groups *g, void (*fn)(void *data))
{
	for (size_t i = 0; i < g->n; i++) {
		if (fn)
			fn(g->list[i]->data);
		free(g->list[i]);
	}
	while (g->nspare)
		free(g->spare[--g->nspare]);
	free(g->slots);
	free(g->list);
	*g = (struct bp_groups){ .data_size = g->data_size };
}
