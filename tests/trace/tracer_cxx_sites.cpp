// tracer_cxx_sites: trace_printk() in every kind of C++ function, on the
// same fast path as C.
//
// One translation unit holds sites in an inline function, a method defined
// in its class, a function template instantiated for two types, a lambda,
// a header-only helper (also used from tracer_cxx_other.cpp), a static and
// a plain function: g++ once refused such a file ("section type
// conflict").  Every record must read back as the C library formats it.
// Then each call of tracer_cxx_calls.h, compiled as C (tracer_cxx_c.c) and
// as C++ (here), is made back to back, and the two records must hold the
// same bytes: same length, same payload.
#include <bprint.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tracer_cxx_calls.h"
#include "tracer_cxx_header.h"

extern "C" {
int tracer_cxx_ncalls(void);
void tracer_cxx_c_call(int k, long long v);
void tracer_cxx_expect(int k, long long v, char *buf, size_t size);
}

static std::vector<std::string> want;

#define FAIL(...)							\
	do {								\
		std::fprintf(stderr, "tracer_cxx_sites:%d: ", __LINE__);\
		std::fprintf(stderr, __VA_ARGS__);			\
		std::fputc('\n', stderr);				\
		std::exit(1);						\
	} while (0)

// Remember what the call just made must read back as.
#define EXPECT(...)							\
	do {								\
		char buf_[256];						\
		std::snprintf(buf_, sizeof(buf_), __VA_ARGS__);		\
		want.push_back(buf_);					\
	} while (0)

static void cxx_call(int k, long long v)
{
	int i = 0;

#define CXX_CALL(...) if (k == i++) { trace_printk(__VA_ARGS__); return; }
	TRACER_CXX_CALLS(v, CXX_CALL)
}

inline void in_inline(int x)
{
	trace_printk("inline %d %s", x, "fn");
	EXPECT("inline %d %s", x, "fn");
}

struct widget {
	long id;
	void poke(unsigned how) const
	{
		trace_printk("method %ld %u", id, how);
		EXPECT("method %ld %u", id, how);
	}
};

template <class T> void in_template(T v, const char *what)
{
	trace_printk("template %s %f", what, static_cast<double>(v));
	EXPECT("template %s %f", what, static_cast<double>(v));
}

static void in_static(unsigned long long v)
{
	trace_printk("static %llu %c", v, 'S');
	EXPECT("static %llu %c", v, 'S');
}

void in_plain(int a, int b)
{
	trace_printk("plain %d %d", a, b);
	EXPECT("plain %d %d", a, b);
}

// Every kind of site, a few times each (the first call registers).
static void every_context(int round)
{
	widget w = { 40L + round };
	auto lambda = [round](const void *p) {
		trace_printk("lambda %d %p", round, p);
		EXPECT("lambda %d %p", round, p);
	};

	in_inline(round);
	w.poke(static_cast<unsigned>(round) * 3u);
	in_template<int>(round, "int");
	in_template<double>(round + 0.5, "double");
	lambda(&w);
	tracer_cxx_header_helper(1, round);
	EXPECT("header helper from %d: %ld", 1, static_cast<long>(round));
	tracer_cxx_other(-round);
	EXPECT("header helper from %d: %ld", 2, static_cast<long>(-round));
	in_static(static_cast<unsigned long long>(round) << 40);
	in_plain(round, -round);
}

// The record the last call wrote through the thread's window.
struct window_mark {
	const unsigned char *rec;
	uint32_t off;
};

static window_mark mark()
{
	return window_mark{ bprint__tls.rec, bprint__tls.off };
}

// The C call's record and then the C++ call's, in one page: compare them.
// Returns false when they could not be compared (a page switch between
// them, or a CPU prefix on one); the caller tries again.
static bool compare_once(int k, long long v)
{
	char text[256];
	window_mark m0 = mark();

	tracer_cxx_c_call(k, v);
	window_mark m1 = mark();
	tracer_cxx_expect(k, v, text, sizeof(text));
	want.push_back(text);
	cxx_call(k, v);
	window_mark m2 = mark();
	want.push_back(text);
	if (!m0.rec || m0.rec != m2.rec || m1.off <= m0.off || m2.off <= m1.off)
		return false;

	uint32_t head_c, head_cxx;
	uint32_t len_c = m1.off - m0.off, len_cxx = m2.off - m1.off;

	std::memcpy(&head_c, m0.rec + m0.off, 4);
	std::memcpy(&head_cxx, m1.rec + m1.off, 4);
	const uint32_t cpu_flag = 1u << (12 + 19);	// BP_REC_CPU in the head's user bits
	if ((head_c | head_cxx) & cpu_flag)
		return false;
	if (len_c != len_cxx || (head_c & 0xfffu) * 4 != len_c)
		FAIL("call %d (\"%s\"): C record %u bytes, C++ %u", k, text, len_c, len_cxx);
	if (std::memcmp(m0.rec + m0.off + 8, m1.rec + m1.off + 8, len_c - 8) != 0)
		FAIL("call %d (\"%s\"): C and C++ payloads differ", k, text);
	return true;
}

static void compare_languages(long long v)
{
	for (int k = 0; k < tracer_cxx_ncalls(); k++) {
		int tries = 0;

		while (!compare_once(k, v))
			if (++tries == 16)
				FAIL("call %d: never got two records to compare", k);
	}
}

static void read_back()
{
	bprint_reader *r = bprint_read_begin();
	bprint_event ev = {};
	size_t n = 0;

	ev.size = sizeof(ev);
	if (!r)
		FAIL("bprint_read_begin");
	while (bprint_read_next(r, &ev) == 1) {
		if (n >= want.size())
			FAIL("record %zu, only %zu written: \"%s\"", n, want.size(), ev.message);
		if (want[n] != ev.message)
			FAIL("record %zu:\n  got    \"%s\"\n  expect \"%s\"", n, ev.message,
			     want[n].c_str());
		n++;
	}
	bprint_read_end(r);
	if (n != want.size())
		FAIL("%zu records read, %zu written", n, want.size());
}

int main()
{
	for (int round = 0; round < 50; round++)
		every_context(round);
	read_back();
	want.clear();
	for (long long v : { 0LL, 1LL, -1LL, 255LL, 65537LL, -123456789LL, 1LL << 40 })
		compare_languages(v);
	read_back();
	std::printf("tracer_cxx_sites: every context, %d calls identical in C and C++\n",
		    tracer_cxx_ncalls());
	return 0;
}
