/*
 * `bprint record`'s supervisor (supervise.h): finds the live files of the
 * child and its descendants, names their streams, runs the drainer's
 * passes over all of them in one thread and finishes each file when its
 * process is gone.
 *
 * The loop: look for new live files every DISCOVER_NS; one pass over each
 * file; a file whose pass found nothing and whose process has exited is
 * finished.  Once the child has exited: one more pass, one more look for
 * files (descendants that started at the very end), then the drain ends
 * when every file is finished.
 */
#include "supervise.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DISCOVER_NS 10000000ull		/* look for new live files every 10 ms */
#define STALE_NS 2000000000ull		/* live files older than the drain by this are ignored */
#define IDLE_MIN_US 20u			/* first sleep after a pass that found work */

struct watched {
	struct bp_drain_file *f;
	char path[PATH_MAX];		/* the live file */
	char out[PATH_MAX];
	pid_t pid;
	bool done;
	bool first;			/* out_path's: the one on_pass adds to */
};

struct sup {
	const struct bp_drain_opts *o;
	struct bp_drain_run_result *res;
	struct watched *files;
	size_t nfiles;
	char **ignored;			/* stale live files */
	size_t nignored;
	char **blocked;			/* live files not opened yet for want of
					 * descriptors (EMFILE): tried again */
	size_t nblocked;
	int blocked_errno;
	uint64_t t0_real;
	bool main_taken;		/* out_path has its program */
	bool failed;
	bool truncated;
};

uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* p with room for n + 1 elements (a handful of files: no spare room). */
static void *one_more(void *p, size_t n, size_t elem)
{
	return realloc(p, (n + 1) * elem);
}

/* The first error wins; a stream beside out_path is named in it. */
static void set_error(struct sup *s, const struct watched *w, const char *why)
{
	if (s->res->error[0])
		return;
	if (w && strcmp(w->out, s->o->out_path) && strncmp(why, w->out, strlen(w->out)))
		snprintf(s->res->error, sizeof(s->res->error), "%.160s: %.90s", w->out, why);
	else
		snprintf(s->res->error, sizeof(s->res->error), "%s", why);
}

/* ---- processes --------------------------------------------------------- */

int proc_stat(long pid, char *state, long *ppid)
{
	char where[64], line[1024], *p;
	ssize_t n;
	int fd;

	*state = '?';
	*ppid = 0;
	snprintf(where, sizeof(where), "/proc/%ld/stat", pid);
	if ((fd = open(where, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;	/* the process went between the open and the read */
	line[n] = '\0';
	/* "PID (COMM) STATE PPID ...": COMM may hold anything, ')' too */
	if ((p = strrchr(line, ')')) && sscanf(p + 1, " %c %ld", state, ppid) != 2)
		*ppid = 0;
	return 0;
}

static bool proc_gone(pid_t pid)
{
	char state;
	long ppid;
	int rc = proc_stat(pid, &state, &ppid);

	if (rc < 0)
		return rc == -ENOENT || rc == -ESRCH;
	return state == 'Z' || state == 'X';
}

bool alive(long pid)
{
	char state;
	long ppid;

	return proc_stat(pid, &state, &ppid) == 0 && state != 'Z' && state != 'X';
}

/* Our child has exited (not reaped: the caller collects its status). */
static bool child_gone(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
		return errno == ECHILD ? proc_gone(pid) : false;
	return si.si_pid == pid;
}

static bool file_gone(struct sup *s, const struct watched *w)
{
	return w->pid == s->o->child && s->o->child > 0 ? child_gone(w->pid) : proc_gone(w->pid);
}

/* ---- finding live files ------------------------------------------------ */

/*
 * A path being drained, or ignored.  A drained file is removed (with
 * remove_live), so a file at its path afterwards is another program's,
 * unless its header names the process drained there (drained()).
 */
static bool known(struct sup *s, const char *path)
{
	for (size_t i = 0; i < s->nfiles; i++)
		if (!s->files[i].done && !strcmp(s->files[i].path, path))
			return true;
	for (size_t i = 0; i < s->nignored; i++)
		if (!strcmp(s->ignored[i], path))
			return true;
	return false;
}

/* The file at path is one already drained (kept: remove_live not set). */
static bool drained(struct sup *s, const char *path, pid_t pid)
{
	for (size_t i = 0; i < s->nfiles; i++)
		if (s->files[i].done && s->files[i].pid == pid && !strcmp(s->files[i].path, path))
			return true;
	return false;
}

/* Add a copy of path to the list v of n paths (unless it is there). */
static void remember(char ***v, size_t *n, const char *path)
{
	char *copy;
	char **grown;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], path))
			return;
	copy = strdup(path);
	grown = copy ? one_more(*v, *n, sizeof(*grown)) : NULL;
	if (!grown) {
		free(copy);
		return;
	}
	*v = grown;
	(*v)[(*n)++] = copy;
}

static void ignore(struct sup *s, const char *path)
{
	remember(&s->ignored, &s->nignored, path);
}

/* path could not be opened or drained for want of descriptors (err): later. */
static void block(struct sup *s, const char *path, int err)
{
	remember(&s->blocked, &s->nblocked, path);
	s->blocked_errno = err;
}

static void unblock(struct sup *s, const char *path)
{
	for (size_t i = 0; i < s->nblocked; i++)
		if (!strcmp(s->blocked[i], path)) {
			free(s->blocked[i]);
			s->blocked[i] = s->blocked[--s->nblocked];
			return;
		}
}

static bool out_of_descriptors(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOMEM;
}

/* Start draining f, found at path; -1 on a failure that ends the drain. */
static int watch(struct sup *s, struct bp_drain_file *f, const char *path, pid_t pid)
{
	struct watched *w = one_more(s->files, s->nfiles, sizeof(*w));
	bool main;

	if (!w) {
		bp_drain_free(f);
		set_error(s, NULL, "out of memory");
		s->failed = true;
		return -1;
	}
	s->files = w;
	w = &s->files[s->nfiles];
	w->f = f;
	w->pid = pid;
	w->done = false;
	w->first = false;
	snprintf(w->path, sizeof(w->path), "%s", path);
	main = !s->main_taken && !strcmp(path, s->o->live_path);
	if (main)
		snprintf(w->out, sizeof(w->out), "%s", s->o->out_path);
	else
		snprintf(w->out, sizeof(w->out), "%s.%ld", s->o->out_path, (long)pid);
	if (bp_drain_start(f, w->out, s->o->batch_pages) != 0) {
		int err = errno;

		if (out_of_descriptors(err)) {
			bp_drain_free(f);	/* its descriptor back; the file waits */
			block(s, path, err);
			return 0;
		}
		set_error(s, w, bp_drain_error(f));
		bp_drain_free(f);
		s->failed = true;
		return -1;
	}
	s->main_taken = s->main_taken || main;
	w->first = main;	/* the program's own file: the kernel stream goes there */
	unblock(s, path);
	s->nfiles++;
	s->res->c.files++;
	if (s->o->on_output)
		s->o->on_output(s->o->on_output_arg, w->out);
	return 0;
}

/* Drain path if it is a live file of this run; -1 on a failure. */
static int try_open(struct sup *s, const char *path)
{
	struct bp_drain_file *f;
	struct bp_record_live live = BP_RECORD_LIVE_INIT;
	int rc = bp_drain_open(path, &f, &live);

	if (rc < 0) {
		set_error(s, NULL, "out of memory");
		s->failed = true;
		return -1;
	}
	if (rc == 0 && live.open_errno) {
		block(s, path, live.open_errno);	/* no descriptor: look again later */
		return 0;
	}
	if (rc == 0) {
		/* Not filled in yet, or not a live file: look again later, unless it is old. */
		if (live.mtime_ns && live.mtime_ns + STALE_NS < s->t0_real)
			ignore(s, path);
		return 0;
	}
	if (drained(s, path, live.pid)) {
		bp_drain_free(f);
		return 0;
	}
	/* an earlier run's: older than the drain by far, or older at all and
	 * its process gone (a killed recorder's, left to bprint recover) */
	if (live.start_realtime_ns + STALE_NS < s->t0_real ||
	    (live.start_realtime_ns < s->o->started_ns && !alive(live.pid))) {
		ignore(s, path);
		bp_drain_free(f);
		return 0;
	}
	return watch(s, f, path, live.pid);
}

bool sibling_name(const char *name, const char *base, size_t blen)
{
	const char *p = name + blen + 1;

	if (strncmp(name, base, blen) || name[blen] != '.' || !*p)
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	return !*p;
}

static void discover(struct sup *s)
{
	const char *live = s->o->live_path;
	const char *slash = strrchr(live, '/');
	char dir[PATH_MAX], path[PATH_MAX + 256];
	const char *base = slash ? slash + 1 : live;
	size_t blen = strlen(base);
	struct dirent *de;
	DIR *dp;

	if (!known(s, live) && try_open(s, live) < 0)
		return;
	if (!s->o->follow)
		return;
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - live + (slash == live)), live);
	else
		snprintf(dir, sizeof(dir), ".");
	dp = opendir(dir);
	if (!dp)
		return;
	while ((de = readdir(dp))) {
		if (!sibling_name(de->d_name, base, blen) ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (!known(s, path) && try_open(s, path) < 0)
			break;
	}
	closedir(dp);
}

/* ---- the loop ---------------------------------------------------------- */

static void finish(struct sup *s, struct watched *w)
{
	struct bp_record_counts r = BP_RECORD_COUNTS_INIT;
	struct bp_record_counts *sum = &s->res->c;

	if (w->first && s->o->on_pass)
		s->o->on_pass(s->o->on_pass_arg, w->f, true);
	if (bp_drain_finish(w->f, s->o->remove_live) != 0) {
		const char *why = bp_drain_error(w->f);

		s->truncated = true;
		set_error(s, w, why[0] ? why : "the trace could not be written");
	}
	bp_drain_counts(w->f, &r);
	sum->rings += r.rings;
	sum->pages += r.pages;
	sum->bytes += r.bytes;
	sum->written += r.written;
	sum->discarded += r.discarded;
	sum->dropped += r.dropped;
	sum->lost_records += r.lost_records;
	sum->lost_pages += r.lost_pages;
	sum->memory_rings += r.memory_rings;
	sum->memory_records += r.memory_records;
	sum->missing_sites += r.missing_sites;
	sum->copied += r.copied;
	sum->not_copied += r.not_copied;
	sum->truncated += r.truncated;
	bp_drain_free(w->f);
	w->f = NULL;
	w->done = true;
}

/* One pass over every file not finished; finishes those whose process is
 * gone.  Returns the pages copied; *all_done: every file is finished. */
static long pass_all(struct sup *s, bool stopping, bool *all_done)
{
	long work = 0;

	*all_done = true;
	for (size_t i = 0; i < s->nfiles && !s->failed; i++) {
		struct watched *w = &s->files[i];
		long n;

		if (w->done)
			continue;
		n = bp_drain_pass(w->f);
		if (n < 0) {
			set_error(s, w, bp_drain_error(w->f));
			s->failed = true;
			break;
		}
		work += n;
		/* not in n: the kernel has events all the time, the file ends with its process */
		if (w->first && s->o->on_pass)
			work += s->o->on_pass(s->o->on_pass_arg, w->f, false);
		if (stopping || (n == 0 && file_gone(s, w)))
			finish(s, w);
		*all_done = *all_done && w->done;
	}
	return work;
}

/*
 * Back off from a short sleep to idle_us while there is nothing to copy.
 * A writer tracing flat out fills a page in a few microseconds and a
 * default 1 MiB ring in about a millisecond: a fixed idle_us sleep right
 * after catching up lets the ring fill and the writer discard, while an
 * idle program still costs only a wake-up every idle_us.
 */
static void idle(long work, unsigned idle_us, unsigned *sleep_us)
{
	if (work) {
		*sleep_us = IDLE_MIN_US < idle_us ? IDLE_MIN_US : idle_us;
		return;
	}
	usleep(*sleep_us);
	*sleep_us = *sleep_us < idle_us / 2 ? 2 * *sleep_us : idle_us;
}

static void run(struct sup *s)
{
	const struct bp_drain_opts *o = s->o;
	uint64_t last_discover = 0;
	bool child_done = false, rediscovered = false, all_done;
	unsigned idle_us = o->idle_us ? o->idle_us : 1000;
	unsigned sleep_us = IDLE_MIN_US < idle_us ? IDLE_MIN_US : idle_us;

	for (;;) {
		bool stopping = o->stop && *o->stop;
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		long work;

		if (now - last_discover >= DISCOVER_NS || s->nfiles == 0) {
			discover(s);
			last_discover = now;
		}
		work = pass_all(s, stopping, &all_done);
		if (s->failed || stopping)
			break;
		if (o->child > 0 && !child_done && child_gone(o->child)) {
			child_done = true;
			continue;	/* one more pass: it may have written to the end */
		}
		if (child_done) {
			if (!rediscovered) {
				discover(s);	/* descendants that started at the very end */
				rediscovered = true;
				continue;
			}
			if (all_done)
				break;
		}
		idle(work, idle_us, &sleep_us);
	}
}

/*
 * Every program has exited, and every file drained gave its descriptors
 * back: the live files that found none are drained now, as many at a time
 * as the limit allows.  One left over is a trace in no stream: said, and
 * the drain fails (the live file is kept, it holds the records).
 */
static void drain_blocked(struct sup *s)
{
	size_t before;

	do {
		before = s->nblocked;
		if (!before || s->failed || (s->o->stop && *s->o->stop))
			break;
		run(s);
	} while (s->nblocked < before);
	if (s->nblocked && !s->failed) {
		char why[256];

		snprintf(why, sizeof(why), "%.100s: cannot be drained: %.40s (%u such live file%s, kept)",
			 s->blocked[0], strerror(s->blocked_errno), (unsigned)s->nblocked & 0xffff,
			 s->nblocked == 1 ? "" : "s");
		set_error(s, NULL, why);
		s->truncated = true;
	}
}

int bp_drain_run(const struct bp_drain_opts *o, struct bp_drain_run_result *res)
{
	struct sup s;

	memset(res, 0, sizeof(*res));
	res->c.size = sizeof(res->c);
	memset(&s, 0, sizeof(s));
	s.o = o;
	s.res = res;
	s.t0_real = clock_ns(CLOCK_REALTIME);
	bp_drain_short_slices();
	if (!o->live_path || !*o->live_path || !o->out_path || !*o->out_path) {
		snprintf(res->error, sizeof(res->error), "no live or output path");
		return -1;
	}
	run(&s);
	drain_blocked(&s);
	for (size_t i = 0; i < s.nfiles; i++)
		if (!s.files[i].done)
			finish(&s, &s.files[i]);
	for (size_t i = 0; i < s.nignored; i++)
		free(s.ignored[i]);
	free(s.ignored);
	for (size_t i = 0; i < s.nblocked; i++)
		free(s.blocked[i]);
	free(s.blocked);
	free(s.files);
	if (!s.failed && res->c.files == 0 && !res->error[0])
		snprintf(res->error, sizeof(res->error),
			 "no trace file appeared at %.150s (is the program linked with libbprint?)",
			 o->live_path);
	return s.failed || s.truncated || res->c.files == 0 ? -1 : 0;
}
