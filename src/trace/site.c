/*
 * The call-site registry (site.h).
 *
 * Sites arrive in batches, one section per ELF object, from the constructor
 * that bprint.h puts in every translation unit, or one at a time when a
 * site runs before its object's constructor.  Registration takes a mutex;
 * it is never on the hot path.  Lookups are lock-free: the table is a
 * fixed array of chunk pointers, each chunk an array of entry pointers,
 * published with release stores.
 *
 * Filters are an ordered list of rules; a site's state is that of the last
 * rule matching it, so sites registered later (dlopen) get the same answer
 * as those registered earlier.
 *
 * What is checked of a site's own fields lives apart (site_check.h): the
 * sites refused (site_refuse.c) and the path a site's calls take
 * (site_path.c).
 */
#include "trace/site.h"

#include "trace/site_check.h"
#include "trace/backing.h"
#include "trace/funcname.h"
#include "trace/pattern.h"
#include "ring/ring.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_BITS 12
#define CHUNK_SIZE (1u << CHUNK_BITS)
#define NCHUNKS ((BP_SITE_MAX + CHUNK_SIZE) / CHUNK_SIZE)

struct site_entry {
	struct bprint_site copy;	/* strings and plan owned by the entry */
	struct bprint_site *live;	/* the object's own site, NULL once unloaded
					 * (and for a derived site: it has none) */
	struct bp_arg_plan plan;
	struct bp_fmt_cache *_Atomic fmt_cache;	/* a runtime-format site's (fmtcache.c) */
	uint32_t parent;		/* a derived site's call site (its enabled byte), else 0 */
};

struct rule {
	bool enable;
	char *pattern;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/*
 * The calling thread holds the lock, or is about to take it: set before
 * the lock is taken and cleared after it is released, so that a signal
 * handler of that thread knows it must not wait for the lock.  Any other
 * caller may wait: the holder is another thread, whose hold is short.
 * lock_was is the holder's own previous value (one holder at a time).
 */
static __thread int lock_mine __attribute__((tls_model("initial-exec")));
static __thread int lock_was __attribute__((tls_model("initial-exec")));

/*
 * The signal fences below are compiler barriers (SF): lock_mine is set
 * before the lock is taken and cleared after it is released, in program
 * order as this thread's signal handlers see it.  Nothing else reads it.
 */
static void lock_registry(void)
{
	int was = lock_mine;

	lock_mine = 1;
	atomic_signal_fence(memory_order_seq_cst);	/* SF */
	pthread_mutex_lock(&lock);
	lock_was = was;
}

/* The lock without waiting: false if it is held (by anyone). */
static bool trylock_registry(void)
{
	int was = lock_mine;

	lock_mine = 1;
	atomic_signal_fence(memory_order_seq_cst);	/* SF */
	if (pthread_mutex_trylock(&lock) != 0) {
		atomic_signal_fence(memory_order_seq_cst);	/* SF */
		lock_mine = was;
		return false;
	}
	lock_was = was;
	return true;
}

static void unlock_registry(void)
{
	int was = lock_was;

	pthread_mutex_unlock(&lock);
	atomic_signal_fence(memory_order_seq_cst);	/* SF */
	lock_mine = was;
}

static _Atomic(struct site_entry **) chunks[NCHUNKS];
static _Atomic uint32_t next_id = 1;
static struct rule *rules;
static size_t nrules;

/* Lock-free: entry id, or NULL. */
static struct site_entry *entry_find(uint32_t id)
{
	struct site_entry **chunk;

	/* S3: the count of ids before the entries it covers; pairs with S3's
	 * release in register_locked(). */
	if (id == 0 || id >= atomic_load_explicit(&next_id, memory_order_acquire))
		return NULL;
	/* S4: a chunk's pointer before its slots; pairs with S4's release. */
	chunk = atomic_load_explicit(&chunks[id >> CHUNK_BITS], memory_order_acquire);
	if (!chunk)
		return NULL;
	/* S2: an entry's pointer before the entry; pairs with S2's release. */
	return __atomic_load_n(&chunk[id & (CHUNK_SIZE - 1)], __ATOMIC_ACQUIRE);
}

const struct bprint_site *bp_site_lookup(uint32_t id)
{
	struct site_entry *e = entry_find(id);

	return e ? &e->copy : NULL;
}

uint32_t bp_site_count(void)
{
	return atomic_load_explicit(&next_id, memory_order_acquire);	/* S3 */
}

/* With the lock held (the slot is read plainly: its writer holds it too). */
static struct site_entry *entry_at(uint32_t id)
{
	struct site_entry **chunk = atomic_load_explicit(&chunks[id >> CHUNK_BITS],
							 memory_order_acquire);	/* S4 */

	return chunk ? chunk[id & (CHUNK_SIZE - 1)] : NULL;
}

static bool rules_say(const struct bprint_site *s)
{
	bool on = true;

	for (size_t i = 0; i < nrules; i++)
		if (bp_site_pattern_matches(rules[i].pattern, s))
			on = rules[i].enable;
	return on;
}

static char *copy_string(const char *s)
{
	return s ? strdup(s) : NULL;
}


/*
 * What site->enabled holds for on: the inline path's value where it may
 * run, and 0 while the global switch is off (bprint_off()), which the
 * call site then takes for a disabled site's one load and branch.  Read
 * with the lock held: every change of the switch's bit re-applies it to
 * the sites under the lock (bp_site_follow_switch()).
 */
static uint8_t on_value(const struct bprint_site *site, bool on)
{
	on = on && (__atomic_load_n(&bprint__gate.bits, __ATOMIC_RELAXED) & BPRINT__GATE_ON);
	if (!on)
		return 0;
	if (site->flags & BPRINT__SITE_FAST)
		return BPRINT__SITE_ON_FAST;
	return site->flags & BPRINT__SITE_CHARS ? BPRINT__SITE_ON_CHARS : 1;
}


/* With the lock held. */
static uint32_t register_locked(struct bprint_site *site)
{
	/* relaxed here and for chunks: the lock's holder is their only writer */
	uint32_t id = atomic_load_explicit(&next_id, memory_order_relaxed);
	struct site_entry **chunk;
	struct site_entry *e;

	if (site->id)
		return site->id == BPRINT__SITE_REFUSED ? 0 : site->id;
	if (site->layout != BPRINT__LAYOUT || bp_site_refuse_long(site))
		return 0;
	if (id > BP_SITE_MAX)
		return 0;
	chunk = atomic_load_explicit(&chunks[id >> CHUNK_BITS], memory_order_relaxed);
	if (!chunk) {
		chunk = calloc(CHUNK_SIZE, sizeof(*chunk));
		if (!chunk)
			return 0;
		/* S4: the zeroed chunk before its pointer (entry_find()) */
		atomic_store_explicit(&chunks[id >> CHUNK_BITS], chunk, memory_order_release);
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return 0;
	e->copy = *site;
	e->copy.format = copy_string(site->format);
	e->copy.file = copy_string(site->file);
	e->copy.func = bp_func_name_dup(site->func);	/* C++: the qualified name */
	e->copy.id = id;
	e->live = site;
	/*
	 * A trace_puts() literal needs no arguments: an empty plan.  A format
	 * the plan cannot hold (too many arguments), or none known at compile
	 * time, is formatted at trace time: no plan.
	 */
	e->copy.plan = NULL;
	if (e->copy.format &&
	    bp_format_compile(site->kind == BPRINT__SITE_PUTS ? "" : e->copy.format, &e->plan) == 0)
		e->copy.plan = &e->plan;

	/* S2: the entry complete before readers can find it (entry_find()),
	 * and before the site uses its plan. */
	__atomic_store_n(&chunk[id & (CHUNK_SIZE - 1)], e, __ATOMIC_RELEASE);
	/* S3: the slot before the count that covers it (entry_find()) */
	atomic_store_explicit(&next_id, id + 1, memory_order_release);
	site->plan = e->copy.plan;
	site->flags = 0;
	if (site->plan && bp_site_takes_words(site->plan, site)) {
		uint32_t fast = bp_site_fast_head(site->plan, site, id);

		site->flags = BPRINT__SITE_WORDS;
		/* the id for records the words path writes on the window; FAST adds the length */
		site->head = id << BP_RING_HEAD_USER_SHIFT;
		if (fast) {
			/* Before the flag: the inline path reads the head once it sees it. */
			site->head = fast;
			site->flags |= BPRINT__SITE_FAST;
		} else if (BP_SITE_INLINE && bp_site_plan_is_chars(site->plan, site)) {
			/* without strings the size is known: the call site takes it from here */
			if (!site->plan->nstrings)
				site->head = bp_site_fixed_head(site->plan, id);
			site->argstar = bp_site_star_bits(site->plan);
			site->flags |= BPRINT__SITE_CHARS;
		}
	}
	e->copy.flags = site->flags;
	e->copy.head = site->head;
	e->copy.argstar = site->argstar;
	/* the filters' word on the copy's names (C++: qualified); read under the lock only */
	e->copy.enabled = rules_say(&e->copy);
	/* S5: plan, head and flags before enabled; pairs with the call site's
	 * acquire load of enabled (include/bprint/internal.h). */
	__atomic_store_n(&site->enabled, on_value(site, e->copy.enabled), __ATOMIC_RELEASE);
	if (bp_backing && bp_backing->site_added)
		bp_backing->site_added(&e->copy);
	/* S6: everything above (and the trace file's site record) before the
	 * id; a call that finds the id set uses them (emit.c). */
	__atomic_store_n(&site->id, id, __ATOMIC_RELEASE);
	return id;
}

/*
 * A derived site (fmtcache.c): what a call site with a runtime format
 * registers for one of its formats.  It is an ordinary entry, so readers
 * and the trace file (site_added) see a constant-format site, but no
 * object's site stands behind it: live stays NULL, and the call site's
 * own enabled byte (which filters flip) decides whether it traces.
 */
const struct bprint_site *bp_site_derive_locked(uint32_t parent_id, const char *format)
{
	struct site_entry *parent = entry_at(parent_id);
	struct bprint_site derived;
	uint32_t id;

	if (!parent)
		return NULL;
	derived = parent->copy;
	derived.id = 0;
	derived.kind = BPRINT__SITE_PRINTK;	/* a trace_puts() of a string: "%s" */
	derived.format = format;
	derived.plan = NULL;
	derived.head = 0;
	derived.argsig = 0;
	derived.flags = 0;
	derived.nargs = 255;	/* no call site packs words for it */
	id = register_locked(&derived);
	if (!id)
		return NULL;
	/* Under the lock, which every reader of live holds: never seen pointing at our stack. */
	entry_at(id)->live = NULL;
	entry_at(id)->parent = parent_id;
	return &entry_at(id)->copy;
}

struct bp_fmt_cache *_Atomic *bp_site_fmt_cache(uint32_t id)
{
	struct site_entry *e = entry_find(id);

	return e ? &e->fmt_cache : NULL;
}

bool bp_site_trylock(void)
{
	return trylock_registry();
}

void bp_site_unlock(void)
{
	unlock_registry();
}

uint32_t bp_site_register(struct bprint_site *site)
{
	uint32_t id;

	/* A signal handler must not wait for the lock its own thread may
	 * hold; any other caller waits for the registration in progress. */
	if (lock_mine) {
		if (!trylock_registry())
			return 0;
	} else {
		lock_registry();
	}
	if (bp_site_refuse_foreign(site)) {
		unlock_registry();
		bp_site_say_refused(site, 1);
		return 0;
	}
	id = register_locked(site);
	unlock_registry();
	return id;
}

/*
 * The linker packs a section's sites back to back, but a sanitizer may pad
 * globals: step in 8-byte units and trust only entries with the magic.
 */
static struct bprint_site *next_site(struct bprint_site *s, struct bprint_site *stop)
{
	while (s < stop && s->magic != BPRINT__SITE_MAGIC)
		s = (struct bprint_site *)(void *)((char *)s + 8);
	return s;
}

void bprint__register_sites(struct bprint_site *start, struct bprint_site *stop)
{
	struct bprint_site *first = NULL;
	unsigned refused = 0;

	lock_registry();
	for (struct bprint_site *s = next_site(start, stop); s < stop; s = next_site(s + 1, stop)) {
		if (bp_site_refuse_foreign(s)) {
			if (!refused++)
				first = s;
			continue;
		}
		register_locked(s);
	}
	unlock_registry();
	if (refused)
		bp_site_say_refused(first, refused);
}

void bprint__unregister_sites(struct bprint_site *start, struct bprint_site *stop)
{
	lock_registry();
	for (struct bprint_site *s = next_site(start, stop); s < stop; s = next_site(s + 1, stop)) {
		bool ours = s->layout == BPRINT__LAYOUT && s->id != BPRINT__SITE_REFUSED;
		struct site_entry *e = ours && s->id ? entry_at(s->id) : NULL;

		if (e && e->live == s)
			e->live = NULL;
	}
	unlock_registry();
}

/*
 * A rule with the same pattern as a new one can never be the last to
 * match a site again: drop it, so a program that toggles the same pattern
 * keeps one rule, not one per call.  With the lock held.
 */
static void drop_rule(const char *pattern)
{
	for (size_t i = 0; i < nrules; i++) {
		if (strcmp(rules[i].pattern, pattern))
			continue;
		free(rules[i].pattern);
		memmove(&rules[i], &rules[i + 1], (nrules - i - 1) * sizeof(*rules));
		nrules--;
		return;
	}
}

/* Add a rule and apply it to every live site; returns the sites changed. */
static int add_rule(const char *pattern, bool enable)
{
	uint32_t n;
	int changed = 0;
	char *copy = strdup(pattern);
	struct rule *grown;

	if (!copy)
		return -1;
	lock_registry();
	drop_rule(copy);
	grown = realloc(rules, (nrules + 1) * sizeof(*rules));
	if (!grown) {
		unlock_registry();
		free(copy);
		return -1;
	}
	rules = grown;
	rules[nrules++] = (struct rule){ .enable = enable, .pattern = copy };
	n = atomic_load_explicit(&next_id, memory_order_relaxed);	/* we hold the lock */
	for (uint32_t id = 1; id < n; id++) {
		struct site_entry *e = entry_at(id);

		if (!e || !bp_site_pattern_matches(copy, &e->copy) || !e->copy.enabled == !enable)
			continue;
		e->copy.enabled = enable;
		if (e->live) {
			/* S1: relaxed: the call sites load enabled atomically and
			 * read head and flags after it, which registration
			 * published (S5) and which do not change here. */
			__atomic_store_n(&e->live->enabled, on_value(e->live, enable), __ATOMIC_RELAXED);
			changed++;
		}
	}
	unlock_registry();
	return changed;
}

void bp_site_follow_switch(void)
{
	uint32_t n;

	/* a signal handler of a thread in the registry: the gate alone stops its records */
	if (lock_mine)
		return;
	lock_registry();
	n = atomic_load_explicit(&next_id, memory_order_relaxed);	/* we hold the lock */
	for (uint32_t id = 1; id < n; id++) {
		struct site_entry *e = entry_at(id);

		/* S1, as in add_rule() */
		if (e && e->live)
			__atomic_store_n(&e->live->enabled, on_value(e->live, e->copy.enabled),
					 __ATOMIC_RELAXED);
	}
	unlock_registry();
}

int bprint_enable(const char *pattern)
{
	return pattern ? add_rule(pattern, true) : -1;
}

int bprint_disable(const char *pattern)
{
	return pattern ? add_rule(pattern, false) : -1;
}

/*
 * Is pattern one that pattern.h knows?  A word and one colon before the
 * rest ("foo:bar") is a kind, and must be file, line (with a FILE:LINE
 * after it), func or fmt; a glob with "::" in it (a C++ name) is a
 * function glob.  NULL, or what is wrong with it.
 */
const char *bp_site_pattern_problem(const char *pattern)
{
	size_t word = strspn(pattern, "abcdefghijklmnopqrstuvwxyz_");

	if (pattern[word] != ':' || pattern[word + 1] == ':' || word == 0)
		return NULL;
	if (!strncmp(pattern, "line:", 5))
		return strchr(pattern + 5, ':') ? NULL : "expected line:FILE:LINE";
	if (!strncmp(pattern, "file:", 5) || !strncmp(pattern, "func:", 5) ||
	    !strncmp(pattern, "fmt:", 4))
		return NULL;
	return "unknown kind: expected file:GLOB, line:FILE:LINE, func:GLOB, fmt:GLOB or a "
	       "function glob";
}

void bp_site_filter_load(const char *spec)
{
	char *copy, *next;
	bool first = true, empty = false;

	if (!spec || !*spec || !(copy = strdup(spec)))
		return;
	for (char *tok = next = copy; tok; tok = next) {
		bool enable = *tok != '-';
		const char *why;

		if ((next = strchr(tok, ',')) != NULL)
			*next++ = '\0';
		if (*tok == '-' || *tok == '+')
			tok++;
		if (!*tok) {
			empty = true;	/* ",,", a sign alone: said once below */
			continue;
		}
		if ((why = bp_site_pattern_problem(tok)) != NULL) {
			/* as config.c says every bad value; the other entries hold */
			bp_site_warn("bprint: ignoring %s in BPRINT_FILTER (%s)\n", tok, why);
			continue;
		}
		if (first && enable)
			add_rule("*", false);	/* "only these": every site has a function */
		first = false;
		add_rule(tok, enable);
	}
	free(copy);
	if (empty)
		bp_site_warn("bprint: ignoring the empty entries of BPRINT_FILTER=%s (expected "
			     "PATTERN or -PATTERN between commas)\n", spec);
}

/*
 * The filters' word on sites first.. (a derived site: its call site's,
 * whose byte decides), a bit each, under the lock that guards it: the
 * answer of `bprint sites` (src/writer/writer_control.c).  Sites never registered
 * (a gap) read as off.
 */
uint32_t bp_site_states(uint32_t first, uint8_t *bits, uint32_t nbits, uint32_t *count)
{
	uint32_t n;

	lock_registry();
	n = atomic_load_explicit(&next_id, memory_order_relaxed);	/* we hold the lock */
	*count = first < n ? n - first : 0;
	if (*count > nbits)
		*count = nbits;
	memset(bits, 0, (nbits + 7) / 8);
	for (uint32_t i = 0; i < *count; i++) {
		struct site_entry *e = entry_at(first + i);

		if (e && e->parent)
			e = entry_at(e->parent);
		if (e && e->copy.enabled)
			bits[i / 8] |= (uint8_t)(1u << (i % 8));
	}
	unlock_registry();
	return n;
}

/* fork(): held across it, so that the child's registry is never half changed. */
void bp_site_fork_prepare(void)
{
	lock_registry();
}

void bp_site_fork_release(void)
{
	unlock_registry();
}

void bp_site_reset_for_test(void)
{
	lock_registry();
	for (size_t i = 0; i < nrules; i++)
		free(rules[i].pattern);
	free(rules);
	rules = NULL;
	nrules = 0;
	unlock_registry();
}

void bp_sites_each(void (*fn)(const struct bprint_site *s, void *ctx), void *ctx)
{
	for (uint32_t id = 1, n = bp_site_count(); id < n; id++) {
		const struct bprint_site *s = bp_site_lookup(id);

		if (s)
			fn(s, ctx);
	}
}
