/*
 * python/src/bprint_py.h - what the files of the bprint._bprint extension
 * share.  The extension stands on the public headers only: bprint/reader.h
 * (the reader and each site's fields by name) and bprint/query.h (site
 * patterns, the --where evaluator, the verdict on how complete a file is).
 *
 *	module.c   the module, bprint.Error, the structseq types
 *	reader.c   Reader: one bp_trace and the filters of one reading pass
 *	trace.c    Trace: a file opened by bprint.open(); info, sites, threads
 *	events.c   Events (the iterator) and Event (one record, decoded lazily)
 *	values.c   field values as Python objects; strings decoded once
 *	columns.c  to_numpy(): one pass, each site's fields into columns
 *	table.c    the columns: buffers grown in C, handed to numpy (table.h)
 *
 * Objects and ownership: a Trace owns the Reader of its last complete
 * pass (or of its opening); every pass (an iteration, a to_numpy() call)
 * opens a Reader of its own; an Event keeps its Reader alive, since its
 * fields and message are decoded from its copied block when asked for.
 */
#ifndef BPRINT_PY_H
#define BPRINT_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <bprint/query.h>

#include <stdbool.h>
#include <stdint.h>

/* Caller-allocated structs of the reading library, initialised here only:
 * their size fields, once reader.h has them, are set by these. */
#ifdef BP_TRACE_EVENT_INIT
#define BPY_EVENT_INIT BP_TRACE_EVENT_INIT
#else
#define BPY_EVENT_INIT { 0 }
#endif
#ifdef BP_TRACE_TOTALS_INIT
#define BPY_TOTALS_INIT BP_TRACE_TOTALS_INIT
#else
#define BPY_TOTALS_INIT { 0 }
#endif

/* The command's exit statuses, carried by bprint.Error as exit_status. */
#define BPY_EXIT_INCOMPLETE 1
#define BPY_EXIT_BADFILE 2
#define BPY_EXIT_IO 3

/* ---- module.c ---- */

extern PyObject *bpy_error_class;	/* bprint.Error, set by the package */
extern PyTypeObject *bpy_info_type, *bpy_site_type, *bpy_field_type, *bpy_thread_type;

/* Raise bprint.Error: "PATH: what" (what the command prints after
 * "bprint: "), with exit_status and, if not NULL, partial (a new reference
 * is taken).  Returns NULL. */
PyObject *bpy_raise(PyObject *path, int exit_status, const char *what, PyObject *partial);
/* The same with errno err (0: none) as the error's errno. */
PyObject *bpy_raise_errno(PyObject *path, int exit_status, int err, const char *what,
			  PyObject *partial);

/* A string of bytes from the file (not trusted to be UTF-8): decoded with
 * surrogateescape, so that every byte comes back with str.encode("utf-8",
 * "surrogateescape"). */
PyObject *bpy_str(const char *s, size_t len);

/* ---- reader.c ---- */

/* One reading library handle and the filters one pass applies: the
 * trace's (from bprint.open()) and the call's, both of which must hold. */
typedef struct {
	PyObject_HEAD
	struct bp_trace *t;
	PyObject *path;			/* str, for messages */
	struct bp_sites *sites[2];	/* NULL: none */
	struct bp_where *where[2];	/* NULL: none */
	bool done;			/* read to the end */
	bool damage_raised;		/* the damage was raised once already */
} BpyReader;

extern PyTypeObject BpyReader_Type;

/* A reader of path with the given filters (each None, a str, or for site a
 * sequence of str/int); NULL with an exception: bprint.Error if the file
 * does not open or is damaged, ValueError for a bad filter. */
BpyReader *bpy_reader_open(PyObject *path, PyObject *site0, PyObject *where0, PyObject *site1,
			   PyObject *where1);

/* Is r's file damaged (bp_trace_problems())?  Then bprint.Error is raised
 * with the first problem (exit_status 2), instead of a ValueError for a
 * filter that names what the damaged part may have held. */
bool bpy_reader_damaged(BpyReader *r);

/* Does e pass the reader's site filters? */
bool bpy_reader_site_ok(BpyReader *r, const struct bp_trace_event *e);
/* Does e (its fields vals[0..n), n < 0 if it has none) pass the where filters? */
bool bpy_reader_where_ok(BpyReader *r, const struct bp_trace_event *e,
			 const struct bp_field_value *vals, int n);
static inline bool bpy_reader_has_where(const BpyReader *r)
{
	return r->where[0] || r->where[1];
}

/* The end of a pass (bp_trace_next() gave rc <= 0): NULL with bprint.Error
 * for a read error, or for damage (once; partial attached); else a new
 * reference to Py_None.  Marks the reader done. */
PyObject *bpy_reader_finish(BpyReader *r, int rc, PyObject *partial);

/* ---- trace.c ---- */

typedef struct {
	PyObject_HEAD
	PyObject *path;			/* str */
	PyObject *site;			/* the open()'s site filter, or None */
	PyObject *where;		/* the open()'s where filter, or None */
	BpyReader *last;		/* the reader of the last complete pass, or the
					 * one opened by open(); NULL once closed */
} BpyTrace;

extern PyTypeObject BpyTrace_Type;

/* A pass over tr's file with the call's filters too; NULL with an
 * exception (ValueError on a closed trace). */
BpyReader *bpy_trace_pass(BpyTrace *tr, PyObject *site, PyObject *where);
/* A pass came to its end: its reader is now the trace's last. */
void bpy_trace_passed(BpyTrace *tr, BpyReader *r);

/* ---- events.c ---- */

extern PyTypeObject BpyEvents_Type, BpyEvent_Type;

PyObject *bpy_events_new(BpyTrace *tr, BpyReader *r);

/* ---- values.c ---- */

/* The Python value of one field: int, float or str (a %c one character). */
PyObject *bpy_value(const struct bp_trace_field *f, const struct bp_field_value *v);

/* The fields of an event as a dict by name; NULL with an exception. */
PyObject *bpy_fields_dict(struct bp_trace *t, const struct bp_trace_event *e);

/* Strings seen again come back as the same object: a small table per
 * column, keyed by the bytes. */
#define BPY_STRCACHE_SIZE 512
#define BPY_STRCACHE_BYTES 48	/* longer strings are made each time */
struct bpy_strcache {
	struct {
		uint64_t hash;
		PyObject *str;		/* a reference held */
		size_t len;
		char bytes[BPY_STRCACHE_BYTES];
	} slot[BPY_STRCACHE_SIZE];
};
/* A new reference to the str of s[0..len); NULL with an exception. */
PyObject *bpy_strcache_get(struct bpy_strcache *c, const char *s, size_t len);
void bpy_strcache_clear(struct bpy_strcache *c);

/* ---- columns.c ---- */

/* Trace.to_numpy(): see its docstring. */
PyObject *bpy_trace_to_numpy(BpyTrace *tr, PyObject *args, PyObject *kwargs);
extern const char bpy_to_numpy_doc[];

/* numpy's C API, imported once when the module is (table.c, the one file
 * that includes numpy's headers). */
int bpy_import_numpy(void);

#endif /* BPRINT_PY_H */
