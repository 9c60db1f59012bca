/*
 * bprint/analysis.h - the analysis binding: what an analysis of a trace
 * (bprint hist, latency and --sched, export --span, the Python module's
 * columns) asks of each call site, worked out once per site, and a
 * record's wanted fields decoded from its argument block (never from its
 * text).
 *
 *	bp_bind_new()          an empty binding: every site, no field asked for
 *	bp_bind_sites()        a set of sites the records must be in (bprint/query.h)
 *	bp_bind_role()         a role a site may play (latency's --from, --to)
 *	bp_bind_where()        a --where the records are tested against
 *	bp_bind_field()        a field asked for by name
 *	bp_bind_site()         a site's plan (on its first use), NULL if not chosen
 *	bp_bind_decode()       a record's wanted fields, by the plan
 *	bp_bind_where_holds()  does every --where hold for them?
 *	bp_bind_role_holds()   does a role's --where hold for them?
 *	bp_bind_next()         the next records of chosen sites, decoded: the
 *	                       three steps above (but --where) a batch at a time
 *
 * The plan of a site (struct bp_bind_site) says where each field asked
 * for is in the site's layout (bp_trace_layout()) and which fields a
 * record's block is decoded for: those asked for, and those the --where
 * expressions read.  A site is chosen when every site set takes it, it has
 * every field asked for that is not BP_BIND_OPTIONAL, and those marked
 * BP_BIND_NUMBER are numbers there; with roles, some role must take it too
 * (a field asked for one role is looked up in that role's sites only).  Its plan is made on the first call for
 * its id and kept; an id the trace's site table lacks (a damaged record,
 * or a site a live writer files later) is planned again on every call, so
 * that it is kept once the table has it.
 *
 *	record ──► bp_bind_site(id) ──► NULL: not chosen
 *	                 │ plan: lay, index[j], wanted
 *	                 ▼
 *	           bp_bind_decode() ──► -1: text, or a damaged block
 *	                 │ vals[field index]
 *	                 ▼
 *	           bp_bind_where_holds() ──► the caller's use of vals[index[j]]
 *
 * Configure (sites, where, fields) before the first bp_bind_site(); the
 * sets and expressions are borrowed and must outlive the binding.  One
 * binding serves one struct bp_trace at a time (given another, it forgets
 * its plans); it is not thread-safe.
 */
#ifndef BPRINT_ANALYSIS_H
#define BPRINT_ANALYSIS_H

#include <bprint/query.h>
#include <bprint/reader.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bp_bind;

/* Flags of bp_bind_field(). */
#define BP_BIND_OPTIONAL 1u	/* a site without the field is chosen all the same
				 * (its index is -1) */
#define BP_BIND_NUMBER	2u	/* a site where the field is a string or a char
				 * is not chosen */

#define BP_BIND_MAX_SETS 4	/* site sets, and --where expressions, at most */
#define BP_BIND_MAX_ROLES 8
/* A field asked for role r only (bp_bind_role()'s number): looked up in
 * the sites of that role, index -1 in the others. */
#define BP_BIND_FOR_ROLE(r) (0x100u << (r))

/* A site's plan: owned by the binding, valid until it is freed or used
 * with another trace.  It may grow at the end (size first). */
struct bp_bind_site {
	uint32_t size;				/* the library's sizeof */
	uint32_t site_id;
	const struct bp_trace_layout *lay;	/* NULL: its records carry no fields (a
						 * site recorded as text, or not in the
						 * table); only when no field asked for
						 * is required, nor BP_BIND_FIELDS_ONLY */
	const int16_t *index;			/* per field asked for (bp_bind_field's
						 * order): its index in lay->fields, or
						 * -1 where it lacks an optional one */
	uint64_t wanted;			/* bit i: field i of lay is decoded */
	uint32_t roles;				/* bit r: role r takes the site */
	uint32_t reserved;
};

/* Flags of bp_bind_new(). */
#define BP_BIND_EVERY_FIELD 1u	/* decode every field of each site (the fields
				 * asked for keep their index[]) */
#define BP_BIND_FIELDS_ONLY 2u	/* choose only sites whose records carry fields
				 * (a layout: not a site recorded as text) */

/* NULL if memory ran out. */
BP_API struct bp_bind *bp_bind_new(unsigned flags);
BP_API void bp_bind_free(struct bp_bind *b);

/* Records must be of a site sel takes (bp_sites_match()); each set added
 * must take it.  0, or -1 past BP_BIND_MAX_SETS. */
BP_API int bp_bind_sites(struct bp_bind *b, struct bp_sites *sel);

/* Decode the fields w reads (bp_where_fields()) too, and test them in
 * bp_bind_where_holds().  0, or -1 past BP_BIND_MAX_SETS. */
BP_API int bp_bind_where(struct bp_bind *b, struct bp_where *w);

/* A role: the sites sel takes play it (sel and w borrowed); w (or NULL)
 * is its --where, whose fields are decoded for its sites and tested by
 * bp_bind_role_holds().  Once a binding has roles, it chooses only sites
 * that some role takes.  The role's number r, or -1 past
 * BP_BIND_MAX_ROLES. */
BP_API int bp_bind_role(struct bp_bind *b, struct bp_sites *sel, struct bp_where *w);

/* Ask for the field called name (the name is copied): its position j in
 * every plan's index[], or -1 if memory ran out. */
BP_API int bp_bind_field(struct bp_bind *b, const char *name, unsigned flags);

/* The plan of site id of t, made on first use; NULL if the binding does
 * not choose the site.  (Out of memory, a plan is made again on every
 * call rather than kept: never a record lost.) */
BP_API const struct bp_bind_site *bp_bind_site(struct bp_bind *b, struct bp_trace *t,
					       uint32_t site_id);

/*
 * The fields s->wanted names of ev (a record of s's site whose block is
 * still valid, as for bp_trace_event_fields()) into vals, by their index
 * in s->lay (the others are left as they were).  Returns lay->nfields, or
 * -1 if the record carries text, s has no layout, or the block does not
 * hold what its format packs (every field's place is checked, wanted or
 * not: the file is untrusted).  nvals below lay->nfields: only the fields
 * that fit are written.
 */
BP_API int bp_bind_decode(const struct bp_bind_site *s, const struct bp_trace_event *ev,
			  struct bp_field_value *vals, size_t nvals);

/*
 * A record of a chosen site, as bp_bind_next() reads it.  vals points
 * into the binding (valid until its next call): the fields s->wanted
 * names, by their index in s->lay, as bp_bind_decode() writes them, n its
 * result (-1: text, or a block that does not hold what its format packs,
 * which the reader then says as bp_trace_next()'s check does).
 */
struct bp_bind_rec {
	uint32_t size;			/* the caller's sizeof(struct bp_bind_rec) */
	int32_t tid;
	const struct bp_bind_site *s;	/* its site's plan */
	const struct bp_field_value *vals;
	int n;
	uint32_t site_id;
	uint64_t ns;			/* with BP_TRACE_NEXT_TIME, else 0 */
	uint64_t index;			/* the ring's stored-record index */
};
#define BP_BIND_REC_INIT { .size = sizeof(struct bp_bind_rec) }
#define BP_BIND_REC_SIZE_1 48		/* the first layout's, the smallest taken */
#define BP_BIND_NEXT_MAX 64		/* records a call, at most */

/*
 * The next records of t (from its current position, in bp_trace_next()'s
 * order) whose sites b chooses, up to max (at most BP_BIND_NEXT_MAX) into
 * out, an array of records out[0].size bytes apart (set out[0].size; the
 * others' is written): bp_trace_next(), bp_bind_site() and
 * bp_bind_decode() for each, in one call, which reads records a run of
 * one ring's page at a time (one merge step, one call, for up to a
 * page).  The records of sites not chosen are read past (their blocks
 * checked).  flags: BP_TRACE_NEXT_TIME to have ns.  Returns the records
 * written (1 .. max), 0 once t has no more, or a BP_TRACE_E* code
 * (BP_TRACE_EINVAL without out[0].size).  Use it or bp_trace_next() on
 * t, not both in the same pass: the event bp_trace_next() returned last
 * is not kept.
 */
BP_API int bp_bind_next(struct bp_bind *b, struct bp_trace *t, struct bp_bind_rec *out,
			size_t max, unsigned flags);

/* Does every --where of b hold for the fields vals[0 .. n) of a record of
 * s (decoded by bp_bind_decode(), which returned n)?  1 or 0; 1 without
 * one, 0 for n < 0 when there is one. */
BP_API int bp_bind_where_holds(struct bp_bind *b, struct bp_trace *t, const struct bp_bind_site *s,
			       const struct bp_field_value *vals, int n);

/* Does role r's --where hold for the fields vals[0 .. n) of a record of
 * s?  As bp_bind_where_holds(), for that one expression. */
BP_API int bp_bind_role_holds(struct bp_bind *b, struct bp_trace *t, const struct bp_bind_site *s,
			      int r, const struct bp_field_value *vals, int n);

/*
 * Field j (bp_bind_field()) over the sites of t's table that every site
 * set takes, and role takes (-1: any role, or none if b has none), and
 * the field's own role if it has one: its type at the first of them (by id)
 * whose type for it is one of types (bit 1u << type each; ~0u for any),
 * or 0 if none has it so.  For the checks before reading: "-v x: no chosen
 * call site has this field", "-v x: the field is a string".
 */
BP_API unsigned bp_bind_field_type(struct bp_bind *b, struct bp_trace *t, int role, size_t j,
				   unsigned types);
#define BP_BIND_TYPE(type) (1u << (type))
#define BP_BIND_NUMERIC (BP_BIND_TYPE(BP_FIELD_SIGNED) | BP_BIND_TYPE(BP_FIELD_UNSIGNED) | \
			 BP_BIND_TYPE(BP_FIELD_FLOAT) | BP_BIND_TYPE(BP_FIELD_POINTER))

/* Sites chosen so far (by bp_bind_site() on the records read), and the
 * lowest of their ids in *first (if not NULL and there is one). */
BP_API size_t bp_bind_chosen(const struct bp_bind *b, uint32_t *first);

#if !defined(__cplusplus) && UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(struct bp_bind_site) == 40, "bp_bind_site grows only at the end");
_Static_assert(__builtin_offsetof(struct bp_bind_site, roles) == 32, "bp_bind_site.roles");
_Static_assert(__builtin_offsetof(struct bp_bind_site, wanted) == 24, "bp_bind_site.wanted");
_Static_assert(sizeof(struct bp_bind_rec) == BP_BIND_REC_SIZE_1, "bp_bind_rec grows only at the end");
_Static_assert(__builtin_offsetof(struct bp_bind_rec, ns) == 32, "bp_bind_rec.ns");
#endif

#ifdef __cplusplus
}
#endif

#endif /* BPRINT_ANALYSIS_H */
