/*
 * A call site's calls (include/bprint/internal.h).  A call site is its
 * argument stores and calls into here, whatever its kind:
 *   - the window's: open a record on the thread's window, close it (the
 *     inline path's reservation and publication, trace/window.h), a %s
 *     slot's copy, a runtime format's record opened;
 *   - its one out-of-line call, bprint__call() or bprint__call_fmt(),
 *     for everything the window cannot take, with the arguments as the
 *     call passed them: they are read here, by the types the call site
 *     compiled, and handed to the out-of-line writer (trace/emit.c).
 * Every program with a call site links this file (each site has its
 * out-of-line call), so a library it dlopen()s finds all of them.
 */
#define BPRINT__WRITERS 1	/* the call sites' calls are defined here: not cold */
#include "trace/emit.h"
#include "trace/site.h"
#include "trace/tracer.h"
#include "trace/window.h"

#include <bprint/format.h>

#include <stdarg.h>
#include <string.h>

/*
 * A record of exactly the size its head gives (min is that: 4- and 8-byte
 * slots) that the window cannot take for the page (full, the CPU changed,
 * a time extend) is reserved through ring 0's writer instead, for the
 * call site to write all the same: a page switch costs no call out of
 * line.  Any other the call site hands to its call.
 */
__attribute__((always_inline))
static inline struct bprint__room open_room_inline(uint32_t head, uint32_t min)
{
	struct bprint__room r = { NULL, 0 };
	uint32_t room, exact = (head & BP_RING_HEAD_LEN_MASK) * 4u;
	bool held = false;

	r.p = bp_window_open_var(head, min, &room, &held);
	if (__builtin_expect(r.p != NULL, 1)) {
		r.room = room;
	} else if (held) {
		if (exact == min + BP_RING_REC_HDR_BYTES) {
			r.p = bp_emit_refill(head, min);
			r.room = min;
		} else {
			bp_window_drop();
		}
	}
	return r;
}

/* Out of line, for the calls that are not the writers' straight line. */
__attribute__((noinline))
static struct bprint__room open_room(uint32_t head, uint32_t min)
{
	return open_room_inline(head, min);
}

struct bprint__room bprint__open_var(uint32_t head, uint32_t min)
{
	return open_room_inline(head, min);
}

void bprint__close_var(uint32_t bytes)
{
	bp_window_close_var(bytes);
}

void bprint__drop(void)
{
	bp_window_drop();
}

/* The cache answers 0 for a format it does not know as compiled: the call goes out of line. */
struct bprint__room bprint__open_format(const struct bprint_site *site, const char *fmt)
{
	uint32_t head = bprint__format_head(site, fmt);
	struct bprint__room r = { NULL, 0 };

	if (head)
		r = open_room(head, (head & BP_RING_HEAD_LEN_MASK) * 4u - BP_RING_REC_HDR_BYTES);
	return r;
}

/* A %s with no precision, the usual one, in the function's straight line. */
__attribute__((always_inline))
static inline uint32_t put_str(unsigned char *d, size_t room, const char *s, int32_t prec)
{
	if (__builtin_expect(prec < 0 && s != NULL, 1)) {
		size_t n = bprint__copy_string(d, s, room);

		return n == room ? 0 : (uint32_t)n + 1u;	/* the copy took the NUL along */
	}
	return bprint__put_string_prec(d, (uint32_t)room, s, prec);
}

uint32_t bprint__put_str(unsigned char *d, size_t room, const char *s, int32_t prec)
{
	return put_str(d, room, s, prec);
}

/* Argument i's bit in one of the site's argument masks (bit 0: its last argument). */
static inline bool arg_bit(uint64_t mask, unsigned nargs, unsigned i)
{
	return (mask >> (nargs - 1u - i)) & 1u;
}

/*
 * The arguments a call passed, as words, read by the kinds its site
 * compiled (include/bprint/internal.h: argsig, argfp), and never one
 * more: whatever its format asks for, nothing past what the caller put
 * in the registers and on the stack is read.  A 4-byte integer is
 * zero-extended, an 8-byte one or a pointer taken as is, a double as its
 * bits; a long double goes to ld[i] (if ld) and its word is its address.
 * Returns the mask of long doubles.
 */
__attribute__((always_inline))
static inline uint64_t take_words(const struct bprint_site *site, va_list *ap, uint64_t *words,
				  long double *ld)
{
	unsigned n = site->nargs;
	uint64_t ldouble = 0;

	for (unsigned i = 0; i < n; i++) {
		bool is8 = arg_bit(site->argsig, n, i), fp = arg_bit(site->argfp, n, i);

		if (fp && is8) {
			double d = va_arg(*ap, double);

			memcpy(&words[i], &d, sizeof(d));
		} else if (fp) {
			long double v = va_arg(*ap, long double);

			words[i] = 0;
			if (ld) {
				ld[i] = v;
				words[i] = (uintptr_t)&ld[i];
				ldouble |= 1ull << i;
			}
		} else if (is8) {
			words[i] = va_arg(*ap, uint64_t);
		} else {
			words[i] = va_arg(*ap, unsigned int);
		}
	}
	return ldouble;
}

/* A call of a site with long double arguments and a runtime format: text, its values kept. */
__attribute__((noinline))
static void runtime_ldouble(struct bprint_site *site, const char *fmt, va_list *ap)
{
	uint64_t words[BPRINT__MAX_ARGS];
	long double ld[BPRINT__MAX_ARGS];
	uint64_t ldouble = take_words(site, ap, words, ld);

	bp_emit_runtime_words(site, fmt, words, site->nargs, ldouble);
}

/*
 * The one call of a call site (include/bprint/internal.h): everything its
 * inline path does not write, with the arguments the call passed.  They
 * become words, read by the types the site compiled; a constant format
 * with a long double, which no word carries, is read by its plan, which
 * the compiler checked against the arguments.
 */
static void call_site(struct bprint_site *site, const char *fmt, va_list *ap)
{
	uint64_t words[BPRINT__MAX_ARGS];
	bool ldouble = (site->argfp & ~site->argsig) != 0;

	if (__builtin_expect(site->nargs > BPRINT__MAX_ARGS, 0))
		return;	/* never compiled so */
	if (site->format) {
		if (__builtin_expect(ldouble, 0)) {
			/* the site's own format, a literal its compiler checked */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
			bp_emit_va(site, site->format, *ap);
#pragma GCC diagnostic pop
			return;
		}
		take_words(site, ap, words, NULL);
		bp_emit_site_words(site, words);
	} else if (__builtin_expect(ldouble, 0)) {
		runtime_ldouble(site, fmt, ap);
	} else if (fmt) {
		take_words(site, ap, words, NULL);
		bp_emit_runtime_words(site, fmt, words, site->nargs, 0);
	}
}

/*
 * A registered constant-format site's call with no long double, the one
 * a page switch sends here from the inline path: its straight line.
 */
void bprint__call(struct bprint_site *site, ...)
{
	uint64_t words[BPRINT__MAX_ARGS];
	va_list ap;

	if (__builtin_expect(!bp_tracing_is_on(), 0))
		return;
	if (__builtin_expect(site->id - 1u >= BP_SITE_MAX, 0) && !bp_emit_ready(site))
		return;
	va_start(ap, site);
	if (__builtin_expect(site->format && !(site->argfp & ~site->argsig) &&
			     site->nargs <= BPRINT__MAX_ARGS, 1)) {
		take_words(site, &ap, words, NULL);
		va_end(ap);
		bp_emit_site_words(site, words);
		return;
	}
	call_site(site, site->format, &ap);
	va_end(ap);
}

void bprint__call_fmt(struct bprint_site *site, const char *fmt, ...)
{
	va_list ap;

	if (!bp_emit_ready(site))
		return;
	va_start(ap, fmt);
	call_site(site, site->format ? site->format : fmt, &ap);
	va_end(ap);
}

/* The format check of every call site, in sizeof: never called. */
int bprint__check(const char *fmt, ...)
{
	(void)fmt;
	return 0;
}

/*
 * The call site's one call (include/bprint/internal.h, layout 4 sites
 * since the words calls): its arguments as words, in registers up to
 * five (bprint__w1() .. bprint__w5(); a runtime format's up to four,
 * bprint__f0() .. bprint__f4()) or an array (bprint__wv(), bprint__fv()),
 * and the record written here, on the window, as the call site wrote it
 * before: so that what the compiler reads and optimises of a site is its
 * guard and its arguments, and what a kind does is compiled once, here.
 *
 * Which record is opened, by the site's enabled and the kinds its compiler
 * saw (argsig: 8 bytes; argchar: a char, or a pointer to one if 8 bytes):
 *   a constant format, no pointer to char: on the window when the site is
 *     BPRINT__SITE_ON_FAST or _ON_CHARS (its 4- and 8-byte slots as
 *     compiled, its chars as %c bytes for _ON_CHARS);
 *   a constant format with pointers to char: when _ON_CHARS, the %s
 *     strings copied (bounded so that the slots after them still fit);
 *   a runtime format without pointers to char: the format cache's record
 *     for it (bprint__open_format());
 * anything else, and whatever the window cannot take, goes the way
 * bprint__call() and bprint__call_fmt() send their words.
 */

/* A store of 4 bytes, and of 8 at 4-byte alignment (slots are u32-aligned). */
typedef uint32_t u32_a4 __attribute__((aligned(4)));
typedef uint64_t u64_a4 __attribute__((aligned(4)));

/* Zero the bytes up to the next multiple of 4 (the record's room holds them). */
static inline uint32_t pad4(unsigned char *b, uint32_t o)
{
	if (o & 3u) {
		const uint32_t zero = 0;

		memcpy(b + o, &zero, 4);	/* unaligned: o is not a multiple of 4 */
		o = (o + 3u) & ~3u;
	}
	return o;
}

/*
 * The words a window could not take, the way bprint__call() and
 * bprint__call_fmt() (fmt not NULL) send theirs.  Out of the writers'
 * straight line.
 */
__attribute__((noinline, cold))
static void words_call(struct bprint_site *site, const char *fmt, const uint64_t *w, unsigned n)
{
	uint64_t words[BPRINT__MAX_ARGS];

	if (!fmt) {
		if (__builtin_expect(!bp_tracing_is_on(), 0))
			return;
		if (__builtin_expect(site->id - 1u >= BP_SITE_MAX, 0) && !bp_emit_ready(site))
			return;
	} else if (!bp_emit_ready(site)) {
		return;
	}
	if (site->nargs > BPRINT__MAX_ARGS || n > BPRINT__MAX_ARGS)
		return;	/* never compiled so */
	/* as bprint__call() reads them: a 4-byte argument zero-extended */
	for (unsigned i = 0; i < n; i++)
		words[i] = (site->argsig >> (n - 1u - i)) & 1u ? w[i] : (uint32_t)w[i];
	if (site->format)
		bp_emit_site_words(site, words);
	else if (fmt)
		bp_emit_runtime_words(site, fmt, words, n, 0);
}

/* words_call() with a copy: the words' own array stays in registers on the other paths. */
__attribute__((noinline, cold))
static void words_copy_call(struct bprint_site *site, const char *fmt, const uint64_t *w,
				   unsigned n)
{
	uint64_t copy[BPRINT__MAX_ARGS] = { 0 };

	for (unsigned i = 0; i < n && i < BPRINT__MAX_ARGS; i++)
		copy[i] = w[i];
	words_call(site, fmt, copy, n);
}

/*
 * A site of 4- and 8-byte slots: each as compiled, in order, at its
 * offset; 8 bytes stored for every one but the last (a 4-byte slot's
 * upper half zero, under the next slot), so that the record takes
 * exactly its slots.
 */
__attribute__((always_inline))
static inline void put_slots(unsigned char *b, uint64_t sig, const uint64_t *w, unsigned n)
{
	uint32_t o = 0;

#pragma GCC unroll 8
	for (unsigned i = 0; i < n; i++) {
		if ((sig >> (n - 1u - i)) & 1u) {
			*(u64_a4 *)(void *)(b + o) = w[i];
			o += 8u;
		} else {
			*(u32_a4 *)(void *)(b + o) = (uint32_t)w[i];
			o += 4u;
		}
	}
}

/*
 * A site with chars or pointers to char (on: its enabled): a char as its
 * %c byte where the site is _ON_CHARS (a 4-byte slot where _ON_FAST), a
 * pointer to char as its %s string, bounded so that the slots after it
 * (8 bytes at most each) and the padding still fit, and by the 4-byte
 * argument before it where argstar says it is a %.*s.  Returns the bytes
 * written, or 0 if a string did not fit.
 */
__attribute__((always_inline))
static inline uint32_t put_chars(const struct bprint_site *site, struct bprint__room r, uint8_t on,
				 const uint64_t *w, unsigned n, bool strings)
{
	uint64_t sig = site->argsig, chars = site->argchar;
	uint8_t argstar = site->argstar;
	unsigned char *b = r.p;
	int32_t star = -1;
	uint32_t o = 0;

#pragma GCC unroll 8
	for (unsigned i = 0; i < n; i++) {
		unsigned k = n - i;	/* 1: the last argument */
		bool is8 = (sig >> (k - 1u)) & 1u, ch = (chars >> (k - 1u)) & 1u;

		if (strings && ch && is8) {
			uint32_t tail = o + 8u * (k - 1u) + 4u, took = 0;

			if (__builtin_expect(tail < r.room, 1))
				took = put_str(b + o, r.room - tail, (const char *)(uintptr_t)w[i],
						       k <= 8u && ((argstar >> (k - 1u)) & 1u) ? star : -1);
			if (!took)
				return 0;
			o += took;
			star = -1;
		} else if (ch && on == BPRINT__SITE_ON_CHARS) {
			b[o++] = (unsigned char)w[i];
			star = -1;
		} else {
			o = pad4(b, o);
			if (is8) {
				*(u64_a4 *)(void *)(b + o) = w[i];
				o += 8u;
				star = -1;
			} else {
				*(u32_a4 *)(void *)(b + o) = (uint32_t)w[i];
				o += 4u;
				star = (int32_t)w[i];
			}
		}
	}
	return pad4(b, o);
}

/* The mask of a site's n arguments (bit 0: its last). */
static inline uint64_t args_mask(unsigned n)
{
	return n >= 64u ? ~0ull : (1ull << n) - 1u;
}

/* The bytes of n 4- and 8-byte slots, sig's bits saying which are 8 (no popcnt call). */
__attribute__((always_inline))
static inline uint32_t slot_bytes(uint64_t sig, unsigned n)
{
	uint32_t bytes = 4u * n;

#pragma GCC unroll 8
	for (unsigned i = 0; i < n; i++)
		bytes += 4u * (uint32_t)((sig >> i) & 1u);
	return bytes;
}

/*
 * A record with chars (and strings, if any) on the window, for a site
 * whose state is on: its bytes placed by put_chars(); false (the nest
 * released) if the window cannot take it or a string does not fit.
 */
__attribute__((always_inline))
static inline bool write_chars_as(struct bprint_site *site, uint8_t on, const uint64_t *w,
				  unsigned n, bool strings)
{
	struct bprint__room r = open_room_inline(site->head, 8u * n + 4u);

	if (__builtin_expect(r.p != NULL, 1)) {
		uint32_t bytes = put_chars(site, r, on, w, n, strings);

		if (__builtin_expect(bytes != 0, 1)) {
			bp_window_close_var(bytes);
			return true;
		}
		bp_window_drop();
	}
	return false;
}

/*
 * Everything but a constant format's 4- and 8-byte slots: a runtime
 * format's record (the format cache's), one with chars or strings, and
 * the call out of line.  Apart from the straight line of the usual call.
 */
__attribute__((always_inline))
static inline bool write_other(struct bprint_site *site, const char *fmt, const uint64_t *w,
			       unsigned n)
{
	uint8_t on = __atomic_load_n(&site->enabled, __ATOMIC_ACQUIRE);
	uint64_t sig = site->argsig, mask = args_mask(n);
	uint32_t head;
	uint64_t chars = site->argchar & mask;
	struct bprint__room r;

	if (site->format)
		fmt = NULL;
	if (__builtin_expect(n > 32u || site->nargs != n, 0))
		return false;
	if (fmt) {
		/* as the cache's plan takes them: 4- and 8-byte slots, chars as 4 */
		if (chars & sig)
			return false;
		/* bprint__open_format(), its window's open in line */
		head = bprint__format_head(site, fmt);
		if (__builtin_expect(head == 0, 0))
			return false;
		r = open_room_inline(head, (head & BP_RING_HEAD_LEN_MASK) * 4u -
					   BP_RING_REC_HDR_BYTES);
		if (__builtin_expect(r.p == NULL, 0))
			return false;
		put_slots(r.p, sig, w, n);
		bp_window_close_var(slot_bytes(sig, n));
		return true;
	}
	if (!chars || on == BPRINT__SITE_ON_FAST) {
		if (on != BPRINT__SITE_ON_FAST && on != BPRINT__SITE_ON_CHARS)
			return false;
		r = open_room_inline(site->head, slot_bytes(sig, n));
		if (__builtin_expect(r.p == NULL, 0))
			return false;
		put_slots(r.p, sig, w, n);
		bp_window_close_var(slot_bytes(sig, n));
		return true;
	}
	if ((chars & sig) ? on != BPRINT__SITE_ON_CHARS
			  : on != BPRINT__SITE_ON_CHARS && on != BPRINT__SITE_ON_FAST)
		return false;
	return write_chars_as(site, on, w, n, true);
}

/*
 * A BPRINT__SITE_ON_CHARS site's record (a constant format with chars or
 * strings): its %c bytes and %s strings written on the window; anything
 * else, and a string that does not fit, by write_other().
 */
__attribute__((always_inline))
static inline bool write_chars(struct bprint_site *site, const uint64_t *w, unsigned n,
			       bool strings)
{
	return write_chars_as(site, BPRINT__SITE_ON_CHARS, w, n, strings);
}

/*
 * A BPRINT__SITE_ON_CHARS site's record with chars and no strings, its
 * length known once they are stored: written as the usual call's is,
 * placed for the most its slots may take, the slots stored before rdtsc,
 * then the head with its length, the time stamp and the publication.
 * false (nothing published, the nest released) if the window cannot take
 * it or the stamp failed: write_chars() then, which refills and retimes.
 */
__attribute__((always_inline))
static inline bool write_bytes(struct bprint_site *site, const uint64_t *w, unsigned n)
{
	uint32_t head = site->head, bytes, *p;
	struct bprint__room r;
	uint64_t delta;

	p = bp_window_place(BP_RING_REC_HDR_BYTES + 8u * n + 4u);
	if (__builtin_expect(p == NULL, 0))
		return false;
	r.p = (unsigned char *)(p + 2);
	r.room = 8u * n + 4u;
	bytes = put_chars(site, r, BPRINT__SITE_ON_CHARS, w, n, false) + BP_RING_REC_HDR_BYTES;
	p[0] = (head & ~BP_RING_HEAD_LEN_MASK) | bytes / 4u;
	if (__builtin_expect(!bp_window_stamp(&delta), 0))
		return false;
	p[1] = (uint32_t)delta;
	bp_window_publish(bprint__tls.pending + bytes);
	return true;
}

/*
 * A record of 4- and 8-byte slots whose time stamp failed (a delta over 32
 * bits, the window released): its words read back from the slots, and
 * the call taken by write_other(), which takes a new time base.
 */
__attribute__((noinline, cold))
static void slots_again(struct bprint_site *site, const unsigned char *b, unsigned n)
{
	uint64_t w[5] = { 0 }, sig = site->argsig;
	uint32_t o = 0;

	for (unsigned i = 0; i < n && i < 5u; i++) {
		if ((sig >> (n - 1u - i)) & 1u) {
			w[i] = *(const u64_a4 *)(const void *)(b + o);
			o += 8u;
		} else {
			w[i] = *(const u32_a4 *)(const void *)(b + o);
			o += 4u;
		}
	}
	if (!write_other(site, NULL, w, n))
		words_call(site, NULL, w, n);
}

/*
 * The writers, one an arity: the words in registers, the format last
 * (only the slow paths read it: with five words, it is the one on the
 * stack).  The usual call, a constant format's 4- and 8-byte slots as
 * compiled (BPRINT__SITE_ON_FAST: site->head is then the whole head word,
 * its length the record's), is written in the straight line: the record
 * placed, the head and the slots stored (which frees their registers
 * before rdtsc's), then the time stamp and the publication.  Anything
 * else is a tail call with the registers as they came, to other_N(),
 * which takes it by write_other(); so the straight line saves no
 * register and calls nothing.
 */
#define COMMA ,
#define WRITER(n, params, args)							\
	__attribute__((noinline, cold)) static void again_##n(struct bprint_site *site \
							      params, const char *fmt) \
	{									\
		const uint64_t w[] = { 0 args };				\
										\
		/* as write_other() has it: a constant format's is the site's */ \
		words_call(site, site->format ? NULL : fmt, w + 1, n);		\
	}									\
	__attribute__((noinline)) static void other_##n(struct bprint_site *site	\
							params, const char *fmt) \
	{									\
		const uint64_t w[] = { 0 args };				\
										\
		if (!write_other(site, fmt, w + 1, n))				\
			again_##n(site args, fmt);				\
	}									\
	__attribute__((noinline)) static void chars_##n(struct bprint_site *site	\
							params, const char *fmt) \
	{									\
		const uint64_t w[] = { 0 args };				\
										\
		if (!write_chars(site, w + 1, n, true))				\
			again_##n(site args, fmt);				\
	}									\
	__attribute__((noinline)) static void bytes_##n(struct bprint_site *site	\
							params, const char *fmt) \
	{									\
		const uint64_t w[] = { 0 args };				\
										\
		if (!write_bytes(site, w + 1, n) &&				\
		    !write_chars(site, w + 1, n, false))			\
			again_##n(site args, fmt);				\
	}									\
	void bprint__w##n(struct bprint_site *site params, const char *fmt)	\
	{									\
		const uint64_t w[] = { 0 args };				\
		/* acquire: registration's head and flags come with the value */ \
		uint8_t on = __atomic_load_n(&site->enabled, __ATOMIC_ACQUIRE);	\
		uint32_t head, *p;						\
		uint64_t delta;							\
										\
		if (__builtin_expect(on != BPRINT__SITE_ON_FAST, 0)) {		\
			if (on == BPRINT__SITE_ON_CHARS)			\
				goto chars;					\
			goto other;						\
		}								\
		head = site->head;						\
		p = bp_window_place((head & BP_RING_HEAD_LEN_MASK) * 4u);	\
		if (__builtin_expect(p == NULL, 0))				\
			goto other;						\
		p[0] = head;							\
		put_slots((unsigned char *)(p + 2), site->argsig, w + 1, n);	\
		if (__builtin_expect(!bp_window_stamp(&delta), 0)) {		\
			slots_again(site, (const unsigned char *)(p + 2), n);	\
			return;							\
		}								\
		p[1] = (uint32_t)delta;						\
		bp_window_publish(bprint__tls.pending + (head & BP_RING_HEAD_LEN_MASK) * 4u); \
		return;								\
	other:									\
		other_##n(site args, fmt);					\
		return;								\
	chars:									\
		/* a string among them: the writer that copies strings */	\
		if (site->argchar & site->argsig)				\
			chars_##n(site args, fmt);				\
		else								\
			bytes_##n(site args, fmt);				\
	}
WRITER(0, , )
WRITER(1, COMMA uint64_t a, COMMA a)
WRITER(2, COMMA uint64_t a COMMA uint64_t b, COMMA a COMMA b)
WRITER(3, COMMA uint64_t a COMMA uint64_t b COMMA uint64_t c, COMMA a COMMA b COMMA c)
WRITER(4, COMMA uint64_t a COMMA uint64_t b COMMA uint64_t c COMMA uint64_t d,
       COMMA a COMMA b COMMA c COMMA d)
WRITER(5, COMMA uint64_t a COMMA uint64_t b COMMA uint64_t c COMMA uint64_t d COMMA uint64_t e,
       COMMA a COMMA b COMMA c COMMA d COMMA e)

/* More than five: the site's array, its nargs words. */
void bprint__wv(struct bprint_site *site, const uint64_t *w, const char *fmt)
{
	if (!write_other(site, fmt, w, site->nargs))
		words_copy_call(site, fmt, w, site->nargs);
}
