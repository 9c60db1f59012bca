/*
 * Compiled (not run) by tracer_compile.cmake under the warnings strict
 * projects build with (tracer.cmake): a site's arguments as function
 * calls of every kind the words take, whose casts -Wbad-function-cast
 * and -Wconversion look at, and as variables of the same kinds.
 */
#include <bprint.h>

#include <stdint.h>

double f_double(void);
float f_float(void);
long double f_long_double(void);
const char *f_string(void);
char f_char(void);
unsigned char f_uchar(void);
short f_short(void);
int f_int(void);
unsigned f_unsigned(void);
long long f_long_long(void);
uint64_t f_u64(void);
void *f_pointer(void);

void calls(void);
void values(double d, float f, const char *s, char c, int i, unsigned u, uint64_t x, void *p);

void calls(void)
{
	trace_printk("%f %f %s %c %hhu\n", f_double(), f_float(), f_string(), f_char(), f_uchar());
	trace_printk("%hd %d %u %lld %llu\n", f_short(), f_int(), f_unsigned(), f_long_long(),
		     (unsigned long long)f_u64());
	trace_printk("%p %Lf\n", f_pointer(), f_long_double());
	trace_printk("%d %f %s %u %p %c %lld\n", f_int(), f_double(), f_string(), f_unsigned(),
		     f_pointer(), f_char(), f_long_long());
}

void values(double d, float f, const char *s, char c, int i, unsigned u, uint64_t x, void *p)
{
	trace_printk("%f %f %s %c %d\n", d, f, s, c, i);
	trace_printk("%u %llu %p %s\n", u, (unsigned long long)x, p, "literal");
}
