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

unsigned bp_out_record_args(struct bp_trace *t, const struct bp_trace_event *e,
			    const struct bp_trace_layout **lay, struct bp_field_value *vals)
{
	const struct bprint_site *s = e->ev.site;
	int n;

	*lay = NULL;
	if (!s || !s->format || e->text || !e->block)
		return 0;
	if (!(*lay = bp_trace_layout(t, e->site_id)))
		return 0;
	n = bp_trace_event_fields(t, e, vals, BP_PLAN_MAX_ARGS);
	return n > 0 ? (unsigned)n : 0;
}

bool bp_out_arg_named(const struct bp_trace_layout *lay, const char *name)
{
	for (unsigned i = 0; lay && i < lay->nfields; i++)
		if (!strcmp(lay->fields[i].name, name))
			return true;
	return false;
}

const char *bp_out_field_name(const struct bp_trace_layout *lay, unsigned k, char *buf)
{
	const struct bp_trace_field *f = &lay->fields[k];

	if (strcmp(f->name, "msg"))
		return f->name;
	/* only a conversion's own value can be called msg: argN is its alias */
	bp_snprintf(buf, BP_OUT_FIELD_NAME_MAX, "arg%u", (unsigned)f->conversion);
	return buf;
}
