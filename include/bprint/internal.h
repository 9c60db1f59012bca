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

#define BPRINT__LAYOUT 4
#define BPRINT__SITE_MAGIC 0x42507331u	/* "1sPB" */
#define BPRINT__SITE_REFUSED 0xffffffffu	/* site->id of a site of another layout */
#define BPRINT__MAX_ARGS 64		/* arguments after the format (README, "Tracing API") */

/*
 * One call site.  Lives in the "bprint_sites" section; one array per ELF
 * object.  The head (magic to file) is the same in every layout: it is all
 * a library reads of a site compiled against another layout.  Readers may
 * read file, line, func and format of the registry's copies
 * (struct bprint_event's site); the rest is the library's.
 *
 * What the compiler saw of the arguments (never evaluating them), one bit
 * per argument, bit 0 the last one: argsig, it takes 8 bytes as varargs
 * pass it (LP64: a long, a pointer, a double); argchar, it is a char (if
 * 4 bytes) or a pointer to char (if 8); argfp, it is floating point (a
 * double if 8 bytes, a long double if not).  The out-of-line half reads
 * the arguments of a call by these, and only those the call passed.
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
	/* layout 4 */
	const char *format;		/* NULL if the format is not a compile-time constant */
	const char *func;		/* C: __func__; C++: __PRETTY_FUNCTION__, which the
					 * registry's copy holds as "ns::Class::method" */
	const struct bp_arg_plan *plan;	/* set when registered; NULL: format at trace time */
	uint32_t head;			/* BPRINT__SITE_FAST: the record's head word */
	uint16_t flags;			/* BPRINT__SITE_WORDS, _FAST, _CHARS, set at registration */
	uint8_t nargs;			/* arguments after the format, as compiled; 255: unknown */
	uint8_t argstar;		/* set at registration for BPRINT__SITE_CHARS: bit i
					 * set = the i-th argument from the last (of the last
					 * 8) is a %.*s string, its precision the 4-byte
					 * argument before it */
	uint64_t argsig;		/* compile-time argument types (above) */
	uint64_t argchar;
	uint64_t argfp;
} __attribute__((aligned(8)));

enum bprint__site_kind {
	BPRINT__SITE_PRINTK = 0,	/* trace_printk() */
	BPRINT__SITE_PUTS = 1,		/* trace_puts(): the "format" is the text */
};

/*
 * The out-of-line halves of trace_printk() and trace_puts() with the
 * arguments as they are: bprint__call_fmt() (a long double's, and the
 * format check of every call site), bprint__call() (call sites before
 * the words calls, below).  bprint__check() is never called: the format
 * check of those earlier sites (in sizeof, unevaluated).
 * bprint__printk() and bprint__printk_words() are the entries of earlier
 * layouts' call sites, kept so that such a site is refused, not missed.
 */
BP_API void bprint__call(struct bprint_site *site, ...);
BP_API void bprint__call_fmt(struct bprint_site *site, const char *fmt, ...) BP_PRINTF(2, 3);
BP_API int bprint__check(const char *fmt, ...) BP_PRINTF(1, 2);
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

#if defined(__cplusplus)
#define BPRINT__FUNC __PRETTY_FUNCTION__
#define BPRINT__STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define BPRINT__FUNC __func__
#define BPRINT__STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

/* Written tight: a program has thousands of sites, and the compiler reads each. */
/* (a line of it starts at the margin: a tab there would be a space in every site) */
typedef struct bprint_site bprint__S;
#define BPRINT__SITE(name, fmt, k, n, ...)					\
static bprint__S name __attribute__((BPRINT__SECTION,used))=\
{0x42507331u,BPRINT__LAYOUT,1,k,__LINE__,0,__FILE__,__builtin_constant_p(fmt)?fmt:0,\
BPRINT__FUNC,0,0,0,n,0,__VA_ARGS__}

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

/*
 * trace_printk(fmt, ...) of <bprint.h>.  What a call site expands to is
 * kept small, because a program has thousands and the compiler reads and
 * optimises every one: the argument count n is counted once, each
 * argument's type is examined once, into an enum constant of kind bits
 * (BPRINT__KIND: its slot, whether it is a char or a pointer to one,
 * floating point) that the site's masks are made of, and the site is its
 * static struct bprint_site, one load and branch on its switch, and one
 * call: bprint__wN(site, words..., fmt), each argument evaluated once,
 * into its word (BPRINT__WORD).  What a kind does (the record's open,
 * its stores, its close, and every path out of line) is compiled once,
 * in the library (src/trace/call.c), from the site's masks and enabled.
 * A site with a long double, which no word carries, calls
 * bprint__call_fmt() with its arguments as they are; that call, whose
 * prototype has the printf format attribute, is in every site's text
 * (in the branch its constants do not take) as its format check.  The
 * call's text is written tight: its whitespace is what the preprocessor
 * hands the compiler, once a site (so it has no spaces: a line
 * break in it is one).  The load of bprint__s.enabled, the site's, is an
 * acquire: registration's head and flags come with the value.
 */
/*
 * Up to five arguments, the common case, picked by a window of seven
 * (BPRINT__PICK7): a count it holds is a BPRINT__Qn, which expands to
 * "~,BPRINT__Rn" (BPRINT__MANY for six), and BPRINT__SECOND() takes its
 * second part; past six, the window's last is one of the program's own
 * arguments, which has no second part, and BPRINT__SECOND() takes
 * BPRINT__MANY: the 72-entry ladder, for six to 64 and the assertion.
 */
#define BPRINT__PRINTK(...) BPRINT__PICK7(__VA_ARGS__,BPRINT__Q6,BPRINT__Q5,BPRINT__Q4,BPRINT__Q3,BPRINT__Q2,BPRINT__Q1,BPRINT__Q0,0)(__VA_ARGS__)
#define BPRINT__PICK7(_, a1, a2, a3, a4, a5, a6, m, ...) BPRINT__SECOND(m,BPRINT__MANY,)
#define BPRINT__SECOND(...) BPRINT__SECOND_(__VA_ARGS__)
#define BPRINT__SECOND_(x, y, ...) y
#define BPRINT__Q0 ~,BPRINT__R0
#define BPRINT__Q1 ~,BPRINT__R1
#define BPRINT__Q2 ~,BPRINT__R2
#define BPRINT__Q3 ~,BPRINT__R3
#define BPRINT__Q4 ~,BPRINT__R4
#define BPRINT__Q5 ~,BPRINT__R5
#define BPRINT__Q6 ~,BPRINT__MANY
#define BPRINT__MANY(...) BPRINT__PICK(__VA_ARGS__, BPRINT__X, BPRINT__X, BPRINT__X, BPRINT__X, BPRINT__X, BPRINT__X, BPRINT__X, BPRINT__X, BPRINT__V64, BPRINT__V63, BPRINT__V62, BPRINT__V61, BPRINT__V60, BPRINT__V59, BPRINT__V58, BPRINT__V57, BPRINT__V56, BPRINT__V55, BPRINT__V54, BPRINT__V53, BPRINT__V52, BPRINT__V51, BPRINT__V50, BPRINT__V49, BPRINT__V48, BPRINT__V47, BPRINT__V46, BPRINT__V45, BPRINT__V44, BPRINT__V43, BPRINT__V42, BPRINT__V41, BPRINT__V40, BPRINT__V39, BPRINT__V38, BPRINT__V37, BPRINT__V36, BPRINT__V35, BPRINT__V34, BPRINT__V33, BPRINT__V32, BPRINT__V31, BPRINT__V30, BPRINT__V29, BPRINT__V28, BPRINT__V27, BPRINT__V26, BPRINT__V25, BPRINT__V24, BPRINT__V23, BPRINT__V22, BPRINT__V21, BPRINT__V20, BPRINT__V19, BPRINT__V18, BPRINT__V17, BPRINT__V16, BPRINT__V15, BPRINT__V14, BPRINT__V13, BPRINT__V12, BPRINT__V11, BPRINT__V10, BPRINT__V9, BPRINT__V8, BPRINT__V7, BPRINT__V6, BPRINT__R5, BPRINT__R4, BPRINT__R3, BPRINT__R2, BPRINT__R1, BPRINT__R0, 0)(__VA_ARGS__)
/*
 * Up to five arguments: each arity its macro, written out whole, so that
 * a call expands one macro of its own (BPRINT__Rn) and no other with
 * arguments: clang pays for every macro a token passes through (the
 * expansions' source locations, which each diagnostic check of the
 * site's expressions looks up), about 10 % of a site's front end when
 * these were made of a dozen smaller ones (docs/performance.md, "Call
 * sites under clang: fewer macros, fewer fields").  What each part is:
 *   - the site's constants, the kind of each argument (bprint__K, K
 *     counted from the last, 0) and their masks packed (bprint__m:
 *     argsig, argchar and argfp 5 bits apart): in C an enum of each
 *     argument's BPRINT__KIND and their sum (one argument: its kind is
 *     the sum); in C++ a typedef of the one bprint__sig instance of the
 *     arguments' types, which every site of those types shares (a local
 *     enum, a type of its own a site, costs g++ and clang++ several times
 *     as much), whose sg, ch and fp are the masks, already of the
 *     fields' type;
 *   - the site (BPRINT__SITE's fields);
 *   - the switch, and the long double's test (C: the masks' fp bits
 *     without their 8-byte ones; C++: bprint__k::ld) choosing the format
 *     check's call or the words' (C: BPRINT__WORD, C++: bprint__word()).
 * BPRINT__SITE and BPRINT__WORD say the same for the ladder below; the
 * C/C++ differential tests (tests/trace/tracer_cxx_calls.h) hold every
 * arity of both languages to the same records.
 */
#ifdef __cplusplus
#define BPRINT__R0(f) do{static bprint__S bprint__s __attribute__((BPRINT__SECTION,used))={0x42507331u,BPRINT__LAYOUT,1,0,__LINE__,0,__FILE__,__builtin_constant_p(f)?f:0,BPRINT__FUNC,0,0,0,0,0,0,0,0};\
if(__atomic_load_n(&bprint__s.enabled,__ATOMIC_ACQUIRE))0?bprint__call_fmt(&bprint__s,f):bprint__w0(&bprint__s,f);}while(0)
#define BPRINT__R1(f, a) do{typedef bprint__sig<decltype((a))>bprint__k;static bprint__S bprint__s __attribute__((BPRINT__SECTION,used))={0x42507331u,BPRINT__LAYOUT,1,0,__LINE__,0,__FILE__,__builtin_constant_p(f)?f:0,BPRINT__FUNC,0,0,0,1,0,bprint__k::sg,bprint__k::ch,bprint__k::fp};\
if(__atomic_load_n(&bprint__s.enabled,__ATOMIC_ACQUIRE))bprint__k::ld?bprint__call_fmt(&bprint__s,f,a):bprint__w1(&bprint__s,bprint__word(a),f);}while(0)
#define BPRINT__R2(f, a, b) do{typedef bprint__sig<decltype((a)),decltype((b))>bprint__k;static bprint__S bprint__s __attribute__((BPRINT__SECTION,used))={0x42507331u,BPRINT__LAYOUT,1,0,__LINE__,0,__FILE__,__builtin_constant_p(f)?f:0,BPRINT__FUNC,0,0,0,2,0,bprint__k::sg,bprint__k::ch,bprint__k::fp};\
if(__atomic_load_n(&bprint__s.enabled,__ATOMIC_ACQUIRE))bprint__k::ld?bprint__call_fmt(&bprint__s,f,a,b):bprint__w2(&bprint__s,bprint__word(a),bprint__word(b),f);}while(0)
#define BPRINT__R3(f, a, b, c) do{typedef bprint__sig<decltype((a)),decltype((b)),decltype((c))>bprint__k;static bprint__S bprint__s __attribute__((BPRINT__SECTION,used))={0x42507331u,BPRINT__LAYOUT,1,0,__LINE__,0,__FILE__,__builtin_constant_p(f)?f:0,BPRINT__FUNC,0,0,0,3,0,bprint__k::sg,bprint__k::ch,bprint__k::fp};\
if(__atomic_load_n(&bprint__s.enabled,__ATOMIC_ACQUIRE))bprint__k::ld?bprint__call_fmt(&bprint__s,f,a,b,c):bprint__w3(&bprint__s,bprint__word(a),bprint__word(b),bprint__word(c),f);}while(0)
#define BPRINT__R4(f, a, b, c, d) do{typedef bprint__sig<decltype((a)),decltype((b)),decltype((c)),decltype((d))>bprint__k;static bprint__S bprint__s __attribute__((BPRINT__SECTION,used))={0x42507331u,BPRINT__LAYOUT,1,0,__LINE__,0,__FILE__,__builtin_constant_p(f)?f:0,BPRINT__FUNC,0,0,0,4,0,bprint__k::sg,bprint__k::ch,bprint__k::fp};\
if(__atomic_load_n(&bprint__s.enabled,__ATOMIC_ACQUIRE))bprint__k::ld?bprint__call_fmt(&bprint__s,f,a,b,c,d):bprint__w4(&bprint__s,bprint__word(a),bprint__word(b),bprint__word(c),bprint__word(d),f);}while(0)
#define BPRINT__R5(f, a, b, c, d, e) do{typedef bprint__sig<decltype((a)),decltype((b)),decltype((c)),decltype((d)),decltype((e))>bprint__k;static bprint__S bprint__s __attribute__((BPRINT__SECTION,used))={0x42507331u,BPRINT__LAYOUT,1,0,__LINE__,0,__FILE__,__builtin_constant_p(f)?f:0,BPRINT__FUNC,0,0,0,5,0,bprint__k::sg,bprint__k::ch,bprint__k::fp};\
if(__atomic_load_n(&bprint__s.enabled,__ATOMIC_ACQUIRE))bprint__k::ld?bprint__call_fmt(&bprint__s,f,a,b,c,d,e):bprint__w5(&bprint__s,bprint__word(a),bprint__word(b),bprint__word(c),bprint__word(d),bprint__word(e),f);}while(0)
#else
#define BPRINT__R0(f) do{static bprint__S bprint__s __attribute__((BPRINT__SECTION,used))={0x42507331u,BPRINT__LAYOUT,1,0,__LINE__,0,__FILE__,__builtin_constant_p(f)?f:0,BPRINT__FUNC,0,0,0,0,0,0,0,0};\
if(__atomic_load_n(&bprint__s.enabled,__ATOMIC_ACQUIRE))0?bprint__call_fmt(&bprint__s,f):bprint__w0(&bprint__s,f);}while(0)
#define BPRINT__R1(f, a) do{enum{bprint__0=_Generic(a,char:32,float:1025,double:1025,long double:1024,char*:33,const char*:33,default:sizeof(1?a:(a))>4)};static bprint__S bprint__s __attribute__((BPRINT__SECTION,used))={0x42507331u,BPRINT__LAYOUT,1,0,__LINE__,0,__FILE__,__builtin_constant_p(f)?f:0,BPRINT__FUNC,0,0,0,1,0,bprint__0&31,bprint__0>>5&31,bprint__0>>10};\
if(__atomic_load_n(&bprint__s.enabled,__ATOMIC_ACQUIRE))bprint__0>>10&~bprint__0?bprint__call_fmt(&bprint__s,f,a):bprint__w1(&bprint__s,(bprint__0>1024?bprint__d(__builtin_choose_expr(bprint__0>1024,a,0.)):(uint64_t)((void)0,a)),f);}while(0)
#define BPRINT__R2(f, a, b) do{enum{bprint__1=_Generic(a,char:32,float:1025,double:1025,long double:1024,char*:33,const char*:33,default:sizeof(1?a:(a))>4),bprint__0=_Generic(b,char:32,float:1025,double:1025,long double:1024,char*:33,const char*:33,default:sizeof(1?b:(b))>4),bprint__m=bprint__1<<1|bprint__0};static bprint__S bprint__s __attribute__((BPRINT__SECTION,used))={0x42507331u,BPRINT__LAYOUT,1,0,__LINE__,0,__FILE__,__builtin_constant_p(f)?f:0,BPRINT__FUNC,0,0,0,2,0,bprint__m&31,bprint__m>>5&31,bprint__m>>10};\
if(__atomic_load_n(&bprint__s.enabled,__ATOMIC_ACQUIRE))bprint__m>>10&~bprint__m?bprint__call_fmt(&bprint__s,f,a,b):bprint__w2(&bprint__s,(bprint__1>1024?bprint__d(__builtin_choose_expr(bprint__1>1024,a,0.)):(uint64_t)((void)0,a)),(bprint__0>1024?bprint__d(__builtin_choose_expr(bprint__0>1024,b,0.)):(uint64_t)((void)0,b)),f);}while(0)
#define BPRINT__R3(f, a, b, c) do{enum{bprint__2=_Generic(a,char:32,float:1025,double:1025,long double:1024,char*:33,const char*:33,default:sizeof(1?a:(a))>4),bprint__1=_Generic(b,char:32,float:1025,double:1025,long double:1024,char*:33,const char*:33,default:sizeof(1?b:(b))>4),bprint__0=_Generic(c,char:32,float:1025,double:1025,long double:1024,char*:33,const char*:33,default:sizeof(1?c:(c))>4),bprint__m=bprint__2<<2|bprint__1<<1|bprint__0};static bprint__S bprint__s __attribute__((BPRINT__SECTION,used))={0x42507331u,BPRINT__LAYOUT,1,0,__LINE__,0,__FILE__,__builtin_constant_p(f)?f:0,BPRINT__FUNC,0,0,0,3,0,bprint__m&31,bprint__m>>5&31,bprint__m>>10};\
if(__atomic_load_n(&bprint__s.enabled,__ATOMIC_ACQUIRE))bprint__m>>10&~bprint__m?bprint__call_fmt(&bprint__s,f,a,b,c):bprint__w3(&bprint__s,(bprint__2>1024?bprint__d(__builtin_choose_expr(bprint__2>1024,a,0.)):(uint64_t)((void)0,a)),(bprint__1>1024?bprint__d(__builtin_choose_expr(bprint__1>1024,b,0.)):(uint64_t)((void)0,b)),(bprint__0>1024?bprint__d(__builtin_choose_expr(bprint__0>1024,c,0.)):(uint64_t)((void)0,c)),f);}while(0)
#define BPRINT__R4(f, a, b, c, d) do{enum{bprint__3=_Generic(a,char:32,float:1025,double:1025,long double:1024,char*:33,const char*:33,default:sizeof(1?a:(a))>4),bprint__2=_Generic(b,char:32,float:1025,double:1025,long double:1024,char*:33,const char*:33,default:sizeof(1?b:(b))>4),bprint__1=_Generic(c,char:32,float:1025,double:1025,long double:1024,char*:33,const char*:33,default:sizeof(1?c:(c))>4),bprint__0=_Generic(d,char:32,float:1025,double:1025,long double:1024,char*:33,const char*:33,default:sizeof(1?d:(d))>4),bprint__m=bprint__3<<3|bprint__2<<2|bprint__1<<1|bprint__0};static bprint__S bprint__s __attribute__((BPRINT__SECTION,used))={0x42507331u,BPRINT__LAYOUT,1,0,__LINE__,0,__FILE__,__builtin_constant_p(f)?f:0,BPRINT__FUNC,0,0,0,4,0,bprint__m&31,bprint__m>>5&31,bprint__m>>10};\
if(__atomic_load_n(&bprint__s.enabled,__ATOMIC_ACQUIRE))bprint__m>>10&~bprint__m?bprint__call_fmt(&bprint__s,f,a,b,c,d):bprint__w4(&bprint__s,(bprint__3>1024?bprint__d(__builtin_choose_expr(bprint__3>1024,a,0.)):(uint64_t)((void)0,a)),(bprint__2>1024?bprint__d(__builtin_choose_expr(bprint__2>1024,b,0.)):(uint64_t)((void)0,b)),(bprint__1>1024?bprint__d(__builtin_choose_expr(bprint__1>1024,c,0.)):(uint64_t)((void)0,c)),(bprint__0>1024?bprint__d(__builtin_choose_expr(bprint__0>1024,d,0.)):(uint64_t)((void)0,d)),f);}while(0)
#define BPRINT__R5(f, a, b, c, d, e) do{enum{bprint__4=_Generic(a,char:32,float:1025,double:1025,long double:1024,char*:33,const char*:33,default:sizeof(1?a:(a))>4),bprint__3=_Generic(b,char:32,float:1025,double:1025,long double:1024,char*:33,const char*:33,default:sizeof(1?b:(b))>4),bprint__2=_Generic(c,char:32,float:1025,double:1025,long double:1024,char*:33,const char*:33,default:sizeof(1?c:(c))>4),bprint__1=_Generic(d,char:32,float:1025,double:1025,long double:1024,char*:33,const char*:33,default:sizeof(1?d:(d))>4),bprint__0=_Generic(e,char:32,float:1025,double:1025,long double:1024,char*:33,const char*:33,default:sizeof(1?e:(e))>4),bprint__m=bprint__4<<4|bprint__3<<3|bprint__2<<2|bprint__1<<1|bprint__0};static bprint__S bprint__s __attribute__((BPRINT__SECTION,used))={0x42507331u,BPRINT__LAYOUT,1,0,__LINE__,0,__FILE__,__builtin_constant_p(f)?f:0,BPRINT__FUNC,0,0,0,5,0,bprint__m&31,bprint__m>>5&31,bprint__m>>10};\
if(__atomic_load_n(&bprint__s.enabled,__ATOMIC_ACQUIRE))bprint__m>>10&~bprint__m?bprint__call_fmt(&bprint__s,f,a,b,c,d,e):bprint__w5(&bprint__s,(bprint__4>1024?bprint__d(__builtin_choose_expr(bprint__4>1024,a,0.)):(uint64_t)((void)0,a)),(bprint__3>1024?bprint__d(__builtin_choose_expr(bprint__3>1024,b,0.)):(uint64_t)((void)0,b)),(bprint__2>1024?bprint__d(__builtin_choose_expr(bprint__2>1024,c,0.)):(uint64_t)((void)0,c)),(bprint__1>1024?bprint__d(__builtin_choose_expr(bprint__1>1024,d,0.)):(uint64_t)((void)0,d)),(bprint__0>1024?bprint__d(__builtin_choose_expr(bprint__0>1024,e,0.)):(uint64_t)((void)0,e)),f);}while(0)
#endif
/* Six to 64: the counted ladder (BPRINT__MAPX), the words in an array; past 64, the assertion. */
#define BPRINT__X(...) do{BPRINT__STATIC_ASSERT(0, "trace_printk() takes at most 64 arguments after the format");}while(0)
#define BPRINT__PRINTK__(n, ...)						\
	do{enum{BPRINT__MAPX(n, BPRINT__KINDS, __VA_ARGS__)BPRINT__ANY_LDS(n, __VA_ARGS__)};\
	BPRINT__SITE(bprint__s, BPRINT__FIRST(__VA_ARGS__), 0, n, BPRINT__MASKS(n, __VA_ARGS__));\
	if(__atomic_load_n(&bprint__s.enabled,__ATOMIC_ACQUIRE)){\
	if(bprint__ld)bprint__call_fmt(&bprint__s,__VA_ARGS__);else BPRINT__CALL_WV(n, __VA_ARGS__)}}while(0)
#define BPRINT__V6(...) BPRINT__PRINTK__(6, __VA_ARGS__)
#define BPRINT__V7(...) BPRINT__PRINTK__(7, __VA_ARGS__)
#define BPRINT__V8(...) BPRINT__PRINTK__(8, __VA_ARGS__)
#define BPRINT__V9(...) BPRINT__PRINTK__(9, __VA_ARGS__)
#define BPRINT__V10(...) BPRINT__PRINTK__(10, __VA_ARGS__)
#define BPRINT__V11(...) BPRINT__PRINTK__(11, __VA_ARGS__)
#define BPRINT__V12(...) BPRINT__PRINTK__(12, __VA_ARGS__)
#define BPRINT__V13(...) BPRINT__PRINTK__(13, __VA_ARGS__)
#define BPRINT__V14(...) BPRINT__PRINTK__(14, __VA_ARGS__)
#define BPRINT__V15(...) BPRINT__PRINTK__(15, __VA_ARGS__)
#define BPRINT__V16(...) BPRINT__PRINTK__(16, __VA_ARGS__)
#define BPRINT__V17(...) BPRINT__PRINTK__(17, __VA_ARGS__)
#define BPRINT__V18(...) BPRINT__PRINTK__(18, __VA_ARGS__)
#define BPRINT__V19(...) BPRINT__PRINTK__(19, __VA_ARGS__)
#define BPRINT__V20(...) BPRINT__PRINTK__(20, __VA_ARGS__)
#define BPRINT__V21(...) BPRINT__PRINTK__(21, __VA_ARGS__)
#define BPRINT__V22(...) BPRINT__PRINTK__(22, __VA_ARGS__)
#define BPRINT__V23(...) BPRINT__PRINTK__(23, __VA_ARGS__)
#define BPRINT__V24(...) BPRINT__PRINTK__(24, __VA_ARGS__)
#define BPRINT__V25(...) BPRINT__PRINTK__(25, __VA_ARGS__)
#define BPRINT__V26(...) BPRINT__PRINTK__(26, __VA_ARGS__)
#define BPRINT__V27(...) BPRINT__PRINTK__(27, __VA_ARGS__)
#define BPRINT__V28(...) BPRINT__PRINTK__(28, __VA_ARGS__)
#define BPRINT__V29(...) BPRINT__PRINTK__(29, __VA_ARGS__)
#define BPRINT__V30(...) BPRINT__PRINTK__(30, __VA_ARGS__)
#define BPRINT__V31(...) BPRINT__PRINTK__(31, __VA_ARGS__)
#define BPRINT__V32(...) BPRINT__PRINTK__(32, __VA_ARGS__)
#define BPRINT__V33(...) BPRINT__PRINTK__(33, __VA_ARGS__)
#define BPRINT__V34(...) BPRINT__PRINTK__(34, __VA_ARGS__)
#define BPRINT__V35(...) BPRINT__PRINTK__(35, __VA_ARGS__)
#define BPRINT__V36(...) BPRINT__PRINTK__(36, __VA_ARGS__)
#define BPRINT__V37(...) BPRINT__PRINTK__(37, __VA_ARGS__)
#define BPRINT__V38(...) BPRINT__PRINTK__(38, __VA_ARGS__)
#define BPRINT__V39(...) BPRINT__PRINTK__(39, __VA_ARGS__)
#define BPRINT__V40(...) BPRINT__PRINTK__(40, __VA_ARGS__)
#define BPRINT__V41(...) BPRINT__PRINTK__(41, __VA_ARGS__)
#define BPRINT__V42(...) BPRINT__PRINTK__(42, __VA_ARGS__)
#define BPRINT__V43(...) BPRINT__PRINTK__(43, __VA_ARGS__)
#define BPRINT__V44(...) BPRINT__PRINTK__(44, __VA_ARGS__)
#define BPRINT__V45(...) BPRINT__PRINTK__(45, __VA_ARGS__)
#define BPRINT__V46(...) BPRINT__PRINTK__(46, __VA_ARGS__)
#define BPRINT__V47(...) BPRINT__PRINTK__(47, __VA_ARGS__)
#define BPRINT__V48(...) BPRINT__PRINTK__(48, __VA_ARGS__)
#define BPRINT__V49(...) BPRINT__PRINTK__(49, __VA_ARGS__)
#define BPRINT__V50(...) BPRINT__PRINTK__(50, __VA_ARGS__)
#define BPRINT__V51(...) BPRINT__PRINTK__(51, __VA_ARGS__)
#define BPRINT__V52(...) BPRINT__PRINTK__(52, __VA_ARGS__)
#define BPRINT__V53(...) BPRINT__PRINTK__(53, __VA_ARGS__)
#define BPRINT__V54(...) BPRINT__PRINTK__(54, __VA_ARGS__)
#define BPRINT__V55(...) BPRINT__PRINTK__(55, __VA_ARGS__)
#define BPRINT__V56(...) BPRINT__PRINTK__(56, __VA_ARGS__)
#define BPRINT__V57(...) BPRINT__PRINTK__(57, __VA_ARGS__)
#define BPRINT__V58(...) BPRINT__PRINTK__(58, __VA_ARGS__)
#define BPRINT__V59(...) BPRINT__PRINTK__(59, __VA_ARGS__)
#define BPRINT__V60(...) BPRINT__PRINTK__(60, __VA_ARGS__)
#define BPRINT__V61(...) BPRINT__PRINTK__(61, __VA_ARGS__)
#define BPRINT__V62(...) BPRINT__PRINTK__(62, __VA_ARGS__)
#define BPRINT__V63(...) BPRINT__PRINTK__(63, __VA_ARGS__)
#define BPRINT__V64(...) BPRINT__PRINTK__(64, __VA_ARGS__)

/*
 * Six to 64 arguments (BPRINT__PRINTK__): a term an argument in each
 * mask, bprint__ld a long double among them (floating point, not 8
 * bytes), and the words in an array.
 */
#define BPRINT__ANY_LDS(n, ...) bprint__ld=0 BPRINT__MAPX(n, BPRINT__ANY_LD, __VA_ARGS__)
#define BPRINT__ANY_LD(k, a) |((bprint__##k&1025)==1024)
#define BPRINT__MASKS(n, ...) BPRINT__MASK(n, K8, __VA_ARGS__),		\
	BPRINT__MASK(n, KCHAR, __VA_ARGS__), BPRINT__MASK(n, KFP, __VA_ARGS__)
#define BPRINT__CALL_WV(n, ...) {						\
	const uint64_t bprint__ws[] = {0 BPRINT__MAPX(n, BPRINT__WORDS, __VA_ARGS__)}; \
	bprint__wv(&bprint__s,bprint__ws+1,BPRINT__FIRST(__VA_ARGS__)); }
#define BPRINT__WORDS(k, a) ,BPRINT__WORD(k, a)

/*
 * An argument's kind, bits of what the compiler sees of it (never
 * evaluating it): BPRINT__K8 it takes an 8-byte slot (as varargs pass it,
 * LP64: a long, a pointer, a double), BPRINT__KCHAR it is a char (if not
 * 8 bytes) or a pointer to char (if 8), BPRINT__KFP floating point (a
 * double if 8 bytes, a long double if not; a float is passed as a
 * double).  bprint__K is argument K's; the site's masks of them
 * (argsig, argchar, argfp: bit 0 the last argument) are made of the
 * first three.
 */
#define BPRINT__K8 1u
#define BPRINT__KCHAR 32u
#define BPRINT__KFP 1024u
#define BPRINT__KINDS(k, a) bprint__##k=BPRINT__KIND(a),
#define BPRINT__MASK(n, bit, ...) (0 BPRINT__MAPX(n, BPRINT__MASK_##bit, __VA_ARGS__))
#define BPRINT__MASK_K8(k, a) |(bprint__##k&1ull)<<k
#define BPRINT__MASK_KCHAR(k, a) |(bprint__##k>>5&1ull)<<k
#define BPRINT__MASK_KFP(k, a) |(bprint__##k>>10&1ull)<<k

/*
 * For a site whose format is not a constant, with only 4- and 8-byte
 * scalar arguments: the head of fmt's records when the format cache knows
 * fmt for this site and its plan is the arguments as compiled (the length
 * and the derived site's id, as site->head of a BPRINT__SITE_ON_FAST
 * site), so that the call site writes the record itself; else 0, and the
 * call goes to bprint__call_fmt(), which also learns formats.
 */
BP_API uint32_t bprint__format_head(const struct bprint_site *site, const char *fmt);

/*
 * The arguments as words, in format order (an integer's value, a double's
 * bits, a pointer's address): the entries of layout 3's call sites, kept
 * so that such a site is refused when it calls, and for tests.
 */
BP_API void bprint__printk_words(struct bprint_site *site, const uint64_t *words);
BP_API void bprint__printk_format_words(struct bprint_site *site, const char *fmt,
					const uint64_t *words);

/*
 * The inline fast path's state, one per thread (internal: the library
 * keeps it; the window's calls, below, read it).  It is a
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
	uint32_t pending;		/* what the open record's close needs (trace/window.h) */
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

/*
 * The window's calls: the library's half of a call site's inline path,
 * written once, there.  The call site only stores its arguments between
 * opening a record and closing it.
 *
 * bprint__open_var(head, min): reserve at the end of the thread's current
 * page a record of at least min payload bytes, head's site id (site->head,
 * set at registration), and write its head and time delta (rdtsc, no
 * system call).  Returns the payload (4-byte aligned) and the bytes it may
 * take (the page's room, at most a record's), or a NULL p for everything
 * else: no window, page full, CPU changed, delta over 32 bits, a nested
 * call from a signal handler, tracing off or another clock; the call site
 * then makes its one out-of-line call.  Until the close the thread's nest
 * count is 1, so a signal handler that traces meanwhile goes out of line,
 * to its own ring, and the record here stays intact.
 * bprint__close_var(bytes) writes the length and publishes (release) and
 * counts the record; bprint__drop() gives it up, nothing published.
 *
 * bprint__open_format(site, fmt): the same, for a runtime format's record
 * when the format cache knows fmt for this site and its plan is the
 * arguments as compiled (bprint__format_head()); else a NULL p, and the
 * call goes out of line, where formats are learnt.
 *
 * bprint__put_str(d, room, s, prec): a %s slot (bprint__put_string_prec(),
 * <bprint/format.h>), out of the call site's line.
 */
struct bprint__room {
	unsigned char *p;
	size_t room;
};
BP_API struct bprint__room bprint__open_var(uint32_t head, uint32_t min);
BP_API void bprint__close_var(uint32_t bytes);
BP_API void bprint__drop(void);
BP_API struct bprint__room bprint__open_format(const struct bprint_site *site, const char *fmt);
BP_API uint32_t bprint__put_str(unsigned char *d, size_t room, const char *s, int32_t prec);

/*
 * The call site's one call (src/trace/call.c): its arguments as words, in
 * format order (an integer's value, a double's bits, a pointer's address),
 * for a constant format (bprint__wN) or a runtime one (bprint__fN); the
 * record is written there as the site's enabled allows, or handed on as
 * bprint__call() and bprint__call_fmt() hand theirs.
 */
/*
 * To a call site, its call is unlikely (cold): the branch to it is laid
 * out as __builtin_expect(..., 0) would, with no text in the site.  The
 * library, which defines them (BPRINT__WRITERS), compiles them as usual.
 */
#ifdef BPRINT__WRITERS
#define BPRINT__UNLIKELY
#else
#define BPRINT__UNLIKELY __attribute__((cold))
#endif
BP_API void bprint__w0(struct bprint_site *site, const char *fmt) BPRINT__UNLIKELY;
BP_API void bprint__w1(struct bprint_site *site, uint64_t a, const char *fmt) BPRINT__UNLIKELY;
BP_API void bprint__w2(struct bprint_site *site, uint64_t a, uint64_t b, const char *fmt) BPRINT__UNLIKELY;
BP_API void bprint__w3(struct bprint_site *site, uint64_t a, uint64_t b, uint64_t c,
		       const char *fmt) BPRINT__UNLIKELY;
BP_API void bprint__w4(struct bprint_site *site, uint64_t a, uint64_t b, uint64_t c, uint64_t d,
		       const char *fmt) BPRINT__UNLIKELY;
BP_API void bprint__w5(struct bprint_site *site, uint64_t a, uint64_t b, uint64_t c, uint64_t d,
		       uint64_t e, const char *fmt) BPRINT__UNLIKELY;
BP_API void bprint__wv(struct bprint_site *site, const uint64_t *w, const char *fmt) BPRINT__UNLIKELY;

/* a double's bits (bprint__d: every C site's word of a double names it) */
static inline uint64_t bprint__d(double d)
{
	uint64_t u;

	__builtin_memcpy(&u, &d, sizeof(u));
	return u;
}

#ifdef __cplusplus
} /* extern "C" */
#include <type_traits>
/*
 * C++: the same kinds as C's _Generic below, answered by type (std::decay
 * of the argument's declared type, never evaluating it), so that a C++
 * call site writes the bytes a C one writes; one instance of each
 * template a type, shared by every site.  Integers and enums of 4 bytes
 * or fewer take a 4-byte slot (varargs promote them to int); float and
 * double go as a double's bits; pointers as their address; a long double
 * is floating point of no 8-byte slot; anything else (nullptr, a class,
 * which the format check rejects) as 8 bytes of 0: the record of a
 * nullptr for %p.
 */
/*
 * A word's functions are always inlined: they are a cast, and clang's
 * inliner otherwise weighs each call of every site (about 1 % of a
 * clang++ compile of a file of sites).
 */
#define BPRINT__INLINE __attribute__((always_inline))
template <class U> struct bprint__is_char {
	static constexpr bool value = std::is_same<U, char>::value;	/* as C's _Generic */
};
template <class T> struct bprint__arg {
	typedef typename std::decay<T>::type type;
	static constexpr unsigned kind =
		std::is_integral<type>::value || std::is_enum<type>::value ? 0u :
		std::is_same<type, float>::value || std::is_same<type, double>::value ? 1u :
		std::is_pointer<type>::value ? 2u : 3u;
	static constexpr unsigned isld = std::is_same<type, long double>::value ? 1u : 0u;
	static constexpr unsigned is8 = (kind == 0u && sizeof(type) <= 4u) || isld ? 0u : 1u;
	static constexpr unsigned isfp = kind == 1u || isld ? 1u : 0u;
	/* a char, or a pointer to one: %c and %s at a BPRINT__SITE_CHARS site */
	typedef typename std::remove_cv<typename std::remove_pointer<type>::type>::type pointee;
	static constexpr unsigned ischar =
		(std::is_pointer<type>::value ? bprint__is_char<pointee>::value
					      : bprint__is_char<type>::value) ? 1u : 0u;
	static constexpr unsigned bits = (is8 ? BPRINT__K8 : 0u) | (ischar ? BPRINT__KCHAR : 0u) |
					 (isfp ? BPRINT__KFP : 0u);
};
template <unsigned K> struct bprint__word_of {
	template <class T> BPRINT__INLINE static uint64_t get(const T &) { return 0; }
};
template <> struct bprint__word_of<0u> {
	template <class T> BPRINT__INLINE static uint64_t get(T v) { return (uint64_t)v; }
};
template <> struct bprint__word_of<1u> {
	BPRINT__INLINE static uint64_t get(double d) { return bprint__d(d); }
};
template <> struct bprint__word_of<2u> {
	template <class T> BPRINT__INLINE static uint64_t get(T v) { return (uint64_t)(uintptr_t)v; }
};
template <class T> BPRINT__INLINE static inline uint64_t bprint__word(const T &v)
{
	return bprint__word_of<bprint__arg<T>::kind>::get(v);
}
#define BPRINT__KIND(x) bprint__arg<decltype((x))>::bits
/* A site's arguments' masks (BPRINT__Rn), one instance a list of types. */
template <class... T> struct bprint__sig {
	static constexpr unsigned m = 0, ld = 0;
	static constexpr uint64_t sg = 0, ch = 0, fp = 0;
};
template <class A, class... T> struct bprint__sig<A, T...> {
	static constexpr unsigned m = bprint__arg<A>::bits << sizeof...(T) | bprint__sig<T...>::m;
	static constexpr unsigned ld = m >> 10 & ~m & 31u;
	/* the site's argsig, argchar and argfp, of their type: no conversion a site */
	static constexpr uint64_t sg = m & 31u, ch = m >> 5 & 31u, fp = m >> 10;
};
#define BPRINT__WORD(k, a) bprint__word(a)
extern "C" {
#else
/*
 * An argument's kind (above), its one _Generic: the types it names are
 * char, the floating ones and char * and const char *; any other takes
 * an 8-byte slot if it is wider than 4 bytes as varargs take it (the
 * conditional decays an array), else a 4-byte one.  A signed or unsigned
 * char, or a pointer to one, is not a char here (its %c or %s goes the
 * words' way out of line, by the format's plan, the same bytes): the
 * four names cost 60 bytes of every argument's text.
 */
#define BPRINT__KIND(x) _Generic(x,char:32,float:1025,double:1025,long double:1024,char*:33,const char*:33,default:sizeof(1?x:(x))>4)

/*
 * Argument k's word, one expression that its kind's constant folds: a
 * double's (or float's, as a double) bits, or the value cast (an
 * integer's, sign-extended if of 4 bytes, of which the library reads the
 * low half; a pointer's address; a long double's, in the branch a site
 * of one does not take).  __builtin_choose_expr hands bprint__d() a
 * double in either case, so that no other type is converted to one.
 * The cast takes "(void)0,a", not a: a call cast straight to an integer
 * is what -Wbad-function-cast warns of (tracer_compile_strict).
 */
#define BPRINT__WORD(k, a) (bprint__##k>1024?bprint__d(__builtin_choose_expr(bprint__##k>1024,a,0.)):(uint64_t)((void)0,a))

#endif /* __cplusplus */

/*
 * The ladders take the whole argument list, the format first ("...",
 * never ", ##__VA_ARGS__", which ISO C and C++ reject under -Wpedantic):
 * BPRINT__FIRST() is the format, BPRINT__PICK() the macro of the number
 * of arguments after it (up to 72, so that 65 to 72 meet the limit's
 * assertion rather than errors of the ladders), and BPRINT__MAPX(n, m,
 * ...) calls m(k, a) for every argument a after the format, k counting
 * down from n-1 to 0 (a name for each one's constant, its place in the
 * masks).
 */
#define BPRINT__FIRST(...) BPRINT__FIRST_(__VA_ARGS__, 0)
#define BPRINT__FIRST_(f, ...) f
#define BPRINT__MAPX(n, m, ...) BPRINT__CAT(BPRINT__MAPX_, n)(m, __VA_ARGS__)
#define BPRINT__PICK(_, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31, a32, a33, a34, a35, a36, a37, a38, a39, a40, a41, a42, a43, a44, a45, a46, a47, a48, a49, a50, a51, a52, a53, a54, a55, a56, a57, a58, a59, a60, a61, a62, a63, a64, a65, a66, a67, a68, a69, a70, a71, a72, m, ...) m
#define BPRINT__CAT(a, b) BPRINT__CAT_(a, b)
#define BPRINT__CAT_(a, b) a##b
#define BPRINT__MAPX_0(m, f)
#define BPRINT__MAPX_1(m, f, a) m(0, a)
#define BPRINT__MAPX_2(m, f, a, ...) m(1, a)BPRINT__MAPX_1(m, f, __VA_ARGS__)
#define BPRINT__MAPX_3(m, f, a, ...) m(2, a)BPRINT__MAPX_2(m, f, __VA_ARGS__)
#define BPRINT__MAPX_4(m, f, a, ...) m(3, a)BPRINT__MAPX_3(m, f, __VA_ARGS__)
#define BPRINT__MAPX_5(m, f, a, ...) m(4, a)BPRINT__MAPX_4(m, f, __VA_ARGS__)
#define BPRINT__MAPX_6(m, f, a, ...) m(5, a)BPRINT__MAPX_5(m, f, __VA_ARGS__)
#define BPRINT__MAPX_7(m, f, a, ...) m(6, a)BPRINT__MAPX_6(m, f, __VA_ARGS__)
#define BPRINT__MAPX_8(m, f, a, ...) m(7, a)BPRINT__MAPX_7(m, f, __VA_ARGS__)
#define BPRINT__MAPX_9(m, f, a, ...) m(8, a)BPRINT__MAPX_8(m, f, __VA_ARGS__)
#define BPRINT__MAPX_10(m, f, a, ...) m(9, a)BPRINT__MAPX_9(m, f, __VA_ARGS__)
#define BPRINT__MAPX_11(m, f, a, ...) m(10, a)BPRINT__MAPX_10(m, f, __VA_ARGS__)
#define BPRINT__MAPX_12(m, f, a, ...) m(11, a)BPRINT__MAPX_11(m, f, __VA_ARGS__)
#define BPRINT__MAPX_13(m, f, a, ...) m(12, a)BPRINT__MAPX_12(m, f, __VA_ARGS__)
#define BPRINT__MAPX_14(m, f, a, ...) m(13, a)BPRINT__MAPX_13(m, f, __VA_ARGS__)
#define BPRINT__MAPX_15(m, f, a, ...) m(14, a)BPRINT__MAPX_14(m, f, __VA_ARGS__)
#define BPRINT__MAPX_16(m, f, a, ...) m(15, a)BPRINT__MAPX_15(m, f, __VA_ARGS__)
#define BPRINT__MAPX_17(m, f, a, ...) m(16, a)BPRINT__MAPX_16(m, f, __VA_ARGS__)
#define BPRINT__MAPX_18(m, f, a, ...) m(17, a)BPRINT__MAPX_17(m, f, __VA_ARGS__)
#define BPRINT__MAPX_19(m, f, a, ...) m(18, a)BPRINT__MAPX_18(m, f, __VA_ARGS__)
#define BPRINT__MAPX_20(m, f, a, ...) m(19, a)BPRINT__MAPX_19(m, f, __VA_ARGS__)
#define BPRINT__MAPX_21(m, f, a, ...) m(20, a)BPRINT__MAPX_20(m, f, __VA_ARGS__)
#define BPRINT__MAPX_22(m, f, a, ...) m(21, a)BPRINT__MAPX_21(m, f, __VA_ARGS__)
#define BPRINT__MAPX_23(m, f, a, ...) m(22, a)BPRINT__MAPX_22(m, f, __VA_ARGS__)
#define BPRINT__MAPX_24(m, f, a, ...) m(23, a)BPRINT__MAPX_23(m, f, __VA_ARGS__)
#define BPRINT__MAPX_25(m, f, a, ...) m(24, a)BPRINT__MAPX_24(m, f, __VA_ARGS__)
#define BPRINT__MAPX_26(m, f, a, ...) m(25, a)BPRINT__MAPX_25(m, f, __VA_ARGS__)
#define BPRINT__MAPX_27(m, f, a, ...) m(26, a)BPRINT__MAPX_26(m, f, __VA_ARGS__)
#define BPRINT__MAPX_28(m, f, a, ...) m(27, a)BPRINT__MAPX_27(m, f, __VA_ARGS__)
#define BPRINT__MAPX_29(m, f, a, ...) m(28, a)BPRINT__MAPX_28(m, f, __VA_ARGS__)
#define BPRINT__MAPX_30(m, f, a, ...) m(29, a)BPRINT__MAPX_29(m, f, __VA_ARGS__)
#define BPRINT__MAPX_31(m, f, a, ...) m(30, a)BPRINT__MAPX_30(m, f, __VA_ARGS__)
#define BPRINT__MAPX_32(m, f, a, ...) m(31, a)BPRINT__MAPX_31(m, f, __VA_ARGS__)
#define BPRINT__MAPX_33(m, f, a, ...) m(32, a)BPRINT__MAPX_32(m, f, __VA_ARGS__)
#define BPRINT__MAPX_34(m, f, a, ...) m(33, a)BPRINT__MAPX_33(m, f, __VA_ARGS__)
#define BPRINT__MAPX_35(m, f, a, ...) m(34, a)BPRINT__MAPX_34(m, f, __VA_ARGS__)
#define BPRINT__MAPX_36(m, f, a, ...) m(35, a)BPRINT__MAPX_35(m, f, __VA_ARGS__)
#define BPRINT__MAPX_37(m, f, a, ...) m(36, a)BPRINT__MAPX_36(m, f, __VA_ARGS__)
#define BPRINT__MAPX_38(m, f, a, ...) m(37, a)BPRINT__MAPX_37(m, f, __VA_ARGS__)
#define BPRINT__MAPX_39(m, f, a, ...) m(38, a)BPRINT__MAPX_38(m, f, __VA_ARGS__)
#define BPRINT__MAPX_40(m, f, a, ...) m(39, a)BPRINT__MAPX_39(m, f, __VA_ARGS__)
#define BPRINT__MAPX_41(m, f, a, ...) m(40, a)BPRINT__MAPX_40(m, f, __VA_ARGS__)
#define BPRINT__MAPX_42(m, f, a, ...) m(41, a)BPRINT__MAPX_41(m, f, __VA_ARGS__)
#define BPRINT__MAPX_43(m, f, a, ...) m(42, a)BPRINT__MAPX_42(m, f, __VA_ARGS__)
#define BPRINT__MAPX_44(m, f, a, ...) m(43, a)BPRINT__MAPX_43(m, f, __VA_ARGS__)
#define BPRINT__MAPX_45(m, f, a, ...) m(44, a)BPRINT__MAPX_44(m, f, __VA_ARGS__)
#define BPRINT__MAPX_46(m, f, a, ...) m(45, a)BPRINT__MAPX_45(m, f, __VA_ARGS__)
#define BPRINT__MAPX_47(m, f, a, ...) m(46, a)BPRINT__MAPX_46(m, f, __VA_ARGS__)
#define BPRINT__MAPX_48(m, f, a, ...) m(47, a)BPRINT__MAPX_47(m, f, __VA_ARGS__)
#define BPRINT__MAPX_49(m, f, a, ...) m(48, a)BPRINT__MAPX_48(m, f, __VA_ARGS__)
#define BPRINT__MAPX_50(m, f, a, ...) m(49, a)BPRINT__MAPX_49(m, f, __VA_ARGS__)
#define BPRINT__MAPX_51(m, f, a, ...) m(50, a)BPRINT__MAPX_50(m, f, __VA_ARGS__)
#define BPRINT__MAPX_52(m, f, a, ...) m(51, a)BPRINT__MAPX_51(m, f, __VA_ARGS__)
#define BPRINT__MAPX_53(m, f, a, ...) m(52, a)BPRINT__MAPX_52(m, f, __VA_ARGS__)
#define BPRINT__MAPX_54(m, f, a, ...) m(53, a)BPRINT__MAPX_53(m, f, __VA_ARGS__)
#define BPRINT__MAPX_55(m, f, a, ...) m(54, a)BPRINT__MAPX_54(m, f, __VA_ARGS__)
#define BPRINT__MAPX_56(m, f, a, ...) m(55, a)BPRINT__MAPX_55(m, f, __VA_ARGS__)
#define BPRINT__MAPX_57(m, f, a, ...) m(56, a)BPRINT__MAPX_56(m, f, __VA_ARGS__)
#define BPRINT__MAPX_58(m, f, a, ...) m(57, a)BPRINT__MAPX_57(m, f, __VA_ARGS__)
#define BPRINT__MAPX_59(m, f, a, ...) m(58, a)BPRINT__MAPX_58(m, f, __VA_ARGS__)
#define BPRINT__MAPX_60(m, f, a, ...) m(59, a)BPRINT__MAPX_59(m, f, __VA_ARGS__)
#define BPRINT__MAPX_61(m, f, a, ...) m(60, a)BPRINT__MAPX_60(m, f, __VA_ARGS__)
#define BPRINT__MAPX_62(m, f, a, ...) m(61, a)BPRINT__MAPX_61(m, f, __VA_ARGS__)
#define BPRINT__MAPX_63(m, f, a, ...) m(62, a)BPRINT__MAPX_62(m, f, __VA_ARGS__)
#define BPRINT__MAPX_64(m, f, a, ...) m(63, a)BPRINT__MAPX_63(m, f, __VA_ARGS__)
/* Past the limit: the static assertion says so, nothing else fails. */
#define BPRINT__MAPX_65(...)
#define BPRINT__MAPX_66(...)
#define BPRINT__MAPX_67(...)
#define BPRINT__MAPX_68(...)
#define BPRINT__MAPX_69(...)
#define BPRINT__MAPX_70(...)
#define BPRINT__MAPX_71(...)
#define BPRINT__MAPX_72(...)

/* trace_puts(str) of <bprint.h>. */
#define BPRINT__PUTS(str)							\
	do {									\
		BPRINT__SITE(bprint__site, str, BPRINT__SITE_PUTS, 255u, 0u, 0u, 0u); \
		if (__builtin_expect(__atomic_load_n(&bprint__site.enabled,	\
						     __ATOMIC_ACQUIRE), 1))	\
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
 * What call sites compiled against BPRINT__LAYOUT 4 hold the library to
 * (LP64).  A change here is a new layout: raise BPRINT__LAYOUT with it.
 */
#if !defined(__cplusplus) && UINTPTR_MAX == UINT64_MAX
_Static_assert(BPRINT__LAYOUT == 4, "these asserts pin layout 4");
_Static_assert(sizeof(struct bprint_site) == 80, "bprint_site");
_Static_assert(__builtin_offsetof(struct bprint_site, layout) == 4, "the head: layout");
_Static_assert(__builtin_offsetof(struct bprint_site, enabled) == 6, "the head: enabled");
_Static_assert(__builtin_offsetof(struct bprint_site, line) == 8, "the head: line");
_Static_assert(__builtin_offsetof(struct bprint_site, id) == 12, "the head: id");
_Static_assert(__builtin_offsetof(struct bprint_site, file) == 16, "the head: file");
_Static_assert(__builtin_offsetof(struct bprint_site, plan) == 40, "bprint_site.plan");
_Static_assert(__builtin_offsetof(struct bprint_site, head) == 48, "bprint_site.head");
_Static_assert(__builtin_offsetof(struct bprint_site, flags) == 52, "bprint_site.flags");
_Static_assert(__builtin_offsetof(struct bprint_site, nargs) == 54, "bprint_site.nargs");
_Static_assert(__builtin_offsetof(struct bprint_site, argstar) == 55, "bprint_site.argstar");
_Static_assert(__builtin_offsetof(struct bprint_site, argsig) == 56, "bprint_site.argsig");
_Static_assert(__builtin_offsetof(struct bprint_site, argchar) == 64, "bprint_site.argchar");
_Static_assert(__builtin_offsetof(struct bprint_site, argfp) == 72, "bprint_site.argfp");
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
