/*
 * Trace: a trace file opened by bprint.open() (the package's Trace
 * subclasses this type and adds to_pandas()).  What the file says about
 * itself (info), its call sites and their fields (sites), its threads'
 * counters (threads); iteration and to_numpy() are passes of their own
 * (events.c, columns.c), each with a fresh reader, so that a trace can be
 * read again, or by two loops at once.
 */
#include "bprint_py.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static BpyReader *reader_of(BpyTrace *tr)
{
	if (!tr->last)
		PyErr_SetString(PyExc_ValueError, "I/O operation on a closed trace");
	return tr->last;
}

BpyReader *bpy_trace_pass(BpyTrace *tr, PyObject *site, PyObject *where)
{
	if (!reader_of(tr))
		return NULL;
	return bpy_reader_open(tr->path, tr->site, tr->where, site, where);
}

void bpy_trace_passed(BpyTrace *tr, BpyReader *r)
{
	if (tr->last && tr->last != r)
		Py_SETREF(tr->last, (BpyReader *)Py_NewRef(r));
}

/* ---- open and close ---- */

static int trace_init(BpyTrace *tr, PyObject *args, PyObject *kwargs)
{
	static char *kw[] = { (char *)"path", (char *)"where", (char *)"site", NULL };
	PyObject *path, *where = Py_None, *site = Py_None;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:open", kw, &path, &where, &site))
		return -1;
	Py_CLEAR(tr->last);
	Py_XSETREF(tr->path, PyOS_FSPath(path));
	if (!tr->path)
		return -1;
	Py_XSETREF(tr->site, Py_NewRef(site));
	Py_XSETREF(tr->where, Py_NewRef(where));
	tr->last = bpy_reader_open(tr->path, site, where, NULL, NULL);
	return tr->last ? 0 : -1;
}

static void trace_dealloc(BpyTrace *tr)
{
	Py_XDECREF(tr->last);
	Py_XDECREF(tr->path);
	Py_XDECREF(tr->site);
	Py_XDECREF(tr->where);
	Py_TYPE(tr)->tp_free((PyObject *)tr);
}

static PyObject *trace_close(BpyTrace *tr, PyObject *unused)
{
	(void)unused;
	Py_CLEAR(tr->last);
	Py_RETURN_NONE;
}

static PyObject *trace_enter(BpyTrace *tr, PyObject *unused)
{
	(void)unused;
	if (!reader_of(tr))
		return NULL;
	return Py_NewRef(tr);
}

static PyObject *trace_exit(BpyTrace *tr, PyObject *args)
{
	(void)args;
	Py_CLEAR(tr->last);
	Py_RETURN_FALSE;
}

/* ---- info ---- */

/* enum bp_ring_mode's names, as bprint stats prints them */
static const char *mode_name(uint32_t mode)
{
	return mode == 0 ? "overwrite" : mode == 1 ? "discard" : mode == 2 ? "block" : "unknown";
}

/* ISO-8601 in UTC with nanoseconds, as bprint report --date=utc prints it. */
static PyObject *utc_date(uint64_t ns)
{
	time_t sec = (time_t)(ns / 1000000000u);
	struct tm tm;
	char buf[64];

	if (!ns || !gmtime_r(&sec, &tm))
		Py_RETURN_NONE;
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	return PyUnicode_FromFormat("%s.%09luZ", buf, (unsigned long)(ns % 1000000000u));
}

/* FILE.PID beside FILE (bprint record of a wrapper writes them): regular files. */
static PyObject *siblings(PyObject *path)
{
	PyObject *list = PyList_New(0), *fs = NULL, *tuple;
	const char *p, *slash, *base;
	char dir[4096];
	struct dirent *de;
	DIR *dp;

	if (!list || !PyUnicode_FSConverter(path, &fs))
		goto out;
	p = PyBytes_AS_STRING(fs);
	slash = strrchr(p, '/');
	base = slash ? slash + 1 : p;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - p + (slash == p)) : 1,
		 slash ? p : ".");
	if (!(dp = opendir(dir)))
		goto out;
	while ((de = readdir(dp))) {
		size_t blen = strlen(base);
		const char *d = de->d_name + blen + 1;
		char full[4096 + 256];
		struct stat st;
		PyObject *s;

		if (strncmp(de->d_name, base, blen) || de->d_name[blen] != '.' || !*d ||
		    strspn(d, "0123456789") != strlen(d))
			continue;
		snprintf(full, sizeof(full), "%.*s%s", (int)(base - p), p, de->d_name);
		if (stat(full, &st) || !S_ISREG(st.st_mode))
			continue;
		if (!(s = PyUnicode_DecodeFSDefault(full)) || PyList_Append(list, s) < 0) {
			Py_XDECREF(s);
			break;
		}
		Py_DECREF(s);
	}
	closedir(dp);
	if (!PyErr_Occurred())
		PyList_Sort(list);
out:
	Py_XDECREF(fs);
	if (!list || PyErr_Occurred()) {
		Py_XDECREF(list);
		return NULL;
	}
	tuple = PyList_AsTuple(list);
	Py_DECREF(list);
	return tuple;
}

static PyObject *notes_tuple(const struct bp_trace_verdict *v)
{
	PyObject *t = PyTuple_New(v->nnotes);

	for (uint32_t i = 0; t && i < v->nnotes; i++) {
		PyObject *s = bpy_str(v->notes[i], strlen(v->notes[i]));

		if (!s) {
			Py_DECREF(t);
			return NULL;
		}
		PyTuple_SET_ITEM(t, i, s);
	}
	return t;
}

static const char *const state_names[] = { "complete", "incomplete", "damaged" };

/* Set item i of seq (a new reference, stolen); false if it is NULL. */
static bool put(PyObject *seq, Py_ssize_t i, PyObject *v)
{
	if (!v)
		return false;
	PyStructSequence_SetItem(seq, i, v);
	return true;
}

static PyObject *trace_info(BpyTrace *tr, void *closure)
{
	BpyReader *r = reader_of(tr);
	struct bp_trace_verdict v = BP_TRACE_VERDICT_INIT;
	struct bp_trace_totals tot = BPY_TOTALS_INIT;
	const struct bp_trace_info *in;
	uint64_t over;
	PyObject *info;
	int i = 0;
	bool ok;

	(void)closure;
	if (!r || !(info = PyStructSequence_New(bpy_info_type)))
		return NULL;
	in = bp_trace_info(r->t);
	bp_trace_verdict(r->t, &v);
	bp_trace_totals(r->t, &tot);
	over = bp_trace_overwritten_estimate(r->t);
	ok = put(info, i++, Py_NewRef(tr->path)) &&
	     put(info, i++, PyLong_FromLongLong(in->pid)) &&
	     put(info, i++, bpy_str(in->cmdline, strnlen(in->cmdline, sizeof(in->cmdline)))) &&
	     put(info, i++, bpy_str(in->comm, strnlen(in->comm, sizeof(in->comm)))) &&
	     put(info, i++, PyUnicode_FromString(in->clock_name ? in->clock_name : "unknown")) &&
	     put(info, i++, PyUnicode_FromString(mode_name(in->ring_mode))) &&
	     put(info, i++, PyLong_FromUnsignedLongLong(in->start_realtime_ns)) &&
	     put(info, i++, utc_date(in->start_realtime_ns)) &&
	     put(info, i++, PyBool_FromLong(in->flags & BP_TRACE_F_STREAM)) &&
	     put(info, i++, PyBool_FromLong(in->flags & BP_TRACE_F_CLOSED)) &&
	     put(info, i++, PyBool_FromLong(v.state == BP_TRACE_COMPLETE)) &&
	     put(info, i++, PyUnicode_FromString(state_names[v.state < 3 ? v.state : 2])) &&
	     put(info, i++, notes_tuple(&v)) &&
	     put(info, i++, v.lacking == BP_TRACE_UNCOUNTED ? Py_NewRef(Py_None)
				: PyLong_FromUnsignedLongLong(v.lacking)) &&
	     /* bprint report's header: the records of buffers the file was too
	      * full for count as written and lost */
	     put(info, i++, PyLong_FromUnsignedLongLong(tot.written + in->memory_records)) &&
	     put(info, i++, PyLong_FromUnsignedLongLong(tot.discarded + over + tot.not_copied +
							in->memory_records)) &&
	     put(info, i++, PyUnicode_FromFormat("%u.%u", in->major, in->minor)) &&
	     put(info, i++, siblings(tr->path));
	if (!ok) {
		Py_DECREF(info);
		return NULL;
	}
	return info;
}

/* ---- sites ---- */

static PyObject *fields_tuple(struct bp_trace *t, uint32_t id)
{
	const struct bp_trace_layout *lay = bp_trace_layout(t, id);
	PyObject *tuple = PyTuple_New(lay ? lay->nfields : 0);

	for (uint32_t k = 0; tuple && lay && k < lay->nfields; k++) {
		const struct bp_trace_field *f = &lay->fields[k];
		PyObject *fo = PyStructSequence_New(bpy_field_type);

		if (!fo || !put(fo, 0, PyUnicode_FromString(f->name)) ||
		    !put(fo, 1, PyUnicode_FromString(bp_trace_field_type_name(f))) ||
		    !put(fo, 2, PyUnicode_FromStringAndSize(&f->conv, 1)) ||
		    !put(fo, 3, PyLong_FromUnsignedLong(f->conversion))) {
			Py_XDECREF(fo);
			Py_DECREF(tuple);
			return NULL;
		}
		PyTuple_SET_ITEM(tuple, k, fo);
	}
	return tuple;
}

static PyObject *opt_str(const char *s)
{
	return s ? bpy_str(s, strlen(s)) : Py_NewRef(Py_None);
}

static PyObject *trace_sites(BpyTrace *tr, void *closure)
{
	BpyReader *r = reader_of(tr);
	size_t n = r ? bp_trace_nsites(r->t) : 0;
	PyObject *tuple;

	(void)closure;
	if (!r || !(tuple = PyTuple_New((Py_ssize_t)n)))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct bp_trace_site *s = bp_trace_site_at(r->t, i);
		PyObject *so = PyStructSequence_New(bpy_site_type);

		if (!so || !s || !put(so, 0, PyLong_FromUnsignedLong(s->id)) ||
		    !put(so, 1, opt_str(s->file)) ||
		    !put(so, 2, PyLong_FromUnsignedLong(s->line)) ||
		    !put(so, 3, opt_str(s->func)) ||
		    !put(so, 4, opt_str(s->format)) ||
		    !put(so, 5, fields_tuple(r->t, s->id))) {
			if (!s && !PyErr_Occurred())
				PyErr_NoMemory();
			Py_XDECREF(so);
			Py_DECREF(tuple);
			return NULL;
		}
		PyTuple_SET_ITEM(tuple, (Py_ssize_t)i, so);
	}
	return tuple;
}

/* ---- threads ---- */

/* Read a pass through, without filters, so that the counters are read's. */
static BpyReader *read_through(BpyTrace *tr, PyObject **finish)
{
	BpyReader *r = bpy_reader_open(tr->path, NULL, NULL, NULL, NULL);
	struct bp_trace_event e = BPY_EVENT_INIT;
	int rc;

	if (!r)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	while ((rc = bp_trace_next(r->t, &e, BP_TRACE_NEXT_ARGS_ONLY)) == 1)
		;	/* only the counting: nothing of a record is needed */
	Py_END_ALLOW_THREADS
	*finish = bpy_reader_finish(r, rc, NULL);
	if (rc >= 0)
		bpy_trace_passed(tr, r);
	return r;
}

struct thread_sum {
	int32_t tid;
	char comm[17];
	uint64_t written, overwritten, discarded, read, not_drained, not_copied, waits, wait_ns;
};

/* One entry per thread, its rings summed as bprint stats sums them. */
static PyObject *threads_of(struct bp_trace *t)
{
	size_t nr = bp_trace_nrings(t), n = 0;
	struct thread_sum *th = PyMem_Calloc(nr ? nr : 1, sizeof(*th));
	PyObject *tuple = NULL;

	if (!th)
		return PyErr_NoMemory();
	for (size_t i = 0; i < nr; i++) {
		const struct bp_trace_ring *rg = bp_trace_ring_at(t, i);
		size_t k;

		for (k = 0; k < n && th[k].tid != rg->tid; k++)
			;
		if (k == n)
			th[n++].tid = rg->tid;
		if (rg->level == 0 || !th[k].comm[0])
			memcpy(th[k].comm, rg->comm, sizeof(th[k].comm));
		th[k].written += rg->written + rg->dropped;
		th[k].discarded += rg->discarded + rg->dropped;
		th[k].overwritten += rg->overwritten;
		th[k].read += rg->read;
		th[k].not_drained += rg->lost_by_drainer;
		th[k].not_copied += rg->not_copied;
		th[k].waits += rg->block_waits;
		th[k].wait_ns += rg->block_ns;
	}
	if (!(tuple = PyTuple_New((Py_ssize_t)n)))
		goto out;
	for (size_t k = 0; k < n; k++) {
		PyObject *o = PyStructSequence_New(bpy_thread_type);
		const uint64_t *c = &th[k].written;

		th[k].comm[16] = '\0';
		if (!o || !put(o, 0, PyLong_FromLong(th[k].tid)) ||
		    !put(o, 1, bpy_str(th[k].comm, strlen(th[k].comm)))) {
			Py_XDECREF(o);
			Py_CLEAR(tuple);
			goto out;
		}
		for (int j = 0; j < 8; j++)
			if (!put(o, 2 + j, PyLong_FromUnsignedLongLong(c[j]))) {
				Py_DECREF(o);
				Py_CLEAR(tuple);
				goto out;
			}
		PyTuple_SET_ITEM(tuple, (Py_ssize_t)k, o);
	}
out:
	PyMem_Free(th);
	return tuple;
}

static PyObject *trace_threads(BpyTrace *tr, void *closure)
{
	BpyReader *r = reader_of(tr);
	PyObject *finish = NULL, *threads;

	(void)closure;
	if (!r)
		return NULL;
	if (!r->done) {
		if (!(r = read_through(tr, &finish)))
			return NULL;
		if (!finish) {
			/* damage: the counters all the same, with the error */
			PyObject *type, *value, *tb;

			PyErr_Fetch(&type, &value, &tb);
			PyErr_NormalizeException(&type, &value, &tb);
			threads = threads_of(r->t);
			if (threads && value)
				PyObject_SetAttrString(value, "partial", threads);
			Py_XDECREF(threads);
			PyErr_Restore(type, value, tb);
			Py_DECREF(r);
			return NULL;
		}
		Py_DECREF(finish);
		threads = threads_of(r->t);
		Py_DECREF(r);
		return threads;
	}
	return threads_of(r->t);
}

/* ---- the rest ---- */

static PyObject *trace_iter(BpyTrace *tr)
{
	BpyReader *r = bpy_trace_pass(tr, NULL, NULL);
	PyObject *it;

	if (!r)
		return NULL;
	it = bpy_events_new(tr, r);
	Py_DECREF(r);
	return it;
}

static PyObject *trace_events(BpyTrace *tr, PyObject *args, PyObject *kwargs)
{
	static char *kw[] = { (char *)"site", (char *)"where", NULL };
	PyObject *site = Py_None, *where = Py_None, *it;
	BpyReader *r;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OO:events", kw, &site, &where))
		return NULL;
	if (!(r = bpy_trace_pass(tr, site, where)))
		return NULL;
	it = bpy_events_new(tr, r);
	Py_DECREF(r);
	return it;
}

/* realtime - trace clock, the rule of bprint report --date
 * (bp_trace_wallclock_offset): None for a clock that gives no dates. */
static PyObject *trace_wallclock_offset(BpyTrace *tr, PyObject *unused)
{
	BpyReader *r = reader_of(tr);
	int64_t offset;

	(void)unused;
	if (!r)
		return NULL;
	if (bp_trace_wallclock_offset(r->t, &offset))
		Py_RETURN_NONE;
	return PyLong_FromLongLong(offset);
}

static PyObject *trace_repr(BpyTrace *tr)
{
	return PyUnicode_FromFormat("<bprint.Trace %R%s>", tr->path ? tr->path : Py_None,
				    tr->last ? "" : " (closed)");
}

static PyMethodDef trace_methods[] = {
	{ "close", (PyCFunction)trace_close, METH_NOARGS,
	  "close()\n--\n\nClose the trace (events already made keep their part of it)." },
	{ "__enter__", (PyCFunction)trace_enter, METH_NOARGS, NULL },
	{ "__exit__", (PyCFunction)trace_exit, METH_VARARGS, NULL },
	{ "events", (PyCFunction)(void (*)(void))trace_events, METH_VARARGS | METH_KEYWORDS,
	  "events(*, site=None, where=None)\n--\n\n"
	  "An iterator over the records, oldest first, filtered by site and where as\n"
	  "well as by bprint.open()'s filters (both must hold).  iter(trace) is\n"
	  "trace.events().  Each call reads the file from its start; on a live file,\n"
	  "the iterator's refresh() picks up what the program traced since." },
	{ "to_numpy", (PyCFunction)(void (*)(void))bpy_trace_to_numpy, METH_VARARGS | METH_KEYWORDS,
	  bpy_to_numpy_doc },
	{ "_wallclock_offset", (PyCFunction)trace_wallclock_offset, METH_NOARGS,
	  "Wall-clock ns minus trace-clock ns, or None (the clock gives no dates)." },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef trace_getset[] = {
	{ "info", (getter)trace_info, NULL,
	  "What the file says about itself and how complete it is: a bprint.Info\n"
	  "(pid, command, clock, mode, start date, complete, why, lacking, ...).", NULL },
	{ "sites", (getter)trace_sites, NULL,
	  "The call sites, sorted by id: a tuple of bprint.Site (id, file, line, func,\n"
	  "format, fields), with each field's name and type as bprint formats lists them.",
	  NULL },
	{ "threads", (getter)trace_threads, NULL,
	  "The threads and their counters, as bprint stats lists them: a tuple of\n"
	  "bprint.Thread (tid, comm, written, overwritten, discarded, read, ...).  Reads\n"
	  "the trace through once if no pass has yet (read and overwritten are counted\n"
	  "by reading).", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

PyTypeObject BpyTrace_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "bprint._bprint.Trace",
	.tp_basicsize = sizeof(BpyTrace),
	.tp_dealloc = (destructor)trace_dealloc,
	.tp_repr = (reprfunc)trace_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Trace(path, where=None, site=None)\n--\n\n"
		  "A trace file: see bprint.open().",
	.tp_iter = (getiterfunc)trace_iter,
	.tp_methods = trace_methods,
	.tp_getset = trace_getset,
	.tp_init = (initproc)trace_init,
	.tp_new = PyType_GenericNew,
};
