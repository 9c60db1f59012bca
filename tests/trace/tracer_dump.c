/*
 * tracer_dump: the automatic dumps.  The test re-executes itself as a
 * child with BPRINT_DUMP (and maybe BPRINT_DUMP_FILE) set, the child
 * traces and then crashes (SIGSEGV by a bad store, or abort()) or exits;
 * the parent checks how it ended (the same signal, re-raised, or exit 0)
 * and that its stderr or dump file holds the trace in ftrace form:
 *
 *   comm-tid [cpu] seconds.micros: function: message
 *
 * every line matching a regular expression, with the child's pid as tid,
 * the traced function, and each message as snprintf() makes it, in order.
 */
#include "tracer_check.h"

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <signal.h>
#include <sys/wait.h>

#define NREC 50
#define FMT "dump record %d of %s value=%#x"

static void child_trace(const char *how)
{
	for (int i = 0; i < NREC; i++)
		trace_printk(FMT, i, how, (unsigned)i * 0x1111u);
}

static volatile int *volatile bad_pointer;	/* NULL: the store faults */

static int child(const char *how)
{
	child_trace(how);
	if (!strcmp(how, "segv"))
		*bad_pointer = 1;
	if (!strcmp(how, "abort"))
		abort();
	return 0;	/* "exit": the atexit dump */
}

/* Run ourselves as "child HOW" with env; collect stderr; return the wait status. */
static int run_child(const char *self, const char *how, const char *dump, const char *file,
		     char **out)
{
	int fds[2], status;
	size_t len = 0, cap = 1 << 16;
	pid_t pid;
	ssize_t n;

	*out = malloc(cap + 1);
	CHECK(*out != NULL);
	CHECK_EQ(pipe(fds), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		setenv("BPRINT_DUMP", dump, 1);
		if (file)
			setenv("BPRINT_DUMP_FILE", file, 1);
		else
			unsetenv("BPRINT_DUMP_FILE");
		/* Sanitizers would take the fatal signals for themselves. */
		setenv("ASAN_OPTIONS", "handle_segv=0:handle_abort=0:handle_sigbus=0", 1);
		setenv("TSAN_OPTIONS", "handle_segv=0:handle_abort=0:handle_sigbus=0", 1);
		setenv("UBSAN_OPTIONS", "handle_segv=0:handle_abort=0", 1);
		execl(self, self, "child", how, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], *out + len, cap - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		CHECK(n > 0);
		len += (size_t)n;
		if (len == cap) {
			cap *= 2;
			*out = realloc(*out, cap + 1);
			CHECK(*out != NULL);
		}
	}
	(*out)[len] = '\0';
	close(fds[0]);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(!WIFEXITED(status) || WEXITSTATUS(status) != 127);
	return status;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	CHECK(f != NULL);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	CHECK(buf != NULL);
	CHECK_EQ(fread(buf, 1, (size_t)n, f), n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Every non-'#' line of interest is an ftrace line with the expected fields. */
static void check_trace(const char *text, const char *how, int expect_records)
{
	static const char *const re_src =
		"^ *([^ ].{0,15})-([0-9]+) +\\[([0-9]{3}|\\?\\?\\?)\\] +([0-9]+)\\.([0-9]{6}): "
		"([A-Za-z_][A-Za-z0-9_]*): (.*)$";
	regex_t re;
	regmatch_t m[8];
	char *copy = strdup(text), *save = NULL;
	int records = 0, header = 0;
	long child_pid = -1;

	CHECK(copy != NULL);
	CHECK_EQ(regcomp(&re, re_src, REG_EXTENDED), 0);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char expect[128], msg[256], func[64];
		long tid;

		if (line[0] == '#') {
			header++;
			continue;
		}
		if (!strncmp(line, "bprint:", 7))	/* the crash notice */
			continue;
		if (regexec(&re, line, 8, m, 0) != 0)
			FAIL("not an ftrace line: \"%s\"", line);
		tid = strtol(line + m[2].rm_so, NULL, 10);
		if (child_pid < 0)
			child_pid = tid;
		CHECK_EQ(tid, child_pid);
		tc_expect(func, sizeof(func), "%.*s", (int)(m[6].rm_eo - m[6].rm_so), line + m[6].rm_so);
		tc_expect(msg, sizeof(msg), "%.*s", (int)(m[7].rm_eo - m[7].rm_so), line + m[7].rm_so);
		CHECK_STREQ(func, "child_trace");
		tc_expect(expect, sizeof(expect), FMT, records, how, (unsigned)records * 0x1111u);
		CHECK_STREQ(msg, expect);
		records++;
	}
	regfree(&re);
	free(copy);
	CHECK_OP(header, >=, 1);
	CHECK_EQ(records, expect_records);
}

static void expect_signal(int status, int sig)
{
	if (!WIFSIGNALED(status) || WTERMSIG(status) != sig)
		FAIL("child status 0x%x: expected death by signal %d", status, sig);
}

int main(int argc, char **argv)
{
	char path[256], *out;
	int status;

	if (argc == 3 && !strcmp(argv[1], "child"))
		return child(argv[2]);

	/* crash: a bad store; the dump on stderr, then death by SIGSEGV. */
	status = run_child(argv[0], "segv", "crash", NULL, &out);
	expect_signal(status, SIGSEGV);
	check_trace(out, "segv", NREC);
	free(out);

	/* crash: abort(), dumped to BPRINT_DUMP_FILE. */
	tc_expect(path, sizeof(path), "tracer_dump_%d.txt", (int)getpid());
	status = run_child(argv[0], "abort", "both", path, &out);
	expect_signal(status, SIGABRT);
	free(out);
	out = slurp(path);
	check_trace(out, "abort", NREC);
	free(out);
	unlink(path);

	/* exit: dumped at exit, exit status untouched. */
	status = run_child(argv[0], "exit", "exit", NULL, &out);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	check_trace(out, "exit", NREC);
	free(out);

	/* exit only: a crash dumps nothing, but still dies by its signal. */
	status = run_child(argv[0], "segv", "exit", NULL, &out);
	expect_signal(status, SIGSEGV);
	CHECK(strstr(out, "dump record") == NULL);
	free(out);

	/* crash only: a normal exit dumps nothing. */
	status = run_child(argv[0], "exit", "crash", NULL, &out);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(strstr(out, "dump record") == NULL);
	free(out);

	printf("crash and exit dumps as expected\n");
	return 0;
}
