/*
 * reader_growing: a live file caught while its writer adds a chunk.
 *
 * Where the file cannot be grown ahead (no fallocate: shared memory, some
 * filesystems), the writer moves the header's `end` past a chunk, then
 * grows the file (src/writer/writer.c): for that moment the header names
 * more file than there is.  A reader that opens the file then, its writer
 * running, must not call it truncated (bprint tail PID did, and stopped);
 * once the writer is dead with the file short of its `end`, the file was
 * cut, and the reader must say so.
 *
 * The program is its own writer (BPRINT_FILE, set by the test; the file
 * is read by its descriptor, as the name may be taken: path.PID then).
 * The moment is made by hand: the header's `end` moved on by a chunk that
 * is never grown; with no ring pool (BPRINT_PREFAULT=0), as its refill
 * could take and grow a chunk past ours, and the file would be whole.
 *
 *	reader_growing          the running case, then runs itself with
 *	                        `die` for the other
 *	reader_growing die      traces, moves `end` on, exits without closing
 */
#include "trace/tracer_check.h"

#include "file/layout.h"
#include "writer/writer_live.h"

#include <bprint/reader.h>

#include <sys/wait.h>

#define IN_FLIGHT (64u * 1024u)	/* a chunk taken, not yet grown */

/* Open path and read it whole: the number of problems (first in *first) and records. */
static unsigned read_all(const char *path, const char **first, char *copy, size_t len, int *records)
{
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	char err[256];
	const char *p = "";
	struct bp_trace *t;
	unsigned n;
	int rc;

	t = bp_trace_open(path, 0, err, sizeof(err), &rc);
	if (!t)
		FAIL("%s: %s", path, err);
	*records = 0;
	while ((rc = bp_trace_next(t, &e, 0)) == 1)
		++*records;
	CHECK_EQ(rc, 0);
	n = bp_trace_problems(t, &p);
	snprintf(copy, len, "%s", p ? p : "");
	*first = copy;
	bp_trace_close(t);
	return n;
}

static int die(void)
{
	struct bp_file_header *h;

	trace_printk("the writer that dies %d", 1);
	h = bp_live_hdr();
	atomic_fetch_add(&h->end, IN_FLIGHT);
	_exit(0);	/* no exit handler: the file stays open, its writer gone */
}

int main(int argc, char **argv)
{
	char path[64], name[4096], dead[4096], problem[512];
	const char *first;
	struct bp_file_header *h;
	uint64_t end;
	int records, status;
	ssize_t len;
	pid_t pid;

	CHECK(getenv("BPRINT_FILE") != NULL);
	if (argc > 1 && !strcmp(argv[1], "die"))
		return die();

	/* running: a chunk in flight is no damage */
	trace_printk("the writer that runs %d", 1);
	h = bp_live_hdr();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", bp_live.fd);
	len = readlink(path, name, sizeof(name) - 1);
	CHECK(len > 0);
	name[len] = 0;
	end = atomic_fetch_add(&h->end, IN_FLIGHT);
	if (read_all(path, &first, problem, sizeof(problem), &records))
		FAIL("the writer running, a chunk in flight called damage: %s", first);
	CHECK_EQ(records, 1);
	{	/* the chunk given back, as the writer gives back one it cannot have */
		uint64_t taken = end + IN_FLIGHT;

		CHECK(atomic_compare_exchange_strong(&h->end, &taken, end));
	}
	printf("ok: a live file read while its writer adds a chunk: no damage, 1 record\n");

	/* dead: the same bytes missing are a cut file */
	snprintf(dead, sizeof(dead), "%s.dead", getenv("BPRINT_FILE"));
	unlink(dead);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		setenv("BPRINT_FILE", dead, 1);
		execl("/proc/self/exe", argv[0], "die", (char *)NULL);
		_exit(127);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (!read_all(dead, &first, problem, sizeof(problem), &records))
		FAIL("the writer dead, a file short of its header's end called whole");
	if (!strstr(first, "truncated:"))
		FAIL("the writer dead: want a truncation, got: %s", first);
	CHECK_EQ(records, 1);
	unlink(dead);
	unlink(name);
	printf("ok: the same file, its writer dead: \"%s\"\n", first);
	return 0;
}
