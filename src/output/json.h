/*
 * output/json.h - JSON text: strings escaped so that any bytes make valid
 * JSON (control characters, quotes, backslashes escaped; well-formed UTF-8
 * kept; a byte that is not part of well-formed UTF-8 written as \u00XX, its
 * value), and numbers that JSON can hold.  The one JSON string writer of
 * the Chrome export, report --json, hist and latency --json.
 */
#ifndef BP_OUTPUT_JSON_H
#define BP_OUTPUT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct bp_out_buf;

/* The length of the well-formed UTF-8 sequence at s (n > 0 bytes left: 1
 * for ASCII), 0 if there is none: overlong forms, surrogates and code
 * points past U+10FFFF are not well-formed (the JSON and CTF writers'). */
size_t bp_utf8_len(const unsigned char *s, size_t n);

/* n bytes as a JSON string, quotes included, into a buffer or a stream. */
void bp_json_buf_str(struct bp_out_buf *out, const char *s, size_t n);
void bp_json_str(FILE *out, const char *s, size_t n);
/* A NUL-terminated string (NULL as ""). */
void bp_json_cstr(FILE *out, const char *s);
/* A double: finite as the shortest %.17g that reads back the same, NaN and
 * infinities as null (JSON has no such numbers). */
void bp_json_double(FILE *out, double d);
/* The same into a buffer.  as_float: the text always reads back as a
 * floating-point number ("-0.0", "3.0", "1e+300"), so that a typed reader
 * (one that makes "3" an integer) keeps a %f field a float and -0.0 its
 * sign. */
void bp_json_buf_double(struct bp_out_buf *out, double d, bool as_float);

#endif /* BP_OUTPUT_JSON_H */
