/*
 * The record contract: what the 20 user bits of a ring record mean, how
 * its payload splits into a CPU word and an argument block or text, and
 * how a record becomes its message.  Both readers, the in-process one
 * (trace/reader.c) and the trace-file one (file/reader.c), decode through
 * here, so a record reads the same wherever it is read (docs/trace-format.md,
 * "Record").
 *
 *   user bits   0..17  site id (0: none)
 *               18     BP_REC_TEXT: the payload is text made at trace time
 *               19     BP_REC_CPU: the payload starts with the u32 CPU
 *   payload     [u32 cpu] then the argument block (docs/binary-layout.md)
 *               or NUL-terminated text, padded to whole u32 words
 *
 * The payload is untrusted: a record read from a file may claim anything,
 * so nothing here reads past the words it is given.
 */
#ifndef BP_TRACE_RECORD_H
#define BP_TRACE_RECORD_H

#include <bprint.h>

#include <stddef.h>
#include <stdint.h>

#define BP_REC_SITE_BITS	18
#define BP_REC_SITE_MASK	((1u << BP_REC_SITE_BITS) - 1)
#define BP_REC_TEXT		(1u << 18)	/* payload: text, not a block */
#define BP_REC_CPU		(1u << 19)	/* payload starts with the u32 CPU */

/* Largest message a reader formats, NUL included; longer ones are cut. */
#define BP_MSG_MAX 4096

/* A record's payload, split. */
struct bp_record_args {
	const uint32_t *words;	/* the argument block, or the text */
	size_t nwords;
	int32_t cpu;		/* the CPU word, if has_cpu (else -1) */
	uint32_t site_id;
	unsigned char has_cpu;	/* the record carried a CPU word */
	unsigned char text;	/* words hold text, not a block */
};

/* Split the payload of a record with these user bits (len in bytes). */
static inline struct bp_record_args bp_record_split(uint32_t user, const uint32_t *payload,
						    size_t len)
{
	struct bp_record_args a = { payload, len / 4, -1, user & BP_REC_SITE_MASK, 0,
				    (user & BP_REC_TEXT) != 0 };

	if ((user & BP_REC_CPU) && a.nwords > 0) {
		a.cpu = (int32_t)a.words[0];
		a.has_cpu = 1;
		a.words++;
		a.nwords--;
	}
	return a;
}

/*
 * The message of a record into buf (size >= 1, always NUL-terminated):
 * its text, or its block formatted with site's format (pf: that format
 * parsed once, or NULL to decode as it goes; hook: %pS and %ps, or NULL).
 * site NULL: the record's site is unknown.  Returns the length in buf;
 * *exact (if not NULL) says whether buf is the whole faithful message: not
 * cut, not an unknown site, not a block that did not match its format.
 */
size_t bp_record_message(char *buf, size_t size, const struct bp_record_args *a,
			 const struct bprint_site *site, const struct bp_parsed_format *pf,
			 const struct bp_pointer_hook *hook, int *exact);

#endif /* BP_TRACE_RECORD_H */
