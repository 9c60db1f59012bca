/*
 * bprint/internal.h - what trace_printk() compiles into a call site.
 *
 * NOT API.  <bprint.h> includes this file; include that instead.  Nothing
 * here may be used by a program: names, values and layouts change from one
 * release to the next.  It is installed only because every call site is
 * compiled from it (the macros below expand in the caller's code).  Its
 * name says so to anyone, where a bits/ directory would say it only to
 * those who know glibc's convention; and it refuses to be included alone.
 *
 * The naming rule of bprint's installed headers: an identifier that starts
 * with bprint__ or BPRINT__ (two underscores) is internal, whatever header
 * it is in; every other one (bprint_, BPRINT_, bp_, BP_, trace_printk,
 * trace_puts) is API.
 *
 * What a call site holds of the library's, and how the two stay in step:
 *   - struct bprint_site, one per call site, in the "bprint_sites" section;
 *   - struct bprint__tls, the per-thread window the inline path writes
 *     through, and struct bprint__gate, the switch it reads;
 *   - the record head the inline path writes (docs/trace-format.md).
 * BPRINT__LAYOUT numbers that whole contract.  Every site and every TLS
 * window carry it; the library registers only sites of its own layout and
 * disables any other, with one line on stderr, before reading anything
 * past the site's head (which keeps its place in every layout).  Change
 * any of the above, and BPRINT__LAYOUT goes up.
 */
#ifndef BPRINT_INTERNAL_H
#define BPRINT_INTERNAL_H

#ifndef BPRINT_H
#error "include <bprint.h>, not <bprint/internal.h>"
#endif

#include <bprint/format.h>

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BPRINT__LAYOUT 3
#define BPRINT__SITE_MAGIC 0x42507331u	/* "1sPB" */
#define BPRINT__SITE_REFUSED 0xffffffffu	/* site->id of a site of another layout */

/*
 * One call site.  Lives in the "bprint_sites" section; one array per ELF
 * object.  The head (magic to file) is the same in every layout: it is all
 * a library reads of a site compiled against another layout.  Readers may
 * read file, line, func and format of the registry's copies
 * (struct bprint_event's site); the rest is the library's.
 */
struct bprint_site {
	/* head */
	uint32_t magic;			/* BPRINT__SITE_MAGIC: lets a walker skip padding */
	uint16_t layout;		/* BPRINT__LAYOUT, as the site was compiled */
	volatile uint8_t enabled;	/* the one branch a disabled site costs */
	uint8_t kind;			/* enum bprint__site_kind */
	uint32_t line;
	uint32_t id;			/* 0 until registered; BPRINT__SITE_REFUSED */
	const char *file;
	/* layout 1 on */
	const char *format;		/* NULL if the format is not a compile-time constant */
	const char *func;
	const struct bp_arg_plan *plan;	/* set when registered; NULL: format at trace time */
	uint32_t head;			/* BPRINT__SITE_FAST: the record's head word */
	uint32_t argsig;		/* compile-time argument sizes: bit i set = the
					 * i-th argument from the last takes 8 bytes */
	uint16_t flags;			/* BPRINT__SITE_WORDS, _FAST, _CHARS, set at registration */
	uint8_t nargs;			/* arguments after the format, as compiled; 255: unknown */
	uint8_t argstar;		/* layout 3, set at registration for BPRINT__SITE_CHARS:
					 * bit i set = the i-th argument from the last (of the
					 * last 8) is a %.*s string, its precision the
					 * 4-byte argument before it */
	/* layout 2 on */
	uint32_t argchar;		/* compile-time argument types, as argsig: bit i set =
					 * the i-th from the last is a char (if 4 bytes) or a
					 * pointer to char (if 8) */
} __attribute__((aligned(8)));

enum bprint__site_kind {
	BPRINT__SITE_PRINTK = 0,	/* trace_printk() */
	BPRINT__SITE_PUTS = 1,		/* trace_puts(): the "format" is the text */
};

/* The out-of-line halves of trace_printk() and trace_puts(). */
BP_API void bprint__printk(struct bprint_site *site, const char *fmt, ...) BP_PRINTF(2, 3);
BP_API void bprint__puts(struct bprint_site *site, const char *str);
/*
 * Weak: a program that includes bprint.h without a call site (one that
 * only reads traces with bprint/reader.h) links without the runtime; one
 * with sites calls into it anyway, so it has it.
 */
BP_API void bprint__register_sites(struct bprint_site *start, struct bprint_site *stop)
	__attribute__((weak));
BP_API void bprint__unregister_sites(struct bprint_site *start, struct bprint_site *stop)
	__attribute__((weak));

/*
 * The site's section.  g++ puts a static of an inline function, of a
 * method defined in its class or of a lambda in a COMDAT group, and then
 * refuses ("section type conflict") a TU whose sites are in both kinds of
 * function: one section name cannot have two sets of flags there.  So for
 * g++ each site names a section of its own to the compiler, "bprint_sites"
 * and a C comment with a number, which the assembler drops: every site is
 * in "bprint_sites" again, a COMDAT one keeps its group, and the linker
 * keeps one copy of an inline function's site.  g++ ignores the section
 * of a static in a function template: such a site registers at its first
 * call.  clang++ has neither problem.
 */
#if defined(__cplusplus) && !defined(__clang__)
#define BPRINT__SECTION section("bprint_sites/*" BPRINT__STR(__COUNTER__) "*/")
#else
#define BPRINT__SECTION section("bprint_sites")
#endif
#define BPRINT__STR(x) BPRINT__STR_(x)
#define BPRINT__STR_(x) #x

#define BPRINT__SITE(name, fmt, k, sig, n, chars)				\
	static struct bprint_site name						\
		__attribute__((BPRINT__SECTION, used)) = {			\
		BPRINT__SITE_MAGIC, BPRINT__LAYOUT, 1, k, __LINE__, 0, __FILE__, \
		__builtin_constant_p(fmt) ? (fmt) : (const char *)0,		\
		__func__, (const struct bp_arg_plan *)0, 0, sig, 0, n, 0, chars }

/*
 * trace_printk(fmt, ...) of <bprint.h>.  In C, arguments of a format with
 * only 4- and 8-byte scalars (integers, pointers, doubles) are handed over
 * as 64-bit words, which spares the hot path va_arg and its register
 * spills; anything else (%s, %c, long double, C++) goes through the
 * variadic bprint__printk().  On x86-64, when the argument sizes the
 * compiler sees are those the format asks for (checked at registration,
 * which then sets enabled to BPRINT__SITE_ON_FAST), the record is written
 * right here (bprint__reserve(), below), and bprint__printk_words() takes
 * only what that cannot do.
 */
#if defined(BPRINT_NO_FAST_ARGS)
#define BPRINT__PRINTK(...)							\
	do {									\
		BPRINT__SITE(bprint__site, BPRINT__FIRST(__VA_ARGS__),		\
			     BPRINT__SITE_PRINTK, 0u, 255u, 0u);		\
		if (__builtin_expect(bprint__site.enabled, 1))			\
			bprint__printk(&bprint__site, __VA_ARGS__);		\
	} while (0)
#else
#define BPRINT__PRINTK(...)							\
	do {									\
		BPRINT__SITE(bprint__site, BPRINT__FIRST(__VA_ARGS__),		\
			     BPRINT__SITE_PRINTK, BPRINT__SIG(__VA_ARGS__),	\
			     BPRINT__NARGS(__VA_ARGS__), BPRINT__CHARSIG(__VA_ARGS__)); \
		/* acquire: registration's head and flags come with the value */ \
		uint8_t bprint__on = __atomic_load_n(&bprint__site.enabled,	\
						     __ATOMIC_ACQUIRE);		\
		/*								\
		 * A disabled site is one branch, not taken; the enabled body	\
		 * is laid out of the straight line, and its two jumps are	\
		 * lost in the shadow of its rdtsc.				\
		 */								\
		if (__builtin_expect(bprint__on != 0, 0)) {			\
			if (__builtin_expect(bprint__on == BPRINT__SITE_ON_FAST, 1)) { \
				BPRINT__FAST(__VA_ARGS__)			\
			} else if (BPRINT__CHARSIG(__VA_ARGS__) != 0u &&	\
				   bprint__on == BPRINT__SITE_ON_CHARS) {	\
				BPRINT__FAST_CHARS(__VA_ARGS__)			\
			} else if (bprint__site.flags & BPRINT__SITE_WORDS) {	\
				const uint64_t bprint__words[] = { 0		\
					BPRINT__MAPX(BPRINT__COMMA_WORD, __VA_ARGS__) }; \
				bprint__printk_words(&bprint__site, bprint__words + 1); \
			} else if (BPRINT__RUNTIME_WORDS(__VA_ARGS__)) {	\
				BPRINT__RUNTIME(__VA_ARGS__)			\
			} else {						\
				bprint__printk(&bprint__site, __VA_ARGS__);	\
			}							\
		}								\
	} while (0)
#endif

/*
 * site->flags (internal): arguments may come as 64-bit words; the call
 * site may pack them itself, 4- and 8-byte slots as compiled (FAST); or it
 * may, with its chars as %c bytes and its pointers to char as %s strings
 * (CHARS).  site->enabled is 0 (off), 1 (on), or BPRINT__SITE_ON_FAST or
 * BPRINT__SITE_ON_CHARS for a site with one of the last two: one compare
 * tells the call site both.
 */
#define BPRINT__SITE_WORDS 1u
#define BPRINT__SITE_FAST 2u
#define BPRINT__SITE_CHARS 4u
#define BPRINT__SITE_ON_FAST 3u
#define BPRINT__SITE_ON_CHARS 5u

/* Arguments as words, in format order; only for sites with BPRINT__SITE_WORDS. */
BP_API void bprint__printk_words(struct bprint_site *site, const uint64_t *words);

/*
 * A format that is not a compile-time constant, its arguments as words:
 * known at compile time to be up to 32, none a long double (which a word
 * cannot carry), so that the library never needs a va_list for it.
 */
BP_API void bprint__printk_format_words(struct bprint_site *site, const char *fmt,
					const uint64_t *words);

/*
 * For such a site with only 4- and 8-byte scalar arguments: the head of
 * fmt's records when the format cache knows fmt for this site and its
 * plan is the arguments as compiled (the length and the derived site's
 * id, as site->head of a BPRINT__SITE_ON_FAST site), so that the call
 * site writes the record itself; else 0, and the call site hands its
 * words to bprint__printk_format_words(), which also learns formats.
 */
BP_API uint32_t bprint__format_head(const struct bprint_site *site, const char *fmt);
#define BPRINT__RUNTIME_WORDS(...)						\
	(!__builtin_constant_p(BPRINT__FIRST(__VA_ARGS__)) &&			\
	 BPRINT__NARGS(__VA_ARGS__) <= 32 && BPRINT__BITS(BPRINT__ISLD, __VA_ARGS__) == 0u)

/*
 * The inline fast path's state, one per thread (internal: the library
 * keeps it; only bprint__reserve() and bprint__commit() read it).  It is a
 * window on the calling thread's ring 0: the page being filled and its
 * time base.  Initial-exec TLS, so that finding it costs no call.  end = 0
 * (a thread that has not traced yet, or has exited) sends every call out
 * of line.
 */
struct bprint__tls {
	uint32_t nest;			/* calls of this thread in progress: a signal
					 * handler's call sees it non-zero */
	uint32_t off;			/* next record, offset in the record area */
	uint32_t end;			/* size of the record area; 0: no window */
	uint32_t last_cpu;		/* CPU of the last CPU-prefixed record */
	unsigned char *rec;		/* the page's record area; its commit word
					 * is the 4 bytes 8 before it */
	const volatile uint32_t *cpu;	/* the CPU the kernel says we run on (rseq) */
	uint64_t base;			/* the page's time base, TSC ticks */
	uint64_t *written;		/* the ring's written count */
	uint32_t layout;		/* BPRINT__LAYOUT of the library that keeps it
					 * (static: every thread starts with it) */
	uint32_t reserved;
};
BP_API extern __thread struct bprint__tls bprint__tls
	__attribute__((tls_model("initial-exec")));

/*
 * The fast path's gate: bit 0 tracing is on (bprint_on/off), bit 1 the
 * clock is the TSC.  Written only by those switches, and alone in its
 * cache line, so it stays in every core's cache, shared and unmodified.
 */
#define BPRINT__GATE_ON 1u
#define BPRINT__GATE_TSC 2u
struct bprint__gate {
	uint32_t bits;
	char pad[60];
} __attribute__((aligned(64)));
BP_API extern struct bprint__gate bprint__gate;

/* The %s copy, bprint__copy_string() and bprint__put_string(), is the
 * printf engine's (<bprint/format.h>): it writes a block's string slot. */

#if defined(__x86_64__) && !defined(BPRINT_NO_FAST_ARGS)
/* What bprint__reserve() hands to bprint__commit(), in registers. */
struct bprint__slot {
	uint32_t *commit;
	uint32_t off;
};

/* A store of 8 bytes at 4-byte alignment (slots are u32-aligned). */
typedef uint64_t bprint__u64_a4 __attribute__((aligned(4)));

/*
 * Reserve a record of 8 + bytes at the end of the thread's current page
 * and fill its head (head: its length and site id, as site->head) and
 * time delta: rdtsc, a bump of the offset within the
 * page, no call.  Returns the payload, or NULL for everything else (no
 * window, page full, CPU changed, delta over 32 bits, a nested call from a
 * signal handler, tracing off or another clock), which the caller hands to
 * bprint__printk_words().  Between a success and bprint__commit() the
 * thread's nest count is 1, so a signal handler that traces meanwhile goes
 * out of line, to its own ring, and the record here stays intact.  No CPU
 * prefix: the CPU is the one of the ring's last record (checked), and a
 * record that opens a page never comes here.
 */
__attribute__((always_inline))
static inline uint32_t *bprint__reserve_head(const uint32_t *head, uint32_t bytes,
					     struct bprint__slot *slot)
{
	struct bprint__tls *t = &bprint__tls;
	uint32_t off, *p;
	uint64_t delta;

	if (__builtin_expect(__atomic_load_n(&bprint__gate.bits, __ATOMIC_RELAXED) !=
			     (BPRINT__GATE_ON | BPRINT__GATE_TSC) || t->nest != 0, 0))
		return (uint32_t *)0;
	t->nest = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	off = t->off;
	if (__builtin_expect(t->end - off < bytes + 8u || *t->cpu != t->last_cpu, 0))
		goto out;
	delta = (uint64_t)__builtin_ia32_rdtsc() - t->base;
	if (__builtin_expect(delta > 0xffffffffu, 0))	/* also a TSC behind the base */
		goto out;
	p = (uint32_t *)(void *)(t->rec + off);
	/* head (length, site id) and delta in one store */
	*(bprint__u64_a4 *)(void *)p = delta << 32 | *head;
	slot->commit = (uint32_t *)(void *)(t->rec - 8);
	slot->off = off + bytes + 8u;
	return p + 2;
out:
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->nest = 0;
	return (uint32_t *)0;
}

/* The record of a registered BPRINT__SITE_ON_FAST site: its head says all. */
__attribute__((always_inline))
static inline uint32_t *bprint__reserve(const struct bprint_site *site, uint32_t bytes,
					struct bprint__slot *slot)
{
	return bprint__reserve_head(&site->head, bytes, slot);
}

/*
 * Publish the record (release: its bytes before the commit) and count it.
 * The count's only writer is this thread's ring-0 writer, so it needs no
 * atomic read-modify-write: one incq, which a signal cannot split, and an
 * aligned 8-byte store, which no reader sees torn.
 */
__attribute__((always_inline))
static inline void bprint__commit(const struct bprint__slot *slot)
{
	struct bprint__tls *t = &bprint__tls;

	t->off = slot->off;
	__atomic_store_n(slot->commit, slot->off, __ATOMIC_RELEASE);
	__asm__ volatile("incq %0" : "+m"(*t->written));
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->nest = 0;
}

/*
 * bprint__reserve()'s twin for a record whose length is known only once
 * its strings are copied (BPRINT__SITE_ON_CHARS): the same checks, for at
 * least min payload bytes, and no head yet.  Returns the payload, with
 * slot->room the bytes it may take (the page's room, at most a record's),
 * or NULL.  bprint__commit_len() writes the head and publishes.
 */
struct bprint__vslot {
	uint32_t *commit;
	uint32_t off;			/* the record's offset in the record area */
	uint32_t room;
	uint64_t delta;
};

__attribute__((always_inline))
static inline unsigned char *bprint__reserve_var(uint32_t min, struct bprint__vslot *slot)
{
	struct bprint__tls *t = &bprint__tls;
	uint32_t off, room;
	uint64_t delta;

	if (__builtin_expect(__atomic_load_n(&bprint__gate.bits, __ATOMIC_RELAXED) !=
			     (BPRINT__GATE_ON | BPRINT__GATE_TSC) || t->nest != 0, 0))
		return (unsigned char *)0;
	t->nest = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	off = t->off;
	room = t->end - off;
	if (__builtin_expect(room < min + 8u || *t->cpu != t->last_cpu, 0))
		goto out;
	delta = (uint64_t)__builtin_ia32_rdtsc() - t->base;
	if (__builtin_expect(delta > 0xffffffffu, 0))
		goto out;
	room -= 8u;
	slot->room = room < 4084u ? room : 4084u;	/* a record is at most 1023 words */
	slot->commit = (uint32_t *)(void *)(t->rec - 8);
	slot->off = off;
	slot->delta = delta;
	return t->rec + off + 8;
out:
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->nest = 0;
	return (unsigned char *)0;
}

/* Give up a reservation of bprint__reserve_var(): nothing was published. */
__attribute__((always_inline))
static inline void bprint__abandon(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	bprint__tls.nest = 0;
}

/* Head (length, the site id bits of head_id, delta), then bprint__commit(). */
__attribute__((always_inline))
static inline void bprint__commit_len(uint32_t head_id, struct bprint__vslot *slot, uint32_t bytes)
{
	struct bprint__slot s;
	uint32_t len = bytes + 8u;

	*(bprint__u64_a4 *)(void *)(bprint__tls.rec + slot->off) =
		slot->delta << 32 | (head_id & ~0x3ffu) | len / 4u;
	s.commit = slot->commit;
	s.off = slot->off + len;
	bprint__commit(&s);
}

/* Each argument once, as a word, into a local of its own. */
#define BPRINT__LOCAL(n, a) const uint64_t bprint__a##n = BPRINT__WORD(a);
#define BPRINT__LOCAL_LIST(n, a) , bprint__a##n

/* One argument into its slot: the word's low half, or all of it. */
#define BPRINT__PUT(n, a)							\
	if (BPRINT__IS8(a)) {							\
		*(bprint__u64_a4 *)(void *)bprint__p = bprint__a##n;		\
		bprint__p += 2;							\
	} else {								\
		*bprint__p++ = (uint32_t)bprint__a##n;				\
	}

/*
 * The arguments into the record reserved at bprint__p, published; or, if
 * none was, call (an out-of-line half) with them in bprint__words.
 */
#define BPRINT__PUT_OR_CALL(call, ...)						\
	if (__builtin_expect(bprint__p != (uint32_t *)0, 1)) {			\
		BPRINT__MAPX(BPRINT__PUT, __VA_ARGS__)				\
		bprint__commit(&bprint__slot);					\
	} else {								\
		const uint64_t bprint__words[] = { 0				\
			BPRINT__MAPX(BPRINT__LOCAL_LIST, __VA_ARGS__) };	\
		call;								\
	}

#define BPRINT__FAST(...)							\
	struct bprint__slot bprint__slot;					\
	uint32_t *bprint__p;							\
	BPRINT__MAPX(BPRINT__LOCAL, __VA_ARGS__)				\
	bprint__p = bprint__reserve(&bprint__site,				\
				    BPRINT__BYTES(__VA_ARGS__), &bprint__slot);	\
	BPRINT__PUT_OR_CALL(bprint__printk_words(&bprint__site, bprint__words + 1), \
			    __VA_ARGS__)
/*
 * Zero the bytes from offset o of b to the next multiple of 4, and move o
 * there.  Where o is known at compile time, byte stores the compiler
 * folds; else (after a string, or at -O0) one store of 4 zero bytes,
 * which the slot after it overwrites, or which the room of a record with
 * strings holds (each argument has 8 bytes of it, the block 4 more): the
 * end of an exactly sized record (BPRINT__FAST_BYTES) must not use it.
 */
#define BPRINT__PAD4(b, o)							\
	do {									\
		if (__builtin_constant_p(o)) {					\
			while ((o) & 3u)					\
				(b)[(o)++] = 0;					\
		} else if ((o) & 3u) {						\
			const uint32_t bprint__zero = 0;			\
			__builtin_memcpy((b) + (o), &bprint__zero, 4);		\
			(o) = ((o) + 3u) & ~3u;					\
		}								\
	} while (0)

/*
 * One argument of a BPRINT__SITE_ON_CHARS site, n counting down to 1.
 * BPRINT__PUT_BYTES: a char as its %c byte, the rest as BPRINT__PUT()
 * stores them, at 4-byte alignment, gaps zeroed.  BPRINT__PUT_CHARS: the
 * same, and a pointer to char as its %s string, bounded so that the n - 1
 * slots after it (8 bytes at most each) and the padding still fit, and by
 * the argument before it (bprint__star, when that is a 4-byte integer)
 * where site->argstar says it is a %.*s.  Only the strings make the
 * offset a run-time value.
 */
#define BPRINT__PUT_BYTES(n, a)							\
	if (BPRINT__ISCH(a) && !BPRINT__IS8(a)) {				\
		bprint__b[bprint__o++] = (unsigned char)bprint__a##n;		\
	} else {								\
		BPRINT__PAD4(bprint__b, bprint__o);				\
		if (BPRINT__IS8(a)) {						\
			*(bprint__u64_a4 *)(void *)(bprint__b + bprint__o) = bprint__a##n; \
			bprint__o += 8u;					\
		} else {							\
			*(uint32_t *)(void *)(bprint__b + bprint__o) = (uint32_t)bprint__a##n; \
			bprint__o += 4u;					\
		}								\
	}

#define BPRINT__PUT_CHARS(n, a)							\
	if (BPRINT__ISCH(a) && BPRINT__IS8(a)) {				\
		uint32_t bprint__tail = bprint__o + 8u * ((n) - 1u) + 4u;	\
		uint32_t bprint__took = bprint__tail < bprint__vs.room ?	\
			bprint__put_string_prec(bprint__b + bprint__o,		\
				bprint__vs.room - bprint__tail,			\
				(const char *)(uintptr_t)bprint__a##n,		\
				(n) <= 8u && ((bprint__site.argstar >> ((n) - 1u)) & 1u) \
					? bprint__star : -1) : 0u;		\
		bprint__fits &= bprint__took != 0u;				\
		bprint__o += bprint__took;					\
		bprint__star = -1;						\
	} else {								\
		BPRINT__PUT_BYTES(n, a)						\
		/* a constant -1 after all but a 4-byte integer: a string	\
		 * after one of those tests no argstar bit */			\
		bprint__star = !BPRINT__ISCH(a) && !BPRINT__IS8(a) ?		\
			(int32_t)bprint__a##n : -1;				\
	}

/*
 * A BPRINT__SITE_ON_CHARS site.  Without pointers to char among its
 * arguments (known at compile time) the record's size is too, and
 * registration put it in site->head: the scalar path's reservation, with
 * %c bytes.  With strings, the size is known once they are copied.
 */
#define BPRINT__FAST_CHARS(...)							\
	if ((BPRINT__CHARSIG(__VA_ARGS__) & BPRINT__SIG(__VA_ARGS__)) == 0u) {	\
		BPRINT__FAST_BYTES(__VA_ARGS__)					\
	} else {								\
		BPRINT__FAST_STRINGS(__VA_ARGS__)				\
	}

#define BPRINT__FAST_BYTES(...)							\
	struct bprint__slot bprint__slot;					\
	unsigned char *bprint__b;						\
	BPRINT__MAPX(BPRINT__LOCAL, __VA_ARGS__)				\
	bprint__b = (unsigned char *)bprint__reserve(&bprint__site,		\
		(bprint__site.head & 0x3ffu) * 4u - 8u, &bprint__slot);		\
	if (__builtin_expect(bprint__b != (unsigned char *)0, 1)) {		\
		uint32_t bprint__o = 0;						\
		BPRINT__MAPX(BPRINT__PUT_BYTES, __VA_ARGS__)			\
		/* byte by byte: the reservation is exact, no room for a	\
		 * 4-byte store (the compiler folds this; -O0 loops) */		\
		while (bprint__o & 3u)						\
			bprint__b[bprint__o++] = 0;				\
		bprint__commit(&bprint__slot);					\
	} else {								\
		const uint64_t bprint__words[] = { 0				\
			BPRINT__MAPX(BPRINT__LOCAL_LIST, __VA_ARGS__) };	\
		bprint__printk_words(&bprint__site, bprint__words + 1);		\
	}

#define BPRINT__FAST_STRINGS(...)						\
	struct bprint__vslot bprint__vs;					\
	unsigned char *bprint__b;						\
	BPRINT__MAPX(BPRINT__LOCAL, __VA_ARGS__)				\
	bprint__b = bprint__reserve_var(8u * BPRINT__NARGS(__VA_ARGS__) + 4u,	\
					&bprint__vs);				\
	if (__builtin_expect(bprint__b != (unsigned char *)0, 1)) {		\
		uint32_t bprint__o = 0;						\
		unsigned bprint__fits = 1;					\
		int32_t bprint__star = -1;					\
		(void)bprint__star;						\
		BPRINT__MAPX(BPRINT__PUT_CHARS, __VA_ARGS__)			\
		BPRINT__PAD4(bprint__b, bprint__o);				\
		if (__builtin_expect(bprint__fits, 1))				\
			bprint__commit_len(bprint__site.head, &bprint__vs, bprint__o); \
		else								\
			bprint__abandon();					\
		if (__builtin_expect(bprint__fits, 1))				\
			break;							\
	}									\
	{									\
		const uint64_t bprint__words[] = { 0				\
			BPRINT__MAPX(BPRINT__LOCAL_LIST, __VA_ARGS__) };	\
		bprint__printk_words(&bprint__site, bprint__words + 1);		\
	}

/*
 * A runtime format (BPRINT__RUNTIME_WORDS): with scalar arguments only
 * (known at compile time), the cache's head for it, and the record
 * written here as BPRINT__FAST() writes it; anything else, and what the
 * window cannot take, out of line.  The format is evaluated once.
 */
#define BPRINT__RUNTIME(...)							\
	const char *bprint__fmt = BPRINT__FIRST(__VA_ARGS__);			\
	struct bprint__slot bprint__slot;					\
	uint32_t *bprint__p = (uint32_t *)0;					\
	BPRINT__MAPX(BPRINT__LOCAL, __VA_ARGS__)				\
	if (BPRINT__CHARSIG(__VA_ARGS__) == 0u) {				\
		uint32_t bprint__h = bprint__format_head(&bprint__site, bprint__fmt); \
		if (bprint__h)							\
			bprint__p = bprint__reserve_head(&bprint__h,		\
				BPRINT__BYTES(__VA_ARGS__), &bprint__slot);	\
	}									\
	BPRINT__PUT_OR_CALL(bprint__printk_format_words(&bprint__site, bprint__fmt, \
							bprint__words + 1), __VA_ARGS__)
#else
/* No inline path here: every site is an ordinary words site. */
#define BPRINT__FAST(...)							\
	const uint64_t bprint__words[] = { 0					\
		BPRINT__MAPX(BPRINT__COMMA_WORD, __VA_ARGS__) };		\
	bprint__printk_words(&bprint__site, bprint__words + 1);
#define BPRINT__FAST_CHARS(...) BPRINT__FAST(__VA_ARGS__)
#define BPRINT__RUNTIME(...)							\
	const uint64_t bprint__words[] = { 0					\
		BPRINT__MAPX(BPRINT__COMMA_WORD, __VA_ARGS__) };		\
	bprint__printk_format_words(&bprint__site, BPRINT__FIRST(__VA_ARGS__),	\
				    bprint__words + 1);
#endif

static inline uint64_t bprint__double_bits(double d)
{
	uint64_t u;

	__builtin_memcpy(&u, &d, sizeof(u));
	return u;
}

#ifdef __cplusplus
} /* extern "C" */
#include <type_traits>
/*
 * C++: the same questions as C's _Generic below, answered by type
 * (std::decay of the argument's declared type, never evaluating it), so
 * that a C++ call site writes the bytes a C one writes.  Integers and
 * enums of 4 bytes or fewer take a 4-byte slot (varargs promote them to
 * int); float and double go as a double's bits; pointers as their
 * address; anything else (long double, nullptr, a class, which the format
 * check rejects) as 8 bytes of 0, like C's long double: such a site never
 * gets the words path.
 */
template <class U> struct bprint__is_char {
	static constexpr bool value = std::is_same<U, char>::value ||
				      std::is_same<U, signed char>::value ||
				      std::is_same<U, unsigned char>::value;
};
template <class T> struct bprint__arg {
	typedef typename std::decay<T>::type type;
	static constexpr unsigned kind =
		std::is_integral<type>::value || std::is_enum<type>::value ? 0u :
		std::is_same<type, float>::value || std::is_same<type, double>::value ? 1u :
		std::is_pointer<type>::value ? 2u : 3u;
	static constexpr unsigned is8 = kind == 0u && sizeof(type) <= 4u ? 0u : 1u;
	/* a char, or a pointer to one: %c and %s at a BPRINT__SITE_CHARS site */
	typedef typename std::remove_cv<typename std::remove_pointer<type>::type>::type pointee;
	static constexpr unsigned ischar =
		(std::is_pointer<type>::value ? bprint__is_char<pointee>::value
					      : bprint__is_char<type>::value) ? 1u : 0u;
};
template <unsigned K> struct bprint__word_of {
	template <class T> static uint64_t get(const T &) { return 0; }
};
template <> struct bprint__word_of<0u> {
	template <class T> static uint64_t get(T v) { return (uint64_t)v; }
};
template <> struct bprint__word_of<1u> {
	static uint64_t get(double d) { return bprint__double_bits(d); }
};
template <> struct bprint__word_of<2u> {
	template <class T> static uint64_t get(T v) { return (uint64_t)(uintptr_t)v; }
};
template <class T> static inline uint64_t bprint__word(const T &v)
{
	return bprint__word_of<bprint__arg<T>::kind>::get(v);
}
#define BPRINT__WORD(x) bprint__word(x)
#define BPRINT__IS8(x) bprint__arg<decltype((x))>::is8
#define BPRINT__ISCH(x) bprint__arg<decltype((x))>::ischar
#define BPRINT__ISLD(x) \
	(std::is_same<typename std::decay<decltype((x))>::type, long double>::value ? 1u : 0u)
extern "C" {
#else
/*
 * One argument as a word: a double's bits, an integer's value, a pointer's
 * address.  Every branch must compile for every argument type, hence the
 * inner selections that hand each conversion only the types it accepts.
 */
#define BPRINT__WORD(x) _Generic((x),						\
	float: bprint__double_bits(_Generic((x), float: (x), default: 0.0)),	\
	double: bprint__double_bits(_Generic((x), double: (x), default: 0.0)),	\
	long double: (uint64_t)0,						\
	default: (uint64_t)_Generic((x), float: 0, double: 0, long double: 0, default: (x)))

/*
 * Does the argument take an 8-byte slot (as varargs promote it, LP64)?
 * By type, never evaluating x: what the compiler sees, which registration
 * compares with what the format asks for.  Anything not listed (pointers,
 * arrays) is 8 bytes.
 */
#define BPRINT__IS8(x) _Generic((x),						\
	_Bool: 0u, char: 0u, signed char: 0u, unsigned char: 0u,		\
	short: 0u, unsigned short: 0u, int: 0u, unsigned int: 0u,		\
	float: 1u, double: 1u, default: 1u)

/*
 * Is the argument a char, or a pointer to one (an array of char decays to
 * one)?  A site whose chars are %c and whose pointers to char are %s
 * (checked at registration) writes them at the call site.
 */
#define BPRINT__ISCH(x) _Generic((x),						\
	char: 1u, signed char: 1u, unsigned char: 1u,				\
	char *: 1u, signed char *: 1u, unsigned char *: 1u,			\
	const char *: 1u, const signed char *: 1u, const unsigned char *: 1u,	\
	default: 0u)

/* A long double, which no word can carry. */
#define BPRINT__ISLD(x) _Generic((x), long double: 1u, default: 0u)

#endif /* __cplusplus */

/* A word per argument: ", WORD(a1), WORD(a2), ...", nothing for none (up to 32). */
#define BPRINT__COMMA_WORD(n, a) , BPRINT__WORD(a)

/*
 * The argument sizes as site->argsig, their types as site->argchar; the
 * payload's size in bytes.  BPRINT__BITS(m, ...) is m(a) for each
 * argument a after the format, the last one in bit 0.
 */
#define BPRINT__BITS(m, ...) \
	BPRINT__CAT(BPRINT__BITS_, BPRINT__NARGS(__VA_ARGS__))(m, __VA_ARGS__)
#define BPRINT__SIG(...) BPRINT__BITS(BPRINT__IS8, __VA_ARGS__)
#define BPRINT__CHARSIG(...) BPRINT__BITS(BPRINT__ISCH, __VA_ARGS__)
#define BPRINT__BYTES(...) \
	(4u * (BPRINT__NARGS(__VA_ARGS__) + \
	       (unsigned)__builtin_popcount(BPRINT__SIG(__VA_ARGS__))))

/*
 * The ladders take the whole argument list, the format first ("...",
 * never ", ##__VA_ARGS__", which ISO C and C++ reject under -Wpedantic):
 * BPRINT__FIRST() is the format, BPRINT__NARGS() counts the arguments
 * after it, and BPRINT__MAPX(m, ...) calls m(n, a) for every argument a
 * after the format, n counting down from their number to 1 (a name for
 * each one's local).
 */
#define BPRINT__FIRST(...) BPRINT__FIRST_(__VA_ARGS__, 0)
#define BPRINT__FIRST_(f, ...) f
#define BPRINT__MAPX(m, ...) \
	BPRINT__CAT(BPRINT__MAPX_, BPRINT__NARGS(__VA_ARGS__))(m, __VA_ARGS__)
#define BPRINT__NARGS(...) BPRINT__NARGS_(__VA_ARGS__, \
	64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, \
	47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, \
	30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, \
	13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0)
#define BPRINT__NARGS_(_, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, \
	a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, \
	a30, a31, a32, a33, a34, a35, a36, a37, a38, a39, a40, a41, a42, a43, \
	a44, a45, a46, a47, a48, a49, a50, a51, a52, a53, a54, a55, a56, a57, \
	a58, a59, a60, a61, a62, a63, a64, \
	n, ...) n
#define BPRINT__CAT(a, b) BPRINT__CAT_(a, b)
#define BPRINT__CAT_(a, b) a##b
#define BPRINT__MAPX_0(m, f)
#define BPRINT__MAPX_1(m, f, a) m(1, a)
#define BPRINT__MAPX_2(m, f, a, ...) m(2, a) BPRINT__MAPX_1(m, f, __VA_ARGS__)
#define BPRINT__MAPX_3(m, f, a, ...) m(3, a) BPRINT__MAPX_2(m, f, __VA_ARGS__)
#define BPRINT__MAPX_4(m, f, a, ...) m(4, a) BPRINT__MAPX_3(m, f, __VA_ARGS__)
#define BPRINT__MAPX_5(m, f, a, ...) m(5, a) BPRINT__MAPX_4(m, f, __VA_ARGS__)
#define BPRINT__MAPX_6(m, f, a, ...) m(6, a) BPRINT__MAPX_5(m, f, __VA_ARGS__)
#define BPRINT__MAPX_7(m, f, a, ...) m(7, a) BPRINT__MAPX_6(m, f, __VA_ARGS__)
#define BPRINT__MAPX_8(m, f, a, ...) m(8, a) BPRINT__MAPX_7(m, f, __VA_ARGS__)
#define BPRINT__MAPX_9(m, f, a, ...) m(9, a) BPRINT__MAPX_8(m, f, __VA_ARGS__)
#define BPRINT__MAPX_10(m, f, a, ...) m(10, a) BPRINT__MAPX_9(m, f, __VA_ARGS__)
#define BPRINT__MAPX_11(m, f, a, ...) m(11, a) BPRINT__MAPX_10(m, f, __VA_ARGS__)
#define BPRINT__MAPX_12(m, f, a, ...) m(12, a) BPRINT__MAPX_11(m, f, __VA_ARGS__)
#define BPRINT__MAPX_13(m, f, a, ...) m(13, a) BPRINT__MAPX_12(m, f, __VA_ARGS__)
#define BPRINT__MAPX_14(m, f, a, ...) m(14, a) BPRINT__MAPX_13(m, f, __VA_ARGS__)
#define BPRINT__MAPX_15(m, f, a, ...) m(15, a) BPRINT__MAPX_14(m, f, __VA_ARGS__)
#define BPRINT__MAPX_16(m, f, a, ...) m(16, a) BPRINT__MAPX_15(m, f, __VA_ARGS__)
#define BPRINT__MAPX_17(m, f, a, ...) m(17, a) BPRINT__MAPX_16(m, f, __VA_ARGS__)
#define BPRINT__MAPX_18(m, f, a, ...) m(18, a) BPRINT__MAPX_17(m, f, __VA_ARGS__)
#define BPRINT__MAPX_19(m, f, a, ...) m(19, a) BPRINT__MAPX_18(m, f, __VA_ARGS__)
#define BPRINT__MAPX_20(m, f, a, ...) m(20, a) BPRINT__MAPX_19(m, f, __VA_ARGS__)
#define BPRINT__MAPX_21(m, f, a, ...) m(21, a) BPRINT__MAPX_20(m, f, __VA_ARGS__)
#define BPRINT__MAPX_22(m, f, a, ...) m(22, a) BPRINT__MAPX_21(m, f, __VA_ARGS__)
#define BPRINT__MAPX_23(m, f, a, ...) m(23, a) BPRINT__MAPX_22(m, f, __VA_ARGS__)
#define BPRINT__MAPX_24(m, f, a, ...) m(24, a) BPRINT__MAPX_23(m, f, __VA_ARGS__)
#define BPRINT__MAPX_25(m, f, a, ...) m(25, a) BPRINT__MAPX_24(m, f, __VA_ARGS__)
#define BPRINT__MAPX_26(m, f, a, ...) m(26, a) BPRINT__MAPX_25(m, f, __VA_ARGS__)
#define BPRINT__MAPX_27(m, f, a, ...) m(27, a) BPRINT__MAPX_26(m, f, __VA_ARGS__)
#define BPRINT__MAPX_28(m, f, a, ...) m(28, a) BPRINT__MAPX_27(m, f, __VA_ARGS__)
#define BPRINT__MAPX_29(m, f, a, ...) m(29, a) BPRINT__MAPX_28(m, f, __VA_ARGS__)
#define BPRINT__MAPX_30(m, f, a, ...) m(30, a) BPRINT__MAPX_29(m, f, __VA_ARGS__)
#define BPRINT__MAPX_31(m, f, a, ...) m(31, a) BPRINT__MAPX_30(m, f, __VA_ARGS__)
#define BPRINT__MAPX_32(m, f, a, ...) m(32, a) BPRINT__MAPX_31(m, f, __VA_ARGS__)
/* More than 32 arguments: no plan, so never the words path; nothing. */
#define BPRINT__MAPX_33(m, ...)
#define BPRINT__MAPX_34(m, ...)
#define BPRINT__MAPX_35(m, ...)
#define BPRINT__MAPX_36(m, ...)
#define BPRINT__MAPX_37(m, ...)
#define BPRINT__MAPX_38(m, ...)
#define BPRINT__MAPX_39(m, ...)
#define BPRINT__MAPX_40(m, ...)
#define BPRINT__MAPX_41(m, ...)
#define BPRINT__MAPX_42(m, ...)
#define BPRINT__MAPX_43(m, ...)
#define BPRINT__MAPX_44(m, ...)
#define BPRINT__MAPX_45(m, ...)
#define BPRINT__MAPX_46(m, ...)
#define BPRINT__MAPX_47(m, ...)
#define BPRINT__MAPX_48(m, ...)
#define BPRINT__MAPX_49(m, ...)
#define BPRINT__MAPX_50(m, ...)
#define BPRINT__MAPX_51(m, ...)
#define BPRINT__MAPX_52(m, ...)
#define BPRINT__MAPX_53(m, ...)
#define BPRINT__MAPX_54(m, ...)
#define BPRINT__MAPX_55(m, ...)
#define BPRINT__MAPX_56(m, ...)
#define BPRINT__MAPX_57(m, ...)
#define BPRINT__MAPX_58(m, ...)
#define BPRINT__MAPX_59(m, ...)
#define BPRINT__MAPX_60(m, ...)
#define BPRINT__MAPX_61(m, ...)
#define BPRINT__MAPX_62(m, ...)
#define BPRINT__MAPX_63(m, ...)
#define BPRINT__MAPX_64(m, ...)
#define BPRINT__BITS_0(m, f) 0u
#define BPRINT__BITS_1(m, f, a) m(a)
#define BPRINT__BITS_2(m, f, a, ...) (m(a) << 1 | BPRINT__BITS_1(m, f, __VA_ARGS__))
#define BPRINT__BITS_3(m, f, a, ...) (m(a) << 2 | BPRINT__BITS_2(m, f, __VA_ARGS__))
#define BPRINT__BITS_4(m, f, a, ...) (m(a) << 3 | BPRINT__BITS_3(m, f, __VA_ARGS__))
#define BPRINT__BITS_5(m, f, a, ...) (m(a) << 4 | BPRINT__BITS_4(m, f, __VA_ARGS__))
#define BPRINT__BITS_6(m, f, a, ...) (m(a) << 5 | BPRINT__BITS_5(m, f, __VA_ARGS__))
#define BPRINT__BITS_7(m, f, a, ...) (m(a) << 6 | BPRINT__BITS_6(m, f, __VA_ARGS__))
#define BPRINT__BITS_8(m, f, a, ...) (m(a) << 7 | BPRINT__BITS_7(m, f, __VA_ARGS__))
#define BPRINT__BITS_9(m, f, a, ...) (m(a) << 8 | BPRINT__BITS_8(m, f, __VA_ARGS__))
#define BPRINT__BITS_10(m, f, a, ...) (m(a) << 9 | BPRINT__BITS_9(m, f, __VA_ARGS__))
#define BPRINT__BITS_11(m, f, a, ...) (m(a) << 10 | BPRINT__BITS_10(m, f, __VA_ARGS__))
#define BPRINT__BITS_12(m, f, a, ...) (m(a) << 11 | BPRINT__BITS_11(m, f, __VA_ARGS__))
#define BPRINT__BITS_13(m, f, a, ...) (m(a) << 12 | BPRINT__BITS_12(m, f, __VA_ARGS__))
#define BPRINT__BITS_14(m, f, a, ...) (m(a) << 13 | BPRINT__BITS_13(m, f, __VA_ARGS__))
#define BPRINT__BITS_15(m, f, a, ...) (m(a) << 14 | BPRINT__BITS_14(m, f, __VA_ARGS__))
#define BPRINT__BITS_16(m, f, a, ...) (m(a) << 15 | BPRINT__BITS_15(m, f, __VA_ARGS__))
#define BPRINT__BITS_17(m, f, a, ...) (m(a) << 16 | BPRINT__BITS_16(m, f, __VA_ARGS__))
#define BPRINT__BITS_18(m, f, a, ...) (m(a) << 17 | BPRINT__BITS_17(m, f, __VA_ARGS__))
#define BPRINT__BITS_19(m, f, a, ...) (m(a) << 18 | BPRINT__BITS_18(m, f, __VA_ARGS__))
#define BPRINT__BITS_20(m, f, a, ...) (m(a) << 19 | BPRINT__BITS_19(m, f, __VA_ARGS__))
#define BPRINT__BITS_21(m, f, a, ...) (m(a) << 20 | BPRINT__BITS_20(m, f, __VA_ARGS__))
#define BPRINT__BITS_22(m, f, a, ...) (m(a) << 21 | BPRINT__BITS_21(m, f, __VA_ARGS__))
#define BPRINT__BITS_23(m, f, a, ...) (m(a) << 22 | BPRINT__BITS_22(m, f, __VA_ARGS__))
#define BPRINT__BITS_24(m, f, a, ...) (m(a) << 23 | BPRINT__BITS_23(m, f, __VA_ARGS__))
#define BPRINT__BITS_25(m, f, a, ...) (m(a) << 24 | BPRINT__BITS_24(m, f, __VA_ARGS__))
#define BPRINT__BITS_26(m, f, a, ...) (m(a) << 25 | BPRINT__BITS_25(m, f, __VA_ARGS__))
#define BPRINT__BITS_27(m, f, a, ...) (m(a) << 26 | BPRINT__BITS_26(m, f, __VA_ARGS__))
#define BPRINT__BITS_28(m, f, a, ...) (m(a) << 27 | BPRINT__BITS_27(m, f, __VA_ARGS__))
#define BPRINT__BITS_29(m, f, a, ...) (m(a) << 28 | BPRINT__BITS_28(m, f, __VA_ARGS__))
#define BPRINT__BITS_30(m, f, a, ...) (m(a) << 29 | BPRINT__BITS_29(m, f, __VA_ARGS__))
#define BPRINT__BITS_31(m, f, a, ...) (m(a) << 30 | BPRINT__BITS_30(m, f, __VA_ARGS__))
#define BPRINT__BITS_32(m, f, a, ...) (m(a) << 31 | BPRINT__BITS_31(m, f, __VA_ARGS__))
#define BPRINT__BITS_33(...) 0u
#define BPRINT__BITS_34(...) 0u
#define BPRINT__BITS_35(...) 0u
#define BPRINT__BITS_36(...) 0u
#define BPRINT__BITS_37(...) 0u
#define BPRINT__BITS_38(...) 0u
#define BPRINT__BITS_39(...) 0u
#define BPRINT__BITS_40(...) 0u
#define BPRINT__BITS_41(...) 0u
#define BPRINT__BITS_42(...) 0u
#define BPRINT__BITS_43(...) 0u
#define BPRINT__BITS_44(...) 0u
#define BPRINT__BITS_45(...) 0u
#define BPRINT__BITS_46(...) 0u
#define BPRINT__BITS_47(...) 0u
#define BPRINT__BITS_48(...) 0u
#define BPRINT__BITS_49(...) 0u
#define BPRINT__BITS_50(...) 0u
#define BPRINT__BITS_51(...) 0u
#define BPRINT__BITS_52(...) 0u
#define BPRINT__BITS_53(...) 0u
#define BPRINT__BITS_54(...) 0u
#define BPRINT__BITS_55(...) 0u
#define BPRINT__BITS_56(...) 0u
#define BPRINT__BITS_57(...) 0u
#define BPRINT__BITS_58(...) 0u
#define BPRINT__BITS_59(...) 0u
#define BPRINT__BITS_60(...) 0u
#define BPRINT__BITS_61(...) 0u
#define BPRINT__BITS_62(...) 0u
#define BPRINT__BITS_63(...) 0u
#define BPRINT__BITS_64(...) 0u

/* trace_puts(str) of <bprint.h>. */
#define BPRINT__PUTS(str)							\
	do {									\
		BPRINT__SITE(bprint__site, str, BPRINT__SITE_PUTS, 0u, 255u, 0u); \
		if (__builtin_expect(bprint__site.enabled, 1))			\
			bprint__puts(&bprint__site, str);			\
	} while (0)

/* Register this object's call sites at load time (once per translation unit; repeats are no-ops). */
extern struct bprint_site __start_bprint_sites[] __attribute__((weak, visibility("hidden")));
extern struct bprint_site __stop_bprint_sites[] __attribute__((weak, visibility("hidden")));
__attribute__((constructor, used)) static void bprint__register_object(void)
{
	if (__start_bprint_sites)
		bprint__register_sites(__start_bprint_sites, __stop_bprint_sites);
}
/* At dlclose: the registry keeps its copies but stops flipping these sites. */
__attribute__((destructor, used)) static void bprint__unregister_object(void)
{
	if (__start_bprint_sites)
		bprint__unregister_sites(__start_bprint_sites, __stop_bprint_sites);
}

/*
 * What call sites compiled against BPRINT__LAYOUT 3 hold the library to
 * (LP64).  A change here is a new layout: raise BPRINT__LAYOUT with it.
 */
#if !defined(__cplusplus) && UINTPTR_MAX == UINT64_MAX
_Static_assert(BPRINT__LAYOUT == 3, "these asserts pin layout 3");
_Static_assert(sizeof(struct bprint_site) == 64, "bprint_site");
_Static_assert(__builtin_offsetof(struct bprint_site, layout) == 4, "the head: layout");
_Static_assert(__builtin_offsetof(struct bprint_site, enabled) == 6, "the head: enabled");
_Static_assert(__builtin_offsetof(struct bprint_site, line) == 8, "the head: line");
_Static_assert(__builtin_offsetof(struct bprint_site, id) == 12, "the head: id");
_Static_assert(__builtin_offsetof(struct bprint_site, file) == 16, "the head: file");
_Static_assert(__builtin_offsetof(struct bprint_site, plan) == 40, "bprint_site.plan");
_Static_assert(__builtin_offsetof(struct bprint_site, head) == 48, "bprint_site.head");
_Static_assert(__builtin_offsetof(struct bprint_site, flags) == 56, "bprint_site.flags");
_Static_assert(__builtin_offsetof(struct bprint_site, nargs) == 58, "bprint_site.nargs");
_Static_assert(__builtin_offsetof(struct bprint_site, argstar) == 59, "bprint_site.argstar");
_Static_assert(__builtin_offsetof(struct bprint_site, argchar) == 60, "bprint_site.argchar");
_Static_assert(sizeof(struct bprint__tls) == 56, "bprint__tls");
_Static_assert(__builtin_offsetof(struct bprint__tls, end) == 8, "bprint__tls.end");
_Static_assert(__builtin_offsetof(struct bprint__tls, rec) == 16, "bprint__tls.rec");
_Static_assert(__builtin_offsetof(struct bprint__tls, base) == 32, "bprint__tls.base");
_Static_assert(__builtin_offsetof(struct bprint__tls, written) == 40, "bprint__tls.written");
_Static_assert(__builtin_offsetof(struct bprint__tls, layout) == 48, "bprint__tls.layout");
_Static_assert(sizeof(struct bprint__gate) == 64, "bprint__gate: a cache line of its own");
#endif

#ifdef __cplusplus
}
#endif
#endif /* BPRINT_INTERNAL_H */
