/*
 * rt_sites: call sites of a template function (two instances, each
 * registered at its first call) and of a plain one; each traces twice,
 * then the trace is printed (bprint_dump) on stdout.  runtime_env.sh runs
 * it under BPRINT_FILTER and bad environment values.
 */
#include <bprint.h>

#include <cstdio>

template <typename T> static void tsum(T a)
{
	trace_printk("tsum %d", (int)a);
}

static void plain(int a)
{
	trace_printk("plain %d", a);
}

int main()
{
	tsum(1);
	tsum(2);
	tsum(3.0);
	tsum(4.0);
	plain(5);
	plain(6);
	bprint_dump(stdout);
	return 0;
}
