/*
 * tests/trace/tracer_layout.c - a call site compiled against another
 * bprint.h layout is refused, said once, and never misread.
 *
 * Two hand-built sites stand for objects compiled against other headers:
 * old_site, in this object's "bprint_sites" section, carries layout
 * BPRINT__LAYOUT - 1 and is met by the constructor's batch registration;
 * new_site, outside any section, carries BPRINT__LAYOUT + 1 and is met by
 * the lazy path of its first call.  Past their head (which every layout
 * keeps in place) both hold what this library must not read: pointers to
 * nothing, flags that would grant the inline path.  A library that read
 * them would crash or trace; this one must leave them disabled, write no
 * record for them, and say so on stderr: one line per refusal, naming
 * file:line.
 *
 * The constructor runs before main, so the parent re-runs this program
 * as a child with stderr into a file, and reads that file.
 */
#include "trace/tracer_check.h"

#include "trace/site.h"

#include <fcntl.h>
#include <sys/wait.h>

#define JUNK_PTR ((const void *)(uintptr_t)1)	/* would fault if followed */

/* Everything past the head is junk on purpose. */
#define FOREIGN_SITE(lay)							\
	{ .magic = BPRINT__SITE_MAGIC, .layout = (lay), .enabled = 1,	\
	  .kind = BPRINT__SITE_PRINTK, .line = __LINE__, .file = __FILE__,	\
	  .format = JUNK_PTR, .func = JUNK_PTR, .plan = JUNK_PTR,		\
	  .head = 0xffffffffu, .argsig = 0xffffffffu,				\
	  .flags = BPRINT__SITE_WORDS | BPRINT__SITE_FAST, .nargs = 7 }

static struct bprint_site old_site __attribute__((section("bprint_sites"), used)) =
	FOREIGN_SITE(BPRINT__LAYOUT - 1);
static struct bprint_site new_site = FOREIGN_SITE(BPRINT__LAYOUT + 1);

static void count_event(const struct bprint_event *ev, void *ctx)
{
	char want[64];

	tc_expect(want, sizeof(want), "good %d", 42);
	CHECK_STREQ(ev->message, want);
	(*(int *)ctx)++;
}

/* Is any registered site at file:line? */
static int registered_at(const char *file, unsigned line)
{
	for (uint32_t id = 1; id < bp_site_count(); id++) {
		const struct bprint_site *s = bp_site_lookup(id);

		if (s && s->line == line && s->file && !strcmp(s->file, file))
			return 1;
	}
	return 0;
}

static int child(void)
{
	const uint64_t words[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	int n = 0;

	/* The batch at start-up refused old_site: off, marked, not in the registry. */
	CHECK_EQ(old_site.enabled, 0);
	CHECK_EQ(old_site.id, BPRINT__SITE_REFUSED);
	CHECK(!registered_at(old_site.file, old_site.line));

	/* A second constructor's batch (every unit has one) says nothing more. */
	bprint__register_sites(&old_site, &old_site + 1);

	/* Lazy: the first call refuses new_site; the second finds the mark. */
	bprint__printk(&new_site, "new %d", 1);
	CHECK_EQ(new_site.enabled, 0);
	CHECK_EQ(new_site.id, BPRINT__SITE_REFUSED);
	bprint__printk(&new_site, "new %d", 2);
	CHECK(!registered_at(new_site.file, new_site.line));

	/* Calls already on their way when the site was refused: nothing. */
	bprint__printk(&old_site, "old %d", 3);
	bprint__printk_words(&old_site, words);
	bprint__printk_words(&new_site, words);
	bprint__puts(&old_site, "old");

	/* Filters never turn a refused site on. */
	CHECK(bprint_enable("*") >= 0);
	CHECK_EQ(old_site.enabled, 0);
	CHECK_EQ(new_site.enabled, 0);

	/* The library's own TLS window says its layout. */
	CHECK_EQ(bprint__tls.layout, BPRINT__LAYOUT);

	trace_printk("good %d", 42);
	CHECK_EQ(tc_drain(count_event, &n), 1);
	CHECK_EQ(n, 1);
	return 0;
}

/* The child's stderr, whole. */
static void run_child(const char *self, char *out, size_t size)
{
	char path[] = "tracer_layout_stderr_XXXXXX";
	int fd = mkstemp(path);
	int status;
	ssize_t got;
	pid_t pid;

	CHECK(fd >= 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		dup2(fd, STDERR_FILENO);
		execl(self, self, "child", (char *)NULL);
		_exit(127);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	got = pread(fd, out, size - 1, 0);
	CHECK(got >= 0);
	out[got] = 0;
	close(fd);
	unlink(path);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		FAIL("child failed (status %d); its stderr:\n%s", status, out);
}

/* The line the library must have written for site s, from its own fields. */
static void expect_line(char *buf, size_t size, const struct bprint_site *s)
{
	tc_expect(buf, size,
		  "bprint: %s:%u: call site compiled against bprint.h layout %u, this library "
		  "reads layout %u: 1 site disabled (rebuild against this bprint.h)\n",
		  s->file, s->line, (unsigned)s->layout, (unsigned)BPRINT__LAYOUT);
}

int main(int argc, char **argv)
{
	char err[4096], want[1024], want2[512];

	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();
	CHECK(old_site.line != new_site.line);
	run_child(argv[0], err, sizeof(err));
	/* Exactly two lines, in order: the batch's, then the lazy call's. */
	expect_line(want, sizeof(want), &old_site);
	expect_line(want2, sizeof(want2), &new_site);
	strcat(want, want2);
	CHECK_STREQ(err, want);
	printf("tracer_layout: ok\n");
	return 0;
}
