/*
 * record_killed: `bprint record` killed with SIGKILL at random moments
 * loses nothing silently and leaves no file without a word.  Each round
 * records the numbered program (numbered.c: three threads and a forked
 * child, every record numbered per thread) and kills the recorder, which
 * takes its program along.  Then:
 *
 *   - a stream left unfinished beside its live file (FILE and FILE.live, a
 *     child's FILE.PID and FILE.live.PID) makes `bprint report` name the
 *     live file and `bprint recover`;
 *   - `bprint recover FILE` finishes every such stream and removes the
 *     live files: none is left;
 *   - a new `bprint record -o FILE` says what a killed one left (a child's
 *     FILE.live.PID is left for `bprint recover`, not taken as its own);
 *   - every stream then reads closed, undamaged, exit status 0, and per
 *     ring the numbers run on with every gap announced on the record
 *     after it (lost_before, exactly), the rest counted after the last
 *     record: read + lost = written.
 *
 *   record_killed BPRINT NUMBERED WORKDIR [ROUNDS [MODE]]   (MODE: record's --mode)
 */
#include "check.h"

#include <bprint/reader.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RINGS 512

static const char *bprint, *numbered;

static int run_shell(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void nap_ms(long ms)
{
	nanosleep(&(struct timespec){ ms / 1000, (ms % 1000) * 1000000L }, NULL);
}

/*
 * Every ring of stream path: numbers in order, gaps announced exactly.
 * But one: pages the killed recorder took and never wrote are lost with
 * their headers, and with a header the count of records discarded just
 * before its page (docs/ring-buffer.md, "Drops").  At such a gap (lost
 * "not copied") more may be missing than its record says; the ring's
 * totals still count them, which the end of this check holds exactly
 * (hidden: what such gaps lacked).
 */
static void check_stream(const char *path)
{
	static uint64_t last[MAX_RINGS], shown[MAX_RINGS], hidden[MAX_RINGS];
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	char err[256], cmd[1024];
	const char *why;
	int rc;
	struct bp_trace *t = bp_trace_open(path, BP_TRACE_OPEN_NO_SYMBOLS, err, sizeof(err), NULL);

	if (!t) {
		fprintf(stderr, "%s: %s\n", path, err);
		CHECK(0);
	}
	CHECK(bp_trace_info(t)->flags & BP_TRACE_F_CLOSED);
	memset(last, 0, sizeof(last));
	memset(shown, 0, sizeof(shown));
	memset(hidden, 0, sizeof(hidden));
	while ((rc = bp_trace_next(t, &e, 0)) == 1) {
		unsigned long long n;
		uint64_t said = last[e.ring] + 1 + e.lost_before;

		CHECK(e.ring < MAX_RINGS);
		CHECK(sscanf(e.message, "n %llu", &n) == 1);
		if (n > said && (e.lost_kind & BP_TRACE_LOST_NOT_COPIED))
			hidden[e.ring] += n - said;
		else if (n != said) {
			fprintf(stderr, "%s: tid %d: %llu after %llu, %llu said lost\n", path, e.tid,
				n, (unsigned long long)last[e.ring], (unsigned long long)e.lost_before);
			CHECK(0);
		}
		last[e.ring] = n;
		shown[e.ring] += e.lost_before;
	}
	CHECK(rc == 0);
	if (bp_trace_problems(t, &why)) {
		fprintf(stderr, "%s: %s\n", path, why);
		CHECK(0);
	}
	for (size_t i = 0; i < bp_trace_nrings(t) && i < MAX_RINGS; i++) {
		struct bp_trace_totals tt = BP_TRACE_TOTALS_INIT;
		uint64_t lost;

		if (bp_trace_ring_at(t, i)->tid < 0)
			continue;
		CHECK(bp_trace_ring_totals(t, i, &tt) == 0);
		lost = tt.discarded + tt.overwritten + tt.not_copied;
		CHECK(tt.read + lost == tt.written);
		/* what no record came after is lost after the last one */
		if (shown[i] + hidden[i] + (tt.written - last[i]) != lost) {
			fprintf(stderr, "%s: ring %zu: %llu shown + %llu hidden + %llu after the last "
				"%llu, %llu lost\n", path, i, (unsigned long long)shown[i],
				(unsigned long long)hidden[i], (unsigned long long)(tt.written - last[i]),
				(unsigned long long)last[i], (unsigned long long)lost);
			CHECK(0);
		}
	}
	bp_trace_close(t);
	snprintf(cmd, sizeof(cmd), "%s report '%s' >/dev/null", bprint, path);
	CHECK(run_shell(cmd) == 0);
}

/* Names in . that start with "k.dat", sorted out by the caller. */
static int each_file(int (*fn)(const char *name, void *arg), void *arg)
{
	DIR *d = opendir(".");
	struct dirent *de;
	int n = 0;

	CHECK(d != NULL);
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "k.dat", 5))
			n += fn(de->d_name, arg);
	closedir(d);
	return n;
}

static int is_live(const char *name, void *arg)
{
	(void)arg;
	return strstr(name, ".live") != NULL;
}

/* A live file whose header is not whole (no magic): a process killed
 * while making it.  The writer names its file only once the header is
 * whole, so there must be none; counted in *arg. */
static int count_stillborn(const char *name, void *arg)
{
	unsigned char magic[8] = { 0 };
	static const unsigned char zero[8];
	FILE *f;
	size_t n;

	if (!strstr(name, ".live") || !(f = fopen(name, "rb")))
		return 0;
	n = fread(magic, 1, sizeof(magic), f);
	fclose(f);
	if (n == sizeof(magic) && memcmp(magic, zero, sizeof(zero)))
		return 0;
	fprintf(stderr, "%s: a live file seen before its header was whole\n", name);
	(*(int *)arg)++;
	return 1;
}

/* A live file left: its stream (if there) names it, and recover. */
static int hint_of_live(const char *name, void *arg)
{
	char stream[256], cmd[1024];
	const char *pid = name + strlen("k.dat.live");
	struct stat st;

	(void)arg;
	if (!strstr(name, ".live"))
		return 0;
	snprintf(stream, sizeof(stream), "k.dat%s", pid);
	if (stat(stream, &st) != 0 || st.st_size < 8192)
		return 0;	/* killed before its stream was made */
	snprintf(cmd, sizeof(cmd),
		 "%s report '%s' 2>&1 >/dev/null | grep -q \"in %s: 'bprint recover k.dat' adds them\"",
		 bprint, stream, name);
	if (run_shell(cmd) != 0) {
		fprintf(stderr, "%s: report does not name %s\n", stream, name);
		CHECK(0);
	}
	return 1;
}

static int check_one(const char *name, void *arg)
{
	(void)arg;
	check_stream(name);
	return 1;
}

/* A child's live file left: its process gone (waited for), its name kept. */
static int child_live(const char *name, void *arg)
{
	const char *pid = name + strlen("k.dat.live");
	char proc[64], state = 0, line[512];

	if (strncmp(name, "k.dat.live.", 11))
		return 0;
	snprintf(proc, sizeof(proc), "/proc/%s/stat", pid + 1);
	for (int tries = 0; tries < 500; tries++) {
		FILE *f = fopen(proc, "r");
		char *paren;

		if (!f)
			break;
		state = 0;
		if (fgets(line, sizeof(line), f) && (paren = strrchr(line, ')')))
			state = paren[2];
		fclose(f);
		if (state == 'Z' || state == 'X')
			break;
		nap_ms(10);
	}
	snprintf((char *)arg, 64, "%s", name);
	return 1;
}

static int remove_one(const char *name, void *arg)
{
	(void)arg;
	return unlink(name) == 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 4 ? atoi(argv[4]) : 20, left = 0;
	const char *mode = argc > 5 ? argv[5] : "block";
	char cmd[1024];

	if (argc < 4) {
		fprintf(stderr, "usage: record_killed BPRINT NUMBERED WORKDIR [ROUNDS]\n");
		return 2;
	}
	bprint = argv[1];
	numbered = argv[2];
	mkdir(argv[3], 0700);
	CHECK(chdir(argv[3]) == 0);
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	for (int round = 0; round < rounds; round++) {
		long ms = 5 + rand() % 250;
		pid_t pid;
		int st, rc;

		each_file(remove_one, NULL);
		pid = fork();
		CHECK(pid >= 0);
		if (pid == 0) {
			setenv("BPRINT_BUFFER_SIZE", "64K", 1);
			setenv("BPRINT_PAGE_SIZE", "4K", 1);
			execl(bprint, bprint, "record", "-q", "-o", "k.dat", "--mode", mode, "--",
			      numbered, "3", "150000", "--fork", "--pace", "1000", (char *)NULL);
			_exit(127);
		}
		nap_ms(ms);
		kill(pid, SIGKILL);
		CHECK(waitpid(pid, &st, 0) == pid);
		if (each_file(is_live, NULL))
			left++;
		/* the program goes with its recorder: recover waits for that */
		for (int tries = 0;; tries++) {
			each_file(hint_of_live, NULL);
			snprintf(cmd, sizeof(cmd), "%s recover -q k.dat", bprint);
			rc = run_shell(cmd);
			if (rc != 4 || tries > 100)
				break;
			nap_ms(20);
		}
		if (rc == 2) {
			int stillborn = 0;

			each_file(count_stillborn, &stillborn);
			CHECK(stillborn == 0);
		}
		if (rc != 0)
			fprintf(stderr, "round %d (killed after %ld ms): recover exit %d\n", round, ms, rc);
		CHECK(rc == 0);
		CHECK(each_file(is_live, NULL) == 0);
		each_file(check_one, NULL);
	}
	/* A new record over what a killed one left: it says so, and leaves
	 * the child's live file to recover (not its own, an earlier run's). */
	for (int tries = 0; tries < 20; tries++) {
		char child[64] = "", path[128];
		pid_t pid;
		int st;

		each_file(remove_one, NULL);
		pid = fork();
		CHECK(pid >= 0);
		if (pid == 0) {
			execl(bprint, bprint, "record", "-q", "-o", "k.dat", "--mode", mode, "--",
			      numbered, "3", "150000", "--fork", "--pace", "1000", (char *)NULL);
			_exit(127);
		}
		nap_ms(60);
		kill(pid, SIGKILL);
		CHECK(waitpid(pid, &st, 0) == pid);
		if (!each_file(child_live, child))
			continue;	/* the child's file was not made yet: again */
		snprintf(cmd, sizeof(cmd),
			 "%s record -q -o k.dat -- true 2>&1 | grep -q \"%s left by a bprint record "
			 "that was killed: 'bprint recover k.dat' finishes it\"", bprint, child);
		CHECK(run_shell(cmd) == 0);
		snprintf(path, sizeof(path), "%s", child);
		CHECK(access(path, F_OK) == 0);
		snprintf(cmd, sizeof(cmd), "%s recover -q k.dat", bprint);
		CHECK(run_shell(cmd) == 0);
		CHECK(each_file(is_live, NULL) == 0);
		snprintf(path, sizeof(path), "k.dat.%s", child + strlen("k.dat.live."));
		check_stream(path);
		printf("ok: a new record left %s to recover, which finished %s\n", child, path);
		break;
	}
	printf("record_killed: ok, %s mode, %d rounds, %d left live files to recover\n", mode, rounds,
	       left);
	return 0;
}
