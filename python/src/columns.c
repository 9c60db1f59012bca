/*
 * Trace.to_numpy(): one pass over the file that puts every record the
 * filters keep into columns (table.h), straight from the reader's decoded
 * fields (bp_trace_event_fields), never from text.
 *
 * The columns are chosen before reading, from the sites the filters keep:
 * the union of their fields (or the fields asked for), each with the kind
 * of its type; a name whose sites disagree on the kind is a column of
 * Python objects.  Each site gets a plan on its first record: which of its
 * fields goes into which column.  With by_site, each site has a table of
 * its own, its own fields in the order of its format.
 */
#include "table.h"

#include <string.h>

const char bpy_to_numpy_doc[] =
	"to_numpy(*, site=None, where=None, fields=None, message=False, by_site=False)\n--\n\n"
	"The records as columns: a dict of numpy arrays, one row a record, filled\n"
	"in C.  ts (int64, ns), tid (int32), cpu (int32), site (uint32), then one\n"
	"array per field: int64 for signed integers, uint64 for unsigned ones and\n"
	"pointers, float64 for floats, object (str) for strings and chars.\n\n"
	"site, where: filters, as bprint report's -s and --where, on top of\n"
	"bprint.open()'s.  fields: the names (or argN aliases) of the fields\n"
	"wanted, each a field of at least one chosen site; default: every field of\n"
	"the chosen sites.  A field some records lack (their site has no such\n"
	"field) is a numpy.ma.MaskedArray, masked there.  A field named like a\n"
	"record column (ts, tid, cpu, site, message, date) gets '_' appended.\n"
	"message: add the formatted messages (object).  by_site: a dict by site\n"
	"id of such dicts, each with its site's fields only.\n\n"
	"A damaged file raises bprint.Error after reading what it could; the\n"
	"columns are its partial attribute.";

struct fill {
	BpyReader *r;
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
	struct bp_field_value *vals;
	size_t nvals;
	size_t cap;			/* rows to start the tables with */
	char msg[4096];
};

static const char *const record_names[] = { "ts", "tid", "cpu", "site", "message", "date" };

/* A field's column name: '_' appended while it is a record column's or
 * another column's. */
static char *column_name(const struct bpy_table *tb, const char *field)
{
	size_t len = strlen(field);
	char *name = malloc(len + 1 + tb->ncols + 6);
	bool taken = true;

	if (!name)
		return NULL;
	memcpy(name, field, len + 1);
	while (taken) {
		taken = false;
		for (size_t i = 0; i < sizeof(record_names) / sizeof(record_names[0]); i++)
			taken |= !strcmp(name, record_names[i]);
		for (size_t c = 0; c < tb->ncols; c++)
			taken |= !strcmp(name, tb->col[c].name);
		if (taken) {
			name[len++] = '_';
			name[len] = '\0';
		}
	}
	return name;
}

static int add_field(struct bpy_table *tb, const char *field, int ftype, bool obj)
{
	char *name = column_name(tb, field);
	int i = name ? bpy_table_add_field(tb, name, field, obj ? BP_FIELD_STRING : ftype) : -1;

	free(name);
	if (i < 0)
		return tb->failed = true, -1;
	tb->col[i].ftype = ftype;
	return i;
}

/* ---- choosing the columns ---- */

static bool site_chosen(BpyReader *r, uint32_t id)
{
	for (int i = 0; i < 2; i++)
		if (r->sites[i] && !bp_sites_match(r->sites[i], r->t, id))
			return false;
	return true;
}

/* The type of field name in the chosen sites: its first one's, and *mixed
 * if some disagree on the kind of column; 0 if no chosen site has it. */
static int field_type(BpyReader *r, const char *name, bool *mixed)
{
	int type = 0;

	*mixed = false;
	for (size_t i = 0; i < bp_trace_nsites(r->t); i++) {
		const struct bp_trace_site *s = bp_trace_site_at(r->t, i);
		const struct bp_trace_layout *lay;
		int k;

		if (!s || !site_chosen(r, s->site.id) || !(lay = bp_trace_layout(r->t, s->site.id)) ||
		    (k = bp_trace_field_index(lay, name)) < 0)
			continue;
		if (!type)
			type = lay->fields[k].type;
		else if (bpy_kind_of(type) != bpy_kind_of(lay->fields[k].type))
			*mixed = true;
	}
	return type;
}

static bool has_column(const struct bpy_table *tb, const char *field)
{
	for (size_t c = tb->nrec; c < tb->ncols; c++)
		if (!strcmp(tb->col[c].field, field))
			return true;
	return false;
}

/* The union table's field columns: those asked for, or every chosen site's. */
static int union_columns(struct fill *f)
{
	struct bp_trace *t = f->r->t;
	bool mixed;
	int type;

	for (size_t i = 0; i < f->nwant; i++) {
		if (!(type = field_type(f->r, f->want[i], &mixed))) {
			PyErr_Format(PyExc_ValueError, "fields: no field %s in the chosen sites",
				     f->want[i]);
			return -1;
		}
		if (!has_column(&f->one, f->want[i]) && add_field(&f->one, f->want[i], type, mixed) < 0)
			return -1;
	}
	for (size_t i = 0; !f->want && i < bp_trace_nsites(t); i++) {
		const struct bp_trace_site *s = bp_trace_site_at(t, i);
		const struct bp_trace_layout *lay;

		if (!s || !site_chosen(f->r, s->site.id) || !(lay = bp_trace_layout(t, s->site.id)))
			continue;
		for (uint32_t k = 0; k < lay->nfields; k++) {
			const char *name = lay->fields[k].name;

			if (has_column(&f->one, name))
				continue;
			type = field_type(f->r, name, &mixed);
			if (add_field(&f->one, name, type, mixed) < 0)
				return -1;
		}
	}
	return 0;
}

/* ---- plans and tables ---- */

/* Site id's plan into tb: its fields that tb has a column of the same kind for. */
static bool build_plan(struct fill *f, struct bpy_table *tb, uint32_t id, struct bpy_plan *p)
{
	const struct bp_trace_layout *lay = bp_trace_layout(f->r->t, id);

	p->built = true;
	if (!lay || !lay->nfields)
		return true;
	if (!(p->put = calloc(tb->ncols, sizeof(*p->put))))
		return false;
	p->nfields = lay->nfields;
	for (size_t c = tb->nrec; c < tb->ncols; c++) {
		int k = bp_trace_field_index(lay, tb->col[c].field);
		uint8_t type = k >= 0 ? lay->fields[k].type : 0;

		if (k < 0 || (tb->col[c].kind != BPY_OBJ &&
			      tb->col[c].kind != bpy_kind_of(type)))
			continue;	/* a site seen after the columns were chosen */
		p->put[p->n++] = (struct bpy_put){ (uint32_t)c, (uint32_t)k, type };
	}
	if (p->nfields > f->nvals) {
		free(f->vals);
		if (!(f->vals = calloc(p->nfields, sizeof(*f->vals))))
			return false;
		f->nvals = p->nfields;
	}
	return true;
}

/* A by_site table for site id: its own fields (those asked for, if any). */
static struct bpy_table *new_site_table(struct fill *f, uint32_t id)
{
	const struct bp_trace_layout *lay = bp_trace_layout(f->r->t, id);
	struct bpy_table *tb = calloc(1, sizeof(*tb));

	if (!tb || bpy_table_init(tb, f->message, 1024) < 0)
		return tb;
	for (uint32_t k = 0; lay && !f->want && k < lay->nfields; k++)
		if (add_field(tb, lay->fields[k].name, lay->fields[k].type, false) < 0)
			return tb;
	for (size_t i = 0; lay && i < f->nwant; i++) {
		int k = bp_trace_field_index(lay, f->want[i]);

		if (k >= 0 && !has_column(tb, f->want[i]) &&
		    add_field(tb, f->want[i], lay->fields[k].type, false) < 0)
			return tb;
	}
	return tb;
}

/* The table and plan of site id's records; false if memory ran out. */
static bool table_of(struct fill *f, uint32_t id, struct bpy_table **tb, struct bpy_plan **p)
{
	size_t known = (size_t)bp_trace_max_site_id(f->r->t) + 1;

	if (id < known && id >= f->nplans) {
		struct bpy_plan *plans = realloc(f->plans, known * sizeof(*plans));
		struct bpy_table **tbs = f->by_site ? realloc(f->tbs, known * sizeof(*tbs)) : NULL;

		if (plans)
			f->plans = plans;
		if (tbs)
			f->tbs = tbs;
		if (!plans || (f->by_site && !tbs))
			return false;
		memset(plans + f->nplans, 0, (known - f->nplans) * sizeof(*plans));
		if (tbs) {
			memset(tbs + f->ntbs, 0, (known - f->ntbs) * sizeof(*tbs));
			f->ntbs = known;
		}
		f->nplans = known;
	}
	if (id < f->nplans) {
		*p = &f->plans[id];
		*tb = f->by_site ? f->tbs[id] : &f->one;
		if (f->by_site && !*tb && !(*tb = f->tbs[id] = new_site_table(f, id)))
			return false;
	} else if (f->by_site) {
		/* an id not in the site table: rare, kept in a list */
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
			if (!(f->odd[i].tb = new_site_table(f, id)))
				return false;
		}
		*tb = f->odd[i].tb;
		*p = &f->odd[i].plan;
	} else {
		static struct bpy_plan none = { .built = true };

		*tb = &f->one;
		*p = &none;
	}
	if ((*tb)->failed)
		return false;
	return (*p)->built || build_plan(f, *tb, id, *p);
}

/* ---- filling ---- */

static bool put_object(struct bpy_column *c, size_t row, const struct bp_field_value *v,
		       uint8_t ftype)
{
	static const struct bp_trace_field as[] = { { .type = BP_FIELD_SIGNED },
		{ .type = BP_FIELD_UNSIGNED }, { .type = BP_FIELD_FLOAT } };
	PyObject *o;
	char ch;

	if (ftype == BP_FIELD_STRING)
		o = bpy_strcache_get(c->cache, v->s, v->len);
	else if (ftype == BP_FIELD_CHAR) {
		ch = (char)(unsigned char)v->v.u;
		o = bpy_strcache_get(c->cache, &ch, 1);
	} else
		o = bpy_value(&as[ftype == BP_FIELD_SIGNED ? 0 : ftype == BP_FIELD_FLOAT ? 2 : 1], v);
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
static bool put_row(struct fill *f, struct bpy_table *tb, const struct bpy_plan *p,
		    const struct bp_trace_event *e, int n)
{
	size_t row = tb->rows;
	struct bpy_column *c = tb->col;

	if (!bpy_table_grow(tb))
		return false;
	tb->rows++;
	((int64_t *)c[BPY_TS].data)[row] = (int64_t)e->ev.ns;
	((int32_t *)c[BPY_TID].data)[row] = e->ev.tid;
	((int32_t *)c[BPY_CPU].data)[row] = e->ev.cpu;
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

/* Every record of the pass into the tables: bp_trace_next()'s last code,
 * or 2 for an error (an exception set, or memory: a table failed). */
static int fill_tables(struct fill *f)
{
	struct bp_trace_event e = BPY_EVENT_INIT;
	BpyReader *r = f->r;
	bool where = bpy_reader_has_where(r);
	int rc;

	while ((rc = bp_trace_next(r->t, &e, BP_TRACE_NEXT_NO_MESSAGE)) == 1) {
		struct bpy_table *tb;
		struct bpy_plan *p;
		int n = -1;

		if (!bpy_reader_site_ok(r, &e))
			continue;
		if (!table_of(f, e.site_id, &tb, &p))
			return 2;
		if ((p->n || where) && !e.text)
			n = bp_trace_event_fields(r->t, &e, f->vals, f->nvals);
		if (where && !bpy_reader_where_ok(r, &e, f->vals, n))
			continue;
		if (!put_row(f, tb, p, &e, n))
			return 2;
	}
	return rc;
}

/* Python objects are made while filling: columns of strings, messages. */
static bool needs_python(const struct fill *f)
{
	if (f->message || f->by_site)	/* a site's table may have strings */
		return true;
	for (size_t c = f->one.nrec; c < f->one.ncols; c++)
		if (f->one.col[c].kind == BPY_OBJ)
			return true;
	return false;
}

/* ---- the result ---- */

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
	free(f->vals);
	bpy_table_free(&f->one);
	Py_XDECREF(f->r);
}

/* fields=[...] into f->want. */
static int wanted(struct fill *f, PyObject *fields)
{
	PyObject *seq;

	if (fields == Py_None)
		return 0;
	if (PyUnicode_Check(fields))
		return PyErr_SetString(PyExc_TypeError, "fields: expected a list of names"), -1;
	if (!(seq = PySequence_Fast(fields, "fields: expected a list of names")))
		return -1;
	f->nwant = 0;
	f->want = calloc((size_t)PySequence_Fast_GET_SIZE(seq) + 1, sizeof(*f->want));
	for (Py_ssize_t i = 0; f->want && i < PySequence_Fast_GET_SIZE(seq); i++) {
		const char *s = PyUnicode_Check(PySequence_Fast_GET_ITEM(seq, i))
			? PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i)) : NULL;

		if (!s) {
			if (!PyErr_Occurred())
				PyErr_SetString(PyExc_TypeError, "fields: expected a list of names");
			Py_DECREF(seq);
			return -1;
		}
		if (!(f->want[f->nwant++] = strdup(s)))
			break;
	}
	Py_DECREF(seq);
	if (!f->want || (f->nwant && !f->want[f->nwant - 1]))
		return PyErr_NoMemory(), -1;
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

PyObject *bpy_trace_to_numpy(BpyTrace *tr, PyObject *args, PyObject *kwargs)
{
	static char *kw[] = { (char *)"site", (char *)"where", (char *)"fields",
			      (char *)"message", (char *)"by_site", NULL };
	PyObject *site = Py_None, *where = Py_None, *fields = Py_None, *result = NULL, *fin;
	int message = 0, by_site = 0, rc = 2;
	struct fill *f;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOpp:to_numpy", kw, &site, &where,
					 &fields, &message, &by_site))
		return NULL;
	if (!(f = PyMem_Calloc(1, sizeof(*f))))
		return PyErr_NoMemory();
	f->message = message;
	f->by_site = by_site;
	if (wanted(f, fields) < 0 || !(f->r = bpy_trace_pass(tr, site, where)))
		goto out;
	if (!by_site && (bpy_table_init(&f->one, message, first_capacity(f->r)) < 0 ||
			 union_columns(f) < 0))
		goto out;
	if (needs_python(f)) {
		rc = fill_tables(f);
	} else {
		Py_BEGIN_ALLOW_THREADS
		rc = fill_tables(f);
		Py_END_ALLOW_THREADS
	}
	if (rc == 2)
		goto out;
	result = by_site ? site_tables(f) : bpy_table_finish(&f->one);
	if (!result)
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
