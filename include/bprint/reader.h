/*
 * bprint/reader.h - the reading library (libbprint-reader): a trace file
 * (docs/file-format.md), live or streamed, read without the process that
 * wrote it.  The bprint command is built on it; so can programs that
 * analyse traces (README, "Reading traces from your own programs").
 *
 *	bp_trace_open()      check the header, walk the chunks, build the
 *	                     site and library tables, find the rings
 *	bp_trace_next()      the next record, merged by timestamp across
 *	                     rings, decoded into a struct bprint_event
 *	bp_trace_refresh()   pick up what a live writer added since
 *	bp_trace_close()
 *
 * The file is untrusted input.  Every offset, length, id and string is
 * checked against the file before it is used; ring memory is read only
 * through the ring's own validating readers (src/ring/ring.h); recorded
 * pointers are never followed.  A damaged part is skipped (chunk walk) or
 * ends one ring (bad ring), never the whole read, and is reported through
 * bp_trace_problems().
 *
 * Memory stays bounded whatever the file's size: the tables (sites,
 * libraries, one entry per chunk of streamed pages), and per ring one
 * page and one record.  Streamed pages are read with
 * pread(); a live ring is mapped, and the pages behind its cursor are
 * dropped from the mapping (MADV_DONTNEED) as the cursor moves on.
 *
 * What the file holds (its catalogue: tables, rings, counters) is found at
 * open, and again only by bp_trace_refresh() or when a record names a
 * site the tables lack in a file not closed (its writer files a site
 * before the site's first record); the accessors below only read it.
 *
 * One struct bp_trace is used by one thread at a time.
 */
#ifndef BPRINT_READER_H
#define BPRINT_READER_H

#include <bprint.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes (negative), and what the bprint command maps them to. */
#define BP_TRACE_OK		0
#define BP_TRACE_EFORMAT	(-2)	/* not a trace file, or a damaged one (exit 2) */
#define BP_TRACE_EIO		(-3)	/* open/read/map failed (exit 3, or 2 at open) */
#define BP_TRACE_ENOMEM		(-4)	/* out of memory */

/* The one-line reasons of bp_trace_open(), for the tests and the manual. */
#define BP_TRACE_MSG_NOT_TRACE	"not a bprint trace file"
#define BP_TRACE_MSG_TRUNCATED	"truncated header"
#define BP_TRACE_MSG_BYTE_ORDER	"byte order not supported"

/* The header, decoded. */
struct bp_trace_info {
	uint32_t major, minor;
	uint32_t flags;			/* BP_TRACE_F_* */
	uint32_t word_size;
	uint32_t ring_mode;		/* BP_TRACE_MODE_* (the rings' enum bp_ring_mode) */
	int64_t pid;
	uint64_t start_realtime_ns;
	uint64_t start_mono_ns;
	uint64_t end_hint;		/* the header's end: a hint only */
	uint64_t file_size;		/* at open or the last refresh */
	const char *clock_name;		/* "tsc", ..., or "unknown" */
	char comm[17];
	char cmdline[2049];		/* the arguments, separated by spaces */
	/* stream files: why the drainer stopped writing early, if it did */
	uint32_t stop_reason;		/* BP_FILE_STOP_* (docs/file-format.md), 0 = none */
	int stop_errno;
	uint64_t stop_record;		/* "truncated: disk full at record N" */
	uint64_t accounts_off;		/* the accounts chunk in force, 0 = none */
	int accounted;			/* a stream file not closed cleanly whose
					 * accounts say what it holds (else it cannot) */
	/* rings the traced process's file was too full for (format 1.2): their
	 * records were kept in its memory only, and are in no file */
	uint32_t memory_rings;
	uint64_t memory_records;	/* records handed to them, counted as their
					 * threads ended (0 if none ended normally) */
	uint32_t missing_sites;		/* call sites it had no room for: their
					 * records print as <unknown call site N> */
	uint32_t clock;			/* the clock's id as the file stores it (calib's
					 * clock_id): 0 tsc, 1 mono, 2 mono_raw, 3 boot,
					 * 4 counter; 5 for one this reader does not know */
};
#define BP_TRACE_F_STREAM	1u	/* written by bprint record */
#define BP_TRACE_F_CLOSED	2u	/* closed cleanly */
#define BP_TRACE_F_CRC		4u	/* a stream whose chunks carry checksums (1.3) */
#define BP_TRACE_F_ENDED	8u	/* not closed, and the process that wrote it has
					 * ended (or maps it no more) when opened or
					 * refreshed: it never will be (_exit(), a
					 * crash, a kill) */

/*
 * A call site from the file.  The library allocates it (bp_trace_site(),
 * bp_trace_site_at()) and keeps it until bp_trace_close(); size is the
 * library's sizeof(struct bp_trace_site), so that a caller compiled
 * against a later header reads a field added at the end only when size
 * covers it.  format is NULL when the call's format was not a
 * compile-time constant.
 */
struct bp_trace_site {
	uint32_t size;			/* the library's sizeof(struct bp_trace_site) */
	uint32_t id;
	uint32_t line;
	uint32_t kind;			/* BP_TRACE_SITE_PRINTK or _PUTS */
	const char *format;		/* NULL: not a compile-time constant */
	const char *file;
	const char *func;
	uint32_t lib;			/* library index, 0 = unknown */
	uint32_t func_len;		/* strlen(func), for the printers */
};
#define BP_TRACE_SITE_SIZE_1 48		/* the first version's (LP64) */
#define BP_TRACE_SITE_PRINTK	0u	/* trace_printk() */
#define BP_TRACE_SITE_PUTS	1u	/* trace_puts(): the "format" is the text */

struct bp_trace_lib {
	uint32_t index;
	uint64_t load_addr;
	uint64_t lo, hi;		/* mapped range [lo, hi) */
	uint32_t build_id_len;
	unsigned char build_id[64];
	const char *path;
};

/* One ring (thread x signal-nesting level) and its counters: the writer's
 * as the file had them at open or at the last refresh, this reader's as
 * far as it read. */
struct bp_trace_ring {
	uint64_t key;			/* chunk index of the ring in the live file */
	int32_t tid;
	uint32_t level;
	char comm[17];
	uint32_t state;			/* 1 alive, 2 exited, 0 unknown (stream only) */
	uint32_t page_size, npages;	/* 0 if not known yet */
	/* from the writer: the ring's counters, the latest the file holds */
	uint64_t written;		/* records handed to the ring (never below
					 * read + overwritten + discarded: a writer
					 * killed mid-commit leaves it one short) */
	uint64_t discarded;		/* dropped by the ring (discard mode, too large) */
	uint64_t dropped;		/* dropped before the ring (nested too deep) */
	uint64_t lost_by_drainer;	/* stream files: never copied out */
	uint64_t not_copied;		/* stream files not closed cleanly: written
					 * but left in the ring when the drainer
					 * stopped (killed, disk full) */
	/* from this reader, so far */
	uint64_t read;			/* records returned */
	uint64_t overwritten;		/* records recycled before we could read them */
	int corrupt;			/* reading it stopped on damage */
	/* from the writer, block mode: times it waited for the copier with
	 * its ring full, and the nanoseconds spent waiting */
	uint64_t block_waits;
	uint64_t block_ns;
};

/*
 * The structs the caller allocates (struct bp_trace_event, struct
 * bp_trace_totals) begin with their size, as bprint.h's do, so that they
 * may grow at the end: set it (BP_TRACE_EVENT_INIT, BP_TRACE_TOTALS_INIT
 * in C; in C++ value-initialise and set size), and the library writes
 * only what fits in that many bytes.  A size below the first version's
 * (0: not set) gets BP_TRACE_EINVAL.
 */
#define BP_TRACE_EINVAL		(-5)	/* a caller's struct without its size */

/*
 * A record, decoded.  message points into the reader (valid until the
 * next call); site is NULL for an id not in the site table; comm points
 * to the comm[17] of a struct bp_trace_ring (NUL-terminated, all 17
 * bytes readable).
 *
 * Its layout is its own (no other struct inside it): fields are only
 * ever added, into reserved first, then at the end.  The first layout of
 * this struct (libbprint-reader.so.1) embedded struct bprint_event and
 * was 136 or 144 bytes; this one is larger than both, so that a program
 * compiled against that header gets BP_TRACE_EINVAL from bp_trace_next()
 * rather than fields in the wrong places (and the library's soname moved
 * to 2, so that such a program does not load this library at all).
 */
struct bp_trace_event {
	uint32_t size;			/* the caller's sizeof(struct bp_trace_event) */
	int32_t tid;
	uint64_t ns;			/* in the trace clock's nanoseconds */
	int32_t cpu;			/* -1 if unknown */
	uint32_t site_id;		/* as recorded, even when unknown */
	const char *comm;		/* the thread's name */
	const struct bp_trace_site *site;	/* the site's entry (NULL: unknown) */
	const char *message;		/* formatted, NUL-terminated */
	size_t message_len;
	size_t ring;			/* index for bp_trace_ring_at() */
	uint64_t raw_ts;		/* as recorded, before calibration */
	uint64_t index;			/* the ring's stored-record index */
	uint64_t lost_before;		/* records of this ring lost just before it, of
					 * the kinds lost_kind says */
	/* The raw payload, valid until the next call: the argument block
	 * (docs/binary-layout.md) of site's format, or the text the call
	 * made itself when text is set. */
	const uint32_t *block;
	size_t block_words;
	uint32_t level;			/* signal-nesting level of the ring */
	int text;
	/* Set with the message: it is the whole decode of the block by its
	 * site's format (not cut, not a block that failed its format, not an
	 * unknown site), so another decoder of the block prints the same. */
	int exact;
	/* What lost_before counts (0 when it is 0): BP_TRACE_LOST_* bits.
	 * Records lost after a ring's last record (a stream's records not
	 * copied when its drainer stopped) are in the totals only. */
	uint32_t lost_kind;
	uint64_t reserved[4];		/* room for fields to come: left as set */
};
#define BP_TRACE_EVENT_INIT { .size = sizeof(struct bp_trace_event) }
#define BP_TRACE_EVENT_SIZE_3 152	/* the flat layout's, the smallest taken (1 and
					 * 2, 136 and 144, were the embedding one's) */

#define BP_TRACE_LOST_OVERWRITTEN 1u	/* recycled by the ring before they were read */
#define BP_TRACE_LOST_DISCARDED	2u	/* dropped by the ring (full in discard or block
					 * mode, or too large for a page) */
#define BP_TRACE_LOST_NOT_COPIED 4u	/* a stream: recycled by the ring before bprint
					 * record copied them (its drainer fell behind) */

struct bp_trace;

/* Open flags. */
#define BP_TRACE_OPEN_DEFAULT	0u
#define BP_TRACE_OPEN_NO_SYMBOLS 1u	/* %pS and %ps print as %p does, then the
					 * letter: no library file is opened */
#define BP_TRACE_OPEN_ELF_READER 2u	/* symbols with our own ELF reader even
					 * when libdw is built in (tests) */

/*
 * Open path read-only and read its tables.  On failure returns NULL and
 * writes a one-line reason (no file name, no newline) into err, and the
 * BP_TRACE_E* code into *rc if rc is not NULL.  A missing or unreadable
 * file gives strerror()'s text and BP_TRACE_EIO.
 */
BP_API struct bp_trace *bp_trace_open(const char *path, unsigned flags, char *err, size_t errlen,
			       int *rc);
BP_API void bp_trace_close(struct bp_trace *t);

BP_API const struct bp_trace_info *bp_trace_info(const struct bp_trace *t);

/* The rings' modes (bp_trace_info's ring_mode), and their names
 * ("overwrite", "discard", "block"; NULL for another number). */
#define BP_TRACE_MODE_OVERWRITE	0u
#define BP_TRACE_MODE_DISCARD	1u
#define BP_TRACE_MODE_BLOCK	2u
BP_API const char *bp_trace_ring_mode_name(uint32_t mode);

/* A look at a file's header before opening it (bprint tail's search for a
 * PID's file, report's "is this a trace"): its first bytes only, read
 * without following a final link or blocking on a FIFO. */
struct bp_trace_probe {
	uint32_t size;			/* the caller's sizeof(struct bp_trace_probe) */
	uint32_t flags;			/* BP_TRACE_F_STREAM, _CLOSED, _CRC as the
					 * header has them (a live file's change) */
	int64_t pid;			/* the process that wrote it */
	int valid;			/* the whole header passes bp_trace_open()'s
					 * checks */
	uint32_t reserved;
};
#define BP_TRACE_PROBE_INIT { .size = sizeof(struct bp_trace_probe) }

/* 1 and *out filled if path begins with a trace file's magic (and holds
 * up to its pid), 0 if not, -1 with errno if it cannot be opened or
 * read, BP_TRACE_EINVAL without out's size. */
BP_API int bp_trace_probe(const char *path, struct bp_trace_probe *out);

/* What to add to a record's ns for its wall-clock (CLOCK_REALTIME) time:
 * 0 and *offset_ns, or -1 for a clock that gives no dates (boot, counter)
 * or a header without its start pair.  As `bprint report --date`. */
BP_API int bp_trace_wallclock_offset(const struct bp_trace *t, int64_t *offset_ns);

/* Sites, by position (sorted by id) or by id (NULL if absent). */
BP_API size_t bp_trace_nsites(const struct bp_trace *t);
BP_API const struct bp_trace_site *bp_trace_site_at(const struct bp_trace *t, size_t i);
BP_API const struct bp_trace_site *bp_trace_site(const struct bp_trace *t, uint32_t id);
/* Highest site id in the table, 0 if none. */
BP_API uint32_t bp_trace_max_site_id(const struct bp_trace *t);

BP_API size_t bp_trace_nlibs(const struct bp_trace *t);
BP_API const struct bp_trace_lib *bp_trace_lib_at(const struct bp_trace *t, size_t i);

BP_API size_t bp_trace_nrings(const struct bp_trace *t);
BP_API const struct bp_trace_ring *bp_trace_ring_at(const struct bp_trace *t, size_t i);

/* Flags of bp_trace_next(). */
#define BP_TRACE_NEXT_NO_MESSAGE 1u	/* leave message "": format later with
					 * bp_trace_message() (for filters) */
#define BP_TRACE_NEXT_ARGS_ONLY	2u	/* fill only what decoding the arguments and
					 * choosing by site and thread need: site_id,
					 * site, tid, ring, index, block,
					 * block_words, text; the rest of *out (the
					 * time, the name, the message, the losses)
					 * keeps what it held (bprint hist: a fifth
					 * of the reading saved) */
#define BP_TRACE_NEXT_TIME	4u	/* with BP_TRACE_NEXT_ARGS_ONLY: the time
					 * too (ev.ns, raw_ts) (bprint latency) */

/*
 * The next record in timestamp order: 1 (*out filled), 0 (nothing more;
 * for a live file, call bp_trace_refresh() and try again later) or a
 * negative code (the reader is unusable; damage inside a ring is not
 * reported here but ends that ring, see bp_trace_problems()).
 *
 * Merging: each ring has its next record in hand and the smallest
 * timestamp goes first (ties: the ring found first).  A live ring with
 * nothing in hand does not hold the others back, so records a live
 * writer adds later may be older than ones already returned.
 */
BP_API int bp_trace_next(struct bp_trace *t, struct bp_trace_event *out, unsigned flags);

/*
 * Where the record last returned by bp_trace_next() comes from: the
 * program, or the kernel stream (docs/kernel-stream.md: a kernel event is
 * a record of site BP_TRACE_KERNEL_SITE_BASE + its ID, its ring a CPU's,
 * its thread the event's).  A kernel event is the traced process tree's
 * own when its thread, or a pid field of it (prev_pid, next_pid, pid,
 * ...), is a thread of the program's rings, the traced command or a
 * process it forked (as far as the events read so far say).
 */
#define BP_TRACE_FROM_PROGRAM		0
#define BP_TRACE_FROM_KERNEL_OWN	1
#define BP_TRACE_FROM_KERNEL_OTHER	2
#define BP_TRACE_KERNEL_SITE_BASE	0x30000u
BP_API int bp_trace_event_kernel(const struct bp_trace *t);

/* Call fn(arg, n) after every `every` records bp_trace_next() returns (n:
 * records returned so far); every 0 or fn NULL turns it off.  For progress
 * lines (bprint report and export); fn must not call the reader. */
BP_API void bp_trace_on_progress(struct bp_trace *t, uint64_t every,
				 void (*fn)(void *arg, uint64_t records), void *arg);

/* Format the message of the record last returned by bp_trace_next() (if it
 * was asked for without one); sets out->message and message_len. */
BP_API void bp_trace_message(struct bp_trace *t, struct bp_trace_event *out);

/* The same message, formatted straight into buf (at most size bytes with
 * the NUL, and never more than the reader's own BP_MSG_MAX - 1
 * characters, so that the text is cut where bprint_dump() cuts it).
 * Returns its length; message_len and message are left alone. */
BP_API size_t bp_trace_format_message(struct bp_trace *t, char *buf, size_t size);

/* The same message for any event whose block is still valid (as for
 * bp_trace_event_fields()): a copy of an event bp_trace_next() returned,
 * with .block pointing to a copy of its block, formats later, after the
 * reader has moved on.  Uses ev's site_id, block, block_words and text. */
BP_API size_t bp_trace_event_message(struct bp_trace *t, const struct bp_trace_event *ev,
				     char *buf, size_t size);

/* The event as one line (no newline) in the form bprint_format_event()
 * gives a runtime's event (bprint.h): the same text for the same record;
 * snprintf semantics. */
BP_API int bp_trace_format_event(char *buf, size_t size, const struct bp_trace_event *ev,
				 enum bprint_output how);

/*
 * Look again at the file: new chunks, new sites and libraries, counters,
 * chunks that were still being written.  Rings already known keep their
 * positions.  BP_TRACE_OK or a negative code.
 */
BP_API int bp_trace_refresh(struct bp_trace *t);

/* Problems met so far (damage skipped, rings ended by damage): a count,
 * and the first one's description ("" if none). */
BP_API unsigned bp_trace_problems(const struct bp_trace *t, const char **first);

/* Sum of the counters over all rings; overwritten and read as far as
 * read.  written includes dropped, and so does discarded (as in
 * bprint_stats()). */
struct bp_trace_totals {
	uint32_t size;			/* the caller's sizeof(struct bp_trace_totals) */
	uint32_t reserved;
	uint64_t written, discarded, overwritten, read, lost_by_drainer, not_copied;
};
#define BP_TRACE_TOTALS_INIT { .size = sizeof(struct bp_trace_totals) }
#define BP_TRACE_TOTALS_SIZE_1 56	/* the first sized version's, the smallest taken */

/* Fill *out (out->size set by the caller): BP_TRACE_OK or BP_TRACE_EINVAL. */
BP_API int bp_trace_totals(const struct bp_trace *t, struct bp_trace_totals *out);

/* The same for ring i alone (bp_trace_ring_at(t, i)'s counters, with
 * dropped in written and discarded): BP_TRACE_EINVAL if there is no ring
 * i.  The totals are the sum of these. */
BP_API int bp_trace_ring_totals(const struct bp_trace *t, size_t i, struct bp_trace_totals *out);

/*
 * Records known to be overwritten, without reading them: per ring, the
 * first stored-record index available (a flight recorder's), or the
 * drainer's count of records it never copied if that is more; for a
 * stream not closed, the gaps below its last record.  Used for
 * headers printed before reading: with the totals' discarded and
 * not_copied it is the sum of what reading finds lost.
 */
BP_API uint64_t bp_trace_overwritten_estimate(const struct bp_trace *t);

/* The caller-allocated structs' layouts, pinned (LP64). */
#if !defined(__cplusplus) && UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(struct bp_trace_event) == BP_TRACE_EVENT_SIZE_3,
	       "bp_trace_event grows only at the end");
_Static_assert(__builtin_offsetof(struct bp_trace_event, size) == 0, "size first");
_Static_assert(__builtin_offsetof(struct bp_trace_event, ns) == 8, "bp_trace_event.ns");
_Static_assert(__builtin_offsetof(struct bp_trace_event, comm) == 24, "bp_trace_event.comm");
_Static_assert(__builtin_offsetof(struct bp_trace_event, message_len) == 48,
	       "bp_trace_event.message_len");
_Static_assert(__builtin_offsetof(struct bp_trace_event, lost_before) == 80,
	       "bp_trace_event.lost_before");
_Static_assert(__builtin_offsetof(struct bp_trace_event, lost_kind) == 116,
	       "bp_trace_event.lost_kind");
_Static_assert(__builtin_offsetof(struct bp_trace_event, reserved) == 120,
	       "bp_trace_event.reserved");
_Static_assert(sizeof(struct bp_trace_site) == BP_TRACE_SITE_SIZE_1,
	       "bp_trace_site grows only at the end");
_Static_assert(__builtin_offsetof(struct bp_trace_site, format) == 16, "bp_trace_site.format");
_Static_assert(__builtin_offsetof(struct bp_trace_site, func_len) == 44,
	       "bp_trace_site.func_len");
_Static_assert(sizeof(struct bp_trace_totals) == BP_TRACE_TOTALS_SIZE_1,
	       "bp_trace_totals grows only at the end");
_Static_assert(__builtin_offsetof(struct bp_trace_totals, size) == 0, "size first");
_Static_assert(__builtin_offsetof(struct bp_trace_totals, written) == 8,
	       "bp_trace_totals.written");
_Static_assert(__builtin_offsetof(struct bp_trace_totals, not_copied) == 48,
	       "bp_trace_totals.not_copied");
#endif

/* ---- Fields by name ----------------------------------------------------------
 *
 * Each call site's layout (docs/fields.md): its format's value conversions
 * as named, typed fields, in the order the argument block stores them, so
 * that a program reads "dur_us" of a record without formatting its text.
 * The reader computes a site's layout once, on first use, and keeps it
 * until bp_trace_close(); the pointers it hands out stay valid until then.
 *
 * Names: each value conversion (all but literal text, %% and %n) is named
 * after the last word of the literal text between the previous conversion
 * and itself (a word: letters, digits and '_', not starting with a digit),
 * so "dur_us=%lld", "dur_us: %lld" and "dur_us %lld" all give dur_us.
 * Without such a word, or when the word is taken by an earlier field or
 * has the form argN, the field is argN (N counting the value conversions
 * from 0), and argN is always an alias.  A '*' width or precision is a
 * field of its own, its conversion's name + "_width" / "_precision".
 */

enum bp_field_type {
	BP_FIELD_SIGNED = 1,	/* %d %i, and '*' width/precision values: .i */
	BP_FIELD_UNSIGNED,	/* %u %x %X %o: .u */
	BP_FIELD_FLOAT,		/* %f %F %e %E %g %G %a %A (L too, as the nearest double): .d */
	BP_FIELD_STRING,	/* %s: .s/.len (points into the record, valid until the next
				 * bp_trace_next) */
	BP_FIELD_CHAR,		/* %c: .u is the byte */
	BP_FIELD_POINTER,	/* %p and its extensions (%pS...): .u, the address, never
				 * followed */
};

struct bp_trace_field {
	const char *name;	/* unique in the site; [A-Za-z_][A-Za-z0-9_]* */
	uint8_t type;		/* enum bp_field_type */
	uint8_t size;		/* integers: 1, 2, 4 or 8 (the conversion's length: %hhd is
				 * 1); CHAR 1; FLOAT/POINTER 8; STRING 0 */
	uint8_t base;		/* 10, 16 or 8 for integers; 16 for pointers; 0 otherwise */
	char conv;		/* the conversion character; '*' for a width/precision value */
	uint32_t conversion;	/* N of argN: the index of its conversion among the
				 * format's value conversions */
};

struct bp_trace_layout {
	uint32_t site_id;
	uint32_t nfields;
	const struct bp_trace_field *fields;	/* in the order the argument block stores them */
	uint32_t flags;				/* BP_LAYOUT_SYMBOLS: the format has %pS/%ps */
};
#define BP_LAYOUT_SYMBOLS 1u

/* The layout of a site id (computed on first use, kept until close); NULL
 * for an id not in the site table, a site without a format, or a format
 * that has no plan (recorded as text).  A trace_puts() site has no fields. */
BP_API const struct bp_trace_layout *bp_trace_layout(struct bp_trace *t, uint32_t site_id);

/* Index of a field by name, or by its alias argN (N = .conversion of a
 * conversion's own value); -1 if none. */
BP_API int bp_trace_field_index(const struct bp_trace_layout *lay, const char *name);

/* The text of field k's conversion in its site's format ("%-*.*x", "%pS";
 * for a '*' value, its conversion's): *len bytes, not NUL-terminated, as
 * `bprint formats` prints it; NULL if k is not a field of lay. */
BP_API const char *bp_trace_field_text(const struct bp_trace_layout *lay, size_t k, size_t *len);

/* A field's type in words, as `bprint formats` prints it: "int32",
 * "uint8", "double", "string", "char", "pointer" ("integer" for an
 * integer of another size). */
BP_API const char *bp_trace_field_type_name(const struct bp_trace_field *f);

struct bp_field_value {
	union {
		int64_t i;
		uint64_t u;
		double d;
	} v;
	const char *s;		/* STRING: bytes (no NUL inside, not NUL-terminated) */
	size_t len;
};

/*
 * The values of the event last returned by bp_trace_next() (or any event
 * whose block is still valid), decoded from its argument block, never from
 * text: fills vals[0 .. lay->nfields) and returns nfields (at most nvals
 * values are stored; the whole block is checked all the same); -1 if the
 * event carries text (ev->text), has an unknown site, or its block does
 * not hold what its format packs (bounded by block_words: the file is
 * untrusted).  Integers come back reduced as printf reduces them (%hhd of
 * 300 is 44); a long double as the nearest double.
 */
BP_API int bp_trace_event_fields(struct bp_trace *t, const struct bp_trace_event *ev,
				 struct bp_field_value *vals, size_t nvals);

#if !defined(__cplusplus) && UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(struct bp_trace_field) == 16, "bp_trace_field is 16 bytes");
_Static_assert(__builtin_offsetof(struct bp_trace_field, conversion) == 12,
	       "bp_trace_field.conversion");
_Static_assert(sizeof(struct bp_trace_layout) == 24, "bp_trace_layout is 24 bytes");
_Static_assert(__builtin_offsetof(struct bp_trace_layout, flags) == 16, "bp_trace_layout.flags");
_Static_assert(sizeof(struct bp_field_value) == 24, "bp_field_value is 24 bytes");
#endif

#ifdef __cplusplus
}
#endif

#endif /* BPRINT_READER_H */
