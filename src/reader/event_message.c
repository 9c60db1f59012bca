/*
 * The message of an event kept by its reader's caller (bprint/reader.h,
 * bp_trace_event_message): the same message bp_trace_format_message()
 * gives for the record last returned, made from the event's own site id
 * and argument block, so that a caller that copied the block can format
 * it later (the Python module's events, formatted when asked for).
 */
#include "reader/reader.h"
#include "reader/site_layout.h"

#include "trace/record.h"

size_t bp_trace_event_message(struct bp_trace *t, const struct bp_trace_event *ev, char *buf,
			      size_t size)
{
	/* (a kept event holds the text without its cut trailer: no mark) */
	struct bp_record_args a = { ev->block, ev->block_words, ev->cpu, ev->site_id, 0,
				    ev->text != 0, 0 };
	const struct bp_trace_site *ts = ev->text ? NULL : bp_trace_site(t, ev->site_id);
	const struct bp_site_layout *l = ts ? bp_trace_site_layout(t, ev->site_id) : NULL;
	const struct bp_pointer_hook *hook = bp_trace_pointer_hook(t);

	if (!size)
		return 0;
	if (size > BP_MSG_MAX)
		size = BP_MSG_MAX;
	/* as the reader's own messages: the hook only for a format with %pS/%ps */
	if (l && !(l->pub.flags & BP_LAYOUT_SYMBOLS))
		hook = NULL;
	return bp_record_message(buf, size, &a, bp_trace_site_runtime(ts), l ? l->pf : NULL, hook,
				 NULL);
}

void bp_trace_event_runtime(const struct bp_trace_event *e, struct bprint_event *out)
{
	*out = (struct bprint_event){
		.size = sizeof(*out),
		.tid = e->tid,
		.ns = e->ns,
		.cpu = e->cpu,
		.comm = e->comm,
		.site = bp_trace_site_runtime(e->site),
		.message = e->message,
		.message_len = e->message_len,
	};
}

int bp_trace_format_event(char *buf, size_t size, const struct bp_trace_event *e,
			  enum bprint_output how)
{
	struct bprint_event ev;

	bp_trace_event_runtime(e, &ev);
	return bprint_format_event(buf, size, &ev, how);
}
