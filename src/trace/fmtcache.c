/*
 * The runtime-format cache (fmtcache.h).
 *
 * Why: a call site whose format is a variable used to format its message
 * at trace time into a text record, a full printf per call (7 to 10
 * times the floor).  Most such sites cycle through a handful of formats, so each
 * format is parsed once: its first call registers a derived site (the
 * call site's file, line and function, a private copy of the format as
 * its format, its own id and plan; site.c) and every later call writes the
 * ordinary argument block under the derived id.  The record layout does
 * not change: a reader sees one more constant-format site.
 *
 * The key is the format pointer, but a pointer proves nothing: a buffer
 * may be rewritten with another format, or a freed format's address
 * reused by the next malloc().  So a hit also compares the caller's text
 * with the cache's private copy, and only a format whose text equals the
 * copy uses the copy's plan.  The plan consumes the va_list, so this check
 * is what keeps a stale plan from reading arguments that are not there.
 *
 * Two levels:
 *   - per call site, under the registry's lock (hanging off its registry
 *     entry, site.c): the list of every format it learnt ("known": the
 *     private text, the derived site's id and plan, or none for a format
 *     without a plan, which stays text but is not learnt again).  Searched
 *     on a miss, so that a format seen again gets its derived site back,
 *     not a new id.
 *   - the hot lookup, lock-free: one table for all call sites, sets of
 *     BP_FMTCACHE_WAYS ways (a cache line each), the set chosen by hash of
 *     format pointer and call-site id, a way {key, known}.  A hit is one
 *     line of the table, then the known's line (its text is inline), two
 *     dependent loads; a table per call site would put the registry's
 *     chunk, entry and cache pointers in front of them, each a dependent
 *     load more on every call.  Key and known are stored separately; a
 *     reader may see a key with another way's known while a writer
 *     replaces them.  So a hit is decided by the known alone, which is
 *     immutable: its call site's id, then its text.  A torn pair is a miss,
 *     or a hit that is right anyway (same site, same text, same plan).
 * Known entries are never freed: a reader may hold one at any time, and
 * the registry keeps derived sites for the records that name them.  They
 * are bounded (BP_FMTCACHE_SITE_MAX per call site, BP_FMTCACHE_ALL_MAX in
 * all); past a bound new formats stay text, counted, and stderr says so
 * once per call site.
 *
 * Learning takes the registry's lock with trylock: a call that finds it
 * busy (another thread learning, or the signal handler's own thread in
 * the registry) writes a text record, as before the cache, instead of
 * waiting.
 */
#include "trace/fmtcache.h"

#include "trace/site.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* same_text(): 16 bytes at a time where that is allowed. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BP_FMTCACHE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
	__has_feature(memory_sanitizer)
#define BP_FMTCACHE_SANITIZED 1
#endif
#endif
#if defined(__x86_64__) && !defined(BP_FMTCACHE_SANITIZED)
#define BP_FMTCACHE_SSE2 1
#include <emmintrin.h>
#else
#define BP_FMTCACHE_SSE2 0
#endif

#define BP_FMTCACHE_STR(x) BP_FMTCACHE_STR_(x)
#define BP_FMTCACHE_STR_(x) #x

/* The table: 2^SET_BITS sets of BP_FMTCACHE_WAYS ways. */
#define SET_BITS 10

/*
 * A format a call site learnt; immutable once linked.  text is last and
 * is followed by TEXT_PAD readable bytes, and the fields before it are
 * readable too: same_text() reads the copy a word at a time, unaligned.
 */
#define TEXT_PAD 16
struct fmt_known {
	uint32_t site_id;			/* the call site that learnt it */
	uint32_t id;				/* its derived site, 0: none (text) */
	const struct bp_arg_plan *plan;		/* the derived site's */
	struct fmt_known *next;			/* the call site's list */
	uint32_t head;				/* for the call site to write its
						 * records (bprint__format_head), or 0 */
	size_t len;				/* strlen(text) */
	char text[];				/* the private copy */
};
_Static_assert(offsetof(struct fmt_known, text) >= TEXT_PAD, "readable bytes before the text");

struct fmt_way {
	_Atomic(const char *) key;		/* the caller's pointer */
	_Atomic(const struct fmt_known *) known;
};

struct fmt_set {
	struct fmt_way way[BP_FMTCACHE_WAYS];
} __attribute__((aligned(64)));

/* A call site's formats, under the registry lock. */
struct bp_fmt_cache {
	struct fmt_known *known;
	unsigned nknown;
	bool said;				/* a bound was reported */
};

static struct fmt_set table[1u << SET_BITS];
/* Under the registry lock. */
static unsigned char victim[1u << SET_BITS];	/* next way to replace, round robin */
static unsigned all_known;
/* Written under the registry lock, read relaxed. */
static _Atomic uint64_t count_misses, count_derived, count_planless, count_refused;

_Static_assert(sizeof(struct fmt_set) == 64, "a set is one cache line");

static inline struct fmt_set *set_of(const char *fmt, uint32_t site_id)
{
	uint64_t h = ((uint64_t)(uintptr_t)fmt ^ (uint64_t)site_id << 40) * 0x9e3779b97f4a7c15ull;

	return &table[h >> (64 - SET_BITS)];
}

/*
 * Is the caller's fmt the text of k?  strcmp() is the meaning; on the hot
 * path (x86-64) it is done 16 bytes at a time, inline.  fmt is read in
 * aligned 16-byte blocks only, and never a block past the one holding
 * fmt's first byte that differs from k's text, or fmt's NUL (k's text has
 * no NUL before its end, so a shorter fmt differs at its NUL): every block
 * read holds a byte of fmt's string, and an aligned block never crosses a
 * page.  The copy is read unaligned, within k (TEXT_PAD).  The sanitizers
 * would see the bytes of a block past fmt's NUL (which change no answer),
 * so they get strcmp(), as does every other machine.
 */
#if BP_FMTCACHE_SSE2
static inline bool same_text(const char *fmt, const struct fmt_known *k)
{
	size_t skip = (uintptr_t)fmt & 15;
	const char *w = fmt - skip, *c = k->text - skip;
	size_t left = skip + k->len + 1;	/* bytes from w up to k's NUL */
	unsigned care = (0xffffu << skip) & 0xffffu;

	for (;;) {
		__m128i a = _mm_load_si128((const __m128i *)(const void *)w);
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)c);
		unsigned differ = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)) & care;

		if (left <= 16)
			return (differ & ((1u << left) - 1)) == 0;
		if (differ)
			return false;
		w += 16;
		c += 16;
		left -= 16;
		care = 0xffffu;
	}
}
#else
static inline bool same_text(const char *fmt, const struct fmt_known *k)
{
	return !strcmp(fmt, k->text);
}
#endif

/* relaxed: counts written under the registry lock, read as values */
static void count(_Atomic uint64_t *c)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

static inline const struct bp_arg_plan *use(const struct fmt_known *k, uint32_t *id)
{
	if (!k->id)
		return NULL;
	*id = k->id;
	return k->plan;
}

static struct fmt_known *find_known(const struct bp_fmt_cache *c, const char *fmt)
{
	for (struct fmt_known *k = c->known; k; k = k->next)
		if (!strcmp(k->text, fmt))
			return k;
	return NULL;
}

/* A bound is reached: count it, and say so once for this call site. */
static void refuse(struct bp_fmt_cache *c, uint32_t site_id, const char *why)
{
	const struct bprint_site *s = bp_site_lookup(site_id);

	count(&count_refused);
	if (c->said)
		return;
	c->said = true;
	bp_site_warn("bprint: %s:%u: %s; its new formats are formatted at trace time\n",
		     s && s->file ? s->file : "?", s ? s->line : 0, why);
}

/* Learn fmt for call site site_id; NULL if a bound or memory says no. */
static struct fmt_known *add_known(struct bp_fmt_cache *c, uint32_t site_id, const char *fmt)
{
	struct bp_arg_plan probe;
	struct fmt_known *k;
	size_t len;

	if (c->nknown >= BP_FMTCACHE_SITE_MAX) {
		refuse(c, site_id, "more than " BP_FMTCACHE_STR(BP_FMTCACHE_SITE_MAX)
			" runtime formats at this call site");
		return NULL;
	}
	if (all_known >= BP_FMTCACHE_ALL_MAX) {
		refuse(c, site_id, "more than " BP_FMTCACHE_STR(BP_FMTCACHE_ALL_MAX)
			" runtime formats in all");
		return NULL;
	}
	len = strlen(fmt);
	k = calloc(1, sizeof(*k) + len + 1 + TEXT_PAD);
	if (!k)
		return NULL;
	/* The copy first: fmt may change under us, the copy does not. */
	memcpy(k->text, fmt, len);
	k->len = strlen(k->text);
	k->site_id = site_id;
	if (k->len > BP_SITE_TEXT_MAX) {
		/* longer than a trace file's site record holds: text, said once
		 * (the format is learnt, so it is not said again) */
		const struct bprint_site *s = bp_site_lookup(site_id);

		bp_site_warn("bprint: %s:%u: a runtime format of %zu bytes, more than trace files "
			     "hold (%u): formatted at trace time\n",
			     s && s->file && strlen(s->file) < 512 ? s->file : "?", s ? s->line : 0,
			     k->len, BP_SITE_TEXT_MAX);
		count(&count_planless);
	} else if (bp_format_compile(k->text, &probe) == 0) {
		const struct bprint_site *derived = bp_site_derive_locked(site_id, k->text);

		if (!derived) {
			refuse(c, site_id, "no registry id or memory left for a runtime format");
			free(k);
			return NULL;
		}
		const struct bprint_site *site = bp_site_lookup(site_id);

		k->id = derived->id;
		k->plan = derived->plan;
		if (site && k->plan)
			k->head = bp_site_fast_head(k->plan, site, k->id);
		count(&count_derived);
	} else {
		count(&count_planless);	/* too many arguments for a plan: text, as before */
	}
	k->next = c->known;
	c->known = k;
	c->nknown++;
	all_known++;
	return k;
}

/* Put k in a way of its set for key: the way that has key already, an empty one, or the victim. */
static void put_way(const char *key, const struct fmt_known *k)
{
	struct fmt_set *set = set_of(key, k->site_id);
	unsigned i, empty = BP_FMTCACHE_WAYS;

	for (i = 0; i < BP_FMTCACHE_WAYS; i++) {
		/* relaxed: we hold the lock, the ways' only writer */
		const char *has = atomic_load_explicit(&set->way[i].key, memory_order_relaxed);
		const struct fmt_known *old = atomic_load_explicit(&set->way[i].known,
								   memory_order_relaxed);

		if (has == key && old->site_id == k->site_id)
			break;
		if (!has && empty == BP_FMTCACHE_WAYS)
			empty = i;
	}
	if (i == BP_FMTCACHE_WAYS) {
		i = empty;
		if (i == BP_FMTCACHE_WAYS) {
			unsigned char *v = &victim[set - table];

			i = *v;
			*v = (unsigned char)((i + 1) % BP_FMTCACHE_WAYS);
		}
	}
	/* F1: k is complete (made under the lock) before a reader can reach
	 * it; pairs with lookup()'s acquire of known (F2).  The key's release
	 * adds nothing a reader relies on: a key with another way's known is
	 * decided by the known alone (see the top of this file). */
	atomic_store_explicit(&set->way[i].known, k, memory_order_release);
	atomic_store_explicit(&set->way[i].key, key, memory_order_release);
}

__attribute__((noinline))
static const struct bp_arg_plan *learn(const char *fmt, uint32_t *id)
{
	struct bp_fmt_cache *_Atomic *slot = bp_site_fmt_cache(*id);
	const struct bp_arg_plan *plan = NULL;
	struct bp_fmt_cache *c;
	struct fmt_known *k;

	if (!slot || !bp_site_trylock())
		return NULL;
	count(&count_misses);
	c = atomic_load_explicit(slot, memory_order_relaxed);	/* under the lock only */
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			goto out;
		atomic_store_explicit(slot, c, memory_order_relaxed);	/* read under the lock only */
	}
	k = find_known(c, fmt);
	if (!k)
		k = add_known(c, *id, fmt);
	if (k) {
		put_way(fmt, k);
		plan = use(k, id);
	}
out:
	bp_site_unlock();
	return plan;
}

/* The known fmt is for call site id, if the hot lookup has it. */
static inline const struct fmt_known *lookup(const char *fmt, uint32_t id)
{
	const struct fmt_set *set;

	if (__builtin_expect(!fmt, 0))
		return NULL;
	set = set_of(fmt, id);
	for (unsigned i = 0; i < BP_FMTCACHE_WAYS; i++) {
		const struct fmt_known *k;

		/* relaxed: a key is only a hint, the known decides */
		if (atomic_load_explicit(&set->way[i].key, memory_order_relaxed) != fmt)
			continue;
		/* F2: the known's pointer before its fields; pairs with F1 */
		k = atomic_load_explicit(&set->way[i].known, memory_order_acquire);
		if (__builtin_expect(k && k->site_id == id && same_text(fmt, k), 1))
			return k;
	}
	return NULL;
}

const struct bp_arg_plan *bp_fmtcache_plan(const char *fmt, uint32_t *id, int may_learn)
{
	const struct fmt_known *k = lookup(fmt, *id);

	if (__builtin_expect(k != NULL, 1))
		return use(k, id);
	/* Not seen, or the same pointer with other text: a rewritten or reused buffer. */
	return may_learn && fmt ? learn(fmt, id) : NULL;
}

/*
 * The call site's question (include/bprint/internal.h), answered here, one
 * call from the call site: the lookup alone, which finds nothing for a
 * site not registered (id 0 or BPRINT__SITE_REFUSED: no known has it), so
 * that the words path registers it.  Tracing off or a nested call: the
 * call site's reservation says no.
 */
uint32_t bprint__format_head(const struct bprint_site *site, const char *fmt)
{
	const struct fmt_known *k = lookup(fmt, site->id);

	return k ? k->head : 0;
}

void bp_fmtcache_counts(struct bp_fmtcache_counts *out)
{
	out->misses = atomic_load_explicit(&count_misses, memory_order_relaxed);
	out->derived = atomic_load_explicit(&count_derived, memory_order_relaxed);
	out->planless = atomic_load_explicit(&count_planless, memory_order_relaxed);
	out->refused = atomic_load_explicit(&count_refused, memory_order_relaxed);
}
