/*
 * Where the copier of `bprint record` runs (drain.h, bp_copier_place()).
 *
 * The policy: the copier never shares a core with a running traced thread
 * while another core is free.  Every call (the drain loop makes one every
 * 10 ms) looks at the traced process's threads in /proc/PID/task: the CPU
 * each running one is on.  If a CPU the copier may use has none, the
 * copier is pinned there (its current CPU when that one qualifies, so it
 * does not hop); if every CPU runs a traced thread, the pin is lifted and
 * the scheduler shares as it likes.  The traced program's own affinity is
 * never changed: pinning it away from the copier would take a core from a
 * program with as many threads as cores.
 *
 * Why not let the scheduler alone: a copier that sleeps between passes
 * wakes wherever the scheduler finds room, often on the core of the thread
 * it copies for, which then stalls (on the 2-core machine the project is
 * measured on, one traced thread ran 1.6x slower per record than with the
 * copier on the other core).  Reading a few /proc files every 10 ms costs
 * tens of microseconds.
 */
#include "file/drain.h"

#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The CPU a thread last ran on, if it is running (state R), else -1. */
static int running_cpu(pid_t pid, const char *tid)
{
	char path[320], buf[1024], *p, *save = NULL;
	int cpu = -1, field = 2;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", (int)pid, tid);
	if (!(f = fopen(path, "re")))
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (!(p = strrchr(buf, ')')))
		return -1;
	/* fields after the name: 3 state ... 39 processor */
	for (char *tok = strtok_r(p + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		field++;
		if (field == 3 && strcmp(tok, "R") != 0)
			return -1;
		if (field == 39) {
			cpu = atoi(tok);
			break;
		}
	}
	return cpu;
}

void bp_copier_place(pid_t child)
{
	static cpu_set_t allowed;
	static int have_allowed;
	cpu_set_t busy, pick;
	struct dirent *de;
	char path[64];
	int here;
	long target = -1;
	DIR *dp;

	if (child <= 0)
		return;
	if (!have_allowed) {
		if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
			return;
		have_allowed = 1;
	}
	if (CPU_COUNT(&allowed) < 2)
		return;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)child);
	if (!(dp = opendir(path)))
		return;
	CPU_ZERO(&busy);
	while ((de = readdir(dp))) {
		int cpu = de->d_name[0] != '.' ? running_cpu(child, de->d_name) : -1;

		if (cpu >= 0 && cpu < CPU_SETSIZE)
			CPU_SET((size_t)cpu, &busy);
	}
	closedir(dp);
	here = sched_getcpu();
	if (here >= 0 && here < CPU_SETSIZE && CPU_ISSET((size_t)here, &allowed) &&
	    !CPU_ISSET((size_t)here, &busy))
		target = here;
	for (size_t c = CPU_SETSIZE; c-- > 0 && target < 0;)
		if (CPU_ISSET(c, &allowed) && !CPU_ISSET(c, &busy))
			target = (long)c;
	if (target < 0) {
		sched_setaffinity(0, sizeof(allowed), &allowed);	/* all busy: share */
		return;
	}
	CPU_ZERO(&pick);
	CPU_SET((size_t)target, &pick);
	sched_setaffinity(0, sizeof(pick), &pick);
}
