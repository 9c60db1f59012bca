/*
 * The control thread of a live file (writer_control.h, docs/attach.md "Switching
 * call sites"): how `bprint enable`, `disable` and `sites` reach a running
 * process's call sites.
 *
 * A call site tests its own enabled byte, in the program's memory, which
 * no other process can write without attaching as a debugger; the file's
 * header, shared with any reader that has ptrace access, is where a
 * request can be left.  So one thread, started with the file, sleeps on
 * the header's control word (a futex, shared through the file's pages)
 * and, woken by an asker, applies the request with bprint_enable() or
 * bprint_disable(): the registry lock, the rules kept for sites that
 * register later, the same relaxed store a call of the program's own
 * would make (S1, docs/locks.md).  It never runs otherwise: no timer, no
 * poll, nothing on the call path.
 *
 * The header's bytes are written by another process too: a request is
 * copied before it is looked at, and trusted no more than a trace file.
 *
 * Orderings (docs/locks.md): Q1 the asker's release of POSTED (request
 * written) pairs with the acquire of SERVING's CAS here; Q2 the release
 * of ANSWERED (answer written) pairs with the asker's acquire load.
 */
#include "writer/writer_control.h"

#include "file/layout.h"
#include "writer/writer_live.h"
#include "writer/writer_thread.h"
#include "trace/site.h"

#include <bprint.h>

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define STACK_BYTES	(256u * 1024u)
#define STALE_NS	200000000L	/* an asker silent this long is looked after */

static void futex_wait(_Atomic uint32_t *word, uint32_t val, const struct timespec *timeout)
{
	/* not FUTEX_PRIVATE: the asker is another process, mapping the same page */
	(void)syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, val, timeout, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
	(void)syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* An enable or disable: the pattern copied out of the shared page first. */
static int32_t switch_sites(const struct bp_file_control *c, uint32_t op)
{
	char pattern[BP_CONTROL_DATA_BYTES];
	uint32_t len = c->count;
	int n;

	if (len == 0 || len >= sizeof(pattern))
		return BP_CONTROL_BAD_REQUEST;
	memcpy(pattern, c->data, len);
	pattern[len] = '\0';
	if (strlen(pattern) != len || bp_site_pattern_problem(pattern))
		return BP_CONTROL_BAD_PATTERN;
	n = op == BP_CONTROL_ENABLE ? bprint_enable(pattern) : bprint_disable(pattern);
	return n < 0 ? BP_CONTROL_NO_MEMORY : n;
}

static void serve(struct bp_file_control *c)
{
	uint8_t bits[BP_CONTROL_DATA_BYTES];
	uint32_t op = c->op, count = 0;

	switch (op) {
	case BP_CONTROL_ENABLE:
	case BP_CONTROL_DISABLE:
		c->result = switch_sites(c, op);
		break;
	case BP_CONTROL_STATES:
		c->result = (int32_t)bp_site_states(c->first, bits, BP_CONTROL_DATA_BYTES * 8, &count);
		memcpy(c->data, bits, sizeof(bits));
		c->count = count;
		c->gate = (__atomic_load_n(&bprint__gate.bits, __ATOMIC_RELAXED) & BPRINT__GATE_ON)
				  ? 1 : 0;
		break;
	default:
		c->result = BP_CONTROL_BAD_REQUEST;
	}
	/* Q2: the answer before ANSWERED; pairs with the asker's acquire */
	atomic_store_explicit(&c->state, BP_CONTROL_ANSWERED, memory_order_release);
	futex_wake(&c->state);
}

/* An asker that claimed the area, or left an answer unread, and is gone. */
static void forget_gone_asker(struct bp_file_control *c, uint32_t seen)
{
	uint32_t asker = atomic_load_explicit(&c->asker, memory_order_relaxed);

	if (asker && asker <= INT_MAX && kill((pid_t)asker, 0) != 0 && errno == ESRCH)
		/* relaxed: nothing of the request is handed on with IDLE */
		atomic_compare_exchange_strong_explicit(&c->state, &seen, BP_CONTROL_IDLE,
							memory_order_relaxed, memory_order_relaxed);
}

/* A fork child's file: 0 until it is made (a private futex word). */
static _Atomic uint32_t child_file_made;

static void *control_main(void *arg)
{
	struct bp_file_control *c = arg;
	const struct timespec stale = { 0, STALE_NS };

	/* acquire: the child's file made before its header is used; pairs
	 * with the release in bp_control_file_made() (and H1 before it) */
	while (!c && !atomic_load_explicit(&child_file_made, memory_order_acquire))
		(void)syscall(SYS_futex, (uint32_t *)&child_file_made, FUTEX_WAIT_PRIVATE, 0,
			      NULL, NULL, 0);
	if (!c)
		c = &bp_live_hdr()->control;

	atomic_store_explicit(&c->version, BP_CONTROL_VERSION, memory_order_release);
	for (;;) {
		uint32_t s = atomic_load_explicit(&c->state, memory_order_relaxed);

		if (s == BP_CONTROL_POSTED &&
		    /* Q1: acquire: the request before we read it; pairs with the
		     * asker's release of POSTED */
		    atomic_compare_exchange_strong_explicit(&c->state, &s, BP_CONTROL_SERVING,
							    memory_order_acquire,
							    memory_order_relaxed)) {
			serve(c);
			continue;
		}
		if (s == BP_CONTROL_CLAIMED || s == BP_CONTROL_ANSWERED ||
		    s == BP_CONTROL_SERVING) {
			futex_wait(&c->state, s, &stale);
			if (atomic_load_explicit(&c->state, memory_order_relaxed) == s)
				forget_gone_asker(c, s);
			continue;
		}
		futex_wait(&c->state, s, NULL);
	}
	return NULL;
}

static struct bp_helper control_thread;

static void start(struct bp_file_control *c)
{
	(void)bp_helper_start(&control_thread, control_main, c, STACK_BYTES,
			      BP_CONTROL_THREAD_NAME);
}

void bp_control_start(struct bp_file_header *h)
{
	start(&h->control);
}

void bp_control_start_child(void)
{
	atomic_store_explicit(&child_file_made, 0, memory_order_relaxed);	/* one thread runs */
	start(NULL);
}

void bp_control_file_made(void)
{
	atomic_store_explicit(&child_file_made, 1, memory_order_release);
	(void)syscall(SYS_futex, (uint32_t *)&child_file_made, FUTEX_WAKE_PRIVATE, INT_MAX, NULL,
		      NULL, 0);
}
