/*
 * The analysis binding (bprint/analysis.h): per site id, a plan made on
 * the site's first record and kept, so that every later record costs a
 * table lookup and the decode of the fields it needs (reader/site_layout.h's
 * bp_site_layout_decode_some(): strings scanned, the rest read in place).
 *
 * Plans are kept by pointer, per id up to the trace's highest site id
 * (kernel events' ids start at 0x30000: a pointer each, not a plan each).
 * An id the site table lacks is planned into a scratch plan on each call,
 * never kept: its site may be filed later by a live writer.  So is any
 * site when memory runs out.
 */
#include <bprint/analysis.h>

#include "file/array.h"
#include "reader/reader.h"
#include "reader/site_layout.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct plan {
	struct bp_bind_site pub;	/* first: a plan from its pub */
	struct bp_bind *owner;
	bool chosen;
	int16_t index[];		/* one per field asked for */
};

struct bp_bind {
	unsigned flags;
	struct bp_sites *sets[BP_BIND_MAX_SETS];
	size_t nsets;
	struct bp_where *wheres[BP_BIND_MAX_SETS];
	size_t nwheres;
	struct {
		struct bp_sites *sites;
		struct bp_where *where;
	} roles[BP_BIND_MAX_ROLES];
	size_t nroles;
	struct field {
		char *name;
		unsigned flags;
	} *fields;
	size_t nfields;
	/* the plans, for the trace `of` (bp_trace_serial(): not one closed
	 * and another opened at its address) */
	struct bp_trace *of;
	uint64_t of_serial;
	struct plan **by_id;
	size_t nby_id;
	struct plan *scratch;		/* an id not in the table (or no memory) */
	struct bp_field_value *run_vals;	/* bp_bind_next(): BP_PLAN_MAX_ARGS a record */
	size_t nchosen;
	uint32_t first_chosen;
};

struct bp_bind *bp_bind_new(unsigned flags)
{
	struct bp_bind *b = calloc(1, sizeof(*b));

	if (b && !(b->scratch = calloc(1, sizeof(*b->scratch)))) {
		free(b);
		return NULL;
	}
	if (b)
		b->flags = flags;
	return b;
}

static void forget_plans(struct bp_bind *b)
{
	for (size_t i = 0; i < b->nby_id; i++)
		free(b->by_id[i]);
	free(b->by_id);
	b->by_id = NULL;
	b->nby_id = 0;
	b->nchosen = 0;
}

void bp_bind_free(struct bp_bind *b)
{
	if (!b)
		return;
	forget_plans(b);
	for (size_t i = 0; i < b->nfields; i++)
		free(b->fields[i].name);
	free(b->fields);
	free(b->scratch);
	free(b->run_vals);
	free(b);
}

int bp_bind_sites(struct bp_bind *b, struct bp_sites *sel)
{
	if (b->nsets == BP_BIND_MAX_SETS)
		return -1;
	b->sets[b->nsets++] = sel;
	return 0;
}

int bp_bind_where(struct bp_bind *b, struct bp_where *w)
{
	if (b->nwheres == BP_BIND_MAX_SETS)
		return -1;
	b->wheres[b->nwheres++] = w;
	return 0;
}

static size_t plan_size(const struct bp_bind *b)
{
	return sizeof(struct plan) + b->nfields * sizeof(int16_t);
}

int bp_bind_role(struct bp_bind *b, struct bp_sites *sel, struct bp_where *w)
{
	if (b->nroles == BP_BIND_MAX_ROLES)
		return -1;
	b->roles[b->nroles].sites = sel;
	b->roles[b->nroles].where = w;
	return (int)b->nroles++;
}

int bp_bind_field(struct bp_bind *b, const char *name, unsigned flags)
{
	struct field *grown = realloc(b->fields, (b->nfields + 1) * sizeof(*grown));
	struct plan *scratch;

	if (!grown)
		return -1;
	b->fields = grown;
	if (b->nfields == INT16_MAX || !(grown[b->nfields].name = strdup(name)))
		return -1;
	grown[b->nfields].flags = flags;
	b->nfields++;
	if (!(scratch = realloc(b->scratch, plan_size(b)))) {
		free(grown[--b->nfields].name);
		return -1;
	}
	b->scratch = scratch;
	return (int)b->nfields - 1;
}

static bool in_every_set(struct bp_bind *b, struct bp_trace *t, uint32_t id)
{
	for (size_t i = 0; i < b->nsets; i++)
		if (!bp_sites_match(b->sets[i], t, id))
			return false;
	return true;
}

/* The roles that take site id: bit r for role r. */
static uint32_t roles_of(struct bp_bind *b, struct bp_trace *t, uint32_t id)
{
	uint32_t roles = 0;

	for (size_t r = 0; r < b->nroles; r++)
		if (bp_sites_match(b->roles[r].sites, t, id))
			roles |= 1u << r;
	return roles;
}

/* Is field j looked up in a site of these roles? */
static bool for_roles(const struct bp_bind *b, size_t j, uint32_t roles)
{
	uint32_t only = b->fields[j].flags / BP_BIND_FOR_ROLE(0);

	return !only || (only & roles);
}

static bool is_number(uint8_t type)
{
	return type != BP_FIELD_STRING && type != BP_FIELD_CHAR;
}

/* Site id's plan into p: chosen or not, where its fields are, what to decode. */
static void make_plan(struct bp_bind *b, struct bp_trace *t, uint32_t id, struct plan *p)
{
	const struct bp_trace_layout *lay = bp_trace_layout(t, id);

	p->pub = (struct bp_bind_site){ .size = sizeof(p->pub), .site_id = id, .lay = lay,
					.index = p->index };
	p->owner = b;
	p->chosen = false;
	if (!in_every_set(b, t, id) || (!lay && b->flags & BP_BIND_FIELDS_ONLY))
		return;
	p->pub.roles = roles_of(b, t, id);
	if (b->nroles && !p->pub.roles)
		return;
	for (size_t j = 0; j < b->nfields; j++) {
		bool mine = for_roles(b, j, p->pub.roles);
		int k = lay && mine ? bp_trace_field_index(lay, b->fields[j].name) : -1;

		if (k < 0 && mine && !(b->fields[j].flags & BP_BIND_OPTIONAL))
			return;
		if (k >= 0 && b->fields[j].flags & BP_BIND_NUMBER && !is_number(lay->fields[k].type))
			return;
		p->index[j] = (int16_t)k;
		if (k >= 0)
			p->pub.wanted |= UINT64_C(1) << k;
	}
	if (lay && b->flags & BP_BIND_EVERY_FIELD)
		p->pub.wanted = bp_site_layout_of(lay)->field_mask;
	for (size_t i = 0; lay && i < b->nwheres; i++)
		p->pub.wanted |= bp_where_fields(b->wheres[i], t, id);
	for (size_t r = 0; lay && r < b->nroles; r++)
		if (p->pub.roles & 1u << r && b->roles[r].where)
			p->pub.wanted |= bp_where_fields(b->roles[r].where, t, id);
	p->chosen = true;
}

/* The plan of an id met for the first time (or again, not kept). */
static const struct bp_bind_site *plan_site(struct bp_bind *b, struct bp_trace *t, uint32_t id)
{
	struct plan *p = NULL;

	if (bp_trace_site(t, id)) {
		struct plan **grown = id < b->nby_id ? b->by_id :
				      bp_array_grow(b->by_id, &b->nby_id, (size_t)id + 1, sizeof(*grown));

		if (grown) {
			b->by_id = grown;
			p = b->by_id[id] = malloc(plan_size(b));
		}
	}
	make_plan(b, t, id, p ? p : b->scratch);
	if (!p)
		return b->scratch->chosen ? &b->scratch->pub : NULL;
	if (p->chosen && (!b->nchosen++ || id < b->first_chosen))
		b->first_chosen = id;
	return p->chosen ? &p->pub : NULL;
}

/* A site not planned yet (or not kept), or another trace: out of line, so
 * that the lookup below stays a few instructions a record. */
__attribute__((noinline))
static const struct bp_bind_site *site_slow(struct bp_bind *b, struct bp_trace *t,
					    uint32_t site_id)
{
	if (b->of != t || b->of_serial != bp_trace_serial(t)) {
		forget_plans(b);
		b->of = t;
		b->of_serial = bp_trace_serial(t);
		bp_trace_defer_checks(t);	/* decode() checks each block it decodes */
	}
	if (site_id < b->nby_id && b->by_id[site_id])
		return b->by_id[site_id]->chosen ? &b->by_id[site_id]->pub : NULL;
	return plan_site(b, t, site_id);
}

/* The plan of site_id, b's plans being t's. */
static inline __attribute__((always_inline)) const struct bp_bind_site *
site_of(struct bp_bind *b, struct bp_trace *t, uint32_t site_id)
{
	const struct plan *p;

	if (__builtin_expect(b->of != t || site_id >= b->nby_id || !(p = b->by_id[site_id]), 0))
		return site_slow(b, t, site_id);
	return p->chosen ? &p->pub : NULL;
}

/* b's plans made t's, if they were another reader's. */
static inline void plans_of(struct bp_bind *b, struct bp_trace *t)
{
	if (__builtin_expect(b->of == t && b->of_serial != bp_trace_serial(t), 0))
		b->of = NULL;	/* site_slow() forgets them */
}

const struct bp_bind_site *bp_bind_site(struct bp_bind *b, struct bp_trace *t, uint32_t site_id)
{
	plans_of(b, t);
	return site_of(b, t, site_id);
}

static inline int decode(const struct bp_bind_site *s, const struct bp_trace_event *ev,
			 struct bp_field_value *vals, size_t nvals)
{
	/* every field too: decode_some() reads each in place, the full
	 * decode walks the block (tests/output/layout_decode_some.c: the same
	 * values, the same checks) */
	struct bp_trace *t = ((const struct plan *)(const void *)s)->owner->of;
	int n;

	if (ev->text || !s->lay)
		return -1;
	n = bp_site_layout_decode_some(bp_site_layout_of(s->lay), ev->block, ev->block_words,
				       (uint32_t)s->wanted, vals, nvals);
	/* the reader's check of the block, made: the same checks (bp_trace_defer_checks) */
	if (n >= 0)
		bp_trace_block_checked(t, ev->block);
	else
		bp_trace_check_now(t);
	return n;
}

int bp_bind_decode(const struct bp_bind_site *s, const struct bp_trace_event *ev,
		   struct bp_field_value *vals, size_t nvals)
{
	return decode(s, ev, vals, nvals);
}

/*
 * bp_bind_next(): a run of records from the reader (bp_trace_next_run(),
 * reader/reader.h), each one's plan and decode, as bp_bind_site() and
 * bp_bind_decode() make them; the reader's check of a block is the
 * decode's, or made here for a block not decoded (a site not chosen).
 */
static size_t bind_run(struct bp_bind *b, struct bp_trace *t, const struct bp_trace_rec *rec,
		       size_t got, unsigned char *out, size_t stride)
{
	size_t n = 0;

	for (size_t i = 0; i < got; i++) {
		const struct bp_trace_rec *r = &rec[i];
		const struct bp_bind_site *s = site_of(b, t, r->site_id);
		struct bp_field_value *vals = b->run_vals + n * BP_PLAN_MAX_ARGS;
		struct bp_bind_rec *o = (struct bp_bind_rec *)(void *)(out + n * stride);
		int k = -1;

		if (!s) {
			bp_trace_run_check(t, r, i);
			continue;
		}
		if (!r->text && s->lay)
			k = bp_site_layout_decode_some(bp_site_layout_of(s->lay), r->block,
						       r->block_words, (uint32_t)s->wanted, vals,
						       BP_PLAN_MAX_ARGS);
		if (k < 0)
			bp_trace_run_check(t, r, i);
		*o = (struct bp_bind_rec){ .size = (uint32_t)stride, .tid = r->tid, .s = s,
					   .vals = vals, .n = k, .site_id = r->site_id,
					   .ns = r->ns, .index = r->index };
		n++;
	}
	return n;
}

int bp_bind_next(struct bp_bind *b, struct bp_trace *t, struct bp_bind_rec *out, size_t max,
		 unsigned flags)
{
	struct bp_trace_rec rec[BP_TRACE_RUN_MAX];
	size_t stride, n = 0;

	_Static_assert(BP_BIND_NEXT_MAX <= BP_TRACE_RUN_MAX, "a run fills a batch");
	if (!out || out->size < BP_BIND_REC_SIZE_1)
		return BP_TRACE_EINVAL;
	stride = out->size;
	if (max > BP_BIND_NEXT_MAX)
		max = BP_BIND_NEXT_MAX;
	if (!max)
		return 0;
	if (!b->run_vals &&
	    !(b->run_vals = malloc(BP_BIND_NEXT_MAX * BP_PLAN_MAX_ARGS * sizeof(*b->run_vals))))
		return BP_TRACE_ENOMEM;
	plans_of(b, t);
	while (!n) {
		int got = bp_trace_next_run(t, rec, max, flags & BP_TRACE_NEXT_TIME);

		if (got <= 0)
			return got;
		n = bind_run(b, t, rec, (size_t)got, (unsigned char *)out, stride);
	}
	return (int)n;
}

int bp_bind_where_holds(struct bp_bind *b, struct bp_trace *t, const struct bp_bind_site *s,
			const struct bp_field_value *vals, int n)
{
	for (size_t i = 0; i < b->nwheres; i++)
		if (n < 0 || !bp_where_match_fields(b->wheres[i], t, s->site_id, vals, (size_t)n))
			return 0;
	return 1;
}

int bp_bind_role_holds(struct bp_bind *b, struct bp_trace *t, const struct bp_bind_site *s, int r,
		       const struct bp_field_value *vals, int n)
{
	struct bp_where *w = r >= 0 && (size_t)r < b->nroles ? b->roles[r].where : NULL;

	return !w || (n >= 0 && bp_where_match_fields(w, t, s->site_id, vals, (size_t)n));
}

unsigned bp_bind_field_type(struct bp_bind *b, struct bp_trace *t, int role, size_t j,
			    unsigned types)
{
	if (j >= b->nfields)
		return 0;
	for (size_t i = 0, n = bp_trace_nsites(t); i < n; i++) {
		const struct bp_trace_site *s = bp_trace_site_at(t, i);
		const struct bp_trace_layout *lay;
		uint32_t roles;
		int k;

		if (!s || !in_every_set(b, t, s->id))
			continue;
		roles = roles_of(b, t, s->id);
		if ((role >= 0 ? !(roles & 1u << role) : b->nroles && !roles) ||
		    !for_roles(b, j, roles) || !(lay = bp_trace_layout(t, s->id)) ||
		    (k = bp_trace_field_index(lay, b->fields[j].name)) < 0)
			continue;
		if (types & BP_BIND_TYPE(lay->fields[k].type))
			return lay->fields[k].type;
	}
	return 0;
}

size_t bp_bind_chosen(const struct bp_bind *b, uint32_t *first)
{
	if (first && b->nchosen)
		*first = b->first_chosen;
	return b->nchosen;
}
