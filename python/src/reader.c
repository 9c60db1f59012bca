/*
 * Reader: one struct bp_trace of the reading library, and the filters of
 * the pass that reads it: site patterns (bp_sites_*, what `bprint report
 * -s` takes) and --where expressions (bp_where_*), each from bprint.open()
 * and from the call, both of which must hold.  A bad pattern or
 * expression is a ValueError with the command's words, unless the file
 * is damaged (its sites may be in the damaged part): then bprint.Error.
 */
#include "bprint_py.h"

#include <errno.h>
#include <string.h>

static void reader_dealloc(BpyReader *r)
{
	for (int i = 0; i < 2; i++) {
		bp_sites_free(r->sites[i]);
		bp_where_free(r->where[i]);
	}
	if (r->t)
		bp_trace_close(r->t);
	Py_XDECREF(r->path);
	Py_TYPE(r)->tp_free((PyObject *)r);
}

PyTypeObject BpyReader_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "bprint._bprint.Reader",
	.tp_basicsize = sizeof(BpyReader),
	.tp_dealloc = (destructor)reader_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A reading pass over a trace file (internal).",
};

/* One site pattern into s: an int is an id, a str an id or a pattern. */
static int add_pattern(struct bp_sites *s, PyObject *p)
{
	PyObject *str = PyLong_Check(p) ? PyObject_Str(p) : Py_NewRef(p);
	const char *text;

	if (!str)
		return -1;
	if (!PyUnicode_Check(str)) {
		PyErr_Format(PyExc_TypeError, "site: expected a str or an int, not %.80s",
			     Py_TYPE(p)->tp_name);
		Py_DECREF(str);
		return -1;
	}
	text = PyUnicode_AsUTF8(str);
	if (text && bp_sites_add(s, text) < 0)
		PyErr_SetString(PyExc_ValueError, "site: expected an id or a pattern");
	Py_DECREF(str);
	return PyErr_Occurred() ? -1 : 0;
}

/* bprint.Error for r's damage, in the words report prints: NULL. */
static PyObject *raise_damage(BpyReader *r, PyObject *partial)
{
	struct bp_trace_verdict v = BP_TRACE_VERDICT_INIT;

	r->damage_raised = true;
	bp_trace_verdict(r->t, &v);
	for (uint32_t i = 0; i < v.nnotes; i++)
		if (!strncmp(v.notes[i], "damaged", 7))
			return bpy_raise(r->path, BPY_EXIT_BADFILE, v.notes[i], partial);
	return bpy_raise(r->path, BPY_EXIT_BADFILE, "damaged", partial);
}

bool bpy_reader_damaged(BpyReader *r)
{
	if (!r->t || bp_trace_problems(r->t, NULL) == 0)
		return false;
	raise_damage(r, NULL);
	return true;
}

/* site=None, a str or int, or a sequence of them: a set, NULL for None. */
static int make_sites(BpyReader *r, PyObject *site, struct bp_sites **out)
{
	const char *bad;

	*out = NULL;
	if (!site || site == Py_None)
		return 0;
	if (!(*out = bp_sites_new())) {
		PyErr_NoMemory();
		return -1;
	}
	if (PyUnicode_Check(site) || PyLong_Check(site)) {
		if (add_pattern(*out, site) < 0)
			return -1;
	} else {
		PyObject *seq = PySequence_Fast(site, "site: expected a str, an int or a list of them");

		if (!seq)
			return -1;
		for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++)
			if (add_pattern(*out, PySequence_Fast_GET_ITEM(seq, i)) < 0) {
				Py_DECREF(seq);
				return -1;
			}
		Py_DECREF(seq);
	}
	/* as bprint report: a pattern that matches no site is an error */
	if ((bad = bp_sites_unmatched(*out, r->t))) {
		if (bpy_reader_damaged(r))
			return -1;	/* the site may be in the damaged part */
		PyErr_Format(PyExc_ValueError, "site %s: no such site in %U (see 'bprint formats')",
			     bad, r->path);
		return -1;
	}
	return 0;
}

/* One --where expression parsed, or NULL with a ValueError (or
 * MemoryError) raised. */
static struct bp_where *parse_where(const char *expr)
{
	char err[256];
	struct bp_where *w;

	err[0] = '\0';
	if (!(w = bp_where_new(expr, err, sizeof(err)))) {
		if (!err[0])
			return PyErr_NoMemory(), NULL;
		PyErr_Format(PyExc_ValueError, "where: %s", err);
	}
	return w;
}

/*
 * where= as one str: a str as it is; a list or tuple of str (as --where
 * given more than once: every one must hold), each parsed alone first (its
 * own error), then joined by ',' into one expression.  A new reference, or
 * NULL with an exception raised.
 */
static PyObject *where_text(PyObject *where)
{
	PyObject *seq, *comma, *joined;

	if (PyUnicode_Check(where))
		return Py_NewRef(where);
	if (!PyList_Check(where) && !PyTuple_Check(where)) {
		PyErr_Format(PyExc_TypeError, "where: expected a str or a list of str, not %.80s",
			     Py_TYPE(where)->tp_name);
		return NULL;
	}
	if (!(seq = PySequence_Fast(where, "where: expected a list of str")))
		return NULL;
	for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
		PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
		const char *expr;
		struct bp_where *alone;

		if (!PyUnicode_Check(item)) {
			PyErr_Format(PyExc_TypeError, "where: expected a str in the list, not %.80s",
				     Py_TYPE(item)->tp_name);
			Py_DECREF(seq);
			return NULL;
		}
		if (!(expr = PyUnicode_AsUTF8(item)) || !(alone = parse_where(expr))) {
			Py_DECREF(seq);
			return NULL;
		}
		bp_where_free(alone);
	}
	joined = (comma = PyUnicode_FromString(",")) ? PyUnicode_Join(comma, seq) : NULL;
	Py_XDECREF(comma);
	Py_DECREF(seq);
	return joined;
}

/* where=None, a str or a list of str: parsed and checked against the
 * chosen sites. */
static int make_where(BpyReader *r, PyObject *where, struct bp_sites *sel,
		      struct bp_where **out)
{
	char err[256];
	const char *expr;
	PyObject *text;

	*out = NULL;
	if (!where || where == Py_None)
		return 0;
	if ((PyList_Check(where) || PyTuple_Check(where)) && PySequence_Size(where) == 0)
		return 0;	/* no terms: every record */
	if (!(text = where_text(where)))
		return -1;
	if (!(expr = PyUnicode_AsUTF8(text)) || !(*out = parse_where(expr))) {
		Py_DECREF(text);
		return -1;
	}
	Py_DECREF(text);
	if (bp_where_check(*out, r->t, sel, err, sizeof(err)) < 0) {
		if (bpy_reader_damaged(r))
			return -1;
		PyErr_Format(PyExc_ValueError, "where: %s", err);
		return -1;
	}
	return 0;
}

static BpyReader *open_reader(PyObject *path)
{
	PyObject *fs = NULL;
	BpyReader *r;
	char err[256];
	int rc = 0, saved;

	if (!PyUnicode_FSConverter(path, &fs))
		return NULL;
	if (!(r = PyObject_New(BpyReader, &BpyReader_Type))) {
		Py_DECREF(fs);
		return NULL;
	}
	memset(&r->t, 0, sizeof(*r) - offsetof(BpyReader, t));
	r->path = PyOS_FSPath(path);
	if (r->path && !PyUnicode_Check(r->path))
		Py_SETREF(r->path, PyUnicode_DecodeFSDefaultAndSize(PyBytes_AS_STRING(fs),
								  PyBytes_GET_SIZE(fs)));
	if (!r->path) {
		Py_DECREF(fs);
		Py_DECREF(r);
		return NULL;
	}
	err[0] = '\0';
	Py_BEGIN_ALLOW_THREADS
	errno = 0;
	r->t = bp_trace_open(PyBytes_AS_STRING(fs), BP_TRACE_OPEN_DEFAULT, err, sizeof(err), &rc);
	saved = errno;
	Py_END_ALLOW_THREADS
	Py_DECREF(fs);
	if (!r->t) {
		/* the command's exit status: 3 out of memory, else 2; the errno
		 * of a file that did not open (its strerror() is the reason) */
		bpy_raise_errno(r->path, rc == BP_TRACE_ENOMEM ? BPY_EXIT_IO : BPY_EXIT_BADFILE,
				rc == BP_TRACE_EIO && saved && !strcmp(err, strerror(saved)) ? saved : 0,
				err, NULL);
		Py_DECREF(r);
		return NULL;
	}
	return r;
}

BpyReader *bpy_reader_open(PyObject *path, PyObject *site0, PyObject *where0, PyObject *site1,
			   PyObject *where1)
{
	BpyReader *r = open_reader(path);

	if (!r)
		return NULL;
	if (make_sites(r, site0, &r->sites[0]) < 0 || make_sites(r, site1, &r->sites[1]) < 0 ||
	    make_where(r, where0, r->sites[1] ? r->sites[1] : r->sites[0], &r->where[0]) < 0 ||
	    make_where(r, where1, r->sites[1] ? r->sites[1] : r->sites[0], &r->where[1]) < 0) {
		Py_DECREF(r);
		return NULL;
	}
	return r;
}

bool bpy_reader_site_ok(BpyReader *r, const struct bp_trace_event *e)
{
	for (int i = 0; i < 2; i++)
		if (r->sites[i] && !bp_sites_match(r->sites[i], r->t, e->site_id))
			return false;
	return true;
}

bool bpy_reader_where_ok(BpyReader *r, const struct bp_trace_event *e,
			 const struct bp_field_value *vals, int n)
{
	for (int i = 0; i < 2; i++)
		if (r->where[i] &&
		    (n < 0 || !bp_where_match_fields(r->where[i], r->t, e->site_id, vals, (size_t)n)))
			return false;
	return true;
}

PyObject *bpy_reader_finish(BpyReader *r, int rc, PyObject *partial)
{
	struct bp_trace_verdict v = BP_TRACE_VERDICT_INIT;

	r->done = true;
	if (rc < 0)
		return bpy_raise(r->path, rc == BP_TRACE_EFORMAT ? BPY_EXIT_BADFILE : BPY_EXIT_IO,
				 rc == BP_TRACE_ENOMEM ? "out of memory" : "read error", partial);
	bp_trace_verdict(r->t, &v);
	if (v.state == BP_TRACE_DAMAGED && !r->damage_raised)
		return raise_damage(r, partial);
	Py_RETURN_NONE;
}
