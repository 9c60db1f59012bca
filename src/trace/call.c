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
static struct bprint__room open_room(uint32_t head, uint32_t min)
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

struct bprint__room bprint__open_var(uint32_t head, uint32_t min)
{
	return open_room(head, min);
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
uint32_t bprint__put_str(unsigned char *d, size_t room, const char *s, int32_t prec)
{
	if (__builtin_expect(prec < 0 && s != NULL, 1)) {
		size_t n = bprint__copy_string(d, s, room);

		return n == room ? 0 : (uint32_t)n + 1u;	/* the copy took the NUL along */
	}
	return bprint__put_string_prec(d, (uint32_t)room, s, prec);
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
