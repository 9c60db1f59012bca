/*
 * bprint.h - trace_printk() for user space.
 *
 *   trace_printk("This is the timer interrupt: %llu", jiffies);
 *
 * costs a few nanoseconds: the call stores a reference to its call site and
 * the raw arguments in the calling thread's ring buffer; the text is made
 * only when the trace is read (bprint_dump(), a reader, or the bprint
 * command on a trace file).  Safe in signal handlers and in hot loops.
 *
 * Each trace_printk() expands to a static struct bprint_site in the ELF
 * section "bprint_sites"; a constructor in every object that includes this
 * header registers the section, so `bprint formats` lists every call site,
 * hit or not, including those of libraries loaded later with dlopen().  The
 * registry copies what it needs, so a dlclose()d library's records still
 * decode.
 *
 * Configuration is by environment variable, read once at start-up
 * (README.md lists them): BPRINT_BUFFER_SIZE, BPRINT_MODE, BPRINT_CLOCK,
 * BPRINT_DUMP, BPRINT_FILTER, BPRINT_DISABLE.
 *
 * Which calls need external locking:
 *   trace_printk, trace_puts, bprint_on/off, site enable/disable: none.
 *   bprint_read_begin/next/end (consuming): one consumer at a time; the
 *     library serialises consumers with a mutex.
 *   bprint_snapshot*: none; any number at once.
 */
#ifndef BPRINT_H
#define BPRINT_H

#include <bprint/format.h>

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One call site.  Lives in the "bprint_sites" section; one array per ELF object. */
#define BPRINT_SITE_MAGIC 0x42507331u	/* "1sPB" */

struct bprint_site {
	uint32_t magic;			/* BPRINT_SITE_MAGIC: lets a walker skip padding */
	uint32_t line;
	const char *format;		/* NULL if the format is not a compile-time constant */
	const char *file;
	const char *func;
	const struct bp_arg_plan *plan;	/* set when registered; NULL: format at trace time */
	uint32_t id;			/* 0 until registered */
	volatile uint8_t enabled;	/* the one branch a disabled site costs */
	uint8_t kind;			/* enum bprint_site_kind */
	uint16_t flags;			/* BPRINT_SITE_WORDS, set at registration */
} __attribute__((aligned(8)));

enum bprint_site_kind {
	BPRINT_SITE_PRINTK = 0,		/* trace_printk() */
	BPRINT_SITE_PUTS = 1,		/* trace_puts(): the "format" is the text */
};

/* The out-of-line halves of trace_printk() and trace_puts().  Use the macros. */
BP_API void bprint_printk(struct bprint_site *site, const char *fmt, ...) BP_PRINTF(2, 3);
BP_API void bprint_puts(struct bprint_site *site, const char *str);
BP_API void bprint_register_sites(struct bprint_site *start, struct bprint_site *stop);
BP_API void bprint_unregister_sites(struct bprint_site *start, struct bprint_site *stop);

#define BPRINT__SITE(name, fmt, k)						\
	static struct bprint_site name						\
		__attribute__((section("bprint_sites"), used)) = {		\
		BPRINT_SITE_MAGIC, __LINE__,					\
		__builtin_constant_p(fmt) ? (fmt) : (const char *)0,		\
		__FILE__, __func__, (const struct bp_arg_plan *)0, 0, 1, k, 0 }

/*
 * trace_printk(fmt, ...): record a printf-style message.  The format is
 * checked by the compiler.  A format that is not a string literal still
 * works: it is formatted at trace time into a text record (slower).
 *
 * In C, arguments of a format with only 4- and 8-byte scalars (integers,
 * pointers, doubles) are handed over as an array of 64-bit words, which
 * spares the hot path va_arg and its register spills; anything else (%s,
 * %c, long double, C++) goes through the variadic bprint_printk().
 */
#if defined(__cplusplus) || defined(BPRINT_NO_FAST_ARGS)
#define trace_printk(fmt, ...)							\
	do {									\
		BPRINT__SITE(bprint__site, fmt, BPRINT_SITE_PRINTK);		\
		if (__builtin_expect(bprint__site.enabled, 1))			\
			bprint_printk(&bprint__site, fmt, ##__VA_ARGS__);	\
	} while (0)
#else
#define trace_printk(fmt, ...)							\
	do {									\
		BPRINT__SITE(bprint__site, fmt, BPRINT_SITE_PRINTK);		\
		if (__builtin_expect(bprint__site.enabled, 1)) {		\
			if (__builtin_expect(bprint__site.flags & BPRINT_SITE_WORDS, 1)) { \
				const uint64_t bprint__words[] = { 0		\
					BPRINT__MAP(fmt, ##__VA_ARGS__) };	\
				bprint_printk_words(&bprint__site, bprint__words + 1); \
			} else {						\
				bprint_printk(&bprint__site, fmt, ##__VA_ARGS__); \
			}							\
		}								\
	} while (0)
#endif

/* site->flags: this site's arguments may come as 64-bit words (internal). */
#define BPRINT_SITE_WORDS 1u

/* Arguments as words, in format order; only for sites with BPRINT_SITE_WORDS. */
BP_API void bprint_printk_words(struct bprint_site *site, const uint64_t *words);

static inline uint64_t bprint__double_bits(double d)
{
	uint64_t u;

	__builtin_memcpy(&u, &d, sizeof(u));
	return u;
}

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

/* ", WORD(a1), WORD(a2), ..." of the arguments after fmt: up to 32, nothing for none. */
/*
 * (The fmt parameter is only there so that ", ##__VA_ARGS__" may drop its
 * comma in ISO C mode too, which GCC refuses for a macro with no named
 * parameter.)
 */
#define BPRINT__MAP(fmt, ...) BPRINT__MAP_N(BPRINT__NARGS(fmt, ##__VA_ARGS__), ##__VA_ARGS__)
#define BPRINT__NARGS(fmt, ...) BPRINT__NARGS_(fmt, ##__VA_ARGS__, \
	64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, \
	47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, \
	30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, \
	13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define BPRINT__NARGS_(_, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, \
	a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, \
	a30, a31, a32, a33, a34, a35, a36, a37, a38, a39, a40, a41, a42, a43, \
	a44, a45, a46, a47, a48, a49, a50, a51, a52, a53, a54, a55, a56, a57, \
	a58, a59, a60, a61, a62, a63, a64, \
	n, ...) n
#define BPRINT__MAP_N(n, ...) BPRINT__CAT(BPRINT__MAP_, n)(__VA_ARGS__)
#define BPRINT__CAT(a, b) BPRINT__CAT_(a, b)
#define BPRINT__CAT_(a, b) a##b
#define BPRINT__MAP_0()
#define BPRINT__MAP_1(a) , BPRINT__WORD(a)
#define BPRINT__MAP_2(a, ...) , BPRINT__WORD(a) BPRINT__MAP_1(__VA_ARGS__)
#define BPRINT__MAP_3(a, ...) , BPRINT__WORD(a) BPRINT__MAP_2(__VA_ARGS__)
#define BPRINT__MAP_4(a, ...) , BPRINT__WORD(a) BPRINT__MAP_3(__VA_ARGS__)
#define BPRINT__MAP_5(a, ...) , BPRINT__WORD(a) BPRINT__MAP_4(__VA_ARGS__)
#define BPRINT__MAP_6(a, ...) , BPRINT__WORD(a) BPRINT__MAP_5(__VA_ARGS__)
#define BPRINT__MAP_7(a, ...) , BPRINT__WORD(a) BPRINT__MAP_6(__VA_ARGS__)
#define BPRINT__MAP_8(a, ...) , BPRINT__WORD(a) BPRINT__MAP_7(__VA_ARGS__)
#define BPRINT__MAP_9(a, ...) , BPRINT__WORD(a) BPRINT__MAP_8(__VA_ARGS__)
#define BPRINT__MAP_10(a, ...) , BPRINT__WORD(a) BPRINT__MAP_9(__VA_ARGS__)
#define BPRINT__MAP_11(a, ...) , BPRINT__WORD(a) BPRINT__MAP_10(__VA_ARGS__)
#define BPRINT__MAP_12(a, ...) , BPRINT__WORD(a) BPRINT__MAP_11(__VA_ARGS__)
#define BPRINT__MAP_13(a, ...) , BPRINT__WORD(a) BPRINT__MAP_12(__VA_ARGS__)
#define BPRINT__MAP_14(a, ...) , BPRINT__WORD(a) BPRINT__MAP_13(__VA_ARGS__)
#define BPRINT__MAP_15(a, ...) , BPRINT__WORD(a) BPRINT__MAP_14(__VA_ARGS__)
#define BPRINT__MAP_16(a, ...) , BPRINT__WORD(a) BPRINT__MAP_15(__VA_ARGS__)
#define BPRINT__MAP_17(a, ...) , BPRINT__WORD(a) BPRINT__MAP_16(__VA_ARGS__)
#define BPRINT__MAP_18(a, ...) , BPRINT__WORD(a) BPRINT__MAP_17(__VA_ARGS__)
#define BPRINT__MAP_19(a, ...) , BPRINT__WORD(a) BPRINT__MAP_18(__VA_ARGS__)
#define BPRINT__MAP_20(a, ...) , BPRINT__WORD(a) BPRINT__MAP_19(__VA_ARGS__)
#define BPRINT__MAP_21(a, ...) , BPRINT__WORD(a) BPRINT__MAP_20(__VA_ARGS__)
#define BPRINT__MAP_22(a, ...) , BPRINT__WORD(a) BPRINT__MAP_21(__VA_ARGS__)
#define BPRINT__MAP_23(a, ...) , BPRINT__WORD(a) BPRINT__MAP_22(__VA_ARGS__)
#define BPRINT__MAP_24(a, ...) , BPRINT__WORD(a) BPRINT__MAP_23(__VA_ARGS__)
#define BPRINT__MAP_25(a, ...) , BPRINT__WORD(a) BPRINT__MAP_24(__VA_ARGS__)
#define BPRINT__MAP_26(a, ...) , BPRINT__WORD(a) BPRINT__MAP_25(__VA_ARGS__)
#define BPRINT__MAP_27(a, ...) , BPRINT__WORD(a) BPRINT__MAP_26(__VA_ARGS__)
#define BPRINT__MAP_28(a, ...) , BPRINT__WORD(a) BPRINT__MAP_27(__VA_ARGS__)
#define BPRINT__MAP_29(a, ...) , BPRINT__WORD(a) BPRINT__MAP_28(__VA_ARGS__)
#define BPRINT__MAP_30(a, ...) , BPRINT__WORD(a) BPRINT__MAP_29(__VA_ARGS__)
#define BPRINT__MAP_31(a, ...) , BPRINT__WORD(a) BPRINT__MAP_30(__VA_ARGS__)
#define BPRINT__MAP_32(a, ...) , BPRINT__WORD(a) BPRINT__MAP_31(__VA_ARGS__)
/* More than 32 arguments: no plan, so never the words path; no words. */
#define BPRINT__MAP_33(...)
#define BPRINT__MAP_34(...)
#define BPRINT__MAP_35(...)
#define BPRINT__MAP_36(...)
#define BPRINT__MAP_37(...)
#define BPRINT__MAP_38(...)
#define BPRINT__MAP_39(...)
#define BPRINT__MAP_40(...)
#define BPRINT__MAP_41(...)
#define BPRINT__MAP_42(...)
#define BPRINT__MAP_43(...)
#define BPRINT__MAP_44(...)
#define BPRINT__MAP_45(...)
#define BPRINT__MAP_46(...)
#define BPRINT__MAP_47(...)
#define BPRINT__MAP_48(...)
#define BPRINT__MAP_49(...)
#define BPRINT__MAP_50(...)
#define BPRINT__MAP_51(...)
#define BPRINT__MAP_52(...)
#define BPRINT__MAP_53(...)
#define BPRINT__MAP_54(...)
#define BPRINT__MAP_55(...)
#define BPRINT__MAP_56(...)
#define BPRINT__MAP_57(...)
#define BPRINT__MAP_58(...)
#define BPRINT__MAP_59(...)
#define BPRINT__MAP_60(...)
#define BPRINT__MAP_61(...)
#define BPRINT__MAP_62(...)
#define BPRINT__MAP_63(...)
#define BPRINT__MAP_64(...)

/* trace_puts(str): record a string; a literal costs no copy at all. */
#define trace_puts(str)								\
	do {									\
		BPRINT__SITE(bprint__site, str, BPRINT_SITE_PUTS);		\
		if (__builtin_expect(bprint__site.enabled, 1))			\
			bprint_puts(&bprint__site, str);			\
	} while (0)

/* Register this object's call sites at load time (once per translation unit; repeats are no-ops). */
extern struct bprint_site __start_bprint_sites[] __attribute__((weak, visibility("hidden")));
extern struct bprint_site __stop_bprint_sites[] __attribute__((weak, visibility("hidden")));
__attribute__((constructor, used)) static void bprint__register_object(void)
{
	if (__start_bprint_sites)
		bprint_register_sites(__start_bprint_sites, __stop_bprint_sites);
}
/* At dlclose: the registry keeps its copies but stops flipping these sites. */
__attribute__((destructor, used)) static void bprint__unregister_object(void)
{
	if (__start_bprint_sites)
		bprint_unregister_sites(__start_bprint_sites, __stop_bprint_sites);
}

/* ---- Control ---- */

/* Global switch: tracing is on at start unless BPRINT_DISABLE=1. */
BP_API void bprint_on(void);
BP_API void bprint_off(void);
BP_API int bprint_is_on(void);

/*
 * Per-site switches.  pattern is a glob (fnmatch) matched against the
 * site's file ("file:main.c", "file:net_*.c"), file and line
 * ("line:main.c:42"), function ("func:parse_*") or format ("fmt:*timer*").
 * A bare pattern matches a function.  Returns the number of sites changed.
 * Sites registered later (dlopen) get the filters in force then.
 * BPRINT_FILTER holds a comma-separated list of such patterns, each
 * prefixed by '-' to disable or '+' (or nothing) to enable; if its first
 * entry enables, every other site starts disabled.
 */
BP_API int bprint_enable(const char *pattern);
BP_API int bprint_disable(const char *pattern);

/* ---- Reading ---- */

enum bprint_output {
	BPRINT_OUTPUT_FTRACE = 0,	/* "comm-tid [cpu] seconds.micros: function: message" */
	BPRINT_OUTPUT_RAW,		/* "tid cpu ns site-id words..." */
	BPRINT_OUTPUT_MSG,		/* the message alone */
};

/* A record read back, formatted. */
struct bprint_event {
	uint64_t ns;			/* in the trace clock's nanoseconds */
	int32_t tid;
	int32_t cpu;			/* -1 if unknown */
	const char *comm;		/* the thread's name */
	const struct bprint_site *site;	/* the registry's copy: format, file, line, func */
	const char *message;		/* formatted, NUL-terminated */
	size_t message_len;
};

/*
 * Print every thread's records, oldest first, without consuming them (the
 * kernel's "trace" file), with a '#' header.  Returns the number of records
 * printed, or -1 with errno set.
 */
BP_API long bprint_dump(FILE *out);
BP_API long bprint_dump_fmt(FILE *out, enum bprint_output how);

/*
 * Consuming reader (the kernel's "trace_pipe"): each record is returned
 * once.  bprint_read_begin() takes the consumer lock; bprint_read_next()
 * fills *ev (valid until the next call) and returns 1, or 0 when every
 * buffer is drained for now; bprint_read_end() releases the lock.
 */
struct bprint_reader;
BP_API struct bprint_reader *bprint_read_begin(void);
BP_API int bprint_read_next(struct bprint_reader *r, struct bprint_event *ev);
BP_API void bprint_read_end(struct bprint_reader *r);

/* A snapshot reader: the same, but consumes nothing; any number at once. */
BP_API struct bprint_reader *bprint_snapshot_begin(void);

/* Format an event as one line (no newline) in the given form; snprintf semantics. */
BP_API int bprint_format_event(char *buf, size_t size, const struct bprint_event *ev,
			       enum bprint_output how);

/* ---- Counters ---- */

struct bprint_thread_stats {
	int32_t tid;
	char comm[16];
	int alive;
	uint64_t written;		/* records stored */
	uint64_t discarded;		/* dropped: buffer full in discard mode, or nested too deep */
	uint64_t overwritten;		/* lost to the flight recorder before a consumer read them */
	uint64_t read;			/* returned by the consumer */
};

/*
 * Fill up to max entries, one per thread that ever traced (dead threads
 * included until reclaimed).  Returns the number of threads.
 */
BP_API int bprint_stats(struct bprint_thread_stats *out, int max);

#ifdef __cplusplus
}
#endif
#endif /* BPRINT_H */
