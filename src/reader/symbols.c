/*
 * reader/symbols.c - %pS and %ps from a trace file's library map (symbols.h).
 *
 * Per recorded library: a state (not tried, usable, stale, missing) and,
 * while it is among the BP_SYMBOLS_OPEN most recently used, an open
 * handle.  Opening a library is the same for both backends: open the
 * recorded path read-only (O_NONBLOCK, so a FIFO put there cannot block
 * us), insist on a regular file, read the ELF header and the program
 * headers with pread(), and compare the GNU build-id of the PT_NOTE
 * segments with the recorded one, as the writer took it from the same
 * notes in memory.  Then:
 *
 *   libdw (BP_HAVE_LIBDW): the descriptor goes to dwfl_report_elf() at the
 *     recorded load address; dwfl_module_addrinfo() answers.  Our
 *     find_debuginfo callback declines, so no other file is opened (and no
 *     debuginfod server asked).
 *   our own reader: .symtab (else .dynsym) is read in pieces into a table
 *     of the sized function and object symbols, sorted by address, and the
 *     string table is kept; a lookup is a binary search.
 *
 * Everything read from the ELF file is bounded by the file's size and by
 * MAX_TABLE; the addresses looked up are only compared, never followed.
 * Opening and checking the file, and our own reader, are symbols_elf.c's
 * (symbols_elf.h); this file keeps the handles, libdw and the hook.
 */
#include "reader/symbols.h"

#include "reader/demangle.h"
#include "reader/symbols_elf.h"

#include <bprint/format.h>
#include <bprint/reader.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef BP_HAVE_LIBDW
#include <elfutils/libdwfl.h>
#endif

struct handle {
	size_t lib;			/* position in the trace's library table */
	uint64_t stamp;			/* last use, for LRU */
	bool used;
#ifdef BP_HAVE_LIBDW
	Dwfl *dwfl;
	Dwfl_Module *mod;
#endif
	struct own_table own;
};

struct bp_symbols {
	struct bp_symbols_libs libs;
	unsigned flags;
	uint8_t *state;			/* enum lib_state, per library position */
	size_t nstate;
	struct handle open[BP_SYMBOLS_OPEN];
	uint64_t clock;
	struct bp_symbols_stats st;
};

/* ---- libdw ------------------------------------------------------------- */

#ifdef BP_HAVE_LIBDW
static int no_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		  char **file_name, Elf **elfp)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)elfp;
	return -1;
}

/* No separate debug files: the library's own tables only. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = no_elf,
	.find_debuginfo = no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* Hand f's descriptor to libdwfl (it keeps it on success).  false: not
 * usable (f->fd is then closed). */
static bool dw_open(struct handle *h, struct elf_file *f, const struct bp_trace_lib *lib)
{
	const char *base = strrchr(lib->path, '/');

	h->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!h->dwfl) {
		close(f->fd);
		return false;
	}
	dwfl_report_begin(h->dwfl);
	/* base + the first PT_LOAD's p_vaddr: the module's bias is the
	 * recorded load address (dlpi_addr); ignored for ET_EXEC. */
	h->mod = dwfl_report_elf(h->dwfl, base ? base + 1 : lib->path, lib->path, f->fd,
				 lib->load_addr, true);
	if (!h->mod) {
		close(f->fd);
		dwfl_end(h->dwfl);
		h->dwfl = NULL;
		return false;
	}
	dwfl_report_end(h->dwfl, NULL, NULL);
	return true;
}

static const char *dw_lookup(struct handle *h, uint64_t address, uint64_t *off, uint64_t *size)
{
	GElf_Off o = 0;
	GElf_Sym sym;
	const char *name;

	memset(&sym, 0, sizeof(sym));
	name = dwfl_module_addrinfo(h->mod, address, &o, &sym, NULL, NULL, NULL);
	if (!name || !*name || (sym.st_size && o >= sym.st_size))
		return NULL;
	*off = o;
	*size = sym.st_size;
	return name;
}
#endif

/* ---- handles ----------------------------------------------------------- */

static void handle_close(struct handle *h)
{
#ifdef BP_HAVE_LIBDW
	if (h->dwfl)
		dwfl_end(h->dwfl);	/* closes the descriptor */
	h->dwfl = NULL;
	h->mod = NULL;
#endif
	free(h->own.sym);
	free(h->own.strtab);
	memset(h, 0, sizeof(*h));
}

static bool use_libdw(const struct bp_symbols *s)
{
#ifdef BP_HAVE_LIBDW
	return !(s->flags & BP_SYMBOLS_OWN_READER);
#else
	(void)s;
	return false;
#endif
}

static void note_bad(struct bp_symbols *s, const struct bp_trace_lib *lib, enum lib_state st)
{
	if (st == LIB_STALE)
		s->st.stale_libs++;
	else
		s->st.missing_libs++;
	if (!s->st.first_bad[0])
		bp_snprintf(s->st.first_bad, sizeof(s->st.first_bad), "%s", lib->path);
}

/* The open handle of library i, opening it (and closing the least
 * recently used) if needed.  NULL if the library is not usable. */
static struct handle *handle_for(struct bp_symbols *s, size_t i, const struct bp_trace_lib *lib)
{
	struct handle *h = NULL;
	struct elf_file f;
	enum lib_state st;

	for (size_t k = 0; k < BP_SYMBOLS_OPEN; k++) {
		struct handle *c = &s->open[k];

		if (c->used && c->lib == i) {
			c->stamp = ++s->clock;
			return c;
		}
		if (!h || !c->used || (h->used && c->stamp < h->stamp))
			h = c;
	}
	if (s->state[i] == LIB_STALE || s->state[i] == LIB_MISSING)
		return NULL;
	st = symbols_open_checked(lib, &f);
	if (st != LIB_OK) {
		s->state[i] = (uint8_t)st;
		note_bad(s, lib, st);
		return NULL;
	}
	if (h->used)
		handle_close(h);
	h->lib = i;
	s->st.opened++;
#ifdef BP_HAVE_LIBDW
	if (use_libdw(s)) {
		if (!dw_open(h, &f, lib)) {
			s->state[i] = LIB_MISSING;
			note_bad(s, lib, LIB_MISSING);
			return NULL;
		}
		goto done;
	}
#endif
	if (!symbols_own_load(&f, &h->own)) {
		close(f.fd);
		return NULL;	/* out of memory: try again next time */
	}
	close(f.fd);
#ifdef BP_HAVE_LIBDW
done:
#endif
	s->state[i] = LIB_OK;
	h->used = true;
	h->stamp = ++s->clock;
	return h;
}

/* ---- the hook ---------------------------------------------------------- */

struct bp_symbols *bp_symbols_new(const struct bp_symbols_libs *libs, unsigned flags)
{
	struct bp_symbols *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->libs = *libs;
	s->flags = flags;
	return s;
}

void bp_symbols_free(struct bp_symbols *s)
{
	if (!s)
		return;
	for (size_t k = 0; k < BP_SYMBOLS_OPEN; k++)
		if (s->open[k].used)
			handle_close(&s->open[k]);
	free(s->state);
	free(s);
}

/* The library holding address: the latest recorded one if ranges overlap
 * (an object loaded where a closed one was).  Its position, or SIZE_MAX. */
static size_t find_lib(const struct bp_symbols_libs *libs, uint64_t address)
{
	for (size_t i = libs->count(libs->table); i > 0; i--) {
		const struct bp_trace_lib *l = libs->at(libs->table, i - 1);

		if (l && address >= l->lo && address < l->hi)
			return i - 1;
	}
	return SIZE_MAX;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

/* Nothing but printable text comes out of a file's strings. */
static void printable(char *buf)
{
	for (; *buf; buf++)
		if ((unsigned char)*buf < 0x20 || *buf == 0x7f)
			*buf = '?';
}

void bp_symbols_print(void *ctx, char letter, uint64_t address, char *buf, size_t size)
{
	struct bp_symbols *s = ctx;
	const struct bp_trace_lib *lib;
	struct handle *h;
	const char *name = NULL;
	uint64_t off = 0, symsize = 0;
	size_t i, n;
	char demangled[1024];

	if (!size)
		return;
	i = find_lib(&s->libs, address);
	n = s->libs.count(s->libs.table);
	if (i != SIZE_MAX && n > s->nstate) {
		uint8_t *g = realloc(s->state, n);

		if (g) {
			memset(g + s->nstate, LIB_UNTRIED, n - s->nstate);
			s->state = g;
			s->nstate = n;
		}
	}
	if (i == SIZE_MAX || i >= s->nstate)
		goto plain;
	lib = s->libs.at(s->libs.table, i);
	h = handle_for(s, i, lib);
	if (!h) {
		if (s->state[i] != LIB_STALE && s->state[i] != LIB_MISSING)
			goto plain;	/* out of memory */
		s->st.unverified++;
		if (letter == 'S')
			bp_snprintf(buf, size, "%p [%s+0x%llx]", (void *)(uintptr_t)address,
				    base_name(lib->path),
				    (unsigned long long)(address - lib->load_addr));
		else
			bp_snprintf(buf, size, "%p", (void *)(uintptr_t)address);
		printable(buf);
		return;
	}
#ifdef BP_HAVE_LIBDW
	if (h->dwfl)
		name = dw_lookup(h, address, &off, &symsize);
	else
#endif
		name = symbols_own_lookup(&h->own, address - lib->load_addr, &off, &symsize);
	if (!name)
		goto plain;
	if (bp_demangle(name, demangled, sizeof(demangled)))
		name = demangled;	/* a C++ symbol, as its sites are read */
	s->st.resolved++;
	if (letter != 'S')
		bp_snprintf(buf, size, "%s", name);
	else if (lib->index == 1)	/* the main program (docs/file-format.md) */
		bp_snprintf(buf, size, "%s+0x%llx/0x%llx", name, (unsigned long long)off,
			    (unsigned long long)symsize);
	else
		bp_snprintf(buf, size, "%s+0x%llx/0x%llx [%s]", name, (unsigned long long)off,
			    (unsigned long long)symsize, base_name(lib->path));
	printable(buf);
	return;
plain:
	s->st.unresolved++;
	bp_snprintf(buf, size, "%p", (void *)(uintptr_t)address);
}

void bp_symbols_get_stats(const struct bp_symbols *s, struct bp_symbols_stats *out)
{
	*out = s->st;
}

const char *bp_symbols_backend(const struct bp_symbols *s)
{
	return use_libdw(s) ? "libdw" : "elf";
}
