/*
 * C++ symbols demangled (demangle.h).  The demangler is the C++ runtime's
 * (__cxa_demangle(), the Itanium C++ ABI's), found at run time: the
 * reading library is C and does not link the C++ runtime for the few
 * readers whose traces hold C++ symbols.  It is looked up once, in the
 * process if a C++ program already loaded it, else in libstdc++.so.6;
 * without it, names stay mangled.
 */
#include "reader/demangle.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static cxa_demangle_fn demangler;
static pthread_once_t demangler_once = PTHREAD_ONCE_INIT;

static void find_demangler(void)
{
	void *sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	void *lib;

	if (!sym && (lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL)))
		sym = dlsym(lib, "__cxa_demangle");	/* kept open: the pointer lives on */
	memcpy(&demangler, &sym, sizeof(demangler));
}

size_t bp_demangle(const char *name, char *out, size_t size)
{
	char *text;
	size_t n;
	int status = -1;

	if (!size || strncmp(name, "_Z", 2) != 0)
		return 0;
	pthread_once(&demangler_once, find_demangler);
	if (!demangler || !(text = demangler(name, NULL, NULL, &status)) || status != 0) {
		if (status == 0)
			free(text);
		return 0;
	}
	n = strlen(text);
	if (n >= size)
		n = size - 1;
	memcpy(out, text, n);
	out[n] = '\0';
	free(text);
	return n;
}
