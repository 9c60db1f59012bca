/*
 * funcname_test: a C++ signature read as its qualified name
 * (src/trace/funcname.c).
 *
 * 1. Signatures as g++ 12 and clang++ 14 spell __PRETTY_FUNCTION__ for the
 *    same functions (taken from their output), each with the name a C++
 *    programmer gives that function: both compilers' spellings must read
 *    the same (tracer_cxx_names checks live sites of both compilers).
 * 2. Anything else is kept as it is: C identifiers, and text that is not
 *    a signature.
 * 3. Mutants (every truncation, byte changes, bytes inserted) of every
 *    signature, into buffers of every small size with guard bytes after
 *    them: always NUL-terminated inside the buffer, never written past,
 *    the length the same as with room enough.  Run under ASan in CI.
 */
#include "trace/tracer_check.h"

#include "trace/funcname.h"

struct sample {
	const char *gcc, *clang, *name;
};

static const struct sample samples[] = {
	{ "T ns::sum(T, T) [with T = int]", "T ns::sum(T, T) [T = int]", "ns::sum<int>" },
	{ "T ns::sum(T, T) [with T = double]", "T ns::sum(T, T) [T = double]", "ns::sum<double>" },
	{ "void ns::Inner::m() const", "void ns::Inner::m() const", "ns::Inner::m" },
	{ "static int ns::Inner::s(int)", "static int ns::Inner::s(int)", "ns::Inner::s" },
	{ "Conn::Conn(int)", "Conn::Conn(int)", "Conn::Conn" },
	{ "Conn::~Conn()", "Conn::~Conn()", "Conn::~Conn" },
	{ "void Conn::opened(int)", "void Conn::opened(int)", "Conn::opened" },
	{ "Conn::opened(int)::<lambda()>",
	  "auto Conn::opened(int)::(anonymous class)::operator()() const", "Conn::opened::<lambda>" },
	{ "bool Conn::operator==(const Conn&) const", "bool Conn::operator==(const Conn &) const",
	  "Conn::operator==" },
	{ "void Conn::operator()(int)", "void Conn::operator()(int)", "Conn::operator()" },
	{ "Conn::operator bool() const", "bool Conn::operator bool() const", "Conn::operator bool" },
	{ "bool Conn::operator<(const Conn&) const", "bool Conn::operator<(const Conn &) const",
	  "Conn::operator<" },
	{ "Conn& Conn::operator<<=(int)", "Conn &Conn::operator<<=(int)", "Conn::operator<<=" },
	{ "int& Conn::operator[](int)", "int &Conn::operator[](int)", "Conn::operator[]" },
	{ "void Conn::send(U) [with U = double]", "void Conn::send(U) [U = double]",
	  "Conn::send<double>" },
	{ "static void Conn::st()", "static void Conn::st()", "Conn::st" },
	{ "void Box<T>::put(T) [with T = int]", "void Box<int>::put(T) [T = int]", "Box<int>::put" },
	{ "void Box<T>::get(U) [with U = char; T = int]", "void Box<int>::get(U) [T = int, U = char]",
	  "Box<int>::get<char>" },
	{ "void Map<K, V>::set(K, V) [with K = int; V = Box<char>]",
	  "void Map<int, Box<char>>::set(K, V) [K = int, V = Box<char>]", "Map<int, Box<char>>::set" },
	{ "int fixed() [with int N = 3]", "int fixed() [N = 3]", "fixed<3>" },
	{ "void pack(A ...) [with A = {int, double}]", "void pack(A...) [A = <int, double>]",
	  "pack<int, double>" },
	{ "void {anonymous}::helper()", "void (anonymous namespace)::helper()",
	  "(anonymous namespace)::helper" },
	{ "void cfunc()", "void cfunc()", "cfunc" },
	{ "std::vector<int> make(int)", "std::vector<int> make(int)", "make" },
	{ "const char* name()", "const char *name()", "name" },
	{ "unsigned int count(unsigned int)", "unsigned int count(unsigned int)", "count" },
	{ "int (* fptr(int))(int)", "int (*fptr(int))(int)", "fptr" },
	{ "main()::<lambda(int)>", "auto main()::(anonymous class)::operator()(int) const",
	  "main::<lambda>" },
	{ "main()::<lambda(int)>::<lambda()>",
	  "auto main()::(anonymous class)::operator()(int)::(anonymous class)::operator()() const",
	  "main::<lambda>::<lambda>" },
	{ "main()::<lambda(auto:1)> [with auto:1 = int]",
	  "auto main()::(anonymous class)::operator()(auto) const [x:auto = int]",
	  "main::<lambda><int>" },
	{ "void main()::Local::m()", "void main()::Local::m()", "main::Local::m" },
	{ "int main()", "int main()", "main" },
	{ "void Conn::move() &&", "void Conn::move() &&", "Conn::move" },
	{ "void Conn::safe() noexcept", "void Conn::safe() noexcept", "Conn::safe" },
};

/* Kept as they are. */
static const char *const kept[] = {
	"main", "parse_header", "_start", "f", "", "(", "[", "]", "<<<<", "x::", "::x()",
	" a b [with", "not a signature at all", "void", "Conn::",
};

static char buf[8192];

/* Into a buffer of size bytes with guard bytes after it: NUL-terminated inside, none touched. */
static size_t name_into(size_t size, const char *sig)
{
	size_t len;

	memset(buf, 0x5a, sizeof(buf));
	len = bp_func_name(buf, size, sig);
	for (size_t i = size; i < size + 64 && i < sizeof(buf); i++)
		if (buf[i] != 0x5a)
			FAIL("\"%s\" into %zu bytes: byte %zu written", sig, size, i);
	if (size > 0 && strnlen(buf, size) == size)
		FAIL("\"%s\" into %zu bytes: not NUL-terminated", sig, size);
	if (size > 0 && strnlen(buf, size) != (len < size ? len : size - 1))
		FAIL("\"%s\" into %zu bytes: %zu bytes, length %zu", sig, size, strnlen(buf, size), len);
	return len;
}

static void check_mutant(const char *sig)
{
	size_t full = name_into(sizeof(buf) / 2, sig);

	for (size_t size = 0; size < 24; size++)
		CHECK_EQ(name_into(size, sig), full);
}

static void mutants(const char *sig, unsigned *seed)
{
	static const char bytes[] = "()<>[]{}:;, =*&~abT0\xff";
	char m[512];
	size_t n = strlen(sig);

	for (size_t cut = 0; cut <= n; cut++) {
		snprintf(m, sizeof(m), "%.*s", (int)cut, sig);
		check_mutant(m);
	}
	for (int k = 0; k < 200 && n > 0; k++) {
		size_t at = (size_t)rand_r(seed) % n;

		snprintf(m, sizeof(m), "%s", sig);
		m[at] = bytes[(size_t)rand_r(seed) % (sizeof(bytes) - 1)];
		check_mutant(m);
		snprintf(m, sizeof(m), "%.*s%c%s", (int)at, sig,
			 bytes[(size_t)rand_r(seed) % (sizeof(bytes) - 1)], sig + at);
		check_mutant(m);
	}
}

int main(void)
{
	unsigned seed = 20261205;
	char *dup;

	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		name_into(sizeof(buf), samples[i].gcc);
		CHECK_STREQ(buf, samples[i].name);
		name_into(sizeof(buf), samples[i].clang);
		CHECK_STREQ(buf, samples[i].name);
	}
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		name_into(sizeof(buf), kept[i]);
		CHECK_STREQ(buf, kept[i]);
	}
	dup = bp_func_name_dup("T ns::sum(T, T) [with T = int]");
	CHECK_STREQ(dup, "ns::sum<int>");
	free(dup);
	CHECK(bp_func_name_dup(NULL) == NULL);
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		mutants(samples[i].gcc, &seed);
		mutants(samples[i].clang, &seed);
	}
	printf("funcname_test: %zu signatures in both compilers' words, their mutants\n",
	       sizeof(samples) / sizeof(samples[0]));
	return 0;
}
