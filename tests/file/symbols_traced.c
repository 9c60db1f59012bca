/*
 * symbols_traced MODULE DUMP SIDE [COPY...] - the traced program of the
 * symbols test (symbols.cmake).  Run with BPRINT_FILE set, it dlopen()s
 * MODULE, records
 * %pS and %ps of functions in itself and in MODULE and a few addresses
 * that are in no symbol, writes bprint_dump() to DUMP with MODULE still
 * loaded, and writes to SIDE what glibc's %p prints for the addresses
 * ("NAME 0x..." lines): the fallback text the test expects.  The expected
 * symbols are not computed here but by the test, from nm -S.  Each COPY
 * (of MODULE, under another name) is loaded too, and its function traced
 * twice, round robin: more libraries than a reader keeps open at once.
 */
#include <bprint.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void symbols_main_fn(int *x);

/* In the dynamic symbol table (the program is linked with -rdynamic). */
__attribute__((noinline)) void symbols_main_fn(int *x)
{
	*x += 2;
	__asm__ volatile("" ::: "memory");
}

/* Only in .symtab: offline readers find it, dladdr() does not. */
__attribute__((noinline)) static void symbols_local_fn(int *x)
{
	*x *= 5;
	__asm__ volatile("" ::: "memory");
}

static void *addr_of(void (*f)(int *))
{
	void *p;

	memcpy(&p, &f, sizeof(p));
	return p;
}

int main(int argc, char **argv)
{
	void *h, *dl_fn, *main_fn, *local_fn;
	void (*fn)(int *);
	FILE *dump, *side;
	int x = 1;

	if (argc < 4) {
		fprintf(stderr, "usage: symbols_traced MODULE DUMP SIDE [COPY...]\n");
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	dl_fn = dlsym(h, "symbols_dl_fn");
	if (!dl_fn)
		return 1;
	memcpy(&fn, &dl_fn, sizeof(fn));
	fn(&x);
	main_fn = addr_of(symbols_main_fn);
	local_fn = addr_of(symbols_local_fn);
	symbols_main_fn(&x);
	symbols_local_fn(&x);

	trace_printk("main %pS at %ps", main_fn, main_fn);
	trace_printk("plus1 %pS", (void *)((char *)main_fn + 1));
	trace_printk("dl %pS at %ps", dl_fn, dl_fn);
	trace_printk("local %pS at %ps", local_fn, local_fn);
	trace_printk("none %pS %ps", (void *)(uintptr_t)0x10, (void *)(uintptr_t)0x10);
	trace_printk("null %pS", (void *)0);
	trace_printk("width [%24ps] [%-24ps]", main_fn, main_fn);
	trace_printk("plain %p %pS!", main_fn, main_fn);
	for (int round = 0; round < 2; round++)
		for (int i = 4; i < argc; i++) {
			void *c = dlopen(argv[i], RTLD_NOW), *f = c ? dlsym(c, "symbols_dl_fn") : NULL;

			if (!f) {
				fprintf(stderr, "%s: %s\n", argv[i], dlerror());
				return 1;
			}
			trace_printk("many %d %pS", i - 4, f);	/* the copy stays loaded */
		}

	side = fopen(argv[3], "w");
	if (!side)
		return 1;
	fprintf(side, "main %p\ndl %p\nlocal %p\nx %d\n", main_fn, dl_fn, local_fn, x);
	fclose(side);
	dump = fopen(argv[2], "w");
	if (!dump || bprint_dump(dump) < 8)
		return 1;
	fclose(dump);
	dlclose(h);
	return 0;
}
