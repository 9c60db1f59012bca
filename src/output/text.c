/*
 * One event as one line of text, in the three forms readers offer:
 *
 *   ftrace  "            demo-4242    [001]    12.345678: main: message"
 *           (the kernel's trace file: comm right-aligned in 16, '-', tid,
 *           CPU in brackets, seconds.microseconds, function, message)
 *   raw     "12345678901 4242 1 7 message" (ns, tid, cpu, site id, message)
 *   msg     "message"
 *
 * Only bp_snprintf: the crash dump formats lines in a signal handler.
 */
#include <bprint.h>

#include <errno.h>

int bprint_format_event(char *buf, size_t size, const struct bprint_event *ev,
			enum bprint_output how)
{
	const char *func, *comm;
	unsigned long long sec, usec;

	if (!ev || ev->size < BPRINT_EVENT_SIZE_1) {	/* every field read here is in version 1 */
		errno = EINVAL;
		return -1;
	}
	func = ev->site && ev->site->func ? ev->site->func : "?";
	comm = ev->comm && ev->comm[0] ? ev->comm : "<...>";
	sec = ev->ns / 1000000000u;
	usec = ev->ns % 1000000000u / 1000u;
	switch (how) {
	case BPRINT_OUTPUT_RAW:
		return bp_snprintf(buf, size, "%llu %d %d %u %s", (unsigned long long)ev->ns,
				   ev->tid, ev->cpu, ev->site ? ev->site->id : 0u, ev->message);
	case BPRINT_OUTPUT_MSG:
		return bp_snprintf(buf, size, "%s", ev->message);
	default:
		if (ev->cpu < 0)
			return bp_snprintf(buf, size, "%16.16s-%-7d [???] %5llu.%06llu: %s: %s",
					   comm, ev->tid, sec, usec, func, ev->message);
		return bp_snprintf(buf, size, "%16.16s-%-7d [%03d] %5llu.%06llu: %s: %s", comm,
				   ev->tid, ev->cpu, sec, usec, func, ev->message);
	}
}
