/*
 * The traced program of symbols_cxx.sh: %pS and %ps of C++ functions (a
 * namespace's overloads, a class's method, a template's instance), whose
 * symbols are mangled; the test expects them demangled, as c++filt
 * prints them, in report and in every export.
 */
#include <bprint.h>

#include <cstring>

namespace shop {
struct Cart {
	int items = 0;
	__attribute__((noinline)) void add(int n);
};

__attribute__((noinline)) void Cart::add(int n)
{
	items += n;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) int total(int a) { return a + 1; }
__attribute__((noinline)) double total(double a) { return a + 1; }

template <typename T> __attribute__((noinline)) T twice(T v) { return v + v; }
} // namespace shop

template <typename F> static void *address(F f)
{
	void *p;

	static_assert(sizeof(p) == sizeof(f), "a function pointer");
	std::memcpy(&p, &f, sizeof(p));
	return p;
}

int main()
{
	void (shop::Cart::*add)(int) = &shop::Cart::add;
	void *add_at;
	shop::Cart c;

	/* a non-virtual member function's pointer holds its address first */
	std::memcpy(&add_at, &add, sizeof(add_at));
	(c.*add)(2);
	trace_printk("cart %pS %ps", add_at, add_at);
	trace_printk("total int %pS %ps", address<int (*)(int)>(shop::total),
		     address<int (*)(int)>(shop::total));
	trace_printk("total double %pS", address<double (*)(double)>(shop::total));
	trace_printk("twice %ps", address<long (*)(long)>(shop::twice<long>));
	return shop::twice<long>(shop::total(1)) == 4 ? 0 : 1;
}
