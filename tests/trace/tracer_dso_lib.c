/*
 * A shared library that traces, for tracer_dlopen.  It links against
 * nothing of bprint's: bprint__printk() and friends resolve from the test
 * executable, which exports them.  It tells the test where its sites are
 * (file, lines, format) so the test can check the decoded records after
 * the library is gone.
 */
#include <bprint.h>

#define DSO_FMT "dso value=%d name=%s big=%llu"

struct dso_where {
	const char *file;
	int printk_line;
	int puts_line;
	int disabled_line;
	const char *printk_fmt;
};

void dso_where(struct dso_where *w);
void dso_trace(int value, const char *name);
void dso_trace_disabled(int value);

static int printk_line, puts_line, disabled_line;

void dso_trace(int value, const char *name)
{
	trace_printk(DSO_FMT, value, name, (unsigned long long)value * 1000003ull); printk_line = __LINE__;
	trace_puts("dso literal"); puts_line = __LINE__;
	/* scalars only: the inline fast path, from a dlopen()ed object */
	trace_printk("dso scalar %d %llx", value, (unsigned long long)value << 40);
}

void dso_trace_disabled(int value)
{
	trace_printk("dso disabled %d", value); disabled_line = __LINE__;
}

void dso_where(struct dso_where *w)
{
	w->file = __FILE__;
	w->printk_line = printk_line;
	w->puts_line = puts_line;
	w->disabled_line = disabled_line;
	w->printk_fmt = DSO_FMT;
}
