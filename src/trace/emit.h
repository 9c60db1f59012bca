/*
 * The out-of-line writer (trace/emit.c), as the call site's calls
 * (trace/call.c) use it: a call its inline path did not write, with its
 * arguments as words or, for a constant format with a long double, as
 * the va_list its plan reads.
 */
#ifndef BP_TRACE_EMIT_H
#define BP_TRACE_EMIT_H

#include <bprint.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Tracing on, and site registered (lazily if need be) and of this library's layout. */
bool bp_emit_ready(struct bprint_site *site);

/* A registered constant-format site's call, its arguments as words (site->nargs of them). */
void bp_emit_site_words(struct bprint_site *site, const uint64_t *words);

/*
 * A registered runtime-format site's call with format fmt, its n
 * arguments as words; bit i of ldouble: word i is a long double's address
 * (format/words.h).
 */
void bp_emit_runtime_words(struct bprint_site *site, const char *fmt, const uint64_t *words,
			   size_t n, uint64_t ldouble);

/*
 * A fixed-size record the window could not take, reserved through ring
 * 0's writer (the thread's nest count held): its payload of bytes, which
 * bp_window_close_var() closes; NULL, the nest count released, if not.
 */
unsigned char *bp_emit_refill(uint32_t head, uint32_t bytes);

/* A registered site's call through a va_list read by fmt's plan (fmt checked by the compiler). */
void bp_emit_va(struct bprint_site *site, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif /* BP_TRACE_EMIT_H */
