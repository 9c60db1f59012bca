/*
 * reader/symbols.h - %pS and %ps offline: addresses recorded in a trace file
 * turned into symbols from the file's library map (docs/file-format.md,
 * chunk 2), like the kernel's %pS and %ps.
 *
 *	%pS  func+0x1a/0x40                 in the main program
 *	     func+0x1a/0x40 [libfoo.so.1]   in a shared library
 *	%ps  func
 *
 * The library is the one whose recorded range [lo, hi) holds the address;
 * its recorded path is opened read-only (a regular file, never executed),
 * its GNU build-id compared with the recorded one, and its symbol table
 * searched.  With elfutils (BP_HAVE_LIBDW) libdwfl reads the ELF file (the
 * .symtab, else the .dynsym, and a MiniDebugInfo .gnu_debugdata); without
 * it, a small reader of our own reads .symtab or .dynsym.  Separate debug
 * files are not looked for (nor fetched from anywhere).
 *
 * What does not resolve prints as glibc prints %p ("0x55d4c0a01139",
 * "(nil)"): an address in no recorded library, or in a library that has
 * no symbol there.  A library that cannot be used - the file is gone, is
 * not a readable ELF file of this machine, or its build-id differs from
 * the recorded one (rebuilt since) - is counted, and its addresses print
 * as "0x7f3a5c2c1139 [libfoo.so.1+0x1139]" for %pS (the offset is the
 * ELF address, for addr2line on the right build) and as the bare address
 * for %ps.  A library recorded without a build-id is used unchecked.
 *
 * Memory is bounded: a few bytes of state per recorded library, and at
 * most BP_SYMBOLS_OPEN libraries open at a time (least recently used
 * closed first).  One struct bp_symbols is used by one thread at a time.
 */
#ifndef BP_FILE_SYMBOLS_H
#define BP_FILE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct bp_trace_lib;
struct bp_symbols;

/*
 * Where the symbols find the libraries: a table (the trace reader's,
 * read at each lookup, so that libraries a live file adds later are
 * found), its size and its i-th entry.
 */
struct bp_symbols_libs {
	const void *table;
	size_t (*count)(const void *table);
	const struct bp_trace_lib *(*at)(const void *table, size_t i);
};

#define BP_SYMBOLS_OPEN 8	/* libraries kept open at once */

/* Flags of bp_symbols_new(). */
#define BP_SYMBOLS_OWN_READER 1u	/* our own ELF reader even with libdw (tests) */

/* Symbols for the libraries of *libs (copied).  NULL if out of memory. */
struct bp_symbols *bp_symbols_new(const struct bp_symbols_libs *libs, unsigned flags);
void bp_symbols_free(struct bp_symbols *s);

/*
 * The text for address under letter 'S' or 's', as above, into buf
 * (snprintf semantics).  Matches struct bp_pointer_hook's print(): ctx is
 * a struct bp_symbols.
 */
void bp_symbols_print(void *ctx, char letter, uint64_t address, char *buf, size_t size);

/* What the lookups met so far. */
struct bp_symbols_stats {
	uint64_t resolved;		/* addresses printed as a symbol */
	uint64_t unresolved;		/* in no library, or no symbol there */
	uint64_t unverified;		/* in a library that could not be used */
	unsigned stale_libs;		/* build-id differs from the recorded one */
	unsigned missing_libs;		/* gone, unreadable, or not ELF */
	unsigned opened;		/* library opens (more than the libraries
					 * used if they did not all stay open) */
	char first_bad[256];		/* path of the first unusable library, or "" */
};
void bp_symbols_get_stats(const struct bp_symbols *s, struct bp_symbols_stats *out);

/* The backend compiled in: "libdw" or "elf" (our own reader). */
const char *bp_symbols_backend(const struct bp_symbols *s);

#endif /* BP_FILE_SYMBOLS_H */
