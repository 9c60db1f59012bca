/*
 * Columns filled in C and handed to numpy without a copy (table.h).
 */
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include "table.h"

#include <numpy/arrayobject.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int bpy_import_numpy(void)
{
	import_array1(-1);
	return 0;
}

static size_t item_size(enum bpy_kind k)
{
	return k == BPY_BOOL ? 1 : k == BPY_I32 || k == BPY_U32 ? 4 : 8;
}

enum bpy_kind bpy_kind_of(int ftype)
{
	switch (ftype) {
	case BP_FIELD_SIGNED: return BPY_I64;
	case BP_FIELD_UNSIGNED:
	case BP_FIELD_POINTER: return BPY_U64;
	case BP_FIELD_FLOAT: return BPY_F64;
	default: return BPY_OBJ;
	}
}

/* ---- filling ---- */

/*
 * A large column's pages: huge where the kernel allows them (this matters
 * where transparent huge pages are "madvise" only), and, for the first
 * capacity (which is the records the file holds), faulted in at once.  A
 * fresh 4 KiB page a time was half of to_numpy()'s CPU time (system time:
 * 44,000 faults for 4 M records); huge pages and one populating call made
 * it about a fifth (docs/performance.md).  Growing only advises: a doubled
 * capacity may never be filled.  Both are advice: an older kernel's error
 * leaves plain pages.
 */
static void *advise_pages(void *p, size_t from, size_t to, bool populate)
{
	const uintptr_t page = 4096;
	uintptr_t lo, hi;

	if (!p || to - from < ((size_t)4 << 20))
		return p;
	lo = ((uintptr_t)p + from + page - 1) & ~(page - 1);
	hi = ((uintptr_t)p + to) & ~(page - 1);
	if (lo < hi) {
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#ifdef MADV_POPULATE_WRITE
		if (populate)
			(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#endif
	}
	return p;
}

static int add_column(struct bpy_table *tb, const char *field, enum bpy_kind kind)
{
	struct bpy_column *grown = realloc(tb->col, (tb->ncols + 1) * sizeof(*grown));
	struct bpy_column *c;

	if (!grown)
		return tb->failed = true, -1;
	tb->col = grown;
	c = &tb->col[tb->ncols++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->field = field ? strdup(field) : NULL;
	/* objects start NULL: None at the end where nothing was put */
	c->data = kind == BPY_OBJ ? calloc(tb->cap, sizeof(PyObject *)) :
				    malloc(tb->cap * item_size(kind));
	advise_pages(c->data, 0, tb->cap * item_size(kind), true);
	if (kind == BPY_OBJ)
		c->cache = calloc(1, sizeof(*c->cache));
	if ((field && !c->field) || !c->data || (kind == BPY_OBJ && !c->cache))
		return tb->failed = true, -1;
	return (int)(tb->ncols - 1);
}

int bpy_table_init(struct bpy_table *tb, bool message, size_t cap)
{
	memset(tb, 0, sizeof(*tb));
	tb->cap = cap ? cap : 1;
	if (add_column(tb, NULL, BPY_I64) < 0 || add_column(tb, NULL, BPY_I32) < 0 ||
	    add_column(tb, NULL, BPY_I32) < 0 || add_column(tb, NULL, BPY_U32) < 0 ||
	    (message && add_column(tb, NULL, BPY_OBJ) < 0))
		return -1;
	tb->nrec = tb->ncols;
	return 0;
}

int bpy_table_column(struct bpy_table *tb, const char *field, enum bpy_kind kind)
{
	for (size_t c = tb->nrec; c < tb->ncols; c++)
		if (tb->col[c].kind == kind && !strcmp(tb->col[c].field, field))
			return (int)c;
	return add_column(tb, field, kind);
}

bool bpy_table_grow(struct bpy_table *tb)
{
	size_t cap;

	if (tb->rows < tb->cap)
		return true;
	cap = tb->cap < 4096 ? 4096 : tb->cap * 2;
	for (size_t i = 0; i < tb->ncols; i++) {
		struct bpy_column *c = &tb->col[i];
		size_t sz = item_size(c->kind);
		void *d = realloc(c->data, cap * sz);
		uint8_t *m = c->mask ? realloc(c->mask, cap) : NULL;

		if (d)
			c->data = advise_pages(d, tb->cap * sz, cap * sz, false);
		if (m)
			c->mask = m;
		if (!d || (c->mask && !m))
			return tb->failed = true, false;
		if (c->kind == BPY_OBJ)
			memset((char *)d + tb->cap * sz, 0, (cap - tb->cap) * sz);
		if (m)
			memset(m + tb->cap, 0, cap - tb->cap);
	}
	tb->cap = cap;
	return true;
}

bool bpy_column_missing_to(struct bpy_table *tb, struct bpy_column *c, size_t row)
{
	if (!c->mask && !(c->mask = calloc(tb->cap, 1)))
		return tb->failed = true, false;
	for (size_t r = c->next; r < row; r++) {
		c->mask[r] = 1;
		switch (c->kind) {
		case BPY_F64: ((double *)c->data)[r] = NAN; break;
		case BPY_OBJ: break;	/* NULL, None at the end */
		default: ((uint64_t *)c->data)[r] = 0; break;
		}
	}
	c->next = row;
	return true;
}

/* ---- to numpy ---- */

/* A capsule owning a column's memory (and, for objects, its references). */
static void free_column(PyObject *capsule)
{
	void *data = PyCapsule_GetPointer(capsule, "bprint.column");
	size_t n = (size_t)(uintptr_t)PyCapsule_GetContext(capsule);

	for (size_t i = 0; i < n; i++)
		Py_XDECREF(((PyObject **)data)[i]);
	free(data);
}

static int npy_type(enum bpy_kind k)
{
	static const int types[] = { [BPY_I64] = NPY_INT64, [BPY_U64] = NPY_UINT64,
				     [BPY_F64] = NPY_FLOAT64, [BPY_OBJ] = NPY_OBJECT,
				     [BPY_I32] = NPY_INT32, [BPY_U32] = NPY_UINT32,
				     [BPY_BOOL] = NPY_BOOL };
	return types[k];
}

/* An array over *data (rows of kind k; objects all set), which it then
 * owns; *data is NULL after, whatever happens. */
static PyObject *array_of(void **data, size_t rows, enum bpy_kind k)
{
	size_t sz = rows ? rows * item_size(k) : 1;
	void *d = realloc(*data, sz);	/* cut to its rows: in place */
	npy_intp dims[1] = { (npy_intp)rows };
	PyObject *arr, *owner;

	if (!d)
		d = *data;
	*data = NULL;
	if (!(owner = PyCapsule_New(d, "bprint.column", free_column))) {
		free(d);	/* (an object column's references are lost) */
		return NULL;
	}
	if (k == BPY_OBJ && PyCapsule_SetContext(owner, (void *)(uintptr_t)rows) < 0) {
		Py_DECREF(owner);
		return NULL;
	}
	if (!(arr = PyArray_SimpleNewFromData(1, dims, npy_type(k), d))) {
		Py_DECREF(owner);
		return NULL;
	}
	if (PyArray_SetBaseObject((PyArrayObject *)arr, owner) < 0) {
		Py_DECREF(arr);
		return NULL;
	}
	return arr;
}

/* numpy.ma.MaskedArray(data, mask=mask, copy=False) */
static PyObject *masked(PyObject *data, PyObject *mask)
{
	static PyObject *cls;
	PyObject *args, *kw, *r = NULL;

	if (!cls) {
		PyObject *ma = PyImport_ImportModule("numpy.ma");

		if (!ma)
			return NULL;
		cls = PyObject_GetAttrString(ma, "MaskedArray");
		Py_DECREF(ma);
		if (!cls)
			return NULL;
	}
	args = PyTuple_Pack(1, data);
	kw = Py_BuildValue("{sOsO}", "mask", mask, "copy", Py_False);
	if (args && kw)
		r = PyObject_Call(cls, args, kw);
	Py_XDECREF(args);
	Py_XDECREF(kw);
	return r;
}

/* Column c's array (masked if some row lacks it); c's buffers go to it. */
static PyObject *column_array(struct bpy_table *tb, struct bpy_column *c)
{
	PyObject *arr, *mask, *r;

	if (c->field && c->next < tb->rows && !bpy_column_missing_to(tb, c, tb->rows))
		return PyErr_NoMemory();
	if (c->kind == BPY_OBJ)
		for (size_t i = 0; i < tb->rows; i++)
			if (!((PyObject **)c->data)[i])
				((PyObject **)c->data)[i] = Py_NewRef(Py_None);
	if (!(arr = array_of(&c->data, tb->rows, c->kind)) || !c->mask)
		return arr;
	if (!(mask = array_of((void **)&c->mask, tb->rows, BPY_BOOL))) {
		Py_DECREF(arr);
		return NULL;
	}
	r = masked(arr, mask);
	Py_DECREF(arr);
	Py_DECREF(mask);
	return r;
}

/* Row r of column c as a Python object; NULL (no exception) if c lacks it. */
static PyObject *value_at(const struct bpy_column *c, size_t r)
{
	if (r >= c->next || (c->mask && c->mask[r]))
		return NULL;
	switch (c->kind) {
	case BPY_I64: return PyLong_FromLongLong(((int64_t *)c->data)[r]);
	case BPY_U64: return PyLong_FromUnsignedLongLong(((uint64_t *)c->data)[r]);
	case BPY_F64: return PyFloat_FromDouble(((double *)c->data)[r]);
	default: return Py_XNewRef(((PyObject **)c->data)[r]);
	}
}

/* The columns of one field with n kinds, cols[0..n), as one column of
 * objects: into *out (a new column of the table's rows, not in the table). */
static bool merge(struct bpy_table *tb, struct bpy_column **cols, size_t n,
		  struct bpy_column *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = BPY_OBJ;
	out->field = cols[0]->field;
	out->next = tb->rows;
	if (!(out->data = calloc(tb->rows ? tb->rows : 1, sizeof(PyObject *))))
		return PyErr_NoMemory(), false;
	for (size_t r = 0; r < tb->rows; r++) {
		PyObject *v = NULL;

		for (size_t k = 0; k < n && !v; k++)
			if (!(v = value_at(cols[k], r)) && PyErr_Occurred())
				return false;
		((PyObject **)out->data)[r] = v;
		if (!v && !out->mask && !(out->mask = calloc(tb->rows, 1)))
			return PyErr_NoMemory(), false;
		if (!v)
			out->mask[r] = 1;
	}
	return true;
}

/* The name of a field's column: '_' appended while it is taken. */
static PyObject *column_name(PyObject *d, const char *field)
{
	static const char *const record_names[] = { "ts", "tid", "cpu", "site", "message", "date" };
	PyObject *name = PyUnicode_FromString(field);

	for (;;) {
		bool taken = false;

		if (!name)
			return NULL;
		for (size_t i = 0; i < sizeof(record_names) / sizeof(record_names[0]); i++)
			taken |= PyUnicode_CompareWithASCIIString(name, record_names[i]) == 0;
		if (!taken && !PyDict_Contains(d, name))
			return name;
		Py_SETREF(name, PyUnicode_FromFormat("%U_", name));
	}
}

/* The field columns of tb into d, each field once. */
static bool field_columns(struct bpy_table *tb, PyObject *d)
{
	struct bpy_column **group = calloc(tb->ncols, sizeof(*group));
	bool ok = group != NULL;

	for (size_t c = tb->nrec; ok && c < tb->ncols; c++) {
		struct bpy_column merged, *col = &tb->col[c];
		PyObject *name, *arr;
		size_t n = 0;

		if (!col->field)
			continue;	/* merged into an earlier one */
		for (size_t k = c; k < tb->ncols; k++)
			if (tb->col[k].field && !strcmp(tb->col[k].field, col->field))
				group[n++] = &tb->col[k];
		if (n > 1) {
			if (!(ok = merge(tb, group, n, &merged))) {
				free(merged.data);
				free(merged.mask);
				break;
			}
			col = &merged;
		}
		name = column_name(d, col->field);
		arr = name ? column_array(tb, col) : NULL;
		ok = arr && PyDict_SetItem(d, name, arr) == 0;
		Py_XDECREF(name);
		Py_XDECREF(arr);
		for (size_t k = 1; k < n; k++) {	/* done: forget the others' field */
			free(group[k]->field);
			group[k]->field = NULL;
		}
		if (n > 1)
			free(merged.mask);	/* (column_array took data, and mask if used) */
	}
	free(group);
	if (!group)
		PyErr_NoMemory();
	return ok;
}

PyObject *bpy_table_finish(struct bpy_table *tb)
{
	static const char *const names[] = { "ts", "tid", "cpu", "site", "message" };
	PyObject *d = tb->failed ? PyErr_NoMemory() : PyDict_New();

	for (size_t i = 0; d && i < tb->nrec; i++) {
		PyObject *arr = column_array(tb, &tb->col[i]);

		if (!arr || PyDict_SetItemString(d, names[i], arr) < 0)
			Py_CLEAR(d);
		Py_XDECREF(arr);
	}
	if (d && !field_columns(tb, d))
		Py_CLEAR(d);
	bpy_table_free(tb);
	return d;
}

void bpy_table_free(struct bpy_table *tb)
{
	for (size_t i = 0; i < tb->ncols; i++) {
		struct bpy_column *c = &tb->col[i];

		if (c->kind == BPY_OBJ && c->data)
			for (size_t r = 0; r < tb->rows; r++)
				Py_XDECREF(((PyObject **)c->data)[r]);
		if (c->cache) {
			bpy_strcache_clear(c->cache);
			free(c->cache);
		}
		free(c->data);
		free(c->mask);
		free(c->field);
	}
	free(tb->col);
	memset(tb, 0, sizeof(*tb));
}
