/*
 * Reading a running process from outside (attach.h, docs/attach.md).
 *
 * The process's live trace file is one of its descriptors: the shared
 * memory libbprint makes at start-up (bp_record_memfd_name()), or its
 * BPRINT_FILE.  /proc/PID/fd lets us open it only under the kernel's
 * ptrace access rule, which is the whole permission model: nothing here
 * checks users itself, it only says in words why the kernel refused.
 *
 * bprint record --pid is here too: the drainer of bprint record
 * (<bprint/record.h>) run on that descriptor, from the rings' oldest page
 * on, until Ctrl-C, the duration or the process's exit.  One reader at a
 * time: it holds an exclusive flock(2) on the file while it runs (the
 * lock goes with it, even when it is killed), and it refuses a file whose
 * rings name another live consumer (a bprint record that started the
 * program).
 */
#include "bprint_cmd.h"
#include "supervise.h"
#include "attach.h"

#include <bprint/record.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int refuse(const char *sub, const char *arg, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int refuse(const char *sub, const char *arg, int status, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s %s: %s: ", prog, sub, arg);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return status;
}

/* Yama's kernel.yama.ptrace_scope (0-3), or -1 without Yama. */
static int yama_scope(void)
{
	char buf[8] = "";
	int fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 && buf[0] >= '0' && buf[0] <= '3' ? buf[0] - '0' : -1;
}

/*
 * Yama's part in a refusal, named: it restricts the ptrace *attach* rule
 * (scope 1: descendants only, 2: CAP_SYS_PTRACE only, 3: nobody), which
 * no bprint command needs, so on a kernel whose Yama keeps to that it is
 * never the cause; the line says so rather than leave it to guess.
 */
static const char *yama_note(char *buf, size_t len)
{
	static const char *const what[] = { "", "descendants only", "CAP_SYS_PTRACE only",
					    "no process" };
	int scope = yama_scope();

	if (scope <= 0)
		return "";
	snprintf(buf, len, "; kernel.yama.ptrace_scope is %d here (attaching: %s), which "
		 "restricts attaching, not the reading bprint does", scope, what[scope]);
	return buf;
}

/* /proc/PID/fd could not be opened (errno err): why, in one line. */
static int denied(const char *sub, const char *arg, long pid, int err)
{
	char dir[64], note[160];
	struct stat st;
	struct passwd *pw;

	snprintf(dir, sizeof(dir), "/proc/%ld", pid);
	if (err == ENOENT || stat(dir, &st) != 0)
		return refuse(sub, arg, EXIT_NOPROC, "no such process");
	if (err != EACCES && err != EPERM)
		return refuse(sub, arg, EXIT_DENIED, "cannot read its descriptors: %s", strerror(err));
	if (st.st_uid != geteuid()) {
		pw = getpwuid(st.st_uid);
		return refuse(sub, arg, EXIT_DENIED,
			      "not permitted: the process is user %s's (uid %lu); reading it "
			      "needs the same user or root (the kernel's ptrace access rule)%s",
			      pw ? pw->pw_name : "?", (unsigned long)st.st_uid,
			      yama_note(note, sizeof(note)));
	}
	return refuse(sub, arg, EXIT_DENIED,
		      "not permitted: the process is not dumpable (setuid, or "
		      "PR_SET_DUMPABLE 0), so the kernel's ptrace access rule refuses its "
		      "descriptors%s", yama_note(note, sizeof(note)));
}

/* Open /proc/PID/fd/NAME if it may be a trace: -1 if not. */
static int candidate(long pid, const char *name, bool writable, char *path, size_t len)
{
	char link[PATH_MAX], memfd[128];
	struct stat st;
	ssize_t n;
	int fd;

	snprintf(path, len, "/proc/%ld/fd/%s", pid, name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return -1;
	link[n] = '\0';
	/* its shared memory, or a regular file (BPRINT_FILE); never a device,
	 * a FIFO or a socket, whose opening may do something */
	snprintf(memfd, sizeof(memfd), "/memfd:%s (deleted)", bp_record_memfd_name());
	if (strcmp(link, memfd) != 0 &&
	    (link[0] != '/' || !strncmp(link, "/memfd:", 7) || stat(path, &st) != 0 ||
	     !S_ISREG(st.st_mode) || st.st_size < (off_t)bp_record_header_bytes()))
		return -1;
	fd = writable ? open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC) : -1;
	if (fd < 0)
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return fd;
}

/* Does the process have libbprint mapped (a shared library)? */
static bool maps_libbprint(long pid)
{
	char where[64], line[4096];
	bool found = false;
	FILE *maps;

	snprintf(where, sizeof(where), "/proc/%ld/maps", pid);
	if (!(maps = fopen(where, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), maps))
		found = strstr(line, "/libbprint.so") != NULL;
	fclose(maps);
	return found;
}

/* No descriptor is its trace: why, in one line.  parent: the process
 * holds that process's live file, as a fork child does until it first
 * traces (it then makes its own, writer.c). */
static int no_trace(const char *sub, const char *arg, long pid, bool other_version,
		    unsigned major, unsigned minor, long parent)
{
	if (!alive(pid))
		return refuse(sub, arg, EXIT_NOPROC, "the process has exited");
	if (parent)
		return refuse(sub, arg, EXIT_NOTRACE,
			      "the process forked from %ld and has no trace of its own yet to "
			      "read, or to switch its call sites through: a fork child's is made "
			      "when it first traces; try again then", parent);
	if (other_version) {
		unsigned ours_major, ours_minor;

		bp_record_format_version(&ours_major, &ours_minor);
		return refuse(sub, arg, EXIT_VERSION,
			      "its libbprint writes trace format %u.%u; this bprint reads %u.%u "
			      "and older 1.x", major, minor, ours_major, ours_minor);
	}
	if (maps_libbprint(pid))
		return refuse(sub, arg, EXIT_NOTRACE,
			      "the process uses libbprint but keeps its trace where no other "
			      "process can read it (BPRINT_ATTACH=0, or a libbprint older than "
			      "bprint snapshot)");
	return refuse(sub, arg, EXIT_NOTRACE, "the process has no bprint trace to read (no "
		      "libbprint, or BPRINT_ATTACH=0)");
}

static long parse_pid(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return end != s && !*end && !errno && v > 0 && v <= INT32_MAX ? v : -1;
}

/* What the search among a process's descriptors found. */
struct found {
	bool other_version;
	unsigned major, minor;		/* the other version's */
	long parent;			/* its parent's live file is open in it: the parent */
};

/* The parent of process pid, or 0. */
static long parent_of(long pid)
{
	char state;
	long ppid;

	return proc_stat(pid, &state, &ppid) == 0 && ppid > 0 ? ppid : 0;
}

/* Open a->pid's live file into a: 0, or the errno of /proc/PID/fd. */
static int find(struct attach *a, bool writable, struct found *fo)
{
	char path[sizeof(a->name)];
	struct dirent *de;
	unsigned major, minor;
	long parent = -1;
	DIR *dir;
	int fd;

	memset(fo, 0, sizeof(*fo));
	a->fd = -1;
	snprintf(path, sizeof(path), "/proc/%ld/fd", a->pid);
	if (!(dir = opendir(path)))
		return errno;
	while (a->fd < 0 && (de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.' || (fd = candidate(a->pid, de->d_name, writable, path,
							    sizeof(path))) < 0)
			continue;
		switch (bp_record_live_look(fd, (int32_t)a->pid, &fo->major, &fo->minor)) {
		case BP_RECORD_LOOK_LIVE:
			a->fd = fd;
			snprintf(a->name, sizeof(a->name), "%s", path);
			continue;
		case BP_RECORD_LOOK_OTHER_VERSION:
			fo->other_version = true;
			break;
		default:
			/* a fork child keeps its parent's file until it first
			 * traces (writer.c): the parent's live file, by its pid */
			if (parent < 0)
				parent = parent_of(a->pid);
			if (parent > 0 && !fo->parent &&
			    bp_record_live_look(fd, (int32_t)parent, &major, &minor) ==
				    BP_RECORD_LOOK_LIVE)
				fo->parent = parent;
			break;
		}
		close(fd);
	}
	closedir(dir);
	return 0;
}

int attach_open(const char *sub, const char *arg, bool writable, struct attach *a)
{
	struct found fo;
	int err;

	memset(a, 0, sizeof(*a));
	a->fd = -1;
	if ((a->pid = parse_pid(arg)) < 0)
		return usage_error(sub, "not a process id: '%s'", arg);
	if ((err = find(a, writable, &fo)) != 0)
		return denied(sub, arg, a->pid, err);
	if (a->fd < 0)
		return no_trace(sub, arg, a->pid, fo.other_version, fo.major, fo.minor, fo.parent);
	return EXIT_OK;
}

char *attach_path(long pid)
{
	struct attach a = { .pid = pid };
	struct found fo;

	if (find(&a, false, &fo) != 0 || a.fd < 0)
		return NULL;
	close(a.fd);
	return strdup(a.name);
}

long attach_forked_from(long pid)
{
	struct attach a = { .pid = pid };
	struct found fo;

	if (find(&a, false, &fo) != 0)
		return 0;
	if (a.fd >= 0) {
		close(a.fd);
		return 0;
	}
	return fo.parent;
}

bool attach_ended(const struct attach *a)
{
	return bp_record_live_closed(a->fd) || !alive(a->pid);
}

/* ---- bprint record --pid ----------------------------------------------- */

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* A live consumer other than us. */
static bool other_live(void *arg, long pid)
{
	(void)arg;
	return pid != (long)getpid() && alive(pid);
}

/* One reader at a time: the lock, and no other consumer. */
int attach_claim(const struct attach *a, const char *arg)
{
	long other;

	if (flock(a->fd, LOCK_EX | LOCK_NB) != 0)
		return refuse("record", arg, EXIT_BUSY, "another bprint record --pid reads this "
			      "process already");
	if ((other = bp_record_live_consumer(a->fd, other_live, NULL)) != 0)
		return refuse("record", arg, EXIT_BUSY, "process %ld reads this process's trace "
			      "already (a bprint record)", other);
	return EXIT_OK;
}

static void catch_stop(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* Copy passes until a signal, the deadline (0: none) or the process's
 * end; true if the process ended. */
static bool copy_until(struct bp_drain_file *df, const struct attach *a, uint64_t deadline)
{
	unsigned nap_us = 20;

	while (!stop_signal && (!deadline || now_ns() < deadline)) {
		long n;

		if (attach_ended(a))
			return true;
		if ((n = bp_drain_pass(df)) < 0)
			return false;
		if (n > 0) {
			nap_us = 20;
			continue;
		}
		usleep(nap_us);
		if (nap_us < 1000)
			nap_us *= 2;
	}
	return false;
}

static void record_summary(const char *out, const struct bp_record_counts *res)
{
	fprintf(stderr, "%s: %s: %llu ring%s, %llu records written, %llu discarded", prog, out,
		(unsigned long long)res->rings, res->rings == 1 ? "" : "s",
		(unsigned long long)(res->written + res->dropped),
		(unsigned long long)(res->discarded + res->dropped));
	if (res->lost_records)
		fprintf(stderr, ", %llu overwritten before they were copied",
			(unsigned long long)res->lost_records);
	fputc('\n', stderr);
}

int record_pid(const char *arg, const char *out, const char *duration, bool quiet)
{
	struct bp_drain_file *df = NULL;
	struct bp_record_live live = BP_RECORD_LIVE_INIT;
	struct bp_record_counts counts = BP_RECORD_COUNTS_INIT;
	struct attach a;
	uint64_t dur = 0;
	bool ended;
	int rc, orc;

	if (duration && !(dur = bp_record_parse_duration(duration)))
		return usage_error("record", "--duration: expected a duration, like 1s or 500ms");
	if ((rc = clear_output(out)) != EXIT_OK)
		return rc;
	if ((rc = attach_open("record", arg, true, &a)) != EXIT_OK)
		return rc;
	if ((rc = attach_claim(&a, arg)) != EXIT_OK) {
		close(a.fd);
		return rc;
	}
	if ((orc = bp_drain_open_fd(a.fd, a.name, BP_DRAIN_RUNNING, &df, &live)) <= 0)
		return orc < 0 ? out_of_memory()
			       : refuse("record", arg, EXIT_NOTRACE, "its trace is not readable yet");
	if (bp_drain_start(df, out, 0) != 0) {
		errmsg(out, "%s", bp_drain_error(df));
		bp_drain_free(df);
		return EXIT_IO;
	}
	catch_stop();
	bp_drain_short_slices();
	ended = copy_until(df, &a, dur ? now_ns() + dur : 0) || attach_ended(&a);
	rc = bp_drain_finish(df, false) != 0 ? EXIT_IO : EXIT_OK;
	if (rc != EXIT_OK)
		errmsg(out, "%s", bp_drain_error(df)[0] ? bp_drain_error(df)
							: "the trace could not be written whole");
	else if (!quiet && bp_drain_counts(df, &counts) == 0)
		record_summary(out, &counts);
	if (rc == EXIT_OK && ended)
		rc = refuse("record", arg, EXIT_EXITED, "the process exited while recorded: %s "
			    "holds its trace up to its exit", out);
	bp_drain_free(df);	/* closes a.fd, and with it the lock */
	return rc;
}
