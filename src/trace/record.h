/*
 * The record contract: what the 20 user bits of a ring record mean, how
 * its payload splits into a CPU word and an argument block or text, and
 * how a record becomes its message.  Both readers, the in-process one
 * (trace/reader.c) and the trace-file one (reader/reader.c), decode through
 * here, so a record reads the same wherever it is read (docs/trace-format.md,
 * "Record").
 *
 *   user bits   0..17  site id (0: none)
 *               18     BP_REC_TEXT: the payload is text made at trace time
 *               19     BP_REC_CPU: the payload starts with the u32 CPU
 *   payload     [u32 cpu] then the argument block (docs/binary-layout.md)
 *               or NUL-terminated text, padded to whole u32 words, and,
 *               if the text is a cut message, the cut trailer: u32
 *               BP_REC_CUT_MAGIC, u32 the whole message's length
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

/*
 * A message cut at trace time: a text record holds what one record can,
 * then the cut trailer (docs/trace-format.md, "Record").  A reader shows
 * the cut (bp_record_message() ends the message with BP_REC_CUT_TEXT) and
 * may count it (bp_record_args.cut).  The trailer is recognised only
 * after the text's NUL and its padding: the text is never read for it.
 */
#define BP_REC_CUT_MAGIC	0x74756342u	/* "BCut" */
#define BP_REC_CUT_TEXT		"[...cut: %u of %u bytes]"

/* A record's payload, split. */
struct bp_record_args {
	const uint32_t *words;	/* the argument block, or the text (without a cut trailer) */
	size_t nwords;
	int32_t cpu;		/* the CPU word, if has_cpu (else -1) */
	uint32_t site_id;
	unsigned char has_cpu;	/* the record carried a CPU word */
	unsigned char text;	/* words hold text, not a block */
	uint32_t cut;		/* a cut message: its whole length in bytes (else 0) */
};

/* The cut trailer of a text record's words, if it has one: the whole message's length. */
static inline uint32_t bp_record_cut_trailer(const uint32_t *words, size_t nwords)
{
	size_t text = nwords >= 3 ? (nwords - 2) * 4 : 0, len;

	if (text == 0 || words[nwords - 2] != BP_REC_CUT_MAGIC)
		return 0;
	for (len = 0; len < text && ((const char *)words)[len]; len++)
		;
	/* the text ends, NUL and padding, right before the trailer */
	if (len == text || (len + 4) / 4 != nwords - 2 || words[nwords - 1] <= len)
		return 0;
	return words[nwords - 1];
}

/* Split the payload of a record with these user bits (len in bytes). */
static inline struct bp_record_args bp_record_split(uint32_t user, const uint32_t *payload,
						    size_t len)
{
	struct bp_record_args a = { payload, len / 4, -1, user & BP_REC_SITE_MASK, 0,
				    (user & BP_REC_TEXT) != 0, 0 };

	if ((user & BP_REC_CPU) && a.nwords > 0) {
		a.cpu = (int32_t)a.words[0];
		a.has_cpu = 1;
		a.words++;
		a.nwords--;
	}
	if (a.text && (a.cut = bp_record_cut_trailer(a.words, a.nwords)) != 0)
		a.nwords -= 2;
	return a;
}

/*
 * The message of a record into buf (size >= 1, always NUL-terminated):
 * its text, or its block formatted with site's format (pf: that format
 * parsed once, or NULL to decode as it goes; hook: %pS and %ps, or NULL).
 * site NULL: the record's site is unknown.  A message cut at trace time
 * ends with BP_REC_CUT_TEXT (what it holds of how much), room kept for it.
 * Returns the length in buf; *exact (if not NULL) says whether buf is the
 * whole faithful message: not cut, not an unknown site, not a block that
 * did not match its format.
 */
size_t bp_record_message(char *buf, size_t size, const struct bp_record_args *a,
			 const struct bprint_site *site, const struct bp_parsed_format *pf,
			 const struct bp_pointer_hook *hook, int *exact);

#endif /* BP_TRACE_RECORD_H */
