// tracer_cxx_names: a C++ call site is named as a C++ programmer reads it,
// its qualified function with the template arguments of its instance
// (src/trace/funcname.c), whichever of g++ and clang++ compiled it.
//
// Call k of the table below is made from a function of each kind (method,
// constructor, operators, templates, lambdas, anonymous namespace, local
// class), its record read back, and its site's function compared with the
// name the table gives.  Then function filters: a bare name matches the
// qualified one ("sum" is both ns::sum<int> and ns::sum<double>).
//
//   tracer_cxx_names            read back in process
//   tracer_cxx_names WANT       also write "FUNCTION: MESSAGE" per call to
//                               WANT, for the trace-file test
//                               (tracer_cxx_names_file.sh, BPRINT_FILE set)
#include <bprint.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define FAIL(...)							\
	do {								\
		std::fprintf(stderr, "tracer_cxx_names:%d: ", __LINE__);\
		std::fprintf(stderr, __VA_ARGS__);			\
		std::fputc('\n', stderr);				\
		std::exit(1);						\
	} while (0)

static const char *const names[] = {
	"plain_function",		// 0
	"Conn::Conn",			// 1
	"Conn::~Conn",			// 2
	"Conn::opened",			// 3
	"Conn::peek",			// 4
	"Conn::operator==",		// 5
	"Conn::operator()",		// 6
	"Conn::operator bool",		// 7
	"Conn::counted",		// 8
	"Conn::send<double>",		// 9
	"Conn::send<char>",		// 10
	"Conn::opened::<lambda>",	// 11
	"ns::sum<int>",			// 12
	"ns::sum<double>",		// 13
	"ns::Box<int>::put",		// 14
	"ns::Box<double>::put",		// 15
	"ns::Box<int>::get<char>",	// 16
	"every_kind::<lambda>",		// 17
	"every_kind::<lambda>::<lambda>",// 18
	"(anonymous namespace)::helper",// 19
	"local_class::Local::m",	// 20
	"fixed<3>",			// 21
	"fixed<7>",			// 22
};
static const int ncalls = sizeof(names) / sizeof(names[0]);

#define CALL(k) trace_printk("call %d of %s", (k), "kind")

void plain_function();
void plain_function()
{
	CALL(0);
}

struct Conn {
	explicit Conn(int) { CALL(1); }
	~Conn() { CALL(2); }
	void opened(int k)
	{
		CALL(3);
		auto l = [k]() { CALL(k); };
		l();
	}
	void peek() const { CALL(4); }
	bool operator==(const Conn &) const
	{
		CALL(5);
		return true;
	}
	void operator()(int) { CALL(6); }
	explicit operator bool() const
	{
		CALL(7);
		return true;
	}
	static void counted() { CALL(8); }
	template <class U> void send(U, int k) { CALL(k); }
};

namespace ns {
template <class T> T sum(T a, int k)
{
	CALL(k);
	return a;
}
template <class T> struct Box {
	void put(T, int k) { CALL(k); }
	template <class U> void get(U, int k) { CALL(k); }
};
} // namespace ns

namespace {
void helper()
{
	CALL(19);
}
} // namespace

static void local_class()
{
	struct Local {
		void m() { CALL(20); }
	};
	Local().m();
}

template <int N> void fixed(int k)
{
	CALL(k);
}

static void every_kind()
{
	plain_function();
	{
		Conn c(1);

		c.opened(11);
		c.peek();
		(void)(c == c);
		c(1);
		(void)static_cast<bool>(c);
		Conn::counted();
		c.send(1.5, 9);
		c.send('x', 10);
	}
	ns::sum(1, 12);
	ns::sum(1.5, 13);
	ns::Box<int>().put(1, 14);
	ns::Box<double>().put(1.5, 15);
	ns::Box<int>().get('c', 16);
	auto outer = [](int k) {
		CALL(k);
		auto inner = []() { CALL(18); };
		inner();
	};
	outer(17);
	helper();
	local_class();
	fixed<3>(21);
	fixed<7>(22);
}

// Each record's call number and its site's function; the count of each call.
static void read_back(std::vector<int> &seen, FILE *want)
{
	bprint_reader *r = bprint_read_begin();
	bprint_event ev = {};

	ev.size = sizeof(ev);
	if (!r)
		FAIL("bprint_read_begin");
	while (bprint_read_next(r, &ev) == 1) {
		int k = -1;
		char kind[16];

		if (std::sscanf(ev.message, "call %d of %15s", &k, kind) != 2 || k < 0 || k >= ncalls)
			FAIL("record \"%s\"", ev.message);
		if (!ev.site || !ev.site->func || std::strcmp(ev.site->func, names[k]))
			FAIL("call %d: function \"%s\", expected \"%s\"", k,
			     ev.site && ev.site->func ? ev.site->func : "(none)", names[k]);
		if (want)
			std::fprintf(want, "%s: %s\n", names[k], ev.message);
		seen[k]++;
	}
	bprint_read_end(r);
}

// Filters by the names a C++ programmer uses.
static void filters()
{
	std::vector<int> seen(ncalls);
	int n;

	if ((n = bprint_disable("sum")) != 2)
		FAIL("bprint_disable(\"sum\") changed %d sites, expected 2", n);
	if ((n = bprint_disable("func:Conn::send<*>")) != 2)
		FAIL("bprint_disable(\"func:Conn::send<*>\") changed %d sites, expected 2", n);
	if ((n = bprint_enable("func:ns::sum<int>")) != 1)
		FAIL("bprint_enable(\"func:ns::sum<int>\") changed %d sites, expected 1", n);
	every_kind();
	read_back(seen, nullptr);
	for (int k = 0; k < ncalls; k++) {
		int expect = k == 9 || k == 10 || k == 13 ? 0 : 1;

		if (seen[k] != expect)
			FAIL("after the filters, call %d (%s): %d records, expected %d", k, names[k],
			     seen[k], expect);
	}
	bprint_enable("*");
}

int main(int argc, char **argv)
{
	FILE *want = argc > 1 ? std::fopen(argv[1], "w") : nullptr;
	std::vector<int> seen(ncalls);

	if (argc > 1 && !want)
		FAIL("cannot write %s", argv[1]);
	every_kind();
	read_back(seen, want);
	for (int k = 0; k < ncalls; k++)
		if (seen[k] != 1)
			FAIL("call %d (%s): %d records", k, names[k], seen[k]);
	if (want) {
		every_kind();	// records for the trace file, read by the script
		std::fclose(want);
	} else {
		filters();
	}
	std::printf("tracer_cxx_names: %d kinds of C++ function named\n", ncalls);
	return 0;
}
