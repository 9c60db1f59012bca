/*
 * The bprint._bprint extension module: its types, bprint.Error (defined by
 * the package in Python, handed to us by _set_error), the structseq types
 * of info, sites, fields and threads, and the string decoding every value
 * goes through.
 */
#include "bprint_py.h"

#include <string.h>

PyObject *bpy_error_class;
PyTypeObject *bpy_info_type, *bpy_site_type, *bpy_field_type, *bpy_thread_type;

PyObject *bpy_raise(PyObject *path, int exit_status, const char *what, PyObject *partial)
{
	return bpy_raise_errno(path, exit_status, 0, what, partial);
}

PyObject *bpy_raise_errno(PyObject *path, int exit_status, int err, const char *what,
			  PyObject *partial)
{
	PyObject *cls = bpy_error_class ? bpy_error_class : PyExc_OSError;
	PyObject *text = bpy_str(what, strlen(what));
	PyObject *no = err ? PyLong_FromLong(err) : Py_NewRef(Py_None);
	PyObject *exc = text && no ? PyObject_CallFunction(cls, "OOO", no, text,
							   path ? path : Py_None) : NULL;
	PyObject *status = PyLong_FromLong(exit_status);

	Py_XDECREF(text);
	Py_XDECREF(no);
	if (!exc || !status ||
	    PyObject_SetAttrString(exc, "exit_status", status) < 0 ||
	    PyObject_SetAttrString(exc, "partial", partial ? partial : Py_None) < 0) {
		Py_XDECREF(exc);
		Py_XDECREF(status);
		return NULL;
	}
	Py_DECREF(status);
	PyErr_SetObject(cls, exc);
	Py_DECREF(exc);
	return NULL;
}

PyObject *bpy_str(const char *s, size_t len)
{
	if (len > PY_SSIZE_T_MAX)
		len = PY_SSIZE_T_MAX;
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "surrogateescape");
}

static PyObject *set_error(PyObject *self, PyObject *cls)
{
	(void)self;
	if (!PyType_Check(cls) || !PyObject_IsSubclass(cls, PyExc_OSError))
		return PyErr_Format(PyExc_TypeError, "_set_error takes a subclass of OSError");
	Py_XSETREF(bpy_error_class, Py_NewRef(cls));
	Py_RETURN_NONE;
}

/* ---- structseq types ---- */

static PyStructSequence_Field info_fields[] = {
	{ "path", "the file, as given to bprint.open()" },
	{ "pid", "the traced process's id" },
	{ "command", "its command line, the arguments separated by spaces" },
	{ "comm", "its name (the kernel's comm, at most 16 bytes)" },
	{ "clock", "the trace clock: tsc, mono, mono_raw, boot, counter" },
	{ "mode", "the buffers' mode: overwrite, discard or block" },
	{ "start_ns", "wall-clock time the file was created, ns since the epoch" },
	{ "start_date", "the same as ISO-8601 in UTC, with nanoseconds" },
	{ "stream", "True: written by bprint record; False: a program's own (live) file" },
	{ "closed", "True: closed cleanly" },
	{ "complete", "True: every record written is in the file, or counted lost" },
	{ "state", "'complete', 'incomplete' or 'damaged' (the worst that holds)" },
	{ "why", "the lines that say so, as the bprint command prints them (a tuple)" },
	{ "lacking", "records written that the file lacks beyond those counted lost; "
		     "None if they cannot be counted" },
	{ "written", "records written, as bprint report's header counts them" },
	{ "lost", "records lost (overwritten, discarded, not copied), as bprint report's "
		  "header counts them" },
	{ "version", "the file format's version, 'MAJOR.MINOR'" },
	{ "siblings", "trace files FILE.PID beside FILE: other programs of one "
		      "bprint record (a tuple of paths)" },
	{ NULL, NULL },
};

static PyStructSequence_Desc info_desc = {
	"bprint.Info",
	"What a trace file says about itself and how complete it is (Trace.info).\n\n"
	"complete, state, why and lacking include the damage met by reading so far:\n"
	"read the trace (iterate, to_numpy(), threads) to include damage inside its\n"
	"buffers.",
	info_fields, 18,
};

static PyStructSequence_Field site_fields[] = {
	{ "id", "the site's id, as bprint formats and report --raw print it" },
	{ "file", "source file of the trace_printk() call" },
	{ "line", "its line" },
	{ "func", "its function" },
	{ "format", "its format; None when it was formatted at trace time" },
	{ "fields", "the format's values, named and typed (a tuple of bprint.Field)" },
	{ NULL, NULL },
};

static PyStructSequence_Desc site_desc = {
	"bprint.Site", "A call site of the trace (Trace.sites).", site_fields, 6,
};

static PyStructSequence_Field field_fields[] = {
	{ "name", "the field's name, by the rule of bprint formats (docs/fields.md)" },
	{ "type", "int8 .. int64, uint8 .. uint64, double, string, char or pointer" },
	{ "conv", "the conversion character, '*' for a width or precision value" },
	{ "index", "N of its alias argN" },
	{ NULL, NULL },
};

static PyStructSequence_Desc field_desc = {
	"bprint.Field", "One field of a call site's format (Site.fields).", field_fields, 4,
};

static PyStructSequence_Field thread_fields[] = {
	{ "tid", "thread id" },
	{ "comm", "thread name" },
	{ "written", "records it wrote (as bprint stats counts them)" },
	{ "overwritten", "records overwritten before they were read" },
	{ "discarded", "records its buffer discarded or dropped" },
	{ "read", "records read" },
	{ "not_drained", "stream files: records bprint record never copied" },
	{ "not_copied", "stream files not finished: records left in the buffer" },
	{ "waits", "block mode: times the thread waited for the copier" },
	{ "wait_ns", "block mode: nanoseconds it waited" },
	{ NULL, NULL },
};

static PyStructSequence_Desc thread_desc = {
	"bprint.Thread",
	"A thread of the trace, its buffers (signal levels) summed as bprint stats\n"
	"sums them (Trace.threads).",
	thread_fields, 10,
};

static int add_structseq(PyObject *m, PyTypeObject **type, PyStructSequence_Desc *desc,
			 const char *name)
{
	if (!(*type = PyStructSequence_NewType(desc)))
		return -1;
	return PyModule_AddObjectRef(m, name, (PyObject *)*type);
}

/* ---- the module ---- */

static PyMethodDef module_methods[] = {
	{ "_set_error", set_error, METH_O, "Set the class of bprint.Error (the package does)." },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	"bprint._bprint",
	"The C half of the bprint package: see help(bprint).",
	-1,
	module_methods,
	NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__bprint(void);

PyMODINIT_FUNC PyInit__bprint(void)
{
	PyObject *m;

	if (bpy_import_numpy() < 0)
		return NULL;
	if (PyType_Ready(&BpyReader_Type) < 0 || PyType_Ready(&BpyTrace_Type) < 0 ||
	    PyType_Ready(&BpyEvents_Type) < 0 || PyType_Ready(&BpyEvent_Type) < 0)
		return NULL;
	if (!(m = PyModule_Create(&module_def)))
		return NULL;
	if (add_structseq(m, &bpy_info_type, &info_desc, "Info") < 0 ||
	    add_structseq(m, &bpy_site_type, &site_desc, "Site") < 0 ||
	    add_structseq(m, &bpy_field_type, &field_desc, "Field") < 0 ||
	    add_structseq(m, &bpy_thread_type, &thread_desc, "Thread") < 0 ||
	    PyModule_AddObjectRef(m, "Trace", (PyObject *)&BpyTrace_Type) < 0 ||
	    PyModule_AddObjectRef(m, "Events", (PyObject *)&BpyEvents_Type) < 0 ||
	    PyModule_AddObjectRef(m, "Event", (PyObject *)&BpyEvent_Type) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
