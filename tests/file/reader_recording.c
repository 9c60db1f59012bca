/*
 * reader_recording: the stream `bprint record` is writing reads with real
 * timestamps (its header's calibration follows the traced program's) and
 * shows every thread that traced, those whose pages are not full yet too
 * (their records counted as not copied, from the accounts, read again at
 * every refresh).
 *
 *   reader_recording TRACED BPRINT WORKDIR
 */
#include "check.h"

#include <bprint/reader.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t child_of(pid_t pid)
{
	char path[64];
	FILE *f;
	int c = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "%d", &c) != 1)
			c = 0;
		fclose(f);
	}
	return (pid_t)c;
}

int main(int argc, char **argv)
{
	char out[512], err[256];
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	struct bp_trace_totals tot = BP_TRACE_TOTALS_INIT;
	struct bp_trace *t = NULL;
	unsigned long records = 0, zero = 0;
	pid_t pid, child;
	int st;

	CHECK_MSG(argc == 4, "usage: reader_recording TRACED BPRINT WORKDIR");
	mkdir(argv[3], 0700);
	snprintf(out, sizeof(out), "%s/recording.dat", argv[3]);
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(fd, 2);
		/* the main thread and 3 workers, slowly: pages fill one by one */
		execl(argv[2], argv[2], "record", "-q", "-o", out, "--", argv[1], "--threads", "3",
		      "--records", "1000000", "--sleep-us", "1000", (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0);
	/* until the copier has written a pages chunk and the accounts of every ring */
	for (int tries = 0; tries < 100; tries++) {
		usleep(100000);
		if (t || (t = bp_trace_open(out, BP_TRACE_OPEN_NO_SYMBOLS, err, sizeof(err), NULL)))
			CHECK_EQ(bp_trace_refresh(t), BP_TRACE_OK);
		if (t && bp_trace_nrings(t) >= 4) {
			bp_trace_totals(t, &tot);
			if (tot.written > 400)
				break;
		}
	}
	CHECK(t != NULL);
	CHECK_EQ(bp_trace_nrings(t), 4);
	while (bp_trace_next(t, &e, BP_TRACE_NEXT_NO_MESSAGE) == 1) {
		records++;
		zero += e.ns == 0;
	}
	bp_trace_totals(t, &tot);
	printf("%lu records read, %llu not copied yet, %lu with no time, %zu rings\n", records,
	       (unsigned long long)tot.not_copied, zero, bp_trace_nrings(t));
	CHECK_EQ(zero, 0);
	CHECK(tot.not_copied > 0);
	for (size_t i = 0; i < bp_trace_nrings(t); i++)
		CHECK(bp_trace_ring_at(t, i)->written > 0);
	CHECK_EQ(bp_trace_problems(t, NULL), 0);
	bp_trace_close(t);
	child = child_of(pid);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	if (child > 0)
		kill(child, SIGKILL);
	return check_summary("reader_recording");
}
