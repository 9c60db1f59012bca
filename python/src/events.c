/*
 * Events, the iterator of `for ev in trace`, and Event, one record.
 *
 * An Event copies what bp_trace_next() returned (the record's header
 * fields and its argument block) and keeps its reader alive: its fields
 * and its message are decoded from the copy when first asked for
 * (bp_trace_event_fields(), bp_trace_event_message()), so a record that
 * nobody asks about costs no decoding, and an event kept after the loop
 * moved on still has both.
 */
#include "bprint_py.h"

#include <string.h>

typedef struct {
	PyObject_VAR_HEAD		/* ob_size: the words of block */
	BpyReader *reader;
	struct bp_trace_event e;	/* block points to ours, e.comm to comm */
	char comm[17];
	PyObject *fields;		/* dict, made when asked for */
	PyObject *message;		/* str, made when asked for */
	uint32_t block[];
} BpyEvent;

typedef struct {
	PyObject_HEAD
	BpyTrace *trace;
	BpyReader *reader;
	bool ended;			/* bp_trace_next() gave 0: refresh() to go on */
} BpyEvents;

/* ---- Event ---- */

static PyObject *event_new(BpyReader *r, const struct bp_trace_event *e)
{
	size_t words = e->block ? e->block_words : 0;
	BpyEvent *ev = PyObject_NewVar(BpyEvent, &BpyEvent_Type, (Py_ssize_t)words);

	if (!ev)
		return NULL;
	ev->reader = (BpyReader *)Py_NewRef(r);
	ev->e = *e;
	if (words)
		memcpy(ev->block, e->block, words * 4);
	ev->e.block = ev->block;
	ev->e.block_words = words;
	memcpy(ev->comm, e->comm ? e->comm : "", e->comm ? 16 : 1);
	ev->comm[16] = '\0';
	ev->e.comm = ev->comm;
	ev->e.message = NULL;
	ev->e.message_len = 0;
	ev->fields = NULL;
	ev->message = NULL;
	return (PyObject *)ev;
}

static void event_dealloc(BpyEvent *ev)
{
	Py_XDECREF(ev->fields);
	Py_XDECREF(ev->message);
	Py_XDECREF(ev->reader);
	Py_TYPE(ev)->tp_free((PyObject *)ev);
}

static PyObject *event_fields(BpyEvent *ev, void *closure)
{
	(void)closure;
	if (!ev->fields && !(ev->fields = bpy_fields_dict(ev->reader->t, &ev->e)))
		return NULL;
	return Py_NewRef(ev->fields);
}

static PyObject *event_message(BpyEvent *ev, void *closure)
{
	(void)closure;
	if (!ev->message) {
		char *buf = PyMem_Malloc(4096);
		size_t len;

		if (!buf)
			return PyErr_NoMemory();
		len = bp_trace_event_message(ev->reader->t, &ev->e, buf, 4096);
		/* as bprint report prints it: a C string, up to a %c of NUL */
		ev->message = bpy_str(buf, strnlen(buf, len));
		PyMem_Free(buf);
		if (!ev->message)
			return NULL;
	}
	return Py_NewRef(ev->message);
}

#define GETTER(name, expr)                                                              \
	static PyObject *event_##name(BpyEvent *ev, void *closure)                      \
	{                                                                               \
		(void)closure;                                                          \
		return expr;                                                            \
	}
GETTER(ts, PyLong_FromUnsignedLongLong(ev->e.ns))
GETTER(tid, PyLong_FromLong(ev->e.tid))
GETTER(cpu, PyLong_FromLong(ev->e.cpu))
GETTER(site, PyLong_FromUnsignedLong(ev->e.site_id))
GETTER(comm, bpy_str(ev->comm, strlen(ev->comm)))
GETTER(level, PyLong_FromUnsignedLong(ev->e.level))
GETTER(lost_before, PyLong_FromUnsignedLongLong(ev->e.lost_before))

static PyObject *event_repr(BpyEvent *ev)
{
	PyObject *msg = event_message(ev, NULL), *s;

	if (!msg)
		return NULL;
	s = PyUnicode_FromFormat("<bprint.Event ts=%llu tid=%d site=%u %R>",
				 (unsigned long long)ev->e.ns, (int)ev->e.tid,
				 (unsigned)ev->e.site_id, msg);
	Py_DECREF(msg);
	return s;
}

static PyGetSetDef event_getset[] = {
	{ "ts", (getter)event_ts, NULL, "timestamp, ns of the trace clock (int)", NULL },
	{ "tid", (getter)event_tid, NULL, "thread id", NULL },
	{ "cpu", (getter)event_cpu, NULL, "CPU the record was written on (-1 if unknown)", NULL },
	{ "site", (getter)event_site, NULL, "call site id (Trace.sites)", NULL },
	{ "comm", (getter)event_comm, NULL, "thread name", NULL },
	{ "level", (getter)event_level, NULL, "signal-nesting level (0: not in a handler)", NULL },
	{ "lost_before", (getter)event_lost_before, NULL,
	  "records of this thread's buffer lost just before this one", NULL },
	{ "fields", (getter)event_fields, NULL,
	  "the values by field name (a dict): int, float, or str (a %c as one\n"
	  "character); empty for a record of text or of an unknown site", NULL },
	{ "message", (getter)event_message, NULL,
	  "the message as bprint report prints it (formatted when first asked for;\n"
	  "like the command's, it ends at a NUL byte that a %c put in it)", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

PyTypeObject BpyEvent_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "bprint.Event",
	.tp_basicsize = offsetof(BpyEvent, block),
	.tp_itemsize = sizeof(uint32_t),
	.tp_dealloc = (destructor)event_dealloc,
	.tp_repr = (reprfunc)event_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "One record of a trace: ts, tid, cpu, site, comm, level, lost_before,\n"
		  "fields (a dict by name, typed) and message (formatted when asked for).",
	.tp_getset = event_getset,
};

/* ---- Events ---- */

PyObject *bpy_events_new(BpyTrace *tr, BpyReader *r)
{
	BpyEvents *it = PyObject_New(BpyEvents, &BpyEvents_Type);

	if (!it)
		return NULL;
	it->trace = (BpyTrace *)Py_NewRef(tr);
	it->reader = (BpyReader *)Py_NewRef(r);
	it->ended = false;
	return (PyObject *)it;
}

static void events_dealloc(BpyEvents *it)
{
	Py_XDECREF(it->trace);
	Py_XDECREF(it->reader);
	Py_TYPE(it)->tp_free((PyObject *)it);
}

/* Does e pass the where filters?  Its fields decoded for them. */
static bool where_ok(BpyReader *r, const struct bp_trace_event *e)
{
	const struct bp_trace_layout *lay = e->text ? NULL : bp_trace_layout(r->t, e->site_id);
	struct bp_field_value vals[64];
	int n = -1;

	if (lay && lay->nfields <= 64)
		n = bp_trace_event_fields(r->t, e, vals, 64);
	else if (lay) {
		struct bp_field_value *v = PyMem_Calloc(lay->nfields, sizeof(*v));
		bool ok;

		if (!v)
			return false;
		n = bp_trace_event_fields(r->t, e, v, lay->nfields);
		ok = bpy_reader_where_ok(r, e, v, n);
		PyMem_Free(v);
		return ok;
	}
	return bpy_reader_where_ok(r, e, vals, n);
}

static PyObject *events_next(BpyEvents *it)
{
	struct bp_trace_event e = BPY_EVENT_INIT;
	BpyReader *r = it->reader;
	PyObject *fin;
	int rc;

	if (it->ended)
		return NULL;
	while ((rc = bp_trace_next(r->t, &e, BP_TRACE_NEXT_NO_MESSAGE)) == 1) {
		if (!bpy_reader_site_ok(r, &e) || (bpy_reader_has_where(r) && !where_ok(r, &e)))
			continue;
		return event_new(r, &e);
	}
	it->ended = true;
	if (rc >= 0)
		bpy_trace_passed(it->trace, r);
	if (!(fin = bpy_reader_finish(r, rc, NULL)))
		return NULL;
	Py_DECREF(fin);
	return NULL;	/* StopIteration */
}

static PyObject *events_refresh(BpyEvents *it, PyObject *unused)
{
	int rc;

	(void)unused;
	Py_BEGIN_ALLOW_THREADS
	rc = bp_trace_refresh(it->reader->t);
	Py_END_ALLOW_THREADS
	if (rc < 0)
		return bpy_raise(it->reader->path,
				 rc == BP_TRACE_EFORMAT ? BPY_EXIT_BADFILE : BPY_EXIT_IO,
				 rc == BP_TRACE_ENOMEM ? "out of memory" : "read error", NULL);
	it->ended = false;
	Py_RETURN_NONE;
}

static PyMethodDef events_methods[] = {
	{ "refresh", (PyCFunction)events_refresh, METH_NOARGS,
	  "refresh()\n--\n\nLook at a live file again: the iteration goes on with what the\n"
	  "program traced since (records older than some already returned may come)." },
	{ NULL, NULL, 0, NULL },
};

PyTypeObject BpyEvents_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "bprint.Events",
	.tp_basicsize = sizeof(BpyEvents),
	.tp_dealloc = (destructor)events_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "An iterator over a trace's records, oldest first (Trace.events()).\n"
		  "At its end, a damaged file raises bprint.Error.",
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = (iternextfunc)events_next,
	.tp_methods = events_methods,
};
