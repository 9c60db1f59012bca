/*
 * Field values as Python objects, by the site layout's types
 * (docs/fields.md): signed -> int, unsigned and pointer -> int, float ->
 * float (the double, bit for bit), string -> str, char -> a one-character
 * str.  Bytes that are not UTF-8 decode with surrogateescape (bpy_str).
 */
#include "bprint_py.h"

#include <string.h>

PyObject *bpy_value(const struct bp_trace_field *f, const struct bp_field_value *v)
{
	char c;

	switch (f->type) {
	case BP_FIELD_SIGNED:
		return PyLong_FromLongLong(v->v.i);
	case BP_FIELD_UNSIGNED:
	case BP_FIELD_POINTER:
		return PyLong_FromUnsignedLongLong(v->v.u);
	case BP_FIELD_FLOAT:
		return PyFloat_FromDouble(v->v.d);
	case BP_FIELD_STRING:
		return bpy_str(v->s, v->len);
	case BP_FIELD_CHAR:
		c = (char)(unsigned char)v->v.u;
		return bpy_str(&c, 1);
	default:
		Py_RETURN_NONE;
	}
}

PyObject *bpy_fields_dict(struct bp_trace *t, const struct bp_trace_event *e)
{
	struct bp_field_value vals[64], *v = vals;
	const struct bp_trace_layout *lay = e->text ? NULL : bp_trace_layout(t, e->site_id);
	PyObject *d = PyDict_New();
	int n;

	if (!d || !lay || !lay->nfields)
		return d;
	if (lay->nfields > 64 && !(v = PyMem_Calloc(lay->nfields, sizeof(*v)))) {
		Py_DECREF(d);
		return PyErr_NoMemory();
	}
	n = bp_trace_event_fields(t, e, v, lay->nfields);
	/* a block that does not hold what its format packs: no fields */
	for (int k = 0; k < n && (uint32_t)k < lay->nfields; k++) {
		PyObject *o = bpy_value(&lay->fields[k], &v[k]);

		if (!o || PyDict_SetItemString(d, lay->fields[k].name, o) < 0) {
			Py_XDECREF(o);
			Py_CLEAR(d);
			break;
		}
		Py_DECREF(o);
	}
	if (v != vals)
		PyMem_Free(v);
	return d;
}

/* FNV-1a over the bytes. */
static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h ^ len;
}

PyObject *bpy_strcache_get(struct bpy_strcache *c, const char *s, size_t len)
{
	uint64_t h;
	PyObject *str;
	size_t i;

	if (len > BPY_STRCACHE_BYTES)	/* long strings are seldom repeated */
		return bpy_str(s, len);
	h = hash_bytes(s, len);
	i = (size_t)(h % BPY_STRCACHE_SIZE);
	if (c->slot[i].str && c->slot[i].hash == h && c->slot[i].len == len &&
	    !memcmp(c->slot[i].bytes, s, len))
		return Py_NewRef(c->slot[i].str);
	if (!(str = bpy_str(s, len)))
		return NULL;
	Py_XSETREF(c->slot[i].str, Py_NewRef(str));
	c->slot[i].hash = h;
	c->slot[i].len = len;
	memcpy(c->slot[i].bytes, s, len);
	return str;
}

void bpy_strcache_clear(struct bpy_strcache *c)
{
	for (size_t i = 0; i < BPY_STRCACHE_SIZE; i++)
		Py_CLEAR(c->slot[i].str);
}
