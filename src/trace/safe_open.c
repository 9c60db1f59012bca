/*
 * The rule for the files bprint writes (dump file, live file, record and
 * export outputs), in one place:
 *
 *   - a new file is created with O_EXCL|O_NOFOLLOW, 0600 for the files that
 *     hold a trace of a program (BP_OPEN_PRIVATE), 0666 less the umask for
 *     exports;
 *   - an existing name is looked at first through O_PATH|O_NOFOLLOW, which
 *     opens nothing (no FIFO blocks, no device wakes up): a symlink, a
 *     non-regular file or a file of another uid is refused untouched;
 *   - only when the caller asked for it (REPLACE, KEEP) is an existing
 *     regular file of ours reopened, with O_NOFOLLOW|O_NONBLOCK, and used
 *     only if it is the very inode looked at (no swap in between);
 *   - a PRIVATE file that existed is made 0600 before anything is written.
 *
 * A file that must not be seen half made (the live trace file) is made
 * unnamed in its directory (O_TMPFILE), filled, and only then linked to
 * its name, which fails on an existing name as O_EXCL does.
 *
 * Readers open with O_NONBLOCK (a FIFO cannot block them) and take a
 * regular file only.
 */
#include "trace/safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum kind { K_REG, K_LINK, K_DIR, K_FIFO, K_DEV, K_SOCK };

static enum kind kind_of(mode_t m)
{
	if (S_ISREG(m))
		return K_REG;
	if (S_ISLNK(m))
		return K_LINK;
	if (S_ISDIR(m))
		return K_DIR;
	if (S_ISFIFO(m))
		return K_FIFO;
	if (S_ISSOCK(m))
		return K_SOCK;
	return K_DEV;
}

static const char *const out_refused[] = {
	[K_LINK] = "is a symbolic link (not followed, not replaced)",
	[K_DIR] = "is a directory (not replaced)",
	[K_FIFO] = "is a FIFO (not written to)",
	[K_DEV] = "is a device (not written to)",
	[K_SOCK] = "is a socket (not written to)",
};

static const char *const in_refused[] = {
	[K_DIR] = "is a directory, not a trace file",
	[K_FIFO] = "is a FIFO, not a trace file",
	[K_DEV] = "is a device, not a trace file",
	[K_SOCK] = "is a socket, not a trace file",
};

static int refuse(const char **why, const char *reason, int err)
{
	*why = reason;
	errno = err;
	return -1;
}

static int close_fail(int fd)
{
	int err = errno;

	close(fd);
	errno = err;
	return -1;
}

/* stat path without opening what it names; follow: through a symlink. */
static int look(const char *path, bool follow, struct stat *st)
{
	int p = open(path, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));

	if (p < 0)
		return -1;
	if (fstat(p, st) != 0)
		return close_fail(p);
	close(p);
	return 0;
}

/* fd, opened after look() said st, is still that file: then block again. */
static int same_file(int fd, const struct stat *st)
{
	struct stat now;
	int fl;

	if (fstat(fd, &now) != 0)
		return -1;
	if (now.st_dev != st->st_dev || now.st_ino != st->st_ino || !S_ISREG(now.st_mode)) {
		errno = EEXIST;
		return -1;
	}
	fl = fcntl(fd, F_GETFL);
	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
}

static int reuse(const char *path, int acc, unsigned how, const struct stat *st,
		 const char **why)
{
	int fd = open(path, acc | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (same_file(fd, st) != 0) {
		if (errno == EEXIST)
			*why = "changed while being opened (not replaced)";
		return close_fail(fd);
	}
	if ((how & BP_OPEN_PRIVATE) && (st->st_mode & 07777) != 0600 && fchmod(fd, 0600) != 0)
		return close_fail(fd);
	if ((how & BP_OPEN_REPLACE) && ftruncate(fd, 0) != 0)
		return close_fail(fd);
	return fd;
}

int bp_open_output(const char *path, unsigned how, const char **why)
{
	int acc = how & BP_OPEN_RDWR ? O_RDWR : O_WRONLY;
	mode_t mode = how & BP_OPEN_PRIVATE ? 0600 : 0666;
	struct stat st;
	enum kind k;
	int fd;

	*why = NULL;
	fd = open(path, acc | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, mode);
	if (fd >= 0 || errno != EEXIST)
		return fd;
	if (look(path, false, &st) != 0)
		return -1;
	k = kind_of(st.st_mode);
	if (k != K_REG)
		return refuse(why, out_refused[k], EEXIST);
	if (st.st_uid != geteuid())
		return refuse(why, "belongs to another user (not replaced)", EEXIST);
	if (!(how & (BP_OPEN_REPLACE | BP_OPEN_KEEP)))
		return refuse(why, "exists (not replaced)", EEXIST);
	return reuse(path, acc, how, &st, why);
}

int bp_open_input(const char *path, const char **why)
{
	struct stat st;
	enum kind k;
	int fd;

	*why = NULL;
	if (look(path, true, &st) != 0)
		return -1;
	k = kind_of(st.st_mode);
	if (k != K_REG)
		return refuse(why, in_refused[k], k == K_DIR ? EISDIR : EINVAL);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (same_file(fd, &st) != 0) {
		if (errno == EEXIST)
			*why = "changed while being opened";
		return close_fail(fd);
	}
	return fd;
}

int bp_open_unnamed(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;
	char dir[PATH_MAX];

	if (n >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!slash)
		strcpy(dir, ".");
	else if (n == 0)
		strcpy(dir, "/");
	else {
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	return open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
}

int bp_name_output(int fd, const char *path)
{
	char self[40];
	struct stat made;
	int named;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if (fstat(fd, &made) != 0 || linkat(AT_FDCWD, self, AT_FDCWD, path, AT_SYMLINK_FOLLOW) != 0)
		return -1;
	/* Named.  Reopened by the name only if it is still this file: else fd
	 * keeps working, only its /proc name says "deleted". */
	named = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (named < 0)
		return 0;
	if (same_file(named, &made) == 0)
		(void)dup3(named, fd, O_CLOEXEC);
	close(named);
	return 0;
}
