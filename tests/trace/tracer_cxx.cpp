// bprint.h from C++: trace_printk, trace_puts and the reader compile
// (with -Wall -Wextra -Werror) and work.
#include <bprint.h>

#include <cstdio>
#include <cstring>
#include <string>

static int check(bool ok, const char *what)
{
	if (!ok)
		std::fprintf(stderr, "tracer_cxx: %s failed\n", what);
	return ok ? 0 : 1;
}

int main()
{
	std::string name = "cxx";
	char expect[64];
	int bad = 0, n = 0;

	trace_printk("from C++ %d %s", 7, name.c_str());
	trace_puts("C++ literal");
	std::snprintf(expect, sizeof(expect), "from C++ %d %s", 7, name.c_str());

	bprint_reader *r = bprint_read_begin();
	bprint_event ev = {};

	ev.size = sizeof(ev);	// C++: BPRINT_EVENT_INIT would warn of the fields it leaves out

	bad += check(r != nullptr, "bprint_read_begin");
	while (r && bprint_read_next(r, &ev) == 1) {
		if (n == 0)
			bad += check(std::strcmp(ev.message, expect) == 0, "printk message");
		else
			bad += check(std::strcmp(ev.message, "C++ literal") == 0, "puts message");
		bad += check(std::strcmp(ev.site->func, "main") == 0, "function name");
		n++;
	}
	bprint_read_end(r);
	bad += check(n == 2, "record count");
	std::printf("C++: %d records\n", n);
	return bad ? 1 : 0;
}
