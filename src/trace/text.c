/* Events as text (text.h): the ftrace line, raw, message only; the header. */
#include "trace/text.h"

#include <errno.h>
#include <string.h>

static const char digit_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Copy s[0..len) to buf at *n, inside size; always advance *n by len. */
static void put(char *buf, size_t size, size_t *n, const char *s, size_t len)
{
	if (*n + 1 < size) {
		size_t room = size - 1 - *n;

		memcpy(buf + *n, s, len < room ? len : room);
	}
	*n += len;
}

static void terminate(char *buf, size_t size, size_t n)
{
	if (size)
		buf[n < size ? n : size - 1] = '\0';
}

/* The message of the raw form, one line whatever it holds: a newline, a
 * carriage return and a backslash written as \n, \r and \\. */
static void put_escaped(char *buf, size_t size, size_t *n, const char *s)
{
	for (const char *run = s;; s++) {
		const char *esc = *s == '\n' ? "\\n" : *s == '\r' ? "\\r" : *s == '\\' ? "\\\\" : NULL;

		if (!esc && *s)
			continue;
		put(buf, size, n, run, (size_t)(s - run));
		if (!*s)
			return;
		put(buf, size, n, esc, 2);
		run = s + 1;
	}
}

/* Decimal digits of v, right-aligned at end; returns the start. */
static char *digits(char *end, unsigned long long v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* "%16.16s-%-7d [" into c->head. */
static void make_head(struct bp_text_cache *c, const char *comm, size_t clen, int32_t tid)
{
	unsigned long long v = tid < 0 ? 0ull - (unsigned long long)(long long)tid
				       : (unsigned long long)tid;
	char num[24], *d = digits(num + sizeof(num), v), *h = c->head;
	size_t len;

	if (tid < 0)
		*--d = '-';
	len = (size_t)(num + sizeof(num) - d);
	memset(h, ' ', 16 - clen);
	h += 16 - clen;
	memcpy(h, comm, clen);
	h += clen;
	*h++ = '-';
	memcpy(h, d, len);
	h += len;
	for (; len < 7; len++)
		*h++ = ' ';
	*h++ = ' ';
	*h++ = '[';
	c->head_len = (uint8_t)(h - c->head);
	c->tid = tid;
	c->comm_len = (uint8_t)clen;
	memcpy(c->comm, comm, clen);
	c->have_head = true;
}

/* "] %5llu." into c->secs for the second ns falls in. */
static void make_secs(struct bp_text_cache *c, uint64_t ns)
{
	unsigned long long sec = ns / 1000000000u;
	char num[24], *d = digits(num + sizeof(num), sec), *q = c->secs;
	size_t len = (size_t)(num + sizeof(num) - d);

	*q++ = ']';
	*q++ = ' ';
	for (size_t k = len; k < 5; k++)
		*q++ = ' ';
	memcpy(q, d, len);
	q += len;
	*q++ = '.';
	c->secs_len = (uint8_t)(q - c->secs);
	c->sec_ns = sec * 1000000000u;
	c->have_secs = true;
}

/* The longest prefix up to the function: head 40, CPU 11, secs 24, usec 8. */
#define PREFIX_MAX 83

/*
 * The prefix up to the function, written at p (room for PREFIX_MAX
 * bytes); returns the end.  The usual widths are fixed-size copies.
 */
static char *prefix_to_func(struct bp_text_cache *c, char *p, const struct bprint_event *ev)
{
	const char *comm = ev->comm && ev->comm[0] ? ev->comm : "<...>";
	uint32_t us;

	if (c->comm16 && ev->comm && ev->comm[0]) {
		/* the name's 16 bytes as they lie: equal bytes, equal name */
		uint64_t raw[2], seen[2];

		memcpy(raw, comm, 16);
		memcpy(seen, c->raw16, 16);
		if (!c->have_head || c->tid != ev->tid || raw[0] != seen[0] || raw[1] != seen[1]) {
			make_head(c, comm, strnlen(comm, 16), ev->tid);
			memcpy(c->raw16, raw, 16);
		}
	} else {
		size_t clen = strnlen(comm, 16);

		if (!c->have_head || c->tid != ev->tid || c->comm_len != clen ||
		    memcmp(c->comm, comm, clen) != 0) {
			make_head(c, comm, clen, ev->tid);
			memset(c->raw16, 0xff, 16);	/* never a raw match */
		}
	}
	if (!c->have_secs || ev->ns - c->sec_ns >= 1000000000u)
		make_secs(c, ev->ns);
	if (c->head_len == 26) {
		memcpy(p, c->head, 26);	/* a tid of up to 7 digits */
		p += 26;
	} else {
		memcpy(p, c->head, c->head_len);
		p += c->head_len;
	}
	if (ev->cpu >= 0 && ev->cpu < 1000) {
		*p++ = (char)('0' + ev->cpu / 100);
		*p++ = (char)('0' + ev->cpu / 10 % 10);
		*p++ = (char)('0' + ev->cpu % 10);
	} else if (ev->cpu < 0) {
		memcpy(p, "???", 3);
		p += 3;
	} else {
		char num[24], *d = digits(num + sizeof(num), (unsigned long long)ev->cpu);

		memcpy(p, d, (size_t)(num + sizeof(num) - d));
		p += num + sizeof(num) - d;
	}
	if (c->secs_len == 8) {
		memcpy(p, c->secs, 8);	/* "] " and up to 99999 seconds, '.' */
		p += 8;
	} else {
		memcpy(p, c->secs, c->secs_len);
		p += c->secs_len;
	}
	us = (uint32_t)((ev->ns - c->sec_ns) / 1000u);
	for (int k = 4; k >= 0; k -= 2) {	/* six digits, two at a time */
		memcpy(p + k, digit_pairs + 2 * (us % 100), 2);
		us /= 100;
	}
	p[6] = ':';
	p[7] = ' ';
	return p + 8;
}

size_t bp_text_ftrace_prefix(struct bp_text_cache *c, char *buf, size_t size,
			     const struct bprint_event *ev, const char *func, size_t func_len)
{
	char tmp[PREFIX_MAX];
	size_t n;

	if (size > PREFIX_MAX + func_len + 2) {	/* room for all: straight in */
		char *p = prefix_to_func(c, buf, ev);

		memcpy(p, func, func_len);
		p += func_len;
		p[0] = ':';
		p[1] = ' ';
		p[2] = '\0';
		return (size_t)(p + 2 - buf);
	}
	n = 0;
	put(buf, size, &n, tmp, (size_t)(prefix_to_func(c, tmp, ev) - tmp));
	put(buf, size, &n, func, func_len);
	put(buf, size, &n, ": ", 2);
	terminate(buf, size, n);
	return n;
}

size_t bp_text_header(char *buf, size_t size, unsigned long long written,
		      unsigned long long lost, long ncpu)
{
	int n = bp_snprintf(buf, size,
			    "# tracer: bprint\n"
			    "#\n"
			    "# entries-written: %llu   lost: %llu   #P:%ld\n"
			    "#\n"
			    "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n"
			    "#              | |         |         |         |\n",
			    written, lost, ncpu);

	return n < 0 ? 0 : (size_t)n;
}

int bprint_format_event(char *buf, size_t size, const struct bprint_event *ev,
			enum bprint_output how)
{
	struct bp_text_cache c;
	const char *func;
	size_t n;

	if (!ev || ev->size < BPRINT_EVENT_SIZE_1) {	/* every field read here is in version 1 */
		errno = EINVAL;
		return -1;
	}
	switch (how) {
	case BPRINT_OUTPUT_RAW: {
		int head = bp_snprintf(buf, size, "%llu %d %d %u ", (unsigned long long)ev->ns,
				       ev->tid, ev->cpu, ev->site ? ev->site->id : 0u);

		if (head < 0)
			return head;
		n = (size_t)head;
		put_escaped(buf, size, &n, ev->message);
		terminate(buf, size, n);
		return (int)n;
	}
	case BPRINT_OUTPUT_MSG:
		return bp_snprintf(buf, size, "%s", ev->message);
	default:
		c.have_head = c.have_secs = c.comm16 = false;
		func = ev->site && ev->site->func ? ev->site->func : "?";
		n = bp_text_ftrace_prefix(&c, buf, size, ev, func, strlen(func));
		put(buf, size, &n, ev->message, strlen(ev->message));
		terminate(buf, size, n);
		return (int)n;
	}
}
