/*
 * A C++ call site's __PRETTY_FUNCTION__ as its qualified name (funcname.h).
 *
 * The signature is read, never trusted: anything this does not recognise
 * keeps the compiler's text.  Steps:
 *   1. the template bindings at the end, g++'s "[with T = int; U = char]"
 *      or clang++'s "[T = int, U = char]", are split off;
 *   2. the qualified name is found: a chain of components joined by "::"
 *      (an identifier with its template arguments, an operator, a lambda,
 *      an anonymous namespace or class), where a component followed by a
 *      parameter list and "::" is an enclosing function (a local class or
 *      lambda), and the chain ends at the function's own parameter list
 *      (or, in g++'s words, at a lambda);
 *      of the places where such a chain may start (after the return type),
 *      the first whose chain is followed only by qualifiers is it;
 *   3. the bindings are put back: g++ names the class's parameters in the
 *      scope ("Box<T>"), which get their values; clang++ gives the scope
 *      its values already, which take the first bindings; what is left
 *      belongs to the function itself and follows its name ("sum<int>").
 * Lambdas read "<lambda>" in both compilers' spelling (clang++'s
 * "(anonymous class)::operator()"), an anonymous namespace "(anonymous
 * namespace)" (g++ says "{anonymous}").
 */
#include "trace/funcname.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SIG_MAX 4096		/* longer signatures are kept as they are */
#define MAX_COMPONENTS 64
#define MAX_BINDINGS 32
#define NOT_FOUND SIZE_MAX

struct span {
	const char *p;
	size_t n;
};

struct component {
	struct span name;	/* the text to print, but its template arguments */
	struct span args;	/* inside "<...>", if has_args */
	bool has_args;
	bool lambda;		/* a lambda's closure type: "<lambda>" */
};

struct binding {
	struct span name, value;
	bool used;
};

struct parse {
	struct component comp[MAX_COMPONENTS];
	size_t ncomp;
};

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$';
}

static bool ident_start(char c)
{
	return ident_char(c) && !(c >= '0' && c <= '9');
}

static bool starts(const char *s, size_t i, size_t n, const char *word)
{
	size_t k = strlen(word);

	return n - i >= k && !memcmp(s + i, word, k);
}

static char closer_of(char c)
{
	return c == '(' ? ')' : c == '<' ? '>' : c == '[' ? ']' : c == '{' ? '}' : 0;
}

/*
 * s[i] opens a group; the index just past its closer, or NOT_FOUND.  A
 * '>' that closes nothing open (the "->" of a type) is a character; any
 * other closer that does not match is a failure.
 */
static size_t skip_group(const char *s, size_t i, size_t n)
{
	char stack[64];
	size_t depth = 0;

	for (; i < n; i++) {
		char c = s[i], want = depth ? closer_of(stack[depth - 1]) : 0;

		if (closer_of(c)) {
			if (depth == sizeof(stack))
				return NOT_FOUND;
			stack[depth++] = c;
		} else if (c == ')' || c == ']' || c == '}' || c == '>') {
			if (c == want) {
				if (--depth == 0)
					return i + 1;
			} else if (c != '>') {
				return NOT_FOUND;
			}
		}
	}
	return NOT_FOUND;
}

/* An operator's name from s[i] ("operator" itself): the index past it, or NOT_FOUND. */
static size_t skip_operator(const char *s, size_t i, size_t n)
{
	size_t j = i + 8;

	while (j < n && s[j] == ' ')
		j++;
	if (j + 1 < n && ((s[j] == '(' && s[j + 1] == ')') || (s[j] == '[' && s[j + 1] == ']')))
		return j + 2;
	if (j < n && strchr("+-*/%^&|~!=<>,", s[j])) {
		while (j < n && s[j] && strchr("+-*/%^&|~!=<>,", s[j]))
			j++;
		return j;
	}
	/* a conversion (operator bool), new, delete, a literal: up to the parameters */
	while (j < n && s[j] != '(') {
		if (s[j] == '<' && (j = skip_group(s, j, n)) != NOT_FOUND)
			continue;
		if (j == NOT_FOUND)
			return NOT_FOUND;
		j++;
	}
	while (j > i + 8 && s[j - 1] == ' ')
		j--;
	return j > i + 8 ? j : NOT_FOUND;
}

/* One component of a qualified name at s[i]: the index past it, or NOT_FOUND. */
static size_t parse_component(const char *s, size_t i, size_t n, struct component *c)
{
	size_t j;

	memset(c, 0, sizeof(*c));
	if (starts(s, i, n, "operator") && (i + 8 == n || !ident_char(s[i + 8]))) {
		j = skip_operator(s, i, n);
	} else if (s[i] == '~' || ident_start(s[i])) {
		for (j = i + (s[i] == '~'); j < n && ident_char(s[j]); j++)
			;
		if (j == i + (s[i] == '~'))
			return NOT_FOUND;
		c->name = (struct span){ s + i, j - i };
		if (j < n && s[j] == '<') {
			size_t k = skip_group(s, j, n);

			if (k == NOT_FOUND)
				return NOT_FOUND;
			c->args = (struct span){ s + j + 1, k - j - 2 };
			c->has_args = true;
			j = k;
		}
		return j;
	} else if (starts(s, i, n, "<lambda")) {
		j = skip_group(s, i, n);
		c->lambda = true;
	} else if (s[i] == '<') {
		j = skip_group(s, i, n);	/* g++'s <unnamed struct> and the like */
	} else if (starts(s, i, n, "{anonymous}") || starts(s, i, n, "(anonymous ") ||
		   starts(s, i, n, "(lambda at ")) {
		j = skip_group(s, i, n);
		if (j != NOT_FOUND && (starts(s, i, n, "(anonymous class)") ||
				       starts(s, i, n, "(lambda at ")))
			c->lambda = true;
		else if (j != NOT_FOUND && starts(s, i, n, "{anonymous}"))
			c->name = (struct span){ "(anonymous namespace)", 21 };
	} else {
		return NOT_FOUND;
	}
	if (j == NOT_FOUND)
		return NOT_FOUND;
	if (c->lambda)
		c->name = (struct span){ "<lambda>", 8 };
	else if (!c->name.p)
		c->name = (struct span){ s + i, j - i };
	return j;
}

/* Past qualifiers after a parameter list (" const", " &&", " noexcept"...). */
static size_t skip_qualifiers(const char *s, size_t i, size_t n)
{
	static const char *const words[] = { " const", " volatile", " &&", " &", " noexcept",
					     " override", " final" };

	for (bool more = true; more;) {
		more = false;
		for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
			size_t k = strlen(words[w]);

			if (starts(s, i, n, words[w]) && (i + k == n || !ident_char(s[i + k]))) {
				i += k;
				more = true;
				if (i < n && s[i] == '(' && !strcmp(words[w], " noexcept"))
					i = skip_group(s, i, n);
				if (i == NOT_FOUND)
					return NOT_FOUND;
			}
		}
	}
	return i;
}

/*
 * The chain of components from s[i]: whether it is the function's name,
 * that is, followed by its parameter list and nothing but qualifiers (or
 * by the ')' of a declarator that returns a pointer to function), or by
 * nothing at all after a lambda (g++ names a lambda so).
 */
static bool parse_chain(const char *s, size_t i, size_t n, struct parse *out)
{
	out->ncomp = 0;
	for (;;) {
		struct component *c = &out->comp[out->ncomp];
		size_t j = parse_component(s, i, n, c), k;

		if (j == NOT_FOUND || out->ncomp + 1 == MAX_COMPONENTS)
			return false;
		out->ncomp++;
		if (j < n && s[j] == '(') {
			if ((k = skip_group(s, j, n)) == NOT_FOUND || (k = skip_qualifiers(s, k, n)) == NOT_FOUND)
				return false;
			if (starts(s, k, n, "::")) {	/* an enclosing function */
				i = k + 2;
				continue;
			}
			return k == n || s[k] == ')';
		}
		if (starts(s, j, n, "::")) {
			i = j + 2;
			continue;
		}
		return j == n && c->lambda;	/* g++ names a lambda with no parameters after it */
	}
}

/* The trailing bindings: splits s[0..*n) at its " [...]"; their count. */
static size_t parse_bindings(const char *s, size_t *n, struct binding *b, bool *named)
{
	size_t depth = 0, open = NOT_FOUND, nb = 0, i, start;
	char sep;

	*named = false;
	if (*n < 4 || s[*n - 1] != ']')
		return 0;
	for (i = *n; i-- > 0;) {
		if (s[i] == ']')
			depth++;
		else if (s[i] == '[' && --depth == 0) {
			open = i;
			break;
		}
	}
	if (open == NOT_FOUND || open == 0 || s[open - 1] != ' ')
		return 0;
	start = open + 1;
	*named = starts(s, start, *n, "with ");	/* g++: the scope names its parameters */
	if (*named)
		start += 5;
	sep = *named ? ';' : ',';
	for (i = start; i < *n - 1 && nb < MAX_BINDINGS;) {
		size_t end = i, eq = NOT_FOUND;

		while (end < *n - 1 && s[end] != sep) {
			if (s[end] == '=' && eq == NOT_FOUND && end > i && s[end - 1] == ' ')
				eq = end;
			if (closer_of(s[end]) && s[end] != '<') {
				size_t k = skip_group(s, end, *n - 1);

				if (k == NOT_FOUND)
					return 0;
				end = k;
				continue;
			}
			if (s[end] == '<' && (end == i || s[end - 1] != ' ' || eq != NOT_FOUND)) {
				size_t k = skip_group(s, end, *n - 1);

				if (k == NOT_FOUND)
					return 0;
				end = k;
				continue;
			}
			end++;
		}
		if (eq != NOT_FOUND && eq >= i + 2) {
			size_t ne = eq - 1, ns = ne, vs = eq + 1, ve = end;

			while (ns > i && s[ns - 1] != ' ')
				ns--;
			while (vs < ve && s[vs] == ' ')
				vs++;
			if (ve - vs >= 2 && ((s[vs] == '{' && s[ve - 1] == '}') ||
					     (s[vs] == '<' && s[ve - 1] == '>'))) {
				vs++;	/* a pack: g++ {int, char}, clang++ <int, char> */
				ve--;
			}
			b[nb++] = (struct binding){ { s + ns, ne - ns }, { s + vs, ve - vs }, false };
		}
		i = end + 1;
		while (i < *n - 1 && s[i] == ' ')
			i++;
	}
	*n = open - 1;
	return nb;
}

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, const char *p, size_t n)
{
	if (o->len < o->size) {
		size_t k = o->size - 1 - o->len < n ? o->size - 1 - o->len : n;

		memcpy(o->buf + o->len, p, k);
		o->buf[o->len + k] = '\0';
	}
	o->len += n;
}

/* Template arguments args, each identifier a binding names (g++) replaced by its value. */
static void put_args(struct out *o, struct span args, struct binding *b, size_t nb, bool named)
{
	for (size_t i = 0; i < args.n;) {
		size_t j = i;

		if (named && ident_start(args.p[i]) && (i == 0 || !ident_char(args.p[i - 1]))) {
			while (j < args.n && ident_char(args.p[j]))
				j++;
			for (size_t k = 0; k < nb; k++) {
				if (b[k].name.n == j - i && !memcmp(b[k].name.p, args.p + i, j - i)) {
					put(o, b[k].value.p, b[k].value.n);
					b[k].used = true;
					i = j;
					break;
				}
			}
			if (i == j)
				continue;
		}
		put(o, args.p + i, j > i ? j - i : 1);
		i = j > i ? j : i + 1;
	}
}

/* clang++: a scope's values take as many bindings, in order. */
static void take_bindings(struct span args, struct binding *b, size_t nb)
{
	size_t count = args.n ? 1 : 0, k = 0;

	for (size_t i = 0; i < args.n; i++) {
		if (closer_of(args.p[i])) {
			size_t j = skip_group(args.p, i, args.n);

			if (j == NOT_FOUND)
				break;
			i = j - 1;
		} else if (args.p[i] == ',') {
			count++;
		}
	}
	for (; count > 0 && k < nb; k++) {
		if (!b[k].used) {
			b[k].used = true;
			count--;
		}
	}
}

static void put_name(struct out *o, const struct parse *ps, struct binding *b, size_t nb,
		     bool named)
{
	size_t last = ps->ncomp - 1;
	bool first = true, more = false;

	for (size_t i = 0; i < ps->ncomp; i++)
		if (ps->comp[i].has_args && !named)
			take_bindings(ps->comp[i].args, b, nb);
	/* clang++'s lambda is a class whose operator() runs: the lambda is the function */
	if (last > 0 && ps->comp[last - 1].lambda && ps->comp[last].name.n == 10 &&
	    !memcmp(ps->comp[last].name.p, "operator()", 10))
		last--;
	for (size_t i = 0; i <= last; i++) {
		const struct component *c = &ps->comp[i];

		if (i > 0 && ps->comp[i - 1].lambda && c->name.n == 10 &&
		    !memcmp(c->name.p, "operator()", 10))
			continue;	/* a lambda in a lambda: "<lambda>::<lambda>" */
		if (!first)
			put(o, "::", 2);
		first = false;
		put(o, c->name.p, c->name.n);
		if (c->has_args) {
			put(o, "<", 1);
			put_args(o, c->args, b, nb, named);
			put(o, ">", 1);
		}
	}
	for (size_t k = 0; k < nb; k++) {
		if (b[k].used)
			continue;
		put(o, more ? ", " : "<", more ? 2 : 1);
		put(o, b[k].value.p, b[k].value.n);
		more = true;
	}
	if (more)
		put(o, ">", 1);
}

/* A C identifier, which __func__ always is: nothing to read. */
static bool is_identifier(const char *s)
{
	if (!ident_start(*s))
		return false;
	while (ident_char(*s))
		s++;
	return *s == '\0';
}

size_t bp_func_name(char *out, size_t size, const char *func)
{
	struct out o = { out, size, 0 };
	struct binding b[MAX_BINDINGS];
	struct parse ps;
	size_t n = strlen(func), nb;
	bool named;

	if (size)
		out[0] = '\0';
	if (n > SIG_MAX || is_identifier(func))
		goto keep;
	nb = parse_bindings(func, &n, b, &named);
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && !strchr(" *&(", func[i - 1]))
			continue;
		if (!parse_chain(func, i, n, &ps))
			continue;
		put_name(&o, &ps, b, nb, named);
		return o.len;
	}
keep:
	put(&o, func, strlen(func));
	return o.len;
}

char *bp_func_name_dup(const char *func)
{
	size_t len;
	char *name;

	if (!func)
		return NULL;
	len = bp_func_name(NULL, 0, func);
	name = malloc(len + 1);
	if (name)
		bp_func_name(name, len + 1, func);
	return name;
}
