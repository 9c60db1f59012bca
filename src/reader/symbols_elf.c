/*
 * reader/symbols_elf.c - the ELF side of %pS offline (symbols_elf.h): a
 * recorded library's file opened and checked against its recorded GNU
 * build-id (for both backends), and our own reader of its .symtab or
 * .dynsym (the backend without libdw).  Apart from symbols.c, which keeps
 * the open handles, libdw and the hook: this is everything that reads an
 * ELF file's bytes, each read bounded by the file's size and MAX_TABLE.
 */
#include "reader/symbols_elf.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_TABLE	(256u << 20)	/* largest symbol or string table read */
#define MAX_PHNUM	4096u
#define MAX_NOTES	(1u << 20)	/* bytes of PT_NOTE read per segment */
#define SYM_CHUNK	4096u		/* symbols read per pread() */
#define BACK_STEPS	64		/* symbols looked at below the closest one */

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
enum lib_state symbols_open_checked(const struct bp_trace_lib *lib, struct elf_file *f)
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
bool symbols_own_load(const struct elf_file *f, struct own_table *t)
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
const char *symbols_own_lookup(const struct own_table *t, uint64_t a, uint64_t *off,
			       uint64_t *size)
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
