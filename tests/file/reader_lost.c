/*
 * reader_lost: an event's lost_before counts every record of its ring lost
 * just before it, and lost_kind says how: overwritten in a live ring,
 * discarded, or not copied by a drainer that fell behind (a stream).  Per
 * file, the gaps the events show add up to the rings' overwritten count,
 * and the kinds are the file's.  And the counts a header is made of before
 * reading (the totals, bp_trace_overwritten_estimate()) are those that
 * reading finds, as `bprint stats` shows them, also for a ring whose
 * writer was killed between a record's commit and its count's update;
 * bprint_dump()'s header says the same of the process's own rings.
 *
 *   reader_lost TRACED BURST BPRINT WORKDIR
 */
#include "check.h"

#include <bprint/reader.h>

#define BP_FILE_HEADER_BYTES_T 4096L	/* docs/file-format.md */

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void run(char *const argv[], const char *env1, const char *env2)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(fd, 2);
		if (env1)
			putenv((char *)env1);
		if (env2)
			putenv((char *)env2);
		execv(argv[0], argv);
		_exit(127);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Written and lost before reading, as a header says them, and after. */
static void check_header(const char *path, const char *dump)
{
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	struct bp_trace_totals before = BP_TRACE_TOTALS_INIT, after = BP_TRACE_TOTALS_INIT;
	unsigned long long w = 0, l = 0;
	uint64_t lost_before, lost_after;
	char err[256], line[256];
	struct bp_trace *t = bp_trace_open(path, BP_TRACE_OPEN_NO_SYMBOLS, err, sizeof(err), NULL);
	FILE *f;

	if (!t)
		FAIL("%s: %s", path, err);
	bp_trace_totals(t, &before);
	lost_before = before.discarded + bp_trace_overwritten_estimate(t) + before.not_copied;
	while (bp_trace_next(t, &e, BP_TRACE_NEXT_NO_MESSAGE) == 1)
		;
	bp_trace_totals(t, &after);
	lost_after = after.discarded + after.overwritten + after.not_copied;
	CHECK_U64(before.written, ==, after.written);
	CHECK_U64(lost_before, ==, lost_after);
	CHECK_U64(after.read + lost_after, ==, after.written);
	bp_trace_close(t);
	if (!dump)
		return;
	CHECK((f = fopen(dump, "r")) != NULL);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "# entries-written: %llu lost: %llu", &w, &l) == 2)
			break;
	fclose(f);
	CHECK_U64(w, ==, after.written);
	CHECK_U64(l, ==, lost_after);
}

/* The file at path with its first ring's written count one short. */
static void one_short(const char *path, const char *out)
{
	FILE *f = fopen(path, "rb"), *o;
	unsigned char *p;
	long n = 0;	/* clang: CHECK() exits before a use when it is not set */

	CHECK(f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0);
	CHECK((p = malloc((size_t)n)) && fread(p, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	for (long off = BP_FILE_HEADER_BYTES_T; off + 32 <= n;) {
		uint32_t type;
		uint64_t size, written;

		memcpy(&type, p + off + 4, 4);
		memcpy(&size, p + off + 8, 8);
		CHECK(size && size % 4096 == 0);
		if (type == 3) {	/* a ring chunk: the ring's written, 128 + 72 */
			memcpy(&written, p + off + 200, 8);
			written--;
			memcpy(p + off + 200, &written, 8);
			break;
		}
		off += (long)size;
	}
	CHECK((o = fopen(out, "wb")) && fwrite(p, 1, (size_t)n, o) == (size_t)n && !fclose(o));
	free(p);
}

/* Read path: the kinds seen, and the sums checked. */
static unsigned check_file(const char *path, bool stream)
{
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	struct bp_trace_totals tot = BP_TRACE_TOTALS_INIT;
	uint64_t lost = 0, discarded_before = 0, overwritten = 0;
	unsigned kinds = 0;
	char err[256];
	struct bp_trace *t = bp_trace_open(path, BP_TRACE_OPEN_NO_SYMBOLS, err, sizeof(err), NULL);

	if (!t)
		FAIL("%s: %s", path, err);
	CHECK(e.size == BP_TRACE_EVENT_SIZE_3);
	while (bp_trace_next(t, &e, BP_TRACE_NEXT_NO_MESSAGE) == 1) {
		CHECK_MSG(!e.lost_before == !e.lost_kind, "%s: lost_before %llu, kind %u", path,
			  (unsigned long long)e.lost_before, e.lost_kind);
		CHECK_MSG(!(e.lost_kind & (stream ? BP_TRACE_LOST_OVERWRITTEN : BP_TRACE_LOST_NOT_COPIED)),
			  "%s: kind %u in a %s file", path, e.lost_kind, stream ? "stream" : "live");
		kinds |= e.lost_kind;
		lost += e.lost_before;
	}
	CHECK_EQ(bp_trace_problems(t, NULL), 0);
	bp_trace_totals(t, &tot);
	for (size_t i = 0; i < bp_trace_nrings(t); i++)
		overwritten += bp_trace_ring_at(t, i)->overwritten;
	/* what the events show: every gap, and the discards that pages record */
	discarded_before = lost - overwritten;
	CHECK_U64(overwritten, ==, tot.overwritten);
	CHECK_U64(lost, >=, overwritten);
	CHECK_U64(discarded_before, <=, tot.discarded);
	printf("%s: lost before records %llu (overwritten or not copied %llu), kinds %#x\n", path,
	       (unsigned long long)lost, (unsigned long long)overwritten, kinds);
	bp_trace_close(t);
	return kinds;
}

int main(int argc, char **argv)
{
	char path[512], env[600], dump[512];
	const char *traced, *burst, *bprint_cmd, *work;

	CHECK_MSG(argc == 5, "usage: reader_lost TRACED BURST BPRINT WORKDIR");
	traced = argv[1];
	burst = argv[2];
	bprint_cmd = argv[3];
	work = argv[4];
	mkdir(work, 0700);

	/* a live file whose rings wrapped: overwritten; its dump's header too */
	snprintf(path, sizeof(path), "%s/overwrite.dat", work);
	snprintf(dump, sizeof(dump), "%s/overwrite.dump", work);
	unlink(path);
	snprintf(env, sizeof(env), "BPRINT_FILE=%s", path);
	run((char *[]){ (char *)traced, "--threads", "2", "--records", "3000", "--dump", dump,
			NULL },
	    env, "BPRINT_BUFFER_SIZE=16K");
	CHECK_EQ(check_file(path, false), BP_TRACE_LOST_OVERWRITTEN);
	check_header(path, dump);
	/* as a writer killed between a commit and the count leaves it */
	snprintf(dump, sizeof(dump), "%s/one-short.dat", work);
	one_short(path, dump);
	check_header(dump, NULL);

	/* discard mode, a ring too small for a burst: discarded */
	snprintf(path, sizeof(path), "%s/discard.dat", work);
	unlink(path);
	snprintf(env, sizeof(env), "BPRINT_FILE=%s", path);
	run((char *[]){ (char *)traced, "--threads", "2", "--records", "3000", NULL }, env,
	    "BPRINT_MODE=discard");
	snprintf(path, sizeof(path), "%s/discard-small.dat", work);
	unlink(path);
	snprintf(env, sizeof(env), "BPRINT_FILE=%s", path);
	setenv("BPRINT_BUFFER_SIZE", "16K", 1);
	run((char *[]){ (char *)burst, "--threads", "1", "--records", "20000", NULL }, env,
	    "BPRINT_MODE=discard");
	check_file(path, false);	/* its drops come after its last page: in the totals */
	check_header(path, NULL);

	/* streams of bursts that outrun small rings: not copied, discarded */
	snprintf(path, sizeof(path), "%s/stream.dat", work);
	run((char *[]){ (char *)bprint_cmd, "record", "-q", "-o", path, "--", (char *)burst,
			"--threads", "2", "--records", "400000", NULL },
	    NULL, NULL);
	check_file(path, true);
	check_header(path, NULL);
	snprintf(path, sizeof(path), "%s/stream-discard.dat", work);
	run((char *[]){ (char *)bprint_cmd, "record", "-q", "-o", path, "--", (char *)burst,
			"--threads", "2", "--records", "400000", NULL },
	    "BPRINT_MODE=discard", NULL);
	check_file(path, true);
	check_header(path, NULL);
	unsetenv("BPRINT_BUFFER_SIZE");
	return check_summary("reader_lost");
}
