/*
 * python/src/table.h - columns filled in C, then handed to numpy without a
 * copy (table.c).  A table has the record columns (ts, tid, cpu, site, and
 * the message if asked for) and field columns, added as the sites that
 * have the fields are met; all grow together, one row a record.  A field
 * column that some row lacks gets a mask (1: missing) and comes out as a
 * numpy.ma.MaskedArray.
 *
 * A field column holds one field name with one kind of value: a name that
 * two sites give different kinds (an int and a string) has a column for
 * each while filling, merged at the end into one column of Python objects,
 * each row the value it had.
 *
 * The buffers are malloc'd and grown by realloc (large ones are mapped, so
 * growing moves no data); at the end each is cut to its rows and becomes
 * the memory of its numpy array, freed with it.  Only columns of Python
 * objects (strings, chars, the message) need the interpreter while filling.
 */
#ifndef BPRINT_PY_TABLE_H
#define BPRINT_PY_TABLE_H

#include "bprint_py.h"

enum bpy_kind { BPY_I64, BPY_U64, BPY_F64, BPY_OBJ, BPY_I32, BPY_U32, BPY_BOOL };

struct bpy_column {
	char *field;			/* the field's name, as asked; NULL: a record column */
	enum bpy_kind kind;
	void *data;			/* cap rows */
	uint8_t *mask;			/* NULL until a row lacks it; 1 = missing */
	size_t next;			/* rows below it are set */
	struct bpy_strcache *cache;	/* columns of objects */
};

#define BPY_TS 0
#define BPY_TID 1
#define BPY_CPU 2
#define BPY_SITE 3
#define BPY_MESSAGE 4			/* when asked for */

struct bpy_table {
	size_t rows, cap;
	size_t ncols, nrec;		/* columns; the first nrec are the record's */
	struct bpy_column *col;
	bool failed;			/* out of memory (no exception set yet) */
};

/* A table with the record columns (the message's too if message), room
 * for cap rows.  -1 (and failed) if memory ran out. */
int bpy_table_init(struct bpy_table *tb, bool message, size_t cap);
/* The column of field with values of kind, added if new; -1 (and failed)
 * if memory ran out. */
int bpy_table_column(struct bpy_table *tb, const char *field, enum bpy_kind kind);
/* Room for one row more: false (and failed) if memory ran out. */
bool bpy_table_grow(struct bpy_table *tb);
/* Column c lacks rows [c->next, row): masked.  false if memory ran out. */
bool bpy_column_missing_to(struct bpy_table *tb, struct bpy_column *c, size_t row);
/* c gets a value at row: the rows it skipped are masked first. */
static inline bool bpy_column_reach(struct bpy_table *tb, struct bpy_column *c, size_t row)
{
	if (c->next < row && !bpy_column_missing_to(tb, c, row))
		return false;
	c->next = row + 1;
	return true;
}
/* The table as a dict of numpy arrays, the record columns first, then the
 * fields in the order their columns were added; a field named like a
 * record column (or like another column) gets '_' appended.  NULL with an
 * exception; tb is emptied either way. */
PyObject *bpy_table_finish(struct bpy_table *tb);
void bpy_table_free(struct bpy_table *tb);

/* The kind of column a field type fills. */
enum bpy_kind bpy_kind_of(int ftype);

#endif /* BPRINT_PY_TABLE_H */
