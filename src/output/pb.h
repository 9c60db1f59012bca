/*
 * output/pb.h - the few pieces of the protobuf wire format the Perfetto
 * exporter writes (docs/exporters.md, "Perfetto"): varints, tags, strings
 * and nested messages, into the exporters' byte buffer (output/buf.h).
 * No runtime, no schema: the field numbers are the caller's.
 *
 * A nested message is written in place: pb_begin() writes its tag and
 * returns where its body starts; pb_end() measures the body and moves it
 * up by the size of its length varint, then writes the length.  Bodies are
 * small (one packet), so the move is cheap.
 *
 * Out of memory sets b->oom; later writes do nothing, and the caller
 * checks b->oom once per packet.
 */
#ifndef BP_OUTPUT_PB_H
#define BP_OUTPUT_PB_H

#include "output/buf.h"

#include <stddef.h>
#include <stdint.h>

/* Wire types. */
#define PB_VARINT 0u
#define PB_FIXED64 1u
#define PB_LEN 2u

void pb_varint(struct bp_out_buf *b, uint64_t v);
size_t pb_varint_size(uint64_t v);
void pb_uint(struct bp_out_buf *b, uint32_t field, uint64_t v);	/* uint32/64, enum, bool */
void pb_int(struct bp_out_buf *b, uint32_t field, int64_t v);	/* int32/64: two's complement */
void pb_double(struct bp_out_buf *b, uint32_t field, double v);
void pb_bytes(struct bp_out_buf *b, uint32_t field, const void *s, size_t n);
void pb_str(struct bp_out_buf *b, uint32_t field, const char *s);	/* NULL as "" */

/* A nested message: size_t at = pb_begin(b, field); ...; pb_end(b, at); */
size_t pb_begin(struct bp_out_buf *b, uint32_t field);
void pb_end(struct bp_out_buf *b, size_t at);

#endif /* BP_OUTPUT_PB_H */
