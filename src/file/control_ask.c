/*
 * The asker's side of a live file's control area (bprint/control.h;
 * file/writer_control.c serves it in the traced process, docs/attach.md
 * "Switching call sites").  The asker claims the area with a
 * compare-and-swap, writes the request, posts it and sleeps on the futex
 * until the answer, one second at most; a request the process did not
 * take in time is withdrawn.
 *
 * Orderings: Q1 (release of POSTED: the request before it) pairs with the
 * process's acquire CAS; Q2 (the process's release of ANSWERED) with the
 * acquire load here.
 */
#include <bprint/control.h>

#include "file/layout.h"
#include "trace/clock.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WAIT_NS		1000000000ull	/* for the area, then for the answer */
#define NAP_NS		20000000L	/* a look at the process between naps */
#define SITE_IDS	(1u << 18)	/* the records' site field (docs/trace-format.md) */

_Static_assert(BP_CONTROL_PATTERN_MAX == BP_CONTROL_DATA_BYTES - 1, "a pattern fills the data");

struct bp_control {
	struct bp_file_header *h;
	struct bp_file_control *c;
	int (*ended)(void *arg);
	void *arg;
};

static void futex_wait(_Atomic uint32_t *word, uint32_t val)
{
	const struct timespec nap = { 0, NAP_NS };

	/* not FUTEX_PRIVATE: the process that answers maps the same page */
	(void)syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, val, &nap, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
	(void)syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static bool gone(const struct bp_control *k)
{
	return k->ended && k->ended(k->arg);
}

/* Has process pid a thread named BP_CONTROL_THREAD_NAME?  Its control
 * thread, started but not serving yet (a fork child's until its file is
 * made, writer_control.c), unlike an older libbprint or none started. */
static bool control_thread_runs(uint64_t pid)
{
	char where[64], comm[32];
	struct dirent *de;
	bool found = false;
	DIR *dir;
	FILE *f;

	if (pid == 0 || pid > INT_MAX)
		return false;
	snprintf(where, sizeof(where), "/proc/%llu/task", (unsigned long long)pid);
	if (!(dir = opendir(where)))
		return false;
	while (!found && (de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(where, sizeof(where), "/proc/%llu/task/%.20s/comm",
			 (unsigned long long)pid, de->d_name);
		if (!(f = fopen(where, "re")))
			continue;
		if (fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = '\0';
			found = strcmp(comm, BP_CONTROL_THREAD_NAME) == 0;
		}
		fclose(f);
	}
	closedir(dir);
	return found;
}

struct bp_control *bp_control_open(int fd, int (*ended)(void *arg), void *arg, int *rc)
{
	struct bp_control *k = calloc(1, sizeof(*k));
	uint32_t version;
	int dummy;

	if (!rc)
		rc = &dummy;
	if (!k) {
		*rc = BP_TRACE_ENOMEM;
		return NULL;
	}
	k->ended = ended;
	k->arg = arg;
	k->h = mmap(NULL, BP_FILE_HEADER_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (k->h == MAP_FAILED) {
		free(k);
		*rc = BP_CONTROL_E_DENIED;
		return NULL;
	}
	k->c = &k->h->control;
	if ((version = atomic_load_explicit(&k->c->version, memory_order_acquire)) !=
	    BP_CONTROL_VERSION) {
		*rc = version ? BP_CONTROL_E_VERSION
			      : control_thread_runs(k->h->pid) ? BP_CONTROL_E_NOT_YET
								: BP_CONTROL_E_NONE;
		munmap(k->h, BP_FILE_HEADER_BYTES);
		free(k);
		return NULL;
	}
	*rc = 0;
	return k;
}

void bp_control_close(struct bp_control *k)
{
	if (!k)
		return;
	munmap(k->h, BP_FILE_HEADER_BYTES);
	free(k);
}

/* Take the area: 0, or a refusal. */
static int control_claim(struct bp_control *k)
{
	uint64_t deadline = bp_clock_read_ns(CLOCK_MONOTONIC) + WAIT_NS;

	for (;;) {
		uint32_t s = BP_CONTROL_IDLE;

		/* relaxed: the request is published by Q1, nothing before it */
		if (atomic_compare_exchange_strong_explicit(&k->c->state, &s, BP_CONTROL_CLAIMED,
							    memory_order_relaxed,
							    memory_order_relaxed)) {
			atomic_store_explicit(&k->c->asker, (uint32_t)getpid(), memory_order_relaxed);
			return 0;
		}
		if (gone(k))
			return BP_CONTROL_E_ENDED;
		if (bp_clock_read_ns(CLOCK_MONOTONIC) > deadline)
			return BP_CONTROL_E_BUSY;
		futex_wait(&k->c->state, s);
	}
}

/* Post the request written in the area and wait for the answer. */
static int control_post(struct bp_control *k)
{
	uint64_t deadline = bp_clock_read_ns(CLOCK_MONOTONIC) + WAIT_NS;

	/* Q1: the request before POSTED; pairs with the process's acquire CAS */
	atomic_store_explicit(&k->c->state, BP_CONTROL_POSTED, memory_order_release);
	futex_wake(&k->c->state);
	for (;;) {
		/* Q2: the answer after ANSWERED; pairs with the process's release */
		uint32_t s = atomic_load_explicit(&k->c->state, memory_order_acquire);

		if (s == BP_CONTROL_ANSWERED)
			return 0;
		if (gone(k))
			return BP_CONTROL_E_ENDED;
		/* relaxed: withdrawing publishes nothing */
		if (bp_clock_read_ns(CLOCK_MONOTONIC) > deadline && s == BP_CONTROL_POSTED &&
		    atomic_compare_exchange_strong_explicit(&k->c->state, &s, BP_CONTROL_IDLE,
							    memory_order_relaxed,
							    memory_order_relaxed))
			return BP_CONTROL_E_TIMEOUT;
		futex_wait(&k->c->state, s);
	}
}

/* The answer read: the area is free again. */
static void control_release(struct bp_control *k)
{
	atomic_store_explicit(&k->c->asker, 0, memory_order_relaxed);
	atomic_store_explicit(&k->c->state, BP_CONTROL_IDLE, memory_order_release);
	futex_wake(&k->c->state);
}

int bp_control_switch(struct bp_control *k, int enable, const char *pattern)
{
	size_t len = pattern ? strlen(pattern) : 0;
	int32_t result;
	int rc;

	if (!len || len > BP_CONTROL_PATTERN_MAX)
		return BP_CONTROL_E_PATTERN;
	if ((rc = control_claim(k)) != 0)
		return rc;
	k->c->op = enable ? BP_CONTROL_ENABLE : BP_CONTROL_DISABLE;
	k->c->count = (uint32_t)len;
	memcpy(k->c->data, pattern, len + 1);
	if ((rc = control_post(k)) != 0)
		return rc;
	result = k->c->result;
	control_release(k);
	if (result == BP_CONTROL_BAD_PATTERN)
		return BP_CONTROL_E_PATTERN;
	return result < 0 ? BP_CONTROL_E_FAILED : result;
}

int bp_control_states(struct bp_control *k, uint8_t **states, uint32_t *n, int *gate)
{
	uint32_t first = 1;
	int rc;

	*states = NULL;
	*n = 0;
	do {
		uint32_t count, end;
		uint8_t *grown;

		if ((rc = control_claim(k)) != 0)
			break;
		k->c->op = BP_CONTROL_STATES;
		k->c->first = first;
		if ((rc = control_post(k)) != 0)
			break;
		end = (uint32_t)k->c->result;
		count = k->c->count;
		*gate = k->c->gate != 0;
		if (count > BP_CONTROL_DATA_BYTES * 8 || first + count > end) {
			control_release(k);
			rc = BP_CONTROL_E_NONSENSE;
			break;
		}
		if (!(grown = realloc(*states, (size_t)first + count + 1))) {
			control_release(k);
			rc = BP_TRACE_ENOMEM;
			break;
		}
		*states = grown;
		memset(*states + *n, 0, first + count - *n);
		for (uint32_t i = 0; i < count; i++)
			(*states)[first + i] = (k->c->data[i / 8] >> (i % 8)) & 1;
		*n = first + count;
		control_release(k);
		first += count;
		if (!count)
			break;
	} while (first < SITE_IDS);
	if (rc != 0) {
		free(*states);
		*states = NULL;
		*n = 0;
	}
	return rc;
}
