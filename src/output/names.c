/* The exporters' event names (names.h). */
#include "output/names.h"

#include "file/reader.h"

#include <bprint.h>
#include <string.h>

const char *bp_out_site_name(const struct bprint_site *site, char *buf)
{
	size_t n = 0;

	if (!site)
		return "unknown site";
	if (site->func && site->func[0])
		return site->func;
	if (!site->format)
		return "trace_printk";
	while (n < BP_OUT_NAME_MAX - 1 && (unsigned char)site->format[n] >= 0x20 &&
	       site->format[n] != 0x7f)
		n++;
	if (n == 0)
		return "trace_printk";
	for (size_t i = 0; i < n; i++)
		buf[i] = site->format[i];
	buf[n] = '\0';
	return buf;
}

unsigned bp_out_record_args(struct bp_args_cache *c, const struct bp_trace_event *e,
			    const struct bp_arg_layout **lay, struct bp_arg_value *vals)
{
	const struct bprint_site *s = e->ev.site;
	int n;

	*lay = NULL;
	if (!s || !s->format || e->text || !e->block)
		return 0;
	if (!(*lay = bp_args_cache_get(c, e->site_id, s->format)))
		return 0;
	n = bp_args_decode(*lay, e->block, e->block_words, vals);
	return n > 0 ? (unsigned)n : 0;
}

bool bp_out_arg_named(const struct bp_arg_layout *lay, const char *name)
{
	for (unsigned i = 0; lay && i < lay->n; i++)
		if (!strcmp(lay->d[i].name, name))
			return true;
	return false;
}
