/*
 * Random valid C11 printf calls; see fmtgen.h.
 */
#include "format/fmtgen.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t fg_next(struct fg_rng *r)
{
	uint64_t z;

	if (r->data) {
		z = 0;
		for (int i = 0; i < 8 && r->pos < r->len; i++)
			z |= (uint64_t)r->data[r->pos++] << (8 * i);
		return z;
	}
	z = (r->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint32_t fg_below(struct fg_rng *r, uint32_t n)
{
	if (r->data) {	/* one byte per small choice keeps fuzz inputs short */
		uint32_t v = r->pos < r->len ? r->data[r->pos++] : 0;

		if (n > 256)
			v |= (uint32_t)(r->pos < r->len ? r->data[r->pos++] : 0) << 8;
		return n ? v % n : 0;
	}
	return n ? (uint32_t)((fg_next(r) >> 32) % n) : 0;
}

static int chance(struct fg_rng *r, unsigned percent)
{
	return fg_below(r, 100) < percent;
}

void fg_default_opts(struct fg_opts *o)
{
	o->max_conv = FG_MAXC;
	o->max_width = 300;
	o->no_percent = 0;
	o->no_n = 0;
}

/* ---- values ---------------------------------------------------------- */

static int gen_int(struct fg_rng *r)
{
	static const int edge[] = {
		0, 1, -1, 2, 7, 8, 9, 10, 15, 16, 99, 100, -100, 127, 128, -128, -129,
		255, 256, 300, 32767, 32768, -32768, -32769, 65535, 65536,
		1000000, 123456789, INT_MAX, INT_MIN, INT_MAX - 1, INT_MIN + 1,
		0x7fff0000, (int)0x80000001u, (int)0xdeadbeefu,
	};

	switch (fg_below(r, 4)) {
	case 0:
	case 1:
		return edge[fg_below(r, sizeof(edge) / sizeof(edge[0]))];
	case 2:
		return (int)fg_below(r, 2001) - 1000;
	default: {
		uint32_t v = (uint32_t)fg_next(r);
		unsigned bits = fg_below(r, 33);

		return (int)(bits >= 32 ? v : v & ((1u << bits) - 1));
	}
	}
}

static long long gen_llong(struct fg_rng *r)
{
	static const unsigned long long edge[] = {
		0, 1, ~0ULL, 2, 10, 16, 255, 256, 0x7fffffffULL, 0x80000000ULL,
		0xffffffffULL, 0x100000000ULL, 0x7fffffffffffffffULL,
		0x8000000000000000ULL, 0x8000000000000001ULL, 999999999999999999ULL,
		1000000000000000000ULL, 10000000000000000000ULL, 18446744073709551615ULL,
		(unsigned long long)INT_MIN, (unsigned long long)-1000, 4295892411ULL,
	};

	switch (fg_below(r, 4)) {
	case 0:
	case 1:
		return (long long)edge[fg_below(r, sizeof(edge) / sizeof(edge[0]))];
	case 2:
		return (long long)fg_below(r, 20001) - 10000;
	default: {
		uint64_t v = fg_next(r);
		unsigned bits = fg_below(r, 65);

		return (long long)(bits >= 64 ? v : v & ((1ULL << bits) - 1));
	}
	}
}

static double bits_double(uint64_t b)
{
	double d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

static double gen_double(struct fg_rng *r)
{
	static const double p10[] = { 1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e9, 1e15, 1e17, 1e22 };
	double edge[] = {
		0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.1, 0.05, 9.5, 99.5,
		0.999999, 9.9999995, 123456.789, 3.14159, 1e-5, 1e-4, 1e15, 1e16, 1e21,
		1e22, 1e100, 1e300, 1e-300, DBL_MAX, -DBL_MAX, DBL_MIN, DBL_MIN / 2,
		DBL_TRUE_MIN, -DBL_TRUE_MIN, DBL_EPSILON, INFINITY, -INFINITY, NAN,
		-NAN, 4294967296.0, 0x1.fffffffffffffp-1, 5e-324, 2.2250738585072009e-308,
	};

	switch (fg_below(r, 5)) {
	case 0:
	case 1:
		return edge[fg_below(r, sizeof(edge) / sizeof(edge[0]))];
	case 2: {	/* a decimal-looking number, to exercise rounding */
		double m = (double)((int64_t)(fg_next(r) % 2000001) - 1000000);
		double s = p10[fg_below(r, sizeof(p10) / sizeof(p10[0]))];

		return chance(r, 50) ? m / s : m * s;
	}
	case 3:	/* any bit pattern: denormals, NaN payloads, ... */
		return bits_double(fg_next(r));
	default:	/* a random exponent in the printable range */
		return ldexp((double)(fg_next(r) >> 11) / 9007199254740992.0,
			     (int)fg_below(r, 241) - 120) * (chance(r, 50) ? 1 : -1);
	}
}

static long double bits_ldouble(uint64_t mant, unsigned sign_exp)
{
	long double v = 0;
	unsigned char b[sizeof(long double)];

	memset(b, 0, sizeof(b));
	memcpy(b, &mant, 8);
	b[8] = (unsigned char)sign_exp;
	b[9] = (unsigned char)(sign_exp >> 8);
	memcpy(&v, b, sizeof(v));
	return v;
}

static long double gen_ldouble(struct fg_rng *r)
{
	long double edge[] = {
		0.0L, -0.0L, 1.0L, -1.0L, 0.5L, 2.5L, 0.1L, 1e-5L, 123456.789L,
		3.14159265358979323846L, 1e300L, 1e1000L, 1e-1000L, LDBL_MAX, -LDBL_MAX,
		LDBL_MIN, LDBL_MIN / 4, LDBL_TRUE_MIN, LDBL_EPSILON, (long double)INFINITY,
		-(long double)INFINITY, (long double)NAN, -(long double)NAN, 1e4932L / 10,
	};

	switch (fg_below(r, 5)) {
	case 0:
	case 1:
		return edge[fg_below(r, sizeof(edge) / sizeof(edge[0]))];
	case 2:
		return (long double)gen_double(r);
	case 3:
#if LDBL_MANT_DIG == 64
		/* A valid x87 encoding: the explicit integer bit set unless denormal. */
		{
			uint64_t m = fg_next(r);
			unsigned e = fg_below(r, 0x8000);

			if (chance(r, 10))
				e = chance(r, 50) ? 0 : 0x7fff;
			if (e)
				m |= 1ULL << 63;
			else
				m &= ~(1ULL << 63);
			return bits_ldouble(m, e | (chance(r, 50) ? 0x8000u : 0));
		}
#endif
		/* fall through */
	default:
		return ldexpl((long double)(fg_next(r) >> 11) / 9007199254740992.0L,
			      (int)fg_below(r, 481) - 240) * (chance(r, 50) ? 1 : -1);
	}
}

static const char long_string[] =
	"A long string of two hundred characters or so, for the long %s case, "
	"with some punctuation: (a, b, c); [d e f] {g h i} and digits 0123456789 "
	"until it is long enough to matter for copying into a binary block!!";

static const char *gen_string(struct fg_rng *r, char *store)
{
	static const char *const pool[] = {
		"", "a", "hello", "with space", "main.c", "left", "tab\there",
		"new\nline", "\xc3\xa9t\xc3\xa9", "(null)", "12345", "exactly-16-bytes",
		long_string,
	};

	switch (fg_below(r, 6)) {
	case 0:
		return NULL;
	case 1:
	case 2: {	/* random bytes, any but NUL */
		size_t n = fg_below(r, chance(r, 20) ? FG_STRMAX - 1 : 24);

		for (size_t i = 0; i < n; i++)
			store[i] = (char)(1 + fg_below(r, 255));
		store[n] = '\0';
		return store;
	}
	default:
		return pool[fg_below(r, sizeof(pool) / sizeof(pool[0]))];
	}
}

static const void *gen_pointer(struct fg_rng *r)
{
	switch (fg_below(r, 6)) {
	case 0: return NULL;
	case 1: return (const void *)(uintptr_t)1;
	case 2: return (const void *)UINTPTR_MAX;
	case 3: return (const void *)(uintptr_t)(fg_next(r) & 0x7fffffffffffULL);
	case 4: return (const void *)&long_string;
	default: return (const void *)(uintptr_t)fg_next(r);
	}
}

/* ---- formats ---------------------------------------------------------- */

struct out {
	struct fg_case *t;
	size_t n, gn;
};

static void put(struct out *o, const char *s, int to_ours, int to_glibc)
{
	size_t len = strlen(s);

	if (to_ours && o->n + len < FG_FMTMAX) {
		memcpy(o->t->fmt + o->n, s, len + 1);
		o->n += len;
	}
	if (to_glibc && o->gn + len < FG_FMTMAX) {
		memcpy(o->t->gfmt + o->gn, s, len + 1);
		o->gn += len;
	}
}

static void gen_literal(struct fg_rng *r, struct out *o)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789:|-_.,;=()[]{}<>/\\\"'#*+!?\t\n\x7f\x80\xc3\xa9\xff";
	char buf[128];
	size_t n = chance(r, 5) ? fg_below(r, 100) : fg_below(r, 7);
	struct fg_piece *p;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		buf[i] = chars[fg_below(r, sizeof(chars) - 1)];
	buf[n] = '\0';
	p = &o->t->piece[o->t->npieces++];
	p->start = (uint16_t)o->n;
	p->gstart = (uint16_t)o->gn;
	put(o, buf, 1, 1);
	p->end = (uint16_t)o->n;
	p->gend = (uint16_t)o->gn;
	p->conv = 0;
	p->first_arg = (uint8_t)o->t->na;
	p->nargs = 0;
}

static const char *conv_flags(char c)
{
	switch (c) {
	case 'd': case 'i': case 'u': return "-+ 0";
	case 'o': case 'x': case 'X': return "-+ #0";
	case 'c': case 's': case 'p': return "-+ ";
	case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
		return "-+ #0";
	default: return "";
	}
}

static int is_float_conv(char c)
{
	return strchr("fFeEgGaA", c) != NULL;
}

static struct fg_arg *new_arg(struct fg_case *t, uint8_t cls, uint8_t kind, char conv)
{
	struct fg_arg *a = &t->a[t->na++];

	memset(a, 0, sizeof(*a));
	a->cls = cls;
	a->kind = kind;
	a->conv = conv;
	a->precision = -1;
	a->eff_prec = -1;
	return a;
}

static int star_value(struct fg_rng *r, int cap)
{
	int v;

	if (chance(r, 80))
		v = (int)fg_below(r, 61) - 30;
	else
		v = (int)fg_below(r, 2u * (unsigned)cap + 1) - cap;
	return v;
}

static void gen_conversion(struct fg_rng *r, struct out *o, const struct fg_opts *op)
{
	static const char convs[] = "ddiiuuooxxXXccssspp%fFeEgGaAaeefgn";
	struct fg_case *t = o->t;
	struct fg_piece *p;
	char spec[64], num[16];
	size_t k = 0;
	char c;
	const char *flags;
	int width_star = 0, prec_star = 0, prec = -1;
	int width_val = 0, prec_val = 0;
	const char *len = "";
	int room = FG_MAXA - t->na;
	int cap = op->max_width;

	do
		c = convs[fg_below(r, sizeof(convs) - 1)];
	while ((c == '%' && op->no_percent) || (c == 'n' && op->no_n));
	if (c != '%' && room < 1)
		return;

	spec[k++] = '%';
	flags = conv_flags(c);
	for (const char *f = flags; *f; f++) {
		if (chance(r, 25)) {
			size_t at = fg_below(r, (uint32_t)(k)) + 1;	/* random order */

			if (at > k)
				at = k;
			memmove(spec + at + 1, spec + at, k - at);
			spec[at] = *f;
			k++;
			if (chance(r, 5))
				spec[k++] = *f;	/* repeated flags are valid */
		}
	}

	if (c != '%' && c != 'n') {
		unsigned w = fg_below(r, 100);

		if (w < 10 && room >= 2) {
			width_star = 1;
			spec[k++] = '*';
			width_val = star_value(r, cap);
		} else if (w < 45) {
			int v = (int)(chance(r, 90) ? 1 + fg_below(r, 20) : 1 + fg_below(r, (uint32_t)cap));

			if (v > cap)
				v = cap;
			if (v > 0) {
				snprintf(num, sizeof(num), "%d", v);
				memcpy(spec + k, num, strlen(num));
				k += strlen(num);
			}
		}
	}
	if (c != '%' && c != 'n' && c != 'c' && c != 'p') {
		unsigned w = fg_below(r, 100);
		int pmax = c == 's' ? 30 : is_float_conv(c) ? (chance(r, 10) ? 120 : 40) : 40;

		if (w < 10 && room >= 2 + width_star) {
			prec_star = 1;
			spec[k++] = '.';
			spec[k++] = '*';
			prec_val = chance(r, 15) ? -(int)fg_below(r, 10) - 1 : (int)fg_below(r, (uint32_t)pmax + 1);
			prec = prec_val < 0 ? -1 : prec_val;
		} else if (w < 15) {
			spec[k++] = '.';
			prec = 0;
		} else if (w < 45) {
			prec = (int)fg_below(r, (uint32_t)pmax + 1);
			snprintf(num, sizeof(num), ".%d", prec);
			memcpy(spec + k, num, strlen(num));
			k += strlen(num);
		}
	}

	if (strchr("diouxXn", c)) {
		static const char *const lens[] = { "", "", "", "hh", "h", "l", "ll", "j", "z", "t" };

		len = lens[fg_below(r, 10)];
	} else if (is_float_conv(c)) {
		unsigned w = fg_below(r, 10);

		len = w < 7 ? "" : w < 8 ? "l" : "L";
	}
	memcpy(spec + k, len, strlen(len));
	k += strlen(len);
	spec[k++] = c;
	spec[k] = '\0';

	p = &t->piece[t->npieces++];
	p->start = (uint16_t)o->n;
	p->gstart = (uint16_t)o->gn;
	p->first_arg = (uint8_t)t->na;
	p->conv = c;
	if (c == 'n') {
		put(o, spec, 1, 0);
		put(o, "%.0s", 0, 1);
	} else {
		put(o, spec, 1, 1);
	}
	p->end = (uint16_t)o->n;
	p->gend = (uint16_t)o->gn;

	if (width_star)
		new_arg(t, FG_INT, BP_ARG_INT32, '*')->v.i = width_val;
	if (prec_star)
		new_arg(t, FG_INT, BP_ARG_INT32, '*')->v.i = prec_val;

	switch (c) {
	case 'd': case 'i': case 'u': case 'o': case 'x': case 'X':
		if (!*len || len[0] == 'h') {
			new_arg(t, FG_INT, BP_ARG_INT32, c)->v.i = gen_int(r);
		} else {
			uint8_t kind = !strcmp(len, "l") ? BP_ARG_LONG :
				       !strcmp(len, "ll") ? BP_ARG_LLONG :
				       !strcmp(len, "j") ? BP_ARG_INTMAX :
				       !strcmp(len, "z") ? BP_ARG_SIZE : BP_ARG_PTRDIFF;

			new_arg(t, FG_LLONG, kind, c)->v.ll = gen_llong(r);
		}
		break;
	case 'c':
		new_arg(t, FG_INT, BP_ARG_CHAR, c)->v.i =
			chance(r, 90) ? (int)fg_below(r, 256) : gen_int(r);
		break;
	case 's': {
		struct fg_arg *a = new_arg(t, FG_PTR, prec_star ? BP_ARG_STR_STAR : BP_ARG_STR, c);

		a->v.p = gen_string(r, t->str[t->na - 1]);
		a->precision = (int16_t)(prec_star ? -1 : prec);
		a->eff_prec = prec;
		break;
	}
	case 'p':
		new_arg(t, FG_PTR, BP_ARG_PTR, c)->v.p = gen_pointer(r);
		break;
	case 'n': {
		struct fg_arg *a = new_arg(t, FG_PTR, BP_ARG_SKIP, c);

		memset(t->sentinel[t->na - 1], 0x5a, sizeof(t->sentinel[0]));
		a->v.p = t->sentinel[t->na - 1];
		t->has_n = 1;
		break;
	}
	case '%':
		break;
	default:	/* floats */
		t->has_float = 1;
		if (*len == 'L')
			new_arg(t, FG_LDOUBLE, BP_ARG_LDOUBLE, c)->v.ld = gen_ldouble(r);
		else
			new_arg(t, FG_DOUBLE, BP_ARG_DOUBLE, c)->v.d = gen_double(r);
		break;
	}
	p->nargs = (uint8_t)(t->na - p->first_arg);
}

/* Offsets and sizes of every slot, by docs/binary-layout.md. */
static void layout(struct fg_case *t)
{
	size_t pos = 0;

	t->str_words = 0;
	for (int i = 0; i < t->na; i++) {
		struct fg_arg *a = &t->a[i];

		switch (a->kind) {
		case BP_ARG_CHAR:
			a->size = 1;
			break;
		case BP_ARG_STR:
		case BP_ARG_STR_STAR: {
			const char *s = a->v.p;

			if (!s)
				s = a->eff_prec >= 0 && a->eff_prec < 6 ? "" : "(null)";
			a->size = (a->eff_prec >= 0 ? strnlen(s, (size_t)a->eff_prec) : strlen(s)) + 1;
			t->str_words += (a->size + 3) / 4;
			break;
		}
		case BP_ARG_SKIP:
			a->size = 0;
			break;
		case BP_ARG_INT32:
			pos = (pos + 3) & ~(size_t)3;
			a->size = 4;
			break;
		case BP_ARG_LDOUBLE:
			pos = (pos + 3) & ~(size_t)3;
			a->size = BP_LDOUBLE_BYTES;
			break;
		default:
			pos = (pos + 3) & ~(size_t)3;
			a->size = 8;
			break;
		}
		a->off = pos;
		pos += a->size;
	}
	t->need_words = (pos + 3) / 4;
}

void fg_generate(struct fg_case *t, struct fg_rng *r, const struct fg_opts *op)
{
	struct out o = { t, 0, 0 };
	int nconv = (int)fg_below(r, (uint32_t)op->max_conv + 1);

	t->fmt[0] = t->gfmt[0] = '\0';
	t->na = 0;
	t->npieces = 0;
	t->has_n = 0;
	t->has_float = 0;
	gen_literal(r, &o);
	for (int i = 0; i < nconv; i++) {
		gen_conversion(r, &o, op);
		gen_literal(r, &o);
	}
	layout(t);
}

void fg_model_block(const struct fg_case *t, uint32_t *out)
{
	unsigned char *b = (unsigned char *)out;

	memset(out, 0, t->need_words * 4);
	for (int i = 0; i < t->na; i++) {
		const struct fg_arg *a = &t->a[i];
		uint64_t u;

		switch (a->kind) {
		case BP_ARG_INT32:
			memcpy(b + a->off, &a->v.i, 4);
			break;
		case BP_ARG_CHAR:
			b[a->off] = (unsigned char)a->v.i;
			break;
		case BP_ARG_STR:
		case BP_ARG_STR_STAR: {
			const char *s = a->v.p;

			if (!s)
				s = a->eff_prec >= 0 && a->eff_prec < 6 ? "" : "(null)";
			memcpy(b + a->off, s, a->size - 1);
			b[a->off + a->size - 1] = '\0';
			break;
		}
		case BP_ARG_PTR:
			u = (uint64_t)(uintptr_t)a->v.p;
			memcpy(b + a->off, &u, 8);
			break;
		case BP_ARG_DOUBLE:
			memcpy(b + a->off, &a->v.d, 8);
			break;
		case BP_ARG_LDOUBLE:
#if LDBL_MANT_DIG == 64
			memcpy(b + a->off, &a->v.ld, 10);	/* value bytes; the rest stay 0 */
#else
			memcpy(b + a->off, &a->v.ld, sizeof(long double));
#endif
			break;
		case BP_ARG_SKIP:
			break;
		default:
			memcpy(b + a->off, &a->v.ll, 8);
			break;
		}
	}
}

int fg_sentinels_ok(const struct fg_case *t)
{
	for (int i = 0; i < t->na; i++) {
		if (t->a[i].kind != BP_ARG_SKIP)
			continue;
		for (size_t j = 0; j < sizeof(t->sentinel[0]); j++)
			if (t->sentinel[i][j] != 0x5a)
				return 0;
	}
	return 1;
}

void fg_set(struct fg_arg *a, uint8_t cls)
{
	memset(a, 0, sizeof(*a));
	a->cls = cls;
	a->kind = cls == FG_INT ? BP_ARG_INT32 : cls == FG_LLONG ? BP_ARG_LLONG :
		  cls == FG_PTR ? BP_ARG_PTR : cls == FG_DOUBLE ? BP_ARG_DOUBLE : BP_ARG_LDOUBLE;
	a->conv = '?';
	a->precision = -1;
	a->eff_prec = -1;
}

#define FG_PRINTABLE(c) ((unsigned char)(c) >= 0x20 && (unsigned char)(c) < 0x7f && (c) != '"' && (c) != '\\')

void fg_print(FILE *f, const struct fg_case *t)
{
	fprintf(f, "  format: ");
	fprintf(f, "\"");
	for (const char *s = t->fmt; *s; s++)
		fprintf(f, FG_PRINTABLE(*s) ? "%c" : "\\x%02x",
			(unsigned char)*s);
	fprintf(f, "\"\n  glibc format: \"");
	for (const char *s = t->gfmt; *s; s++)
		fprintf(f, FG_PRINTABLE(*s) ? "%c" : "\\x%02x",
			(unsigned char)*s);
	fprintf(f, "\"\n");
	for (int i = 0; i < t->na; i++) {
		const struct fg_arg *a = &t->a[i];

		fprintf(f, "  arg %d (%c, slot kind %d at %zu+%zu): ", i, a->conv, a->kind, a->off, a->size);
		switch (a->cls) {
		case FG_INT:
			fprintf(f, "int %d (0x%x)\n", a->v.i, (unsigned)a->v.i);
			break;
		case FG_LLONG:
			fprintf(f, "long long %lld (0x%llx)\n", a->v.ll, (unsigned long long)a->v.ll);
			break;
		case FG_PTR:
			if (a->kind == BP_ARG_STR || a->kind == BP_ARG_STR_STAR) {
				fprintf(f, "string ");
				if (a->v.p) {
					const char *s = a->v.p;

					fputc('"', f);
					for (; *s; s++)
						fprintf(f, FG_PRINTABLE(*s) ? "%c" : "\\x%02x",
							(unsigned char)*s);
					fputc('"', f);
				} else {
					fprintf(f, "NULL");
				}
				fprintf(f, " (precision %d)\n", a->eff_prec);
			} else {
				fprintf(f, "pointer %p\n", a->v.p);
			}
			break;
		case FG_DOUBLE: {
			uint64_t u;

			memcpy(&u, &a->v.d, 8);
			fprintf(f, "double %a (%.17g, bits 0x%016llx)\n", a->v.d, a->v.d, (unsigned long long)u);
			break;
		}
		default: {
			unsigned char b[16] = { 0 };

			memcpy(b, &a->v.ld, sizeof(long double) < 16 ? sizeof(long double) : 16);
			fprintf(f, "long double %La (%.21Lg, bytes", a->v.ld, a->v.ld);
			for (int j = 9; j >= 0; j--)
				fprintf(f, " %02x", b[j]);
			fprintf(f, ")\n");
			break;
		}
		}
	}
}

/* ---- the dispatcher ---------------------------------------------------- */

/*
 * Every sequence of up to FG_MAXA classes gets one case: the code is a 1
 * followed by one base-5 digit per argument.  The macros below write the
 * 3906 cases; each level of nesting uses its own FORn so that no macro is
 * expanded inside itself.
 */
#define V_FG_INT(n) args[n].v.i
#define V_FG_LLONG(n) args[n].v.ll
#define V_FG_PTR(n) args[n].v.p
#define V_FG_DOUBLE(n) args[n].v.d
#define V_FG_LDOUBLE(n) args[n].v.ld

#define FOR1(M) M(FG_INT) M(FG_LLONG) M(FG_PTR) M(FG_DOUBLE) M(FG_LDOUBLE)
#define FOR2(M, a) M(a, FG_INT) M(a, FG_LLONG) M(a, FG_PTR) M(a, FG_DOUBLE) M(a, FG_LDOUBLE)
#define FOR3(M, a, b) M(a, b, FG_INT) M(a, b, FG_LLONG) M(a, b, FG_PTR) M(a, b, FG_DOUBLE) M(a, b, FG_LDOUBLE)
#define FOR4(M, a, b, c) M(a, b, c, FG_INT) M(a, b, c, FG_LLONG) M(a, b, c, FG_PTR) \
	M(a, b, c, FG_DOUBLE) M(a, b, c, FG_LDOUBLE)
#define FOR5(M, a, b, c, d) M(a, b, c, d, FG_INT) M(a, b, c, d, FG_LLONG) M(a, b, c, d, FG_PTR) \
	M(a, b, c, d, FG_DOUBLE) M(a, b, c, d, FG_LDOUBLE)

#define K1(a) (5 + a)
#define K2(a, b) (K1(a) * 5 + b)
#define K3(a, b, c) (K2(a, b) * 5 + c)
#define K4(a, b, c, d) (K3(a, b, c) * 5 + d)
#define K5(a, b, c, d, e) (K4(a, b, c, d) * 5 + e)

#define S1(a) case K1(a): fn(ctx, V_##a(0)); return;
#define S2(a, b) case K2(a, b): fn(ctx, V_##a(0), V_##b(1)); return;
#define S3(a, b, c) case K3(a, b, c): fn(ctx, V_##a(0), V_##b(1), V_##c(2)); return;
#define S4(a, b, c, d) case K4(a, b, c, d): \
	fn(ctx, V_##a(0), V_##b(1), V_##c(2), V_##d(3)); return;
#define S5(a, b, c, d, e) case K5(a, b, c, d, e): \
	fn(ctx, V_##a(0), V_##b(1), V_##c(2), V_##d(3), V_##e(4)); return;

#define L2(a) FOR2(S2, a)
#define L3b(a, b) FOR3(S3, a, b)
#define L3(a) FOR2(L3b, a)
#define L4c(a, b, c) FOR4(S4, a, b, c)
#define L4b(a, b) FOR3(L4c, a, b)
#define L4(a) FOR2(L4b, a)
#define L5d(a, b, c, d) FOR5(S5, a, b, c, d)
#define L5c(a, b, c) FOR4(L5d, a, b, c)
#define L5b(a, b) FOR3(L5c, a, b)
#define L5(a) FOR2(L5b, a)

/* One function per first class keeps each switch small enough to compile fast. */
#define CALLER(a)                                                              \
	static void call_##a(const struct fg_arg *args, int code, fg_fn fn, void *ctx) \
	{                                                                      \
		switch (code) {                                                \
		S1(a)                                                          \
		L2(a)                                                          \
		L3(a)                                                          \
		L4(a)                                                          \
		L5(a)                                                          \
		default:                                                       \
			break;                                                 \
		}                                                              \
		fprintf(stderr, "fg_call: no shape for code %d\n", code);     \
		abort();                                                       \
	}
FOR1(CALLER)

void fg_call(const struct fg_arg *args, int n, fg_fn fn, void *ctx)
{
	int code = 1;

	if (n < 0 || n > FG_MAXA) {
		fprintf(stderr, "fg_call: %d arguments\n", n);
		abort();
	}
	for (int i = 0; i < n; i++)
		code = code * 5 + args[i].cls;
	if (n == 0) {
		fn(ctx);
		return;
	}
	switch (args[0].cls) {
	case FG_INT: call_FG_INT(args, code, fn, ctx); return;
	case FG_LLONG: call_FG_LLONG(args, code, fn, ctx); return;
	case FG_PTR: call_FG_PTR(args, code, fn, ctx); return;
	case FG_DOUBLE: call_FG_DOUBLE(args, code, fn, ctx); return;
	default: call_FG_LDOUBLE(args, code, fn, ctx); return;
	}
}
