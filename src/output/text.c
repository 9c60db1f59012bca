/*
 * The text forms of bprint/text.h: the runtime's text module
 * (trace/text.h) and the dates of output/wallclock.h, over a reader's
 * events, behind caches whose insides the caller does not see.
 */
#include <bprint/text.h>

#include "file/layout.h"
#include "reader/reader.h"
#include "output/wallclock.h"
#include "trace/record.h"
#include "trace/text.h"

#include <stdalign.h>
#include <stdbool.h>
#include <string.h>

_Static_assert(BP_TRACE_MSG_MAX == BP_MSG_MAX, "a message's longest is the runtime's");

/* The caller's cache: the text module's, zeros its first state, and the
 * event it reads (kept here, so that the call to it is the last). */
struct text_cache {
	struct bp_text_cache inner;
	struct bprint_event ev;
};
_Static_assert(sizeof(struct text_cache) <= sizeof(((struct bp_trace_text_cache *)0)->opaque),
	       "the text cache fits its public room");
_Static_assert(alignof(struct text_cache) <= alignof(uint64_t), "and its alignment");
_Static_assert(sizeof(struct bp_out_date_cache) <= sizeof(((struct bp_trace_date_cache *)0)->opaque),
	       "the date cache fits its public room");
_Static_assert(alignof(struct bp_out_date_cache) <= alignof(uint64_t), "and its alignment");

void bp_trace_file_version(uint32_t *major, uint32_t *minor)
{
	*major = BP_FILE_MAJOR;
	*minor = BP_FILE_MINOR;
}

size_t bp_trace_ftrace_prefix(struct bp_trace_text_cache *c, char *buf, size_t size,
			      const struct bp_trace_event *ev, const char *func, size_t func_len)
{
	struct text_cache *tc = (struct text_cache *)(void *)c->opaque;

	if (c->size < sizeof(*c)) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	if (!func) {
		const struct bp_trace_site *ts = ev->site;

		func = ts && ts->func ? ts->func : "?";
		func_len = ts && ts->func ? ts->func_len : 1;
	}
	tc->inner.comm16 = (c->flags & BP_TRACE_TEXT_COMM16) != 0;
	/* what the prefix reads of an event, no more (a line per record) */
	tc->ev.tid = ev->tid;
	tc->ev.ns = ev->ns;
	tc->ev.cpu = ev->cpu;
	tc->ev.comm = ev->comm;
	return bp_text_ftrace_prefix(&tc->inner, buf, size, &tc->ev, func, func_len);
}

size_t bp_trace_text_header(char *buf, size_t size, unsigned long long written,
			    unsigned long long lost, long ncpu)
{
	return bp_text_header(buf, size, written, lost, ncpu);
}

size_t bp_trace_format_date(struct bp_trace_date_cache *c, char *buf, size_t size,
			    int64_t unix_ns, int utc)
{
	if (c->size < sizeof(*c)) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	return bp_out_date((struct bp_out_date_cache *)(void *)c->opaque, buf, size, unix_ns,
			   utc != 0);
}
