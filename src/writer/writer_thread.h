/*
 * writer/writer_thread.h - the library's own threads: the control thread
 * (writer_control.c) and the prefault pool's (writer_pool.c).
 */
#ifndef BP_WRITER_THREAD_H
#define BP_WRITER_THREAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One such thread: static, one per kind (it outlives its start). */
struct bp_helper {
	void *(*main)(void *arg);
	void *arg;
	_Atomic uint32_t running;	/* 1 once main runs: a private futex word */
	bool listed;			/* in the helpers a fork waits for */
	struct bp_helper *next;
};

/*
 * Start h's thread at main(arg): detached, every signal blocked, of
 * stack_bytes, named name.  0, or the error of pthread_create().
 * Ordinary context: the constructor's, or a fork child's handler.
 */
int bp_helper_start(struct bp_helper *h, void *(*main)(void *arg), void *arg,
		    size_t stack_bytes, const char *name);

/*
 * Before fork() (the live file's backing hook): until each helper
 * started runs its main, a second at most for each; one that took
 * longer is not waited for again (writer_thread.c says why).
 */
void bp_helpers_wait_started(void);

#endif /* BP_WRITER_THREAD_H */
