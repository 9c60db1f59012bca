/*
 * The CPU the calling thread runs on, for the "[cpu]" column of a trace.
 *
 * With glibc 2.35 or later, glibc registers an rseq area for every thread
 * and the kernel keeps its cpu_id field current on every return to user
 * space, so reading it is one load from the thread's TCB: no syscall, no
 * vDSO call.  Where rseq is not registered (__rseq_size == 0, say with
 * GLIBC_TUNABLES=glibc.pthread.rseq=0, or a kernel before 4.18) or its
 * cpu_id is not valid yet (negative: RSEQ_CPU_ID_UNINITIALIZED or
 * RSEQ_CPU_ID_REGISTRATION_FAILED), and on older glibc or other C
 * libraries, it falls back to sched_getcpu().
 *
 * Async-signal-safe either way: a plain load, or sched_getcpu(), which is
 * the vDSO's getcpu or the getcpu system call and takes no lock.  The
 * answer may be stale as soon as it is returned, as with any such call;
 * -1 if the CPU cannot be found at all.
 */
#ifndef BP_TRACE_CPU_H
#define BP_TRACE_CPU_H

#include <sched.h>
#include <stdint.h>

/* rseq needs glibc >= 2.35 and a way to find the thread pointer. */
#define BP_CPU_RSEQ 0
#if defined(__GLIBC__) && defined(__GLIBC_MINOR__)
#if __GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35)
#if defined(__x86_64__)
#undef BP_CPU_RSEQ
#define BP_CPU_RSEQ 1
#elif defined(__has_builtin)
#if __has_builtin(__builtin_thread_pointer)
#undef BP_CPU_RSEQ
#define BP_CPU_RSEQ 1
#endif
#endif
#endif
#endif

#if BP_CPU_RSEQ
#include <sys/rseq.h>
#endif

#if BP_CPU_RSEQ
/* The thread pointer, which glibc's __rseq_offset is relative to. */
static inline void *bp_thread_pointer(void)
{
#if defined(__x86_64__)
	void *tp;

	/* The TCB's first word points to itself. */
	__asm__("mov %%fs:0, %0" : "=r"(tp));
	return tp;
#else
	return __builtin_thread_pointer();
#endif
}

/* The rseq area's cpu_id, negative when rseq gives no answer. */
static inline int32_t bp_rseq_cpu(void)
{
	const struct rseq *rs;

	if (__rseq_size == 0)
		return -1;
	rs = (const struct rseq *)(const void *)((char *)bp_thread_pointer() +
						 __rseq_offset);
	/* Written by the kernel behind the compiler's back. */
	return (int32_t)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED);
}
#endif

static inline int bp_current_cpu(void)
{
#if BP_CPU_RSEQ
	int32_t cpu = bp_rseq_cpu();

	if (cpu >= 0)
		return cpu;
#endif
	return sched_getcpu();
}

#endif
