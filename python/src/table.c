/*
 * Columns filled in C and handed to numpy without a copy (table.h).
 */
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include "table.h"

#include <numpy/arrayobject.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static int add_column(struct bpy_table *tb, const char *name, const char *field,
		      enum bpy_kind kind, int ftype)
{
	struct bpy_column *grown = realloc(tb->col, (tb->ncols + 1) * sizeof(*grown));
	struct bpy_column *c;

	if (!grown)
		return -1;
	tb->col = grown;
	c = &tb->col[tb->ncols];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->ftype = ftype;
	c->name = strdup(name);
	c->field = field ? strdup(field) : NULL;
	c->data = malloc((tb->cap ? tb->cap : 1) * item_size(kind));
	if (kind == BPY_OBJ)
		c->cache = calloc(1, sizeof(*c->cache));
	tb->ncols++;
	if (!c->name || (field && !c->field) || !c->data || (kind == BPY_OBJ && !c->cache))
		return -1;
	if (kind == BPY_OBJ)
		memset(c->data, 0, (tb->cap ? tb->cap : 1) * sizeof(PyObject *));
	return (int)(tb->ncols - 1);
}

int bpy_table_init(struct bpy_table *tb, bool message, size_t cap)
{
	memset(tb, 0, sizeof(*tb));
	tb->cap = cap ? cap : 1;
	if (add_column(tb, "ts", NULL, BPY_I64, 0) < 0 || add_column(tb, "tid", NULL, BPY_I32, 0) < 0 ||
	    add_column(tb, "cpu", NULL, BPY_I32, 0) < 0 || add_column(tb, "site", NULL, BPY_U32, 0) < 0 ||
	    (message && add_column(tb, "message", NULL, BPY_OBJ, BP_FIELD_STRING) < 0))
		return tb->failed = true, -1;
	tb->nrec = tb->ncols;
	return 0;
}

int bpy_table_add_field(struct bpy_table *tb, const char *name, const char *field, int ftype)
{
	int i = add_column(tb, name, field, bpy_kind_of(ftype), ftype);

	if (i < 0)
		tb->failed = true;
	return i;
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
			c->data = d;
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

/* An array over *data (rows of kind k), which it then owns; *data is NULL
 * after, whatever happens. */
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
		free(d);
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

/* numpy.ma.MaskedArray(data, mask=mask) */
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

PyObject *bpy_table_finish(struct bpy_table *tb)
{
	PyObject *d = tb->failed ? PyErr_NoMemory() : PyDict_New();

	for (size_t i = 0; d && i < tb->ncols; i++) {
		PyObject *arr = column_array(tb, &tb->col[i]);

		if (!arr || PyDict_SetItemString(d, tb->col[i].name, arr) < 0)
			Py_CLEAR(d);
		Py_XDECREF(arr);
	}
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
		free(c->name);
		free(c->field);
	}
	free(tb->col);
	memset(tb, 0, sizeof(*tb));
}
