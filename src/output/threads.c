/* The exporters' thread table (threads.h). */
#include "output/threads.h"

#include <stdlib.h>

static size_t home(int32_t tid, size_t cap)
{
	return (uint32_t)tid * 2654435761u % cap;	/* Knuth's multiplicative hash */
}

static bool grow(struct bp_out_threads *t)
{
	size_t cap = t->cap ? 2 * t->cap : 64;
	struct bp_out_thread *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return false;
	for (size_t k = 0; k < t->cap; k++) {
		size_t i;

		if (!t->slot[k].used)
			continue;
		for (i = home(t->slot[k].tid, cap); slot[i].used; i = (i + 1) % cap)
			;
		slot[i] = t->slot[k];
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	return true;
}

struct bp_out_thread *bp_out_thread_get(struct bp_out_threads *t, int32_t tid, bool *fresh)
{
	size_t i;

	*fresh = false;
	if (2 * (t->n + 1) > t->cap && !grow(t))
		return NULL;
	for (i = home(tid, t->cap); t->slot[i].used; i = (i + 1) % t->cap)
		if (t->slot[i].tid == tid)
			return &t->slot[i];
	t->slot[i].used = true;
	t->slot[i].tid = tid;
	t->n++;
	*fresh = true;
	return &t->slot[i];
}

struct bp_out_thread *bp_out_thread_find(const struct bp_out_threads *t, int32_t tid)
{
	if (!t->cap)
		return NULL;
	for (size_t i = home(tid, t->cap); t->slot[i].used; i = (i + 1) % t->cap)
		if (t->slot[i].tid == tid)
			return &t->slot[i];
	return NULL;
}

void bp_out_threads_free(struct bp_out_threads *t)
{
	free(t->slot);
	t->slot = NULL;
	t->n = t->cap = 0;
}
