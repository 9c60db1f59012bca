/*
 * bprint/format.h - the printf engine.
 *
 * One decoder, four users.  bp_format_decode() splits a format into tokens,
 * one per call: a run of literal text, or one conversion with its flags,
 * width, precision and length modifier.  Each user is a loop over it:
 *
 *   bp_vsnprintf()     va_list      -> text         (C99 snprintf semantics)
 *   bp_vbin_printf()   va_list      -> binary block (the trace-time half)
 *   bp_bstr_printf()   binary block -> text         (the read-time half)
 *   bp_format_compile() format      -> argument plan, packed by
 *   bp_vbin_printf_plan() without parsing the format again (the hot path)
 *
 * The binary block layout is specified in docs/binary-layout.md.  It follows
 * the kernel's vbin_printf(): int-sized arguments in 4-byte slots, 64-bit
 * values as 8 bytes at 4-byte alignment, %c as one byte, %s inline with its
 * NUL, the block padded to 4 bytes.
 *
 * Conversions are those of C11 printf, with output identical to glibc's.
 * Deliberate differences, the same in every user:
 *   - %n consumes its pointer argument and writes nothing.
 *   - A positional conversion ("%1$d"), an unknown conversion ("%y", "%lc",
 *     "%ls") or one cut short by the end of the format ("abc%", "%5") is an
 *     invalid token: it is copied to the output as it stands in the format
 *     and consumes no argument.  (glibc returns -1 for the last kind.)
 *   - glibc extensions ("%m", "%Z", "%q", "%Ld", the ' and I flags) and
 *     length modifiers that C11 does not define for the conversion ("%hf",
 *     "%Lx", "%hp") are invalid tokens too.
 *   - A width or precision above INT32_MAX saturates there; an output
 *     longer than INT_MAX makes bp_vsnprintf() return -1.
 *   - %f and %F of a double round to nearest, ties to even, whatever
 *     fesetround() says (glibc follows the current rounding mode); the other
 *     floating conversions go to the C library and follow it.
 */
#ifndef BPRINT_FORMAT_H
#define BPRINT_FORMAT_H

#include <float.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef BP_API
#define BP_API __attribute__((visibility("default")))
#endif
#define BP_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* What one token is.  BP_FMT_NONE marks the end of the format. */
enum bp_format_type {
	BP_FMT_NONE = 0,
	BP_FMT_LITERAL,		/* a run of text without '%'; emit as is */
	BP_FMT_PERCENT,		/* "%%"; flags, width, precision ignored, as in glibc */
	BP_FMT_WIDTH,		/* '*' width: fetch an int, set field_width, decode again */
	BP_FMT_PRECISION,	/* '*' precision: fetch an int, set precision, decode again */
	BP_FMT_INT,		/* d i u o x X; length modifier in .length */
	BP_FMT_CHAR,		/* c */
	BP_FMT_STR,		/* s */
	BP_FMT_PTR,		/* p */
	BP_FMT_FLOAT,		/* f F e E g G a A; .length is BP_LEN_LDOUBLE for L */
	BP_FMT_NRCHARS,		/* n: consume the pointer, write nothing */
	BP_FMT_INVALID,		/* copy the consumed characters verbatim, no argument */
};

/* Length modifiers. */
enum bp_format_length {
	BP_LEN_NONE = 0,	/* int, or double for floats */
	BP_LEN_HH,		/* char */
	BP_LEN_H,		/* short */
	BP_LEN_L,		/* long */
	BP_LEN_LL,		/* long long */
	BP_LEN_J,		/* intmax_t */
	BP_LEN_Z,		/* size_t */
	BP_LEN_T,		/* ptrdiff_t */
	BP_LEN_LDOUBLE,		/* L: long double */
};

/* Flags, as in printf. */
enum bp_format_flag {
	BP_FLAG_LEFT = 1 << 0,	/* '-' */
	BP_FLAG_PLUS = 1 << 1,	/* '+' */
	BP_FLAG_SPACE = 1 << 2,	/* ' ' */
	BP_FLAG_ALT = 1 << 3,	/* '#' */
	BP_FLAG_ZERO = 1 << 4,	/* '0' */
	BP_FLAG_SIGNED = 1 << 5, /* d i: the value is signed */
	BP_FLAG_UPPER = 1 << 6,	/* X E F G A: upper-case digits and letters */
};

/*
 * One decoded token, 16 bytes (pinned below), passed by pointer to the
 * decoder and by value to the emit helpers.  A precision of -1 means "none
 * given".  The kernel packs its printf_spec into 8 by capping the width
 * at 24 bits and the precision at 16; ours keep 32 bits each, for output
 * identical to glibc's up to INT32_MAX, and that does not fit in 8.
 * conv keeps the conversion character ('d', 'x', 'g', ...): the float
 * helper and BP_FMT_INVALID need it.
 */
struct bp_printf_spec {
	uint8_t type;		/* enum bp_format_type */
	uint8_t flags;		/* enum bp_format_flag */
	uint8_t base;		/* 8, 10 or 16 for BP_FMT_INT */
	uint8_t length;		/* enum bp_format_length */
	char conv;		/* the conversion character, or 0 */
	uint8_t reserved[3];
	int32_t field_width;	/* 0 if none; left-justified if negative '*' */
	int32_t precision;	/* -1 if none */
};

/*
 * Decode the next token of fmt.  Returns the number of characters consumed
 * and fills *spec.  Start a format with spec->type = BP_FMT_NONE (or a
 * zeroed spec).  After a BP_FMT_WIDTH or BP_FMT_PRECISION token the caller
 * stores the argument in spec->field_width or spec->precision and calls again
 * on the rest of the format with the same spec: decoding resumes inside the
 * conversion.  Returns 0, with type BP_FMT_NONE, at the end of the format.
 * Never reads past the terminating NUL.
 */
BP_API int bp_format_decode(const char *fmt, struct bp_printf_spec *spec);

/*
 * C99 snprintf: writes at most size bytes including the NUL (always
 * NUL-terminates when size > 0) and returns the length the full output
 * would have had.  Returns -1 only if that length exceeds INT_MAX.
 */
BP_API int bp_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
BP_API int bp_snprintf(char *buf, size_t size, const char *fmt, ...) BP_PRINTF(3, 4);

/*
 * Pack the arguments of fmt into bin, a block of `words` 32-bit words, in the
 * layout of docs/binary-layout.md.  Returns the number of words the whole
 * block needs; if that is more than `words`, the block is incomplete and
 * must not be used (nothing is written past bin[words - 1]).  Strings are
 * copied at this time; pointers are stored, never followed (but %s's).
 */
BP_API size_t bp_vbin_printf(uint32_t *bin, size_t words, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
BP_API size_t bp_bin_printf(uint32_t *bin, size_t words, const char *fmt, ...) BP_PRINTF(3, 4);

/*
 * Format a block packed for fmt.  snprintf semantics on buf and size.  Reads
 * nothing outside bin[0 .. words-1].  If the block is shorter than fmt
 * needs, or a string in it is not terminated inside it, the first conversion
 * that cannot be read prints BP_BSTR_BAD_BLOCK, the remaining conversions
 * print nothing (their literal text still prints), and the function returns
 * -1.  buf then still holds that text, NUL-terminated when size > 0.
 */
#define BP_BSTR_BAD_BLOCK "<bad block>"
BP_API int bp_bstr_printf(char *buf, size_t size, const char *fmt,
			  const uint32_t *bin, size_t words);

/*
 * Pointer extensions for readers, like the kernel's %pS: with a hook,
 * "%p" immediately followed by one of hook->letters prints what
 * hook->print() writes for the address (snprintf semantics on buf, at most
 * 255 characters kept), padded to the field width, and the letter is
 * consumed.  The block layout does not change: %pS stores the address as
 * %p does.  Without a hook, or for other letters, "%pS" prints as glibc
 * prints it: the address, then the letter.  The recorded address is only
 * passed to the hook, never followed.
 */
struct bp_pointer_hook {
	const char *letters;	/* e.g. "Ss" */
	void (*print)(void *ctx, char letter, uint64_t address, char *buf, size_t size);
	void *ctx;
};

BP_API int bp_bstr_printf_ext(char *buf, size_t size, const char *fmt, const uint32_t *bin,
			      size_t words, const struct bp_pointer_hook *hook);

/*
 * A format decoded once, for readers that format many blocks of the same
 * format: bp_bstr_printf_parsed() gives exactly what bp_bstr_printf_ext()
 * gives for the format it was parsed from, without decoding it again.
 * bp_format_parse() copies fmt; it returns NULL if out of memory.
 */
struct bp_parsed_format;
BP_API struct bp_parsed_format *bp_format_parse(const char *fmt);
BP_API void bp_format_parsed_free(struct bp_parsed_format *pf);
BP_API int bp_bstr_printf_parsed(char *buf, size_t size, const struct bp_parsed_format *pf,
				 const uint32_t *bin, size_t words,
				 const struct bp_pointer_hook *hook);

/*
 * Argument plans.  A plan lists the va_arg slots of a format in order, each
 * with the kind of value to fetch and how to store it.  The tracer compiles
 * one plan per call site, once, so that the hot path packs arguments with a
 * loop over the plan instead of parsing the format.
 */
enum bp_arg_kind {
	BP_ARG_INT32 = 1,	/* va_arg(int): int-sized and smaller, '*' values; 4 bytes */
	BP_ARG_CHAR,		/* va_arg(int) stored as 1 byte (%c) */
	BP_ARG_LONG,		/* va_arg(long) */
	BP_ARG_LLONG,		/* va_arg(long long) */
	BP_ARG_INTMAX,		/* va_arg(intmax_t) */
	BP_ARG_SIZE,		/* va_arg(size_t) */
	BP_ARG_PTRDIFF,		/* va_arg(ptrdiff_t) */
	BP_ARG_PTR,		/* va_arg(void *) stored as its address (%p) */
	BP_ARG_STR,		/* va_arg(const char *) copied inline (%s) */
	BP_ARG_STR_STAR,	/* %s whose precision is the previous '*' slot */
	BP_ARG_DOUBLE,		/* va_arg(double), 8 bytes */
	BP_ARG_LDOUBLE,		/* va_arg(long double), BP_LDOUBLE_BYTES bytes */
	BP_ARG_SKIP,		/* va_arg(void *) consumed, nothing stored (%n) */
};

/* Bytes a long double takes in a block: its value bits rounded up to 4. */
#if LDBL_MANT_DIG == 64
#define BP_LDOUBLE_BYTES 12	/* x87 80-bit extended */
#else
#define BP_LDOUBLE_BYTES ((sizeof(long double) + 3) & ~(size_t)3)
#endif

#define BP_PLAN_MAX_ARGS 32

struct bp_arg_slot {
	uint8_t kind;		/* enum bp_arg_kind */
	uint8_t reserved;
	int16_t precision;	/* BP_ARG_STR: copy at most this many bytes, -1 = all */
};

struct bp_arg_plan {
	uint16_t nargs;		/* slots used */
	uint16_t fixed_words;	/* words needed by every slot but the strings */
	uint16_t nstrings;	/* BP_ARG_STR and BP_ARG_STR_STAR slots */
	uint16_t reserved;
	struct bp_arg_slot slot[BP_PLAN_MAX_ARGS];
};

/*
 * Compile fmt into *plan.  Returns 0, or -1 if the format has more than
 * BP_PLAN_MAX_ARGS argument slots or a precision above INT16_MAX (the
 * caller then formats at trace time instead).
 */
BP_API int bp_format_compile(const char *fmt, struct bp_arg_plan *plan);

/* bp_vbin_printf() driven by a plan: same block, same return value. */
BP_API size_t bp_vbin_printf_plan(uint32_t *bin, size_t words,
				  const struct bp_arg_plan *plan, va_list ap);

/*
 * Internal (the bprint__ prefix): a block's %s slot written from a string
 * without a va_list, by trace_printk()'s call sites (<bprint/internal.h>)
 * and the tracer's words path.  Not API.
 */
/*
 * Copy the string s into d up to and with its NUL, at most bound bytes;
 * returns the bytes before the NUL (bound if there is none among them).  One
 * pass, 16 bytes at a time (SSE2, which every x86-64 has; 8 elsewhere):
 * each block is tested for a NUL as it was loaded and stored as tested,
 * so a string another thread changes meanwhile still gives a copy that
 * ends at its first NUL.  Nothing at or past s + bound is read.  Blocks
 * are loaded at their own alignment, but for a first one that does not
 * cross a page boundary, so a load never leaves the page of a byte it may
 * read, as glibc's strlen() does; like it, a load may take bytes past the
 * NUL, which a sanitizer (or the compiler's bounds warning) would call an
 * overflow: they are told not to look here.  d holds bound bytes.
 */
#if defined(__x86_64__)
typedef char bprint__block __attribute__((vector_size(16)));
#define BPRINT__BLOCK 16u
/* Non-zero if a byte of v is 0 (nul: a block of 0); then BPRINT__ZERO_AT() is the first one's index. */
#define BPRINT__ZEROS(v) ((unsigned)__builtin_ia32_pmovmskb128((bprint__block)((v) == nul)))
#define BPRINT__ZERO_AT(z) ((size_t)__builtin_ctzll(z))
/* The block as loaded, in a register: what is stored is what is tested
 * (the compiler may not load it again for one or the other). */
#define BPRINT__PIN(v) __asm__("" : "+x"(v))
#else
typedef uint64_t bprint__block;
#define BPRINT__BLOCK 8u
#define BPRINT__ZEROS(v) (((v) - 0x0101010101010101ull) & ~(v) & 0x8080808080808080ull)
#define BPRINT__ZERO_AT(z) ((size_t)__builtin_ctzll(z) / 8u)	/* the lowest flag is exact */
#define BPRINT__PIN(v) __asm__("" : "+r"(v))
#endif

/* One byte of s, read once. */
__attribute__((no_sanitize("address", "thread")))
static inline unsigned char bprint__byte(const char *s)
{
	return *(const volatile unsigned char *)s;
}

__attribute__((no_sanitize("address", "thread")))
static inline size_t bprint__copy_string(unsigned char *d, const char *s, size_t bound)
{
	const size_t k = BPRINT__BLOCK;
	const bprint__block nul = { 0 };
	size_t i = 0;
	bprint__block v;
	uint64_t zeros;

	(void)nul;	/* only SSE2 compares with it */
	/* The compiler must not judge the block loads by the object s points to. */
	__asm__("" : "+r"(s));
	if (bound >= k && ((uintptr_t)s & 4095u) <= 4096u - k) {
		/* a first block as it lies, not crossing its page; then on from
		 * the next boundary (a byte read twice is tested twice) */
		__builtin_memcpy(&v, s, k);
		BPRINT__PIN(v);
		__builtin_memcpy(d, &v, k);
		if ((zeros = BPRINT__ZEROS(v)))
			return BPRINT__ZERO_AT(zeros);
		i = k - ((uintptr_t)s & (k - 1u));
	}
	for (; i < bound && ((uintptr_t)(s + i) & (k - 1u)); i++) {
		if (!(d[i] = bprint__byte(s + i)))
			return i;
	}
	for (; i + k <= bound; i += k) {
		__builtin_memcpy(&v, s + i, k);
		BPRINT__PIN(v);
		__builtin_memcpy(d + i, &v, k);
		if ((zeros = BPRINT__ZEROS(v)))
			return i + BPRINT__ZERO_AT(zeros);
	}
	for (; i < bound; i++) {
		if (!(d[i] = bprint__byte(s + i)))
			return i;
	}
	return bound;
}

/*
 * The same, d holding room bytes (room > bound, bound a %.*s's precision):
 * a bound shorter than a block whose block does not cross its page, one
 * load; the block is stored with its bytes from the bound's or the NUL's
 * on cleared, so that nothing of the string past what the record takes
 * lands in the ring.  Else bprint__copy_string().
 */
__attribute__((no_sanitize("address", "thread")))
static inline size_t bprint__copy_string_room(unsigned char *d, size_t room, const char *s,
					      size_t bound)
{
#if defined(__x86_64__)
	if (bound < BPRINT__BLOCK && room >= BPRINT__BLOCK &&
	    ((uintptr_t)s & 4095u) <= 4096u - BPRINT__BLOCK) {
		const bprint__block nul = { 0 };
		const bprint__block index = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
		bprint__block v, keep;
		uint64_t zeros;
		size_t n = bound;

		__asm__("" : "+r"(s));
		__builtin_memcpy(&v, s, BPRINT__BLOCK);
		BPRINT__PIN(v);
		if ((zeros = BPRINT__ZEROS(v)) && BPRINT__ZERO_AT(zeros) < n)
			n = BPRINT__ZERO_AT(zeros);
		keep = (bprint__block)(index < (char)n);
		v &= keep;
		__builtin_memcpy(d, &v, BPRINT__BLOCK);
		return n;
	}
#else
	(void)room;
#endif
	return bprint__copy_string(d, s, bound);
}

/*
 * One %s into d, in at most room bytes: the string, then its NUL; a NULL
 * as the engine prints it (its precision is none: "(null)").  Returns
 * the bytes taken, the NUL included, or 0 if they do not fit.
 */
__attribute__((always_inline))
static inline uint32_t bprint__put_string(unsigned char *d, uint32_t room, const char *s)
{
	size_t n;

	if (!s) {
		if (room < sizeof("(null)"))
			return 0;
		__builtin_memcpy(d, "(null)", sizeof("(null)"));
		return sizeof("(null)");
	}
	n = bprint__copy_string(d, s, room);
	if (n == room)
		return 0;
	return (uint32_t)n + 1u;	/* the copy took the NUL along */
}

/*
 * The same for a %s of precision prec (-1: none): at most prec bytes of
 * s, then a NUL.  A NULL s with a precision returns 0 here: the engine's
 * text for it depends on the precision, which the words path knows.
 */
__attribute__((always_inline))
static inline uint32_t bprint__put_string_prec(unsigned char *d, uint32_t room, const char *s,
					       int32_t prec)
{
	size_t n;

	if (prec < 0)
		return bprint__put_string(d, room, s);
	if (!s || room == 0)
		return 0;
	if ((uint32_t)prec < room) {
		n = bprint__copy_string_room(d, room, s, (size_t)prec);
	} else {
		n = bprint__copy_string(d, s, room);
		if (n == room)
			return 0;	/* no room for its NUL */
	}
	d[n] = '\0';
	return (uint32_t)n + 1u;
}

/* The public structs' layouts, pinned (LP64 for the one with pointers). */
#ifndef __cplusplus
_Static_assert(sizeof(struct bp_printf_spec) == 16, "bp_printf_spec is 16 bytes");
_Static_assert(__builtin_offsetof(struct bp_printf_spec, conv) == 4, "bp_printf_spec.conv");
_Static_assert(__builtin_offsetof(struct bp_printf_spec, field_width) == 8,
	       "bp_printf_spec.field_width");
_Static_assert(__builtin_offsetof(struct bp_printf_spec, precision) == 12,
	       "bp_printf_spec.precision");
_Static_assert(sizeof(struct bp_arg_slot) == 4, "bp_arg_slot is 4 bytes");
_Static_assert(sizeof(struct bp_arg_plan) == 8 + 4 * BP_PLAN_MAX_ARGS, "bp_arg_plan");
_Static_assert(__builtin_offsetof(struct bp_arg_plan, slot) == 8, "bp_arg_plan.slot");
#if UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(struct bp_pointer_hook) == 24, "bp_pointer_hook");
_Static_assert(__builtin_offsetof(struct bp_pointer_hook, ctx) == 16, "bp_pointer_hook.ctx");
#endif
#endif

#ifdef __cplusplus
}
#endif
#endif /* BPRINT_FORMAT_H */
