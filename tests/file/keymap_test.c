/*
 * reader/keymap.h against a linear search, the reader's lookup it replaced:
 * random keys (many repeated, negative tids as 64-bit keys, 0) put and
 * looked up as the catalogue and the merge do, every answer compared with
 * the first position a linear scan of the same keys finds.
 */
#include "reader/keymap.h"

#include "check.h"

#include <stdint.h>

#define N 50000

static uint64_t keys[N];

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static size_t linear(size_t n, uint64_t key)
{
	for (size_t i = 0; i < n; i++)
		if (keys[i] == key)
			return i;
	return SIZE_MAX;
}

int main(void)
{
	struct bp_keymap m = { 0 };
	uint64_t seed = 0x243f6a8885a308d3ull;

	CHECK_EQ(bp_keymap_find(&m, 7), SIZE_MAX);	/* empty: zeroed memory */
	for (size_t i = 0; i < N; i++) {
		uint64_t r = next_random(&seed);

		/* thread ids (a third repeat one), ring indices, -1 and 0 */
		keys[i] = r % 3 == 0 ? (uint64_t)(int64_t)-(int64_t)(r % 50) : r % 4 == 1 ? 0 : r % 40000;
		CHECK(bp_keymap_put(&m, keys[i], i));
		if (i % 97 == 0)	/* a lookup now and then, as the file grows */
			for (uint64_t k = 0; k < 64; k++)
				CHECK_EQ(bp_keymap_find(&m, k * 613), linear(i + 1, k * 613));
	}
	for (size_t i = 0; i < N; i++)
		CHECK_EQ(bp_keymap_find(&m, keys[i]), linear(N, keys[i]));
	CHECK_EQ(bp_keymap_find(&m, UINT64_MAX - 1), linear(N, UINT64_MAX - 1));
	CHECK(m.n <= N && 2 * m.n <= m.cap);
	bp_keymap_free(&m);
	CHECK_EQ(bp_keymap_find(&m, keys[0]), SIZE_MAX);
	return 0;
}
