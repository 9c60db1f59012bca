/*
 * Spans drawn in an export (analysis/span_export.h).  Each rule keeps its
 * own open spans and an analysis binding (bprint/analysis.h): which sites
 * open (role 0) or close (role 1), where their key fields are; every
 * field of a record is decoded, for the key and for the slice's
 * arguments.
 */
#include "analysis/span_export.h"

#include "analysis/say.h"

#include <bprint/analysis.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rule {
	struct bp_sites *from, *to;
	struct bp_bind *bind;		/* roles FROM and TO; the keys, required */
	char *spec;			/* the rule's copy; keys point into it */
	const char *keys[BP_SPAN_EXPORT_MAX_KEYS];
	size_t nkeys;
	struct bp_spans spans;
	struct bp_key key;
};

struct bp_span_export {
	struct rule *rules;
	size_t n;
	struct bp_field_value vals[BP_PLAN_MAX_ARGS];	/* a layout's fields, at most */
};

struct bp_span_export *bp_span_export_new(void)
{
	return calloc(1, sizeof(struct bp_span_export));
}

static void rule_free(struct rule *r)
{
	bp_sites_free(r->from);
	bp_sites_free(r->to);
	bp_bind_free(r->bind);
	free(r->spec);
	bp_spans_fini(&r->spans);
	bp_key_free(&r->key);
}

void bp_span_export_free(struct bp_span_export *se)
{
	if (!se)
		return;
	for (size_t i = 0; i < se->n; i++)
		rule_free(&se->rules[i]);
	free(se->rules);
	free(se);
}

int bp_span_export_add(struct bp_span_export *se, const char *spec, char *err, size_t errlen)
{
	struct rule r = { 0 }, *grown;
	char *part[2 + BP_SPAN_EXPORT_MAX_KEYS], *p, *save = NULL;
	size_t n = 0;

	if (!(r.spec = strdup(spec)) || !(r.from = bp_sites_new()) || !(r.to = bp_sites_new()) ||
	    !(r.bind = bp_bind_new(BP_BIND_EVERY_FIELD))) {
		rule_free(&r);
		return bp_say(err, errlen, "out of memory");
	}
	for (p = strtok_r(r.spec, ",", &save); p && n < sizeof(part) / sizeof(part[0]);
	     p = strtok_r(NULL, ",", &save))
		part[n++] = p;
	if (n < 2 || p) {
		rule_free(&r);
		return bp_say(err, errlen, "'%s': expected FROM,TO[,KEY...] (at most %d keys)", spec,
			    BP_SPAN_EXPORT_MAX_KEYS);
	}
	bp_sites_add(r.from, part[0]);
	bp_sites_add(r.to, part[1]);
	bp_bind_role(r.bind, r.from, NULL);
	bp_bind_role(r.bind, r.to, NULL);
	for (size_t k = 2; k < n; k++) {
		r.keys[r.nkeys++] = part[k];
		if (bp_bind_field(r.bind, part[k], 0) < 0)
			part[0] = NULL;	/* out of memory */
	}
	bp_spans_init(&r.spans);
	if (!part[0] || !(grown = realloc(se->rules, (se->n + 1) * sizeof(*grown)))) {
		rule_free(&r);
		return bp_say(err, errlen, "out of memory");
	}
	se->rules = grown;
	se->rules[se->n++] = r;
	return 0;
}

int bp_span_export_check(struct bp_span_export *se, struct bp_trace *t, char *err, size_t errlen)
{
	for (size_t i = 0; i < se->n; i++) {
		struct rule *r = &se->rules[i];
		const char *pat;

		if ((pat = bp_sites_unmatched(r->from, t)) || (pat = bp_sites_unmatched(r->to, t)))
			return bp_say(err, errlen, "--span %s: no such site in the trace (see 'bprint "
				    "formats')", pat);
		for (size_t k = 0; k < r->nkeys; k++)
			if (!bp_bind_field_type(r->bind, t, 0, k, ~0u) ||
			    !bp_bind_field_type(r->bind, t, 1, k, ~0u))
				return bp_say(err, errlen, "--span: the key %s is not a field of both "
					    "ends (see 'bprint formats')", r->keys[k]);
	}
	return 0;
}

/* The pairing key of e (of plan s) in rule r: its key fields' values, or
 * its thread.  1, 0 if e has no fields, -1 if memory ran out. */
static int key_of(struct bp_span_export *se, struct rule *r, const struct bp_bind_site *s,
		  const struct bp_trace_event *e)
{
	bp_key_reset(&r->key);
	if (!r->nkeys)
		return bp_key_add_uint(&r->key, (uint64_t)(uint32_t)e->tid) ? 1 : -1;
	if (bp_bind_decode(s, e, se->vals, BP_PLAN_MAX_ARGS) < 0)
		return 0;
	for (size_t k = 0; k < r->nkeys; k++)
		if (!bp_key_add_field(&r->key, s->lay->fields[s->index[k]].type,
				      &se->vals[s->index[k]]))
			return -1;
	return 1;
}

/* One rule's part in record e: close, then open. */
static int observe_rule(struct bp_span_export *se, struct rule *r, struct bp_trace *t,
			const struct bp_trace_event *e, struct bp_export *x)
{
	const struct bp_bind_site *s = bp_bind_site(r->bind, t, e->site_id);
	struct bp_span_end end = { e->ns, e->tid, e->site_id, 0 };
	struct bp_span sp;
	bool from, to;
	int k, c = 0;

	if (!s)
		return 0;
	from = s->roles & 1u, to = s->roles & 2u;
	if ((k = key_of(se, r, s, e)) <= 0)
		return k < 0 ? BP_TRACE_ENOMEM : 0;
	if (to && (!from || bp_spans_is_open(&r->spans, r->key.b, r->key.len)))
		c = bp_spans_close(&r->spans, r->key.b, r->key.len, &end, &sp);
	if (c < 0)
		return BP_TRACE_ENOMEM;
	if (c == 1) {
		/* its arguments: the closing record's fields (decoded for a key) */
		const struct bp_trace_layout *lay = s->lay;
		int n = !lay ? 0 : r->nkeys ? (int)lay->nfields :
			bp_bind_decode(s, e, se->vals, BP_PLAN_MAX_ARGS);
		struct bp_export_span slice = {
			.from_ns = sp.from.ns, .to_ns = sp.to.ns, .from_tid = sp.from.tid,
			.to_tid = sp.to.tid, .site = sp.from.site, .nests = r->nkeys == 0,
			.lay = lay, .vals = se->vals, .nvals = n > 0 ? (unsigned)n : 0,
		};
		int rc = bp_export_span(x, &slice);

		if (rc < 0)
			return rc;
	}
	if (from && !bp_spans_open(&r->spans, r->key.b, r->key.len, &end, NULL, 0))
		return BP_TRACE_ENOMEM;
	return 0;
}

int bp_span_export_observe(void *arg, struct bp_trace *t, const struct bp_trace_event *e,
			   struct bp_export *x)
{
	struct bp_span_export *se = arg;

	for (size_t i = 0; i < se->n; i++) {
		int rc = observe_rule(se, &se->rules[i], t, e, x);

		if (rc < 0)
			return rc;
	}
	return 0;
}

void bp_span_export_unmatched(const struct bp_span_export *se, uint64_t *opens, uint64_t *closes)
{
	*opens = *closes = 0;
	for (size_t i = 0; i < se->n; i++) {
		*opens += se->rules[i].spans.nopen;
		*closes += se->rules[i].spans.unmatched_closes;
	}
}
