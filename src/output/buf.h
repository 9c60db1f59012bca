/*
 * output/buf.h - the exporters' one growable byte buffer: what goes to
 * the output, a Perfetto batch, a CTF packet, a trace.dat header.
 * Appends grow it by doubling; out of memory sets oom, after which appends
 * do nothing, and the caller checks oom once (per record, per packet).
 */
#ifndef BP_OUTPUT_BUF_H
#define BP_OUTPUT_BUF_H

#include <bprint/format.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_out_buf {
	unsigned char *p;
	size_t len, cap;
	bool oom;
};

/* Room for n more bytes at b->p + b->len (not counted in len), or NULL
 * (and oom) when out of memory. */
unsigned char *bp_out_reserve(struct bp_out_buf *b, size_t n);

static inline unsigned char *bp_out_room(struct bp_out_buf *b, size_t n)
{
	return b->len + n <= b->cap ? b->p + b->len : bp_out_reserve(b, n);
}

static inline void bp_out_put(struct bp_out_buf *b, const void *data, size_t n)
{
	unsigned char *p;

	if (!n)
		return;
	if ((p = bp_out_room(b, n))) {
		__builtin_memcpy(p, data, n);
		b->len += n;
	}
}

static inline void bp_out_byte(struct bp_out_buf *b, unsigned char c)
{
	bp_out_put(b, &c, 1);
}

void bp_out_puts(struct bp_out_buf *b, const char *s);
/* printf into the buffer (the C library's, so %g is glibc's) */
void bp_out_putf(struct bp_out_buf *b, const char *fmt, ...) BP_PRINTF(2, 3);
void bp_out_u64(struct bp_out_buf *b, uint64_t v);	/* decimal */
void bp_out_i64(struct bp_out_buf *b, int64_t v);	/* decimal */

/* Fixed-size values in the host's byte order. */
static inline void bp_out_put16(struct bp_out_buf *b, uint16_t v) { bp_out_put(b, &v, 2); }
static inline void bp_out_put32(struct bp_out_buf *b, uint32_t v) { bp_out_put(b, &v, 4); }
static inline void bp_out_put64(struct bp_out_buf *b, uint64_t v) { bp_out_put(b, &v, 8); }

void bp_out_free(struct bp_out_buf *b);

#endif /* BP_OUTPUT_BUF_H */
