/*
 * file/symbols.c - %pS and %ps from a trace file's library map (symbols.h).
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
 */
#include "file/symbols.h"

#include <bprint/format.h>
#include <bprint/reader.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef BP_HAVE_LIBDW
#include <elfutils/libdwfl.h>
#endif

#define MAX_TABLE	(256u << 20)	/* largest symbol or string table read */
#define MAX_PHNUM	4096u
#define MAX_NOTES	(1u << 20)	/* bytes of PT_NOTE read per segment */
#define SYM_CHUNK	4096u		/* symbols read per pread() */
#define BACK_STEPS	64		/* symbols looked at below the closest one */

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

/* ---- reading the ELF file ---------------------------------------------- */

static bool read_at(int fd, void *buf, size_t n, uint64_t off)
{
	unsigned char *p = buf;

	while (n > 0) {
		ssize_t r = pread(fd, p, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return true;
}

struct elf_file {
	int fd;
	uint64_t size;
	Elf64_Ehdr eh;
};

/* Is [off, off + len) inside the file? */
static bool in_file(const struct elf_file *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

static bool native_elf(const Elf64_Ehdr *eh)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const unsigned char data = ELFDATA2LSB;
#else
	const unsigned char data = ELFDATA2MSB;
#endif
	return memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh->e_ident[EI_DATA] == data && eh->e_ident[EI_VERSION] == EV_CURRENT &&
	       (eh->e_type == ET_DYN || eh->e_type == ET_EXEC);
}

/* The GNU build-id from the notes in buf; its length, 0 if none. */
static size_t note_build_id(const unsigned char *p, size_t len, uint64_t align,
			    unsigned char *out, size_t cap)
{
	size_t a = align == 8 ? 8 : 4;
	size_t at = 0;

	while (len - at >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		size_t name, desc;

		memcpy(&nh, p + at, sizeof(nh));
		at += sizeof(nh);
		name = ((size_t)nh.n_namesz + a - 1) & ~(a - 1);
		desc = ((size_t)nh.n_descsz + a - 1) & ~(a - 1);
		if (name > len - at || desc > len - at - name)
			return 0;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(p + at, "GNU", 4) == 0 && nh.n_descsz > 0 && nh.n_descsz <= cap) {
			memcpy(out, p + at + name, nh.n_descsz);
			return nh.n_descsz;
		}
		at += name + desc;
	}
	return 0;
}

/* The build-id of the file's PT_NOTE segments; its length, 0 if none. */
static size_t file_build_id(const struct elf_file *f, unsigned char *out, size_t cap)
{
	const Elf64_Ehdr *eh = &f->eh;
	Elf64_Phdr *ph;
	size_t got = 0;

	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 || eh->e_phnum > MAX_PHNUM ||
	    !in_file(f, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)))
		return 0;
	ph = malloc((size_t)eh->e_phnum * sizeof(*ph));
	if (!ph || !read_at(f->fd, ph, (size_t)eh->e_phnum * sizeof(*ph), eh->e_phoff)) {
		free(ph);
		return 0;
	}
	for (size_t i = 0; i < eh->e_phnum && !got; i++) {
		unsigned char *notes;

		if (ph[i].p_type != PT_NOTE || ph[i].p_filesz == 0 || ph[i].p_filesz > MAX_NOTES ||
		    !in_file(f, ph[i].p_offset, ph[i].p_filesz))
			continue;
		notes = malloc((size_t)ph[i].p_filesz);
		if (notes && read_at(f->fd, notes, (size_t)ph[i].p_filesz, ph[i].p_offset))
			got = note_build_id(notes, (size_t)ph[i].p_filesz, ph[i].p_align, out, cap);
		free(notes);
	}
	free(ph);
	return got;
}

/*
 * Open lib's file and check it is the recorded one.  Returns LIB_OK with
 * f->fd open, or LIB_MISSING / LIB_STALE with nothing open.
 */
static enum lib_state open_checked(const struct bp_trace_lib *lib, struct elf_file *f)
{
	unsigned char id[64];
	struct stat st;
	size_t idlen;

	f->fd = open(lib->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (f->fd < 0)
		return LIB_MISSING;
	if (fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(f->eh) ||
	    !read_at(f->fd, &f->eh, sizeof(f->eh), 0) || !native_elf(&f->eh)) {
		close(f->fd);
		f->fd = -1;
		return LIB_MISSING;
	}
	f->size = (uint64_t)st.st_size;
	if (lib->build_id_len > 0) {
		idlen = file_build_id(f, id, sizeof(id));
		if (idlen != lib->build_id_len || memcmp(id, lib->build_id, idlen) != 0) {
			close(f->fd);
			f->fd = -1;
			return LIB_STALE;
		}
	}
	return LIB_OK;
}

/* ---- our own reader ---------------------------------------------------- */

static int own_sym_cmp(const void *a, const void *b)
{
	const struct own_sym *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->rank != y->rank)
		return (int)y->rank - (int)x->rank;	/* global first */
	return x->name < y->name ? -1 : x->name > y->name;	/* then a fixed order */
}

static bool keep_symbol(const Elf64_Sym *s, size_t strsz)
{
	unsigned type = ELF64_ST_TYPE(s->st_info);

	if (s->st_shndx == SHN_UNDEF || s->st_name == 0 || s->st_name >= strsz)
		return false;
	if (type == STT_FUNC || type == STT_OBJECT || type == STT_GNU_IFUNC)
		return true;
	return type == STT_NOTYPE && s->st_size > 0;
}

/* Read f's .symtab (else .dynsym) into t.  false: out of memory only (a
 * file without a usable table gives an empty one). */
static bool own_load(const struct elf_file *f, struct own_table *t)
{
	const Elf64_Ehdr *eh = &f->eh;
	Elf64_Shdr *sh = NULL, *tab = NULL, *str;
	Elf64_Sym *chunk = NULL;
	size_t nsyms, cap = 0;
	bool ok = true;

	memset(t, 0, sizeof(*t));
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 ||
	    !in_file(f, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
		return true;
	sh = malloc((size_t)eh->e_shnum * sizeof(*sh));
	if (!sh)
		return false;
	if (!read_at(f->fd, sh, (size_t)eh->e_shnum * sizeof(*sh), eh->e_shoff))
		goto out;
	for (size_t i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB || (sh[i].sh_type == SHT_DYNSYM && !tab))
			tab = &sh[i];
	if (!tab || tab->sh_entsize != sizeof(Elf64_Sym) || tab->sh_link >= eh->e_shnum ||
	    tab->sh_size > MAX_TABLE || !in_file(f, tab->sh_offset, tab->sh_size))
		goto out;
	str = &sh[tab->sh_link];
	if (str->sh_type != SHT_STRTAB || str->sh_size == 0 || str->sh_size > MAX_TABLE ||
	    !in_file(f, str->sh_offset, str->sh_size))
		goto out;
	t->strtab = malloc((size_t)str->sh_size + 1);
	chunk = malloc(SYM_CHUNK * sizeof(*chunk));
	if (!t->strtab || !chunk) {
		ok = false;
		goto out;
	}
	if (!read_at(f->fd, t->strtab, (size_t)str->sh_size, str->sh_offset))
		goto out;
	t->strtab[str->sh_size] = '\0';	/* every name ends inside the table */
	t->strsz = (size_t)str->sh_size;
	nsyms = (size_t)(tab->sh_size / sizeof(Elf64_Sym));
	for (size_t at = 0; at < nsyms; at += SYM_CHUNK) {
		size_t n = nsyms - at < SYM_CHUNK ? nsyms - at : SYM_CHUNK;

		if (!read_at(f->fd, chunk, n * sizeof(*chunk), tab->sh_offset + at * sizeof(*chunk)))
			break;
		for (size_t i = 0; i < n; i++) {
			const Elf64_Sym *s = &chunk[i];
			unsigned bind = ELF64_ST_BIND(s->st_info);

			if (!keep_symbol(s, t->strsz))
				continue;
			if (t->n == cap) {
				size_t nc = cap ? 2 * cap : 256;
				struct own_sym *g = realloc(t->sym, nc * sizeof(*g));

				if (!g) {
					ok = false;
					goto out;
				}
				t->sym = g;
				cap = nc;
			}
			t->sym[t->n++] = (struct own_sym){
				.value = s->st_value, .size = s->st_size, .name = s->st_name,
				.rank = bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0,
			};
		}
	}
	if (t->n)
		qsort(t->sym, t->n, sizeof(*t->sym), own_sym_cmp);
out:
	free(chunk);
	free(sh);
	if (!ok || !t->n) {
		free(t->sym);
		free(t->strtab);
		memset(t, 0, sizeof(*t));
	}
	return ok;
}

/* The symbol holding ELF address a: the closest one below it that holds
 * it (a sizeless one only at its own address), globals before others. */
static const char *own_lookup(const struct own_table *t, uint64_t a, uint64_t *off, uint64_t *size)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {	/* first entry above a */
		size_t mid = lo + (hi - lo) / 2;

		if (t->sym[mid].value <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, steps = 0; i > 0 && steps < BACK_STEPS; i--, steps++) {
		const struct own_sym *s = &t->sym[i - 1];
		uint64_t d = a - s->value;

		if (s->size ? d < s->size : d == 0) {
			/* equal values are sorted globals first: take the first
			 * of the run that holds a */
			while (i > 1 && t->sym[i - 2].value == s->value &&
			       (t->sym[i - 2].size ? d < t->sym[i - 2].size : d == 0))
				s = &t->sym[--i - 1];
			*off = d;
			*size = s->size;
			return t->strtab + s->name;
		}
	}
	return NULL;
}

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
	st = open_checked(lib, &f);
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
	if (!own_load(&f, &h->own)) {
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
		name = own_lookup(&h->own, address - lib->load_addr, &off, &symsize);
	if (!name)
		goto plain;
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
