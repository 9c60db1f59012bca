/*
 * reader/symbols_elf.h - what symbols.c (%pS and %ps offline, symbols.h)
 * shares with symbols_elf.c, which reads the ELF files: a library's file
 * opened and checked against its recorded build-id, and our own reader's
 * symbol table.
 */
#ifndef BP_FILE_SYMBOLS_ELF_H
#define BP_FILE_SYMBOLS_ELF_H

#include <bprint/reader.h>

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum lib_state { LIB_UNTRIED = 0, LIB_OK, LIB_STALE, LIB_MISSING };

/* Our own reader's table: one entry per sized symbol. */
struct own_sym {
	uint64_t value, size;
	uint32_t name;			/* offset in strtab */
	uint8_t rank;			/* 2 global, 1 weak, 0 local */
};

struct own_table {
	struct own_sym *sym;
	size_t n;
	char *strtab;
	size_t strsz;
};

/* A library's ELF file, open: its descriptor, size and ELF header. */
struct elf_file {
	int fd;
	uint64_t size;
	Elf64_Ehdr eh;
};

/*
 * Open lib's file and check it is the recorded one.  Returns LIB_OK with
 * f->fd open, or LIB_MISSING / LIB_STALE with nothing open.
 */
enum lib_state symbols_open_checked(const struct bp_trace_lib *lib, struct elf_file *f);

/* Read f's .symtab (else .dynsym) into t.  false: out of memory only (a
 * file without a usable table gives an empty one). */
bool symbols_own_load(const struct elf_file *f, struct own_table *t);

/* The symbol holding ELF address a: the closest one below it that holds
 * it (a sizeless one only at its own address), globals before others. */
const char *symbols_own_lookup(const struct own_table *t, uint64_t a, uint64_t *off,
			       uint64_t *size);

#endif /* BP_FILE_SYMBOLS_ELF_H */
