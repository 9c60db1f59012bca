/*
 * Call sites the registry refuses (site_check.h): one compiled against
 * another bprint.h layout, or with a string longer than a trace file
 * holds, is turned off and marked refused, once, with a line on stderr
 * (bp_site_warn(), async-signal-safe).  Apart from the registry (site.c)
 * because a refused site never reaches its table: these touch the site's
 * own enabled and id (S1, S6 of docs/locks.md), with the registry's lock
 * held by the caller.
 */
#include "trace/site.h"

#include "trace/site_check.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

/*
 * A site compiled against another bprint.h layout (include/bprint/
 * internal.h): only its head may be read, and it is never registered.
 * With the lock held: refuse it (off, and marked so that it is refused
 * once) and say whether it is newly refused.  Its call site then never
 * calls again; a call already on its way finds the mark in emit.c.
 */
bool bp_site_refuse_foreign(struct bprint_site *site)
{
	if (site->layout == BPRINT__LAYOUT || site->id == BPRINT__SITE_REFUSED)
		return false;
	__atomic_store_n(&site->enabled, 0, __ATOMIC_RELAXED);	/* S1 */
	/* S6: enabled 0 before the mark, for a call that reads the mark */
	__atomic_store_n(&site->id, BPRINT__SITE_REFUSED, __ATOMIC_RELEASE);
	return true;
}

void bp_site_warn(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = bp_vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (len > (int)sizeof(line) - 1)
		len = (int)sizeof(line) - 1;
	if (len > 0 && write(STDERR_FILENO, line, (size_t)len) < 0)
		return;	/* nowhere left to say it */
}

/* One line on stderr for n sites refused at once; async-signal-safe. */
void bp_site_say_refused(const struct bprint_site *first, unsigned n)
{
	bp_site_warn("bprint: %s:%u: call site compiled against bprint.h layout %u, "
		     "this library reads layout %u: %u site%s disabled "
		     "(rebuild against this bprint.h)\n",
		     first->file ? first->file : "?", first->line, first->layout,
		     BPRINT__LAYOUT, n, n == 1 ? "" : "s");
}

/*
 * A string of the site longer than a trace file holds (BP_SITE_TEXT_MAX):
 * its name ("format", ...) and length, or NULL.  Only the head of a
 * foreign site may be read: call after the layout check.
 */
static const char *too_long(const struct bprint_site *site, size_t *len)
{
	const char *what[3] = { "format", "file name", "function name" };
	const char *text[3] = { site->format, site->file, site->func };

	for (int i = 0; i < 3; i++)
		if (text[i] && (*len = strnlen(text[i], BP_SITE_TEXT_MAX + 1)) > BP_SITE_TEXT_MAX)
			return what[i];
	return NULL;
}

/*
 * With the lock held: refuse a site too long for a trace file (one line on
 * stderr, the site off and marked as refused, as bp_site_refuse_foreign() does),
 * so that no file holds a record its readers would call damaged.
 */
bool bp_site_refuse_long(struct bprint_site *site)
{
	size_t len = 0;
	const char *what = too_long(site, &len);

	if (!what)
		return false;
	bp_site_warn("bprint: %s:%u: call site with a %s of more than %u bytes, which trace "
		     "files do not hold: disabled\n", site->file && strlen(site->file) < 512
		     ? site->file : "?", site->line, what, BP_SITE_TEXT_MAX);
	/* S1: relaxed, as every store of enabled outside registration: the
	 * call site's acquire (include/bprint/internal.h) orders nothing else. */
	__atomic_store_n(&site->enabled, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&site->id, BPRINT__SITE_REFUSED, __ATOMIC_RELEASE);	/* S6 */
	return true;
}
