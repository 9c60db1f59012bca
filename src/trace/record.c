/* Record to message: the one decoder both readers use (record.h). */
#include "trace/record.h"

#include <string.h>

size_t bp_record_message(char *buf, size_t size, const struct bp_record_args *a,
			 const struct bprint_site *site, const struct bp_parsed_format *pf,
			 const struct bp_pointer_hook *hook, int *exact)
{
	int n, ok = -1;	/* ok: the length a real decode gave, or -1 */

	if (exact)
		*exact = 0;
	if (a->text) {
		/* Text made at trace time; nothing guarantees its NUL. */
		size_t len = a->nwords ? strnlen((const char *)a->words, a->nwords * 4) : 0;
		char mark[64];
		size_t m = a->cut ? (size_t)bp_snprintf(mark, sizeof(mark), BP_REC_CUT_TEXT,
							 (unsigned)len, (unsigned)a->cut) : 0;

		/* the cut's mark always shows, the text before it cut to make
		 * room; it says how much of the message the text shows */
		if (m >= size)
			m = 0;
		if (len + m >= size) {
			len = size - 1 - m;
			if (m)	/* fewer digits, if any change: it still fits */
				m = (size_t)bp_snprintf(mark, sizeof(mark), BP_REC_CUT_TEXT,
							(unsigned)len, (unsigned)a->cut);
		}
		if (len)
			memcpy(buf, a->words, len);
		memcpy(buf + len, mark, m);
		buf[len + m] = '\0';
		if (exact)
			*exact = !a->cut && len < a->nwords * 4 && len + 1 < size;
		return len + m;
	}
	if (!site)
		n = bp_snprintf(buf, size, "<unknown call site %u>", a->site_id);
	else if (!site->format)
		n = bp_snprintf(buf, size, "%s", BP_BSTR_BAD_BLOCK);
	else if (site->kind == BPRINT__SITE_PUTS)
		n = ok = bp_snprintf(buf, size, "%s", site->format);
	else if (pf)
		n = ok = bp_bstr_printf_parsed(buf, size, pf, a->words, a->nwords, hook);
	else
		n = ok = bp_bstr_printf_ext(buf, size, site->format, a->words, a->nwords, hook);
	if (exact)
		*exact = ok >= 0 && (size_t)ok < size;
	return n >= 0 && (size_t)n < size ? (size_t)n : strlen(buf);
}
