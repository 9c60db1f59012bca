/*
 * The format decoder: the one place that knows printf's grammar.
 *
 *   %[flags][width][.precision][length]conversion
 *
 * Every user (vsnprintf, vbin_printf, bstr_printf, format_compile) loops
 * over bp_format_decode() and never looks at the format itself.  A '*' in
 * the width or precision ends the token early (BP_FMT_WIDTH or
 * BP_FMT_PRECISION) so that each user fetches that int its own way: from a
 * va_list, from a block, or not at all; the next call resumes inside the
 * conversion, keyed by spec->type.
 *
 * A conversion is checked whole before its first token is returned, so an
 * invalid one ("%*y") comes back as one BP_FMT_INVALID token and never
 * makes a user consume an argument for its '*'.
 */
#include "format/decode.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Digits at *p, saturating at INT32_MAX. */
static int32_t parse_number(const char **p)
{
	int64_t n = 0;

	while (is_digit(**p)) {
		n = n * 10 + (**p - '0');
		if (n > INT32_MAX)
			n = INT32_MAX;
		(*p)++;
	}
	return (int32_t)n;
}

/* A positional reference: digits followed by '$'. */
static bool is_positional(const char *p)
{
	if (!is_digit(*p))
		return false;
	while (is_digit(*p))
		p++;
	return *p == '$';
}

static const char *parse_flags(const char *p, uint8_t *flags)
{
	for (;; p++) {
		switch (*p) {
		case '-': *flags |= BP_FLAG_LEFT; break;
		case '+': *flags |= BP_FLAG_PLUS; break;
		case ' ': *flags |= BP_FLAG_SPACE; break;
		case '#': *flags |= BP_FLAG_ALT; break;
		case '0': *flags |= BP_FLAG_ZERO; break;
		default: return p;
		}
	}
}

static inline const char *parse_length(const char *p, uint8_t *length)
{
	switch (*p) {
	case 'h':
		if (p[1] == 'h') {
			*length = BP_LEN_HH;
			return p + 2;
		}
		*length = BP_LEN_H;
		return p + 1;
	case 'l':
		if (p[1] == 'l') {
			*length = BP_LEN_LL;
			return p + 2;
		}
		*length = BP_LEN_L;
		return p + 1;
	case 'j': *length = BP_LEN_J; return p + 1;
	case 'z': *length = BP_LEN_Z; return p + 1;
	case 't': *length = BP_LEN_T; return p + 1;
	case 'L': *length = BP_LEN_LDOUBLE; return p + 1;
	default: *length = BP_LEN_NONE; return p;
	}
}

/*
 * Classify the conversion character given its length modifier: sets type,
 * base and the SIGNED/UPPER flags, or type BP_FMT_INVALID.
 */
static inline __attribute__((always_inline)) void
classify(char c, struct bp_printf_spec *spec)
{
	bool int_length = spec->length != BP_LEN_LDOUBLE;
	bool no_length = spec->length == BP_LEN_NONE;

	spec->conv = c;
	spec->base = 10;
	spec->type = BP_FMT_INVALID;
	switch (c) {
	case 'd':
	case 'i':
		spec->flags |= BP_FLAG_SIGNED;
		/* fall through */
	case 'u':
		if (int_length)
			spec->type = BP_FMT_INT;
		break;
	case 'o':
		spec->base = 8;
		if (int_length)
			spec->type = BP_FMT_INT;
		break;
	case 'X':
		spec->flags |= BP_FLAG_UPPER;
		/* fall through */
	case 'x':
		spec->base = 16;
		if (int_length)
			spec->type = BP_FMT_INT;
		break;
	case 'n':
		if (int_length)
			spec->type = BP_FMT_NRCHARS;
		break;
	case 'E':
	case 'F':
	case 'G':
	case 'A':
		spec->flags |= BP_FLAG_UPPER;
		/* fall through */
	case 'e':
	case 'f':
	case 'g':
	case 'a':
		if (no_length || spec->length == BP_LEN_L ||
		    spec->length == BP_LEN_LDOUBLE)
			spec->type = BP_FMT_FLOAT;
		if (spec->length == BP_LEN_L)	/* %lf is plain double */
			spec->length = BP_LEN_NONE;
		break;
	case 'c':
		if (no_length)
			spec->type = BP_FMT_CHAR;
		break;
	case 's':
		if (no_length)
			spec->type = BP_FMT_STR;
		break;
	case 'p':
		spec->base = 16;
		if (no_length)
			spec->type = BP_FMT_PTR;
		break;
	case '%':
		if (no_length)
			spec->type = BP_FMT_PERCENT;
		break;
	default:
		break;
	}
}

/*
 * The stages of a conversion, in order.  Parsing may start at any of them:
 * at FLAGS for a new conversion, after a '*' width or precision when
 * resuming.  Returns the position just past the conversion character (or
 * at the NUL that cut it short, with type BP_FMT_INVALID), and in *star
 * the position just past the first '*' met, if any.
 */
enum stage { STAGE_FLAGS, STAGE_PRECISION, STAGE_LENGTH };

static const char *parse_conversion(const char *p, enum stage stage,
				    struct bp_printf_spec *spec,
				    const char **star, uint8_t *star_type)
{
	*star = NULL;
	if (stage == STAGE_FLAGS) {
		p = parse_flags(p, &spec->flags);
		if (is_positional(p))
			goto invalid;
		if (*p == '*') {
			p++;
			if (is_positional(p))
				goto invalid;
			*star = p;
			*star_type = BP_FMT_WIDTH;
		} else {
			spec->field_width = parse_number(&p);
		}
		stage = STAGE_PRECISION;
	}
	if (stage == STAGE_PRECISION) {
		if (*p == '.') {
			p++;
			if (*p == '*') {
				p++;
				if (is_positional(p))
					goto invalid;
				if (!*star) {
					*star = p;
					*star_type = BP_FMT_PRECISION;
				}
			} else {
				spec->precision = parse_number(&p);
			}
		}
	}
	p = parse_length(p, &spec->length);
	if (!*p)
		goto invalid;
	classify(*p, spec);
	if (spec->type == BP_FMT_INVALID)
		goto invalid;
	return p + 1;

invalid:
	spec->type = BP_FMT_INVALID;
	*star = NULL;
	return *p ? p + 1 : p;	/* through the offending character */
}

/* A character that can only be a conversion character (or an invalid one). */
static inline bool is_bare_conversion(char c)
{
	switch (c) {
	case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
	case 's': case 'p': case 'c': case 'f': case 'e': case 'g': case '%':
		return true;
	default:
		return false;
	}
}

static inline bool is_length_start(char c)
{
	return c == 'l' || c == 'h' || c == 'z' || c == 'j' || c == 't';
}


int bp_format_decode(const char *fmt, struct bp_printf_spec *spec)
{
	const char *start = fmt;
	const char *end;
	const char *star;
	uint8_t star_type = BP_FMT_NONE;
	enum stage stage;

	/* Resume inside a conversion after a '*' token. */
	if (spec->type == BP_FMT_WIDTH) {
		stage = STAGE_PRECISION;
	} else if (spec->type == BP_FMT_PRECISION) {
		stage = STAGE_LENGTH;
	} else {
		bp_spec_reset(spec);
		if (*fmt == '\0')
			return 0;
		if (*fmt != '%') {
			spec->type = BP_FMT_LITERAL;
			return (int)(bp_scan_literal(fmt) - start);
		}
		fmt++;
		/*
		 * The common case, a bare conversion ("%d", "%s"): nothing
		 * between '%' and the conversion character.  The full parse
		 * below would classify it the same way.
		 */
		if (is_bare_conversion(*fmt)) {
			classify(*fmt, spec);
			return 2;
		}
		/* ... or only a length modifier: "%llu", "%zu", "%ld" */
		if (is_length_start(*fmt)) {
			const char *p = parse_length(fmt, &spec->length);

			if (is_bare_conversion(*p)) {
				classify(*p, spec);
				if (spec->type != BP_FMT_INVALID)
					return (int)(p + 1 - start);
				spec->flags = 0;	/* the full parse decides */
			}
			spec->length = BP_LEN_NONE;
		}
		stage = STAGE_FLAGS;
	}

	end = parse_conversion(fmt, stage, spec, &star, &star_type);
	if (star) {
		/* Stop after the '*'; the caller fetches its value. */
		spec->type = star_type;
		return (int)(star - start);
	}
	return (int)(end - start);
}

