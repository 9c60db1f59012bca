/*
 * Trace.to_numpy(): one pass over the file that puts every record the
 * filters keep into columns (table.h), straight from the fields the
 * analysis binding (bprint/analysis.h) decodes, never from text.
 *
 * The binding chooses the sites (the filters) and says where each field
 * is; each site gets a plan of columns on its first record: which of its
 * fields goes into which column (its fields, or those asked for), the
 * columns made as the plans need them, so that the columns are the fields
 * of the records read.  With by_site, each site has a table of its own.
 *
 * Filling runs without the interpreter's lock until a record needs a
 * Python object (a string, a char, a message): then the lock is taken and
 * the record is taken up again with it.
 */
#include "table.h"

#include <bprint/analysis.h>

#include <string.h>

struct bpy_put {
	uint32_t col, field;		/* field k of the layout into column col */
	uint8_t ftype;
};

struct bpy_plan {
	bool built;
	bool python;			/* puts into a column of objects */
	uint32_t n;			/* puts */
	struct bpy_put *put;
};

struct fill {
	BpyReader *r;
	struct bp_bind *bind;		/* the filters, and the fields asked for */
	bool by_site, message;
	char **want;			/* fields asked for, or NULL */
	size_t nwant;
	struct bpy_table one;		/* without by_site */
	struct bpy_table **tbs;		/* by_site: per site id */
	size_t ntbs;
	struct {			/* by_site: ids not in the site table */
		uint32_t id;
		struct bpy_table *tb;
		struct bpy_plan plan;
	} *odd;
	size_t nodd;
	struct bpy_plan *plans;		/* per site id */
	size_t nplans;
	struct bp_field_value vals[BP_PLAN_MAX_ARGS];	/* a layout's fields, at most */
	size_t cap;			/* rows to start the union table with */
	struct bp_trace_event e;	/* the record in hand */
	bool pending;			/* e is to be taken up again, with the lock */
	char msg[4096];
};

#define FILL_ERROR 2			/* an exception, or memory (a table failed) */
#define FILL_NEEDS_LOCK 3		/* a record needs Python objects: e pending */

/* ---- plans and tables ---- */

static bool add_put(struct bpy_table *tb, struct bpy_plan *p, const char *name,
		    const struct bp_trace_layout *lay, int k)
{
	uint8_t type = lay->fields[k].type;
	int c = bpy_table_column(tb, name, bpy_kind_of(type));

	if (c < 0)
		return false;
	p->put[p->n++] = (struct bpy_put){ (uint32_t)c, (uint32_t)k, type };
	p->python |= tb->col[c].kind == BPY_OBJ;
	return true;
}

/* The plan of site s into tb: its fields (or those asked for that it
 * has), each into the column of its name and kind. */
static bool build_plan(struct fill *f, struct bpy_table *tb, const struct bp_bind_site *s,
		       struct bpy_plan *p)
{
	const struct bp_trace_layout *lay = s->lay;
	size_t most = f->want ? f->nwant : lay ? lay->nfields : 0;

	p->built = true;
	if (!lay || !lay->nfields || !most)
		return true;
	if (!(p->put = calloc(most, sizeof(*p->put))))
		return false;
	for (size_t i = 0; i < most; i++) {
		const char *name = f->want ? f->want[i] : lay->fields[i].name;
		int k = f->want ? s->index[i] : (int)i;

		if (k >= 0 && !add_put(tb, p, name, lay, k))
			return false;
	}
	return true;
}

static struct bpy_table *new_table(struct fill *f)
{
	struct bpy_table *tb = calloc(1, sizeof(*tb));

	if (tb)
		bpy_table_init(tb, f->message, 1024);
	return tb;
}

/* Room in the per-id arrays for the ids of the site table. */
static bool room_for_ids(struct fill *f)
{
	size_t known = (size_t)bp_trace_max_site_id(f->r->t) + 1;
	struct bpy_plan *plans;
	struct bpy_table **tbs;

	if (known <= f->nplans)
		return true;
	if (!(plans = realloc(f->plans, known * sizeof(*plans))))
		return false;
	f->plans = plans;
	memset(plans + f->nplans, 0, (known - f->nplans) * sizeof(*plans));
	f->nplans = known;
	if (!f->by_site)
		return true;
	if (!(tbs = realloc(f->tbs, known * sizeof(*tbs))))
		return false;
	f->tbs = tbs;
	memset(tbs + f->ntbs, 0, (known - f->ntbs) * sizeof(*tbs));
	f->ntbs = known;
	return true;
}

/* by_site: the table and plan of an id not in the site table (a short list). */
static bool odd_table(struct fill *f, uint32_t id, struct bpy_table **tb, struct bpy_plan **p)
{
	size_t i;

	for (i = 0; i < f->nodd && f->odd[i].id != id; i++)
		;
	if (i == f->nodd) {
		void *grown = realloc(f->odd, (f->nodd + 1) * sizeof(*f->odd));

		if (!grown)
			return false;
		f->odd = grown;
		memset(&f->odd[i], 0, sizeof(f->odd[i]));
		f->odd[i].id = id;
		f->nodd++;
		if (!(f->odd[i].tb = new_table(f)))
			return false;
	}
	*tb = f->odd[i].tb;
	*p = &f->odd[i].plan;
	return true;
}

/* The table and plan of site s's records; false if memory ran out. */
static bool table_of(struct fill *f, const struct bp_bind_site *s, struct bpy_table **tb,
		     struct bpy_plan **p)
{
	static struct bpy_plan none = { .built = true };
	uint32_t id = s->site_id;

	if (id >= f->nplans && !room_for_ids(f))
		return false;
	if (id < f->nplans) {
		*p = &f->plans[id];
		*tb = f->by_site ? f->tbs[id] : &f->one;
		if (f->by_site && !*tb && !(*tb = f->tbs[id] = new_table(f)))
			return false;
	} else if (f->by_site) {
		if (!odd_table(f, id, tb, p))
			return false;
	} else {
		*tb = &f->one;
		*p = &none;
	}
	if ((*tb)->failed)
		return false;
	return (*p)->built || (build_plan(f, *tb, s, *p) && !(*tb)->failed);
}

/* ---- filling ---- */

static bool put_object(struct bpy_column *c, size_t row, const struct bp_field_value *v,
		       uint8_t ftype)
{
	PyObject *o;
	char ch;

	if (ftype == BP_FIELD_STRING) {
		o = bpy_strcache_get(c->cache, v->s, v->len);
	} else {
		ch = (char)(unsigned char)v->v.u;
		o = bpy_strcache_get(c->cache, &ch, 1);
	}
	((PyObject **)c->data)[row] = o;
	return o != NULL;
}

/* The fields of the record into its row; false on an error (exception set
 * for Python objects, tb->failed for memory). */
static bool put_fields(struct bpy_table *tb, const struct bpy_plan *p, size_t row,
		       const struct bp_field_value *vals)
{
	for (uint32_t i = 0; i < p->n; i++) {
		struct bpy_column *c = &tb->col[p->put[i].col];
		const struct bp_field_value *v = &vals[p->put[i].field];

		if (!bpy_column_reach(tb, c, row))
			return false;
		switch (c->kind) {
		case BPY_I64: ((int64_t *)c->data)[row] = v->v.i; break;
		case BPY_U64: ((uint64_t *)c->data)[row] = v->v.u; break;
		case BPY_F64: ((double *)c->data)[row] = v->v.d; break;
		default:
			if (!put_object(c, row, v, p->put[i].ftype))
				return false;
		}
	}
	return true;
}

/* The record's row: its columns, the message, the fields. */
static bool put_row(struct fill *f, struct bpy_table *tb, const struct bpy_plan *p, int n)
{
	const struct bp_trace_event *e = &f->e;
	struct bpy_column *c = tb->col;
	size_t row = tb->rows;

	if (!bpy_table_grow(tb))
		return false;
	tb->rows++;
	((int64_t *)c[BPY_TS].data)[row] = (int64_t)e->ns;
	((int32_t *)c[BPY_TID].data)[row] = e->tid;
	((int32_t *)c[BPY_CPU].data)[row] = e->cpu;
	((uint32_t *)c[BPY_SITE].data)[row] = e->site_id;
	if (f->message) {
		size_t len = bp_trace_format_message(f->r->t, f->msg, sizeof(f->msg));

		/* as bprint report prints it: up to a NUL (Event.message) */
		len = strnlen(f->msg, len);
		if (!(((PyObject **)c[BPY_MESSAGE].data)[row] = bpy_str(f->msg, len)))
			return false;
	}
	return n < 0 || put_fields(tb, p, row, f->vals);
}

/*
 * Every record of the pass into the tables (locked: the caller holds the
 * interpreter's lock): bp_trace_next()'s last code, FILL_ERROR, or, when
 * not locked, FILL_NEEDS_LOCK with the record in hand pending.
 */
static int fill_tables(struct fill *f, bool locked)
{
	BpyReader *r = f->r;
	bool where = bpy_reader_has_where(r);
	int rc = 1;

	for (;;) {
		const struct bp_bind_site *s;
		struct bpy_table *tb;
		struct bpy_plan *p;
		int n = -1;

		if (!f->pending && (rc = bp_trace_next(r->t, &f->e, BP_TRACE_NEXT_NO_MESSAGE)) != 1)
			return rc;
		f->pending = false;
		if (!(s = bp_bind_site(f->bind, r->t, f->e.site_id)))
			continue;
		if (!table_of(f, s, &tb, &p))
			return FILL_ERROR;
		if (!locked && p->python)
			return f->pending = true, FILL_NEEDS_LOCK;
		if (p->n || where)
			n = bp_bind_decode(s, &f->e, f->vals, BP_PLAN_MAX_ARGS);
		if (where && !bp_bind_where_holds(f->bind, r->t, s, f->vals, n))
			continue;
		if (!put_row(f, tb, p, n))
			return FILL_ERROR;
	}
}

/* ---- the result ---- */

/* Fields asked for that no record read had: columns all missing, of the
 * kind their sites give them. */
static bool wanted_columns(struct fill *f, struct bpy_table *tb)
{
	for (size_t i = 0; i < f->nwant; i++) {
		bool seen = false;
		unsigned type;

		for (size_t c = tb->nrec; c < tb->ncols && !seen; c++)
			seen = !strcmp(tb->col[c].field, f->want[i]);
		if (!seen && (type = bp_bind_field_type(f->bind, f->r->t, -1, i, ~0u)) &&
		    bpy_table_column(tb, f->want[i], bpy_kind_of((uint8_t)type)) < 0)
			return false;
	}
	return true;
}

static PyObject *site_tables(struct fill *f)
{
	PyObject *d = PyDict_New();

	for (size_t i = 0; d && i < f->ntbs + f->nodd; i++) {
		struct bpy_table *tb = i < f->ntbs ? f->tbs[i] : f->odd[i - f->ntbs].tb;
		uint32_t id = i < f->ntbs ? (uint32_t)i : f->odd[i - f->ntbs].id;
		PyObject *key, *cols;

		if (!tb)
			continue;
		cols = bpy_table_finish(tb);
		key = PyLong_FromUnsignedLong(id);
		if (!cols || !key || PyDict_SetItem(d, key, cols) < 0)
			Py_CLEAR(d);
		Py_XDECREF(cols);
		Py_XDECREF(key);
	}
	return d;
}

static void fill_free(struct fill *f)
{
	for (size_t i = 0; i < f->nplans; i++)
		free(f->plans[i].put);
	for (size_t i = 0; i < f->ntbs; i++)
		if (f->tbs[i]) {
			bpy_table_free(f->tbs[i]);
			free(f->tbs[i]);
		}
	for (size_t i = 0; i < f->nodd; i++) {
		free(f->odd[i].plan.put);
		bpy_table_free(f->odd[i].tb);
		free(f->odd[i].tb);
	}
	for (size_t i = 0; i < f->nwant; i++)
		free(f->want[i]);
	free(f->want);
	free(f->plans);
	free(f->tbs);
	free(f->odd);
	bp_bind_free(f->bind);
	bpy_table_free(&f->one);
	Py_XDECREF(f->r);
}

/* ---- the call ---- */

/* fields=[...] into f->want. */
static int wanted(struct fill *f, PyObject *fields)
{
	PyObject *seq;
	Py_ssize_t n;

	if (fields == Py_None)
		return 0;
	if (PyUnicode_Check(fields) ||
	    !(seq = PySequence_Fast(fields, "fields: expected a list of names")))
		return PyErr_Occurred() ? -1 :
			(PyErr_SetString(PyExc_TypeError, "fields: expected a list of names"), -1);
	n = PySequence_Fast_GET_SIZE(seq);
	if (!(f->want = calloc((size_t)n + 1, sizeof(*f->want)))) {
		Py_DECREF(seq);
		return PyErr_NoMemory(), -1;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
		const char *s = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;

		if (!s && !PyErr_Occurred())
			PyErr_SetString(PyExc_TypeError, "fields: expected a list of names");
		if (s && !(f->want[f->nwant++] = strdup(s)))
			PyErr_NoMemory();
		if (PyErr_Occurred()) {
			Py_DECREF(seq);
			return -1;
		}
	}
	Py_DECREF(seq);
	return 0;
}

/* The binding: the reader's filters, the fields asked for (or all). */
static int bind(struct fill *f)
{
	BpyReader *r = f->r;

	if (!(f->bind = bp_bind_new(f->want ? 0 : BP_BIND_EVERY_FIELD)))
		return PyErr_NoMemory(), -1;
	for (int i = 0; i < 2; i++)
		if ((r->sites[i] && bp_bind_sites(f->bind, r->sites[i]) < 0) ||
		    (r->where[i] && bp_bind_where(f->bind, r->where[i]) < 0))
			return PyErr_NoMemory(), -1;
	for (size_t i = 0; i < f->nwant; i++)
		if (bp_bind_field(f->bind, f->want[i], BP_BIND_OPTIONAL) < 0)
			return PyErr_NoMemory(), -1;
	return 0;
}

/* Every field asked for is a field of some chosen site. */
static int check_wanted(struct fill *f)
{
	for (size_t i = 0; i < f->nwant; i++) {
		if (!bp_bind_field_type(f->bind, f->r->t, -1, i, ~0u)) {
			if (bpy_reader_damaged(f->r))
				return -1;
			PyErr_Format(PyExc_ValueError, "fields: no field '%s' in the chosen call sites "
				     "(see 'bprint formats')", f->want[i]);
			return -1;
		}
	}
	return 0;
}

/* Rows to start with: the records the file holds, as bprint report's header
 * counts them (written - lost), bounded by the file's size (a damaged
 * header's counters are not trusted); a filtered pass starts small. */
static size_t first_capacity(BpyReader *r)
{
	struct bp_trace_totals tot = BPY_TOTALS_INIT;
	const struct bp_trace_info *in = bp_trace_info(r->t);
	uint64_t lost, held, bound = in->file_size / 8 + 16;

	if (r->sites[0] || r->sites[1] || bpy_reader_has_where(r))
		return 4096;
	bp_trace_totals(r->t, &tot);
	lost = tot.discarded + tot.not_copied + bp_trace_overwritten_estimate(r->t);
	held = tot.written > lost ? tot.written - lost : 0;
	return (size_t)(held + 16 < bound ? held + 16 : bound);
}

/* The pass: without the lock while no record needs Python objects. */
static int fill(struct fill *f)
{
	int rc = FILL_NEEDS_LOCK;

	if (!f->message) {
		Py_BEGIN_ALLOW_THREADS
		rc = fill_tables(f, false);
		Py_END_ALLOW_THREADS
	}
	if (rc == FILL_NEEDS_LOCK)
		rc = fill_tables(f, true);
	if (rc != FILL_ERROR && f->want && !f->by_site && !wanted_columns(f, &f->one))
		rc = FILL_ERROR;
	return rc;
}

PyObject *bpy_trace_to_numpy(BpyTrace *tr, PyObject *args, PyObject *kwargs)
{
	static char *kw[] = { (char *)"site", (char *)"where", (char *)"fields",
			      (char *)"message", (char *)"by_site", NULL };
	PyObject *site = Py_None, *where = Py_None, *fields = Py_None, *result = NULL, *fin;
	int message = 0, by_site = 0, rc;
	struct fill *f;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOpp:to_numpy", kw, &site, &where,
					 &fields, &message, &by_site))
		return NULL;
	if (!(f = PyMem_Calloc(1, sizeof(*f))))
		return PyErr_NoMemory();
	f->e = (struct bp_trace_event)BPY_EVENT_INIT;
	f->message = message;
	f->by_site = by_site;
	if (wanted(f, fields) < 0 || !(f->r = bpy_trace_pass(tr, site, where)) ||
	    bind(f) < 0 || check_wanted(f) < 0)
		goto out;
	if (!by_site && bpy_table_init(&f->one, message, first_capacity(f->r)) < 0)
		goto out;
	if ((rc = fill(f)) == FILL_ERROR)
		goto out;
	if (!(result = by_site ? site_tables(f) : bpy_table_finish(&f->one)))
		goto out;
	if (rc >= 0)
		bpy_trace_passed(tr, f->r);
	if (!(fin = bpy_reader_finish(f->r, rc, result)))
		Py_CLEAR(result);
	Py_XDECREF(fin);
out:
	if (!result && !PyErr_Occurred())
		PyErr_NoMemory();
	fill_free(f);
	PyMem_Free(f);
	return result;
}

const char bpy_to_numpy_doc[] =
	"to_numpy(*, site=None, where=None, fields=None, message=False, by_site=False)\n--\n\n"
	"The records as columns: a dict of numpy arrays (see bprint.Trace.to_numpy).";
