/*
 * A file made unnamed and named when whole (bp_open_unnamed(),
 * bp_name_output()), as the live trace file is: nobody sees it before it
 * is named, naming takes no existing name (a file, a symlink, a
 * directory) and changes nothing there, and once named /proc/self/fd
 * shows its name, by which live files are found.
 */
#include "trace/safe_open.h"

#include "check.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/bp_safe_open_XXXXXX";

static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	CHECK(d != NULL);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void in_dir(char *out, const char *name)
{
	snprintf(out, PATH_MAX, "%s/%s", dir, name);
}

/* What path holds (up to 63 bytes), as a string. */
static const char *content(const char *path)
{
	static char buf[64];
	int fd = open(path, O_RDONLY | O_NOFOLLOW);
	ssize_t n;

	CHECK(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	CHECK(n >= 0);
	buf[n] = '\0';
	close(fd);
	return buf;
}

static int unnamed_with(const char *path, const char *text)
{
	int fd = bp_open_unnamed(path);

	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		printf("no O_TMPFILE on %s: skipped\n", dir);
		exit(77);
	}
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	return fd;
}

int main(void)
{
	char path[PATH_MAX], other[PATH_MAX], link[PATH_MAX], sub[PATH_MAX];
	char self[64], shown[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd, fd2;

	CHECK(mkdtemp(dir) != NULL);
	in_dir(path, "t.dat.live");
	in_dir(other, "other");
	in_dir(link, "link");
	in_dir(sub, "sub");

	/* Unseen while it is filled, seen by its name after, 0600. */
	fd = unnamed_with(path, "whole header");
	CHECK_EQ(entries(), 0);
	CHECK_EQ(bp_name_output(fd, path), 0);
	CHECK_EQ(entries(), 1);
	CHECK_STREQ(content(path), "whole header");
	CHECK_EQ(stat(path, &st), 0);
	CHECK_EQ(st.st_mode & 07777, 0600u);
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	n = readlink(self, shown, sizeof(shown) - 1);
	CHECK(n > 0);
	shown[n] = '\0';
	CHECK_STREQ(shown, path);
	/* Writing through fd reaches the named file. */
	CHECK_EQ(pwrite(fd, "W", 1, 0), 1);
	CHECK_STREQ(content(path), "Whole header");

	/* A taken name: EEXIST, the file there unchanged, nothing new. */
	fd2 = unnamed_with(path, "second");
	CHECK_EQ(bp_name_output(fd2, path), -1);
	CHECK_EQ(errno, EEXIST);
	CHECK_STREQ(content(path), "Whole header");
	/* A symlink is not followed, a directory not entered. */
	CHECK_EQ(symlink(other, link), 0);
	CHECK_EQ(bp_name_output(fd2, link), -1);
	CHECK_EQ(errno, EEXIST);
	CHECK_EQ(lstat(other, &st), -1);
	CHECK_EQ(mkdir(sub, 0700), 0);
	CHECK_EQ(bp_name_output(fd2, sub), -1);
	CHECK_EQ(errno, EEXIST);
	CHECK_EQ(entries(), 3);
	/* ... and it can still take a free name. */
	CHECK_EQ(bp_name_output(fd2, other), 0);
	CHECK_STREQ(content(other), "second");
	close(fd2);
	close(fd);

	/* A name in the current directory (no slash). */
	CHECK_EQ(chdir(dir), 0);
	fd = unnamed_with("here", "here");
	CHECK_EQ(bp_name_output(fd, "here"), 0);
	CHECK_STREQ(content("here"), "here");
	close(fd);

	unlink("here");
	unlink(other);
	unlink(link);
	unlink(path);
	rmdir(sub);
	CHECK_EQ(chdir("/"), 0);
	CHECK_EQ(rmdir(dir), 0);
	printf("safe_open_test: ok\n");
	return 0;
}
