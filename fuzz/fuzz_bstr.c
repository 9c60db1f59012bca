/*
 * fuzz_bstr: bp_bstr_printf() on an arbitrary format and an arbitrary
 * block, as a reader meets them in a damaged trace file.  The input is
 *
 *   byte 0      the format's length (mod what is left)
 *   then        the format, then the block (its whole words)
 *
 * The block is copied into an allocation of exactly its size and the output
 * buffers are allocated at their exact sizes, so ASan reports a read past
 * the block or a write past a buffer.  For every buffer size tried, the
 * return value must be the one of the largest buffer (snprintf semantics:
 * the full length, or -1 for a bad block), and the text the prefix of the
 * full text that fits, NUL-terminated.  bp_bstr_printf_parsed() must
 * agree.
 * Seeds: fuzz/corpus/fuzz_bstr/.
 */
#include <bprint/format.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK_ABORTS
#include "check.h"

#define FULL 65536

static char full[FULL];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 7, 16, 64, 255 };
	size_t flen, words, want_len;
	struct bp_parsed_format *pf;
	uint32_t *bin;
	char *fmt;
	int want;

	if (size < 1)
		return 0;
	flen = data[0] % size;
	fmt = malloc(flen + 1);
	if (!fmt)
		return 0;
	memcpy(fmt, data + 1, flen);
	fmt[flen] = '\0';
	words = (size - 1 - flen) / 4;
	bin = malloc(words ? words * 4 : 1);
	if (!bin) {
		free(fmt);
		return 0;
	}
	memcpy(bin, data + 1 + flen, words * 4);

	/*
	 * The text may hold NULs (%c of 0), so its length is where the
	 * final NUL went: the last NUL before the untouched 0x7f filler.
	 */
	memset(full, 0x7f, FULL);
	want = bp_bstr_printf(full, FULL, fmt, bin, words);
	want_len = (size_t)((char *)memrchr(full, '\0', FULL) - full);	/* there is one */
	if (want >= 0)
		CHECK((size_t)want == want_len || ((size_t)want >= FULL - 1 && want_len == FULL - 1));

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i];
		char *buf = malloc(n ? n : 1);
		int r;

		if (!buf)
			break;
		r = bp_bstr_printf(n ? buf : NULL, n, fmt, bin, words);
		CHECK(r == want);
		if (n > 0) {
			size_t keep = want_len < n - 1 ? want_len : n - 1;

			CHECK(memcmp(buf, full, keep) == 0 && buf[keep] == '\0');
		}
		free(buf);
	}

	pf = bp_format_parse(fmt);
	if (pf) {
		char *buf = malloc(FULL);

		if (buf) {
			CHECK(bp_bstr_printf_parsed(buf, FULL, pf, bin, words, NULL) == want);
			CHECK(memcmp(buf, full, want_len + 1) == 0);
			free(buf);
		}
		bp_format_parsed_free(pf);
	}
	free(bin);
	free(fmt);
	return 0;
}
