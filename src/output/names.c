/* The exporters' event names and arguments (names.h). */
#include "output/names.h"

#include "reader/reader.h"
#include "reader/site_layout.h"

#include <bprint.h>
#include <stdlib.h>
#include <string.h>

/* The start of a site's name: its function, else the start of its format,
 * else "site_ID". */
static void name_base(const struct bp_trace_site *s, char *out, size_t size)
{
	size_t n = 0;

	if (s->func && s->func[0]) {
		bp_snprintf(out, size, "%s", s->func);
		return;
	}
	while (s->format && n < 40 && (unsigned char)s->format[n] >= 0x20 &&
	       s->format[n] != 0x7f)
		n++;
	if (n)
		bp_snprintf(out, size, "%.*s", (int)n, s->format);
	else
		bp_snprintf(out, size, "site_%u", (unsigned)s->id);
}

#define BASE_MAX 96

static int cmp_base(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Is name already the name of one of the first n sites? */
static bool name_taken(char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], name))
			return true;
	return false;
}

/* Each site's name into nm->name: its base, "base:LINE" when several sites
 * share the base, "base:LINE#ID" if that is taken too. */
static bool site_names(struct bp_out_names *nm, struct bp_trace *t)
{
	size_t n = nm->n;
	char (*bases)[BASE_MAX] = malloc(n * sizeof(*bases) + 1);
	const char **order = malloc(n * sizeof(*order) + 1);
	bool *shared = calloc(n + 1, sizeof(*shared)), ok = bases && order && shared;

	for (size_t i = 0; ok && i < n; i++) {
		name_base(bp_trace_site_at(t, i), bases[i], sizeof(bases[i]));
		order[i] = bases[i];
	}
	if (ok)
		qsort(order, n, sizeof(*order), cmp_base);
	for (size_t k = 1; ok && k < n; k++)
		if (!strcmp(order[k], order[k - 1])) {
			shared[(size_t)(order[k] - bases[0]) / BASE_MAX] = true;
			shared[(size_t)(order[k - 1] - bases[0]) / BASE_MAX] = true;
		}
	for (size_t i = 0; ok && i < n; i++) {
		const struct bp_trace_site *s = bp_trace_site_at(t, i);
		char *name = malloc(BP_OUT_EVENT_NAME_MAX);

		if (!(nm->name[i] = name)) {
			ok = false;
			break;
		}
		bp_snprintf(name, BP_OUT_EVENT_NAME_MAX, shared[i] ? "%s:%u" : "%s", bases[i],
			    (unsigned)s->line);
		if (shared[i] && name_taken(nm->name, i, name))
			bp_snprintf(name, BP_OUT_EVENT_NAME_MAX, "%s:%u#%u", bases[i],
				    (unsigned)s->line, (unsigned)s->id);
	}
	free(bases), free(order), free(shared);
	return ok;
}

int bp_out_names_make(struct bp_out_names *nm, struct bp_trace *t)
{
	*nm = (struct bp_out_names){ .n = bp_trace_nsites(t) };
	nm->nid = (size_t)bp_trace_max_site_id(t) + 1;
	nm->name = calloc(nm->n + 1, sizeof(*nm->name));
	nm->by_id = calloc(nm->nid, sizeof(*nm->by_id));
	if (!nm->name || !nm->by_id || !site_names(nm, t)) {
		bp_out_names_free(nm);
		return BP_TRACE_ENOMEM;
	}
	for (size_t i = 0; i < nm->n; i++) {
		uint32_t id = bp_trace_site_at(t, i)->id;

		if (id < nm->nid)
			nm->by_id[id] = nm->name[i];
	}
	return 0;
}

const char *bp_out_event_name(const struct bp_out_names *nm, uint32_t id)
{
	return id < nm->nid && nm->by_id[id] ? nm->by_id[id] : "unknown site";
}

void bp_out_names_free(struct bp_out_names *nm)
{
	for (size_t i = 0; nm->name && i < nm->n; i++)
		free(nm->name[i]);
	free(nm->name);
	free(nm->by_id);
	*nm = (struct bp_out_names){ 0 };
}

unsigned bp_out_record_args(struct bp_trace *t, const struct bp_trace_event *e,
			    const struct bp_trace_layout **lay, struct bp_field_value *vals)
{
	const struct bp_trace_site *s = e->site;
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

char bp_out_symbol_letter(const struct bp_trace_layout *lay, unsigned k)
{
	return lay->flags & BP_LAYOUT_SYMBOLS ? bp_site_layout_of(lay)->symbol[k] : 0;
}

size_t bp_out_symbol(struct bp_trace *t, char letter, uint64_t address, char *buf, size_t size)
{
	const struct bp_pointer_hook *hook = bp_trace_pointer_hook(t);
	int n;

	if (!size)
		return 0;
	buf[0] = '\0';
	if (hook)	/* as report: the hook's text for the address */
		hook->print(hook->ctx, letter, address, buf, size);
	else		/* as report without symbols: %p, then the letter */
		bp_snprintf(buf, size, "%p%c", (void *)(uintptr_t)address, letter);
	n = (int)strnlen(buf, size - 1);
	buf[n] = '\0';
	return (size_t)n;
}
