/*
 * Which path a registered call site takes (site_check.h): the words path
 * (bprint__printk_words()), the inline fast path that packs the words
 * itself (BPRINT__SITE_FAST), or the inline path that also writes chars
 * and strings (BPRINT__SITE_CHARS), each decided from the site's plan and
 * the argument sizes and types its compiler saw.  Apart from the registry
 * (site.c) because it reads a plan and a site and nothing else: no lock,
 * no table, no atomics.
 */
#include "trace/site.h"

#include "trace/site_check.h"
#include "ring/ring.h"

#include <stdbool.h>
#include <stdint.h>

/* Argument i's bit in a call site's argsig or argchar (bit 0 is its last argument). */
static inline bool arg_bit(uint64_t mask, const struct bprint_site *site, unsigned i)
{
	return (mask >> (site->nargs - 1u - i)) & 1u;
}

/*
 * May the site's arguments come as words (bprint__printk_words())?  Every
 * kind but long double travels as a word; the call site must have passed
 * as many arguments as the plan takes (a short array would be read past
 * its end), each string as a pointer, and a plan with no strings must fit
 * a record.
 */
bool bp_site_takes_words(const struct bp_arg_plan *plan, const struct bprint_site *site)
{
	unsigned n = site->nargs;

	if (n != plan->nargs || (!plan->nstrings && plan->fixed_words > BP_SITE_WORDS_MAX))
		return false;
	for (unsigned i = 0; i < n; i++) {
		bool is8 = arg_bit(site->argsig, site, i);

		switch (plan->slot[i].kind) {
		case BP_ARG_LDOUBLE:
			return false;
		case BP_ARG_STR:
		case BP_ARG_STR_STAR:
			if (!is8)
				return false;
			break;
		default:
			break;
		}
	}
	return true;
}

/* Only 4- and 8-byte integers, pointers and doubles: what the call site packs itself. */
static bool plan_is_scalar(const struct bp_arg_plan *plan)
{
	for (unsigned i = 0; i < plan->nargs; i++) {
		switch (plan->slot[i].kind) {
		case BP_ARG_CHAR:
		case BP_ARG_STR:
		case BP_ARG_STR_STAR:
		case BP_ARG_LDOUBLE:
		case BP_ARG_SKIP:
			return false;
		default:
			break;
		}
	}
	return true;
}

/*
 * Do the argument sizes the compiler saw at the call site (site->nargs and
 * site->argsig, include/bprint/internal.h) give the block the plan describes?  Then
 * the call site may pack the words itself.  A mismatch (a long passed for
 * %d, say) keeps the site on bprint__printk_words(), which packs by plan.
 */
static bool plan_is_compiled(const struct bp_arg_plan *plan, const struct bprint_site *site)
{
	unsigned n = site->nargs;

	if (n != plan->nargs || plan->fixed_words * 4u + BP_RING_REC_HDR_BYTES >
	    BP_RING_REC_MAX_WORDS * 4u)
		return false;
	for (unsigned i = 0; i < n; i++) {
		bool is8 = arg_bit(site->argsig, site, i);

		if (is8 != (plan->slot[i].kind != BP_ARG_INT32))
			return false;
	}
	return true;
}

/* The head word of a record of id whose block is plan's fixed words: its length and id. */
uint32_t bp_site_fixed_head(const struct bp_arg_plan *plan, uint32_t id)
{
	return (BP_RING_REC_HDR_BYTES / 4u + plan->fixed_words) | id << BP_RING_HEAD_USER_SHIFT;
}

uint32_t bp_site_fast_head(const struct bp_arg_plan *plan, const struct bprint_site *site,
			   uint32_t id)
{
	if (!BP_SITE_INLINE || !plan_is_scalar(plan) || !plan_is_compiled(plan, site))
		return 0;
	return bp_site_fixed_head(plan, id);
}

/* site->argstar for a bp_site_plan_is_chars() plan: its %.*s, as the call site counts them. */
uint8_t bp_site_star_bits(const struct bp_arg_plan *plan)
{
	uint8_t bits = 0;

	for (unsigned i = 0; i < plan->nargs; i++)
		if (plan->slot[i].kind == BP_ARG_STR_STAR)
			bits |= (uint8_t)(1u << (plan->nargs - 1u - i));
	return bits;
}

/*
 * May the call site write the block itself, its chars as %c bytes and its
 * pointers to char as %s strings (BPRINT__FAST_CHARS in
 * include/bprint/internal.h)?  Each argument's compiled type must be the
 * plan's: a char for %c, a pointer to char for a %s without precision
 * or with a '*' one (among the last 8 arguments: site->argstar), other
 * 4-byte types for a 4-byte slot, other 8-byte ones for an 8-byte
 * integer, a pointer or a double.
 */
bool bp_site_plan_is_chars(const struct bp_arg_plan *plan, const struct bprint_site *site)
{
	unsigned n = site->nargs;

	if (n != plan->nargs || !site->argchar)
		return false;
	for (unsigned i = 0; i < n; i++) {
		bool is8 = arg_bit(site->argsig, site, i);
		bool ischar = arg_bit(site->argchar, site, i);
		const struct bp_arg_slot *slot = &plan->slot[i];

		switch (slot->kind) {
		case BP_ARG_CHAR:
			if (!ischar || is8)
				return false;
			break;
		case BP_ARG_STR:
			if (!ischar || !is8 || slot->precision >= 0)
				return false;
			break;
		case BP_ARG_STR_STAR:
			/* its precision is the slot before it, a 4-byte one; the
			 * call site knows it by argstar, of the last 8 arguments */
			if (!ischar || !is8 || n - i > 8u || i == 0 ||
			    plan->slot[i - 1].kind != BP_ARG_INT32)
				return false;
			break;
		case BP_ARG_INT32:
			if (ischar || is8)
				return false;
			break;
		case BP_ARG_LDOUBLE:
		case BP_ARG_SKIP:
			return false;
		default:	/* the 8-byte slots */
			if (ischar || !is8)
				return false;
			break;
		}
	}
	return true;
}
