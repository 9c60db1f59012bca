/*
 * python/src/table.h - columns filled in C, then handed to numpy without a
 * copy (table.c).  A table has the record columns (ts, tid, cpu, site, and
 * the message if asked for) and field columns; all grow together, one row
 * a record.  A field column that some row lacks gets a mask (1: missing)
 * and comes out as a numpy.ma.MaskedArray.
 *
 * The buffers are malloc'd and grown by realloc (large ones are mapped, so
 * growing moves no data); at the end each is cut to its rows and becomes
 * the memory of its numpy array, freed with it.  Only columns of Python
 * objects (strings, the message, a name whose sites disagree on its type)
 * need the interpreter while filling; the others are filled without it.
 */
#ifndef BPRINT_PY_TABLE_H
#define BPRINT_PY_TABLE_H

#include "bprint_py.h"

enum bpy_kind { BPY_I64, BPY_U64, BPY_F64, BPY_OBJ, BPY_I32, BPY_U32, BPY_BOOL };

struct bpy_column {
	char *name;			/* its name in the result (malloc'd) */
	char *field;			/* the field it holds, as asked (NULL: a record column) */
	enum bpy_kind kind;
	int ftype;			/* the field type of its first site (enum bp_field_type) */
	void *data;			/* cap rows */
	uint8_t *mask;			/* NULL until a row lacks it; 1 = missing */
	size_t next;			/* rows below it are set */
	struct bpy_strcache *cache;	/* string columns */
};

/* What one site's records put where: field k of its layout into column col. */
struct bpy_put {
	uint32_t col, field;
	uint8_t ftype;
};

struct bpy_plan {
	bool built;
	uint32_t n, nfields;		/* puts; the layout's fields */
	struct bpy_put *put;
};

#define BPY_TS 0
#define BPY_TID 1
#define BPY_CPU 2
#define BPY_SITE 3
#define BPY_MESSAGE 4			/* when asked for; then fields from 5 */

struct bpy_table {
	size_t rows, cap;
	size_t ncols, nrec;		/* columns; the first nrec are the record's */
	struct bpy_column *col;
	bool failed;			/* out of memory (no exception set yet) */
};

/* A table with the record columns (the message's too if message). */
int bpy_table_init(struct bpy_table *tb, bool message, size_t cap);
/* Add a field column (name as it will be in the result); its index or -1. */
int bpy_table_add_field(struct bpy_table *tb, const char *name, const char *field, int ftype);
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
/* The table as a dict of numpy arrays (NULL with an exception); tb is
 * emptied either way. */
PyObject *bpy_table_finish(struct bpy_table *tb);
void bpy_table_free(struct bpy_table *tb);

/* The kind of column a field type fills. */
enum bpy_kind bpy_kind_of(int ftype);

#endif /* BPRINT_PY_TABLE_H */
