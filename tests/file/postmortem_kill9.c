/*
 * postmortem_kill9 CHILD MODE [ITERATIONS]
 *
 * Start writer_child (3 threads tracing "t=%d seq=%llu" flat out) with
 * BPRINT_FILE set, SIGKILL it at a random moment, and decode the file it
 * left with file_check.h.  Repeat (at least 50 times).  Every file must
 * decode: every record well-formed and from a known site, per thread the
 * sequence numbers strictly increasing with no gap (a dead ring's records
 * from its oldest valid page on are contiguous), seq equal to the record's
 * stored index (so no record is torn, repeated or misplaced), and the
 * counters consistent with what was decoded:
 *   decoded + overwritten + discarded == written   (or written + 1: the
 *   kill fell between a record's commit and the store of `written`).
 */
#include "file_check.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>

struct ring_check {
	struct fc_file *f;
	int t;			/* thread number from the messages, -1 before the first */
	unsigned long long last_seq;
	uint64_t n;
};

static int check_rec(void *arg, const struct fc_rec *r)
{
	struct ring_check *c = arg;
	int t, end = 0;
	unsigned long long seq;

	if (sscanf(r->msg, "t=%d seq=%llu%n", &t, &seq, &end) != 2 || r->msg[end]) {
		fprintf(stderr, "ring %llu: bad message \"%s\"\n",
			(unsigned long long)r->ring->index, r->msg);
		return 1;
	}
	if (c->n == 0) {
		c->t = t;
	} else if (t != c->t || seq != c->last_seq + 1) {
		fprintf(stderr, "ring %llu: t=%d seq=%llu after t=%d seq=%llu\n",
			(unsigned long long)r->ring->index, t, seq, c->t, c->last_seq);
		return 1;
	}
	if (seq != r->index) {
		fprintf(stderr, "ring %llu: seq %llu at stored index %llu\n",
			(unsigned long long)r->ring->index, seq, (unsigned long long)r->index);
		return 1;
	}
	c->last_seq = seq;
	c->n++;
	return 0;
}

/* Returns records decoded, or -1. */
static long long check_file(const char *path, const char *mode, int *had_rings)
{
	struct fc_file f;
	long long total = 0;

	*had_rings = 0;
	if (fc_load(path, &f) != 0) {
		struct stat st;
		/* Killed before the header was complete: nothing traced yet. */
		if (stat(path, &st) != 0 || st.st_size <= BP_FILE_HEADER_BYTES) {
			fc_free(&f);
			return 0;
		}
		fprintf(stderr, "%s: %s\n", path, f.err);
		fc_free(&f);
		return -1;
	}
	if (f.hdr->pid == 0 || f.hdr->ring_mode != (strcmp(mode, "discard") ? 0u : 1u)) {
		fprintf(stderr, "%s: header pid %llu mode %u\n", path,
			(unsigned long long)f.hdr->pid, f.hdr->ring_mode);
		goto bad;
	}
	for (size_t i = 0; i < f.nrings; i++) {
		struct fc_ring *r = &f.rings[i];
		struct ring_check c = { .f = &f, .t = -1 };
		struct bp_ring_stats st;
		uint64_t n, missed;
		char want[16];

		if (!r->mem || bp_ring_stats(r->mem, r->bytes, &st) != BP_RING_OK)
			continue;
		*had_rings = 1;
		if (fc_read_ring(&f, r, check_rec, &c, &n, &missed) != 0) {
			fprintf(stderr, "%s: %s\n", path, f.err[0] ? f.err : "bad record");
			goto bad;
		}
		if (n + missed + st.discarded != st.written &&
		    n + missed + st.discarded != st.written + 1) {
			fprintf(stderr, "%s: ring %llu: decoded %llu + overwritten %llu + discarded %llu"
				" vs written %llu\n", path, (unsigned long long)r->index,
				(unsigned long long)n, (unsigned long long)missed,
				(unsigned long long)st.discarded, (unsigned long long)st.written);
			goto bad;
		}
		if (n && r->level == 0) {
			snprintf(want, sizeof(want), "w%d", c.t);
			if (strcmp(r->comm, want)) {
				fprintf(stderr, "%s: ring of t=%d has comm \"%s\"\n", path, c.t, r->comm);
				goto bad;
			}
		}
		total += (long long)n;
	}
	fc_free(&f);
	return total;
bad:
	fc_free(&f);
	return -1;
}

int main(int argc, char **argv)
{
	const char *child = argv[1], *mode = argv[2];
	const char *q = getenv("BPRINT_TEST_QUICK");
	int iters = argc > 3 ? atoi(argv[3]) : (q && *q && *q != '0') ? 50 : 100;
	const char *tmp = getenv("TMPDIR");
	char dir[4096], path[4200];
	long long records = 0;
	int with_records = 0;

	if (argc < 3)
		return 2;
	snprintf(dir, sizeof(dir), "%s/bp-kill9-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	for (int i = 0; i < iters; i++) {
		/* Mostly mid-run, sometimes during start-up and the first traces. */
		unsigned delay = i % 5 == 0 ? (unsigned)rand() % 2000 : (unsigned)rand() % 20000;
		const char *size = i % 2 ? "16K" : "64K";
		int st, had_rings;
		long long n;
		pid_t pid;

		snprintf(path, sizeof(path), "%s/trace.%d", dir, i);
		pid = fork();
		if (pid == 0) {
			setenv("BPRINT_FILE", path, 1);
			setenv("BPRINT_MODE", mode, 1);
			setenv("BPRINT_BUFFER_SIZE", size, 1);
			execl(child, child, "3", "0", (char *)NULL);
			_exit(127);
		}
		if (i % 5) {
			/* Mid-run: wait for the threads' rings (slow start-ups under
			 * sanitizers), then a random moment. */
			struct stat sb;

			for (int w = 0; w < 5000; w++) {
				/* header, libraries and sites chunks, three rings */
				off_t want = 4096 + 2 * 65536 + 3 * ((i % 2 ? 16384 : 65536) + 4096);

				if (stat(path, &sb) == 0 && sb.st_size >= want)
					break;
				usleep(1000);
			}
		}
		usleep(delay);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		if (!WIFSIGNALED(st)) {
			fprintf(stderr, "child ended on its own (status %d)\n", st);
			return 1;
		}
		n = check_file(path, mode, &had_rings);
		if (n < 0) {
			fprintf(stderr, "iteration %d (killed after %u us, buffer %s): file kept at %s\n",
				i, delay, size, path);
			return 1;
		}
		records += n;
		with_records += n > 0;
		unlink(path);
	}
	rmdir(dir);
	printf("%d kills (%s mode): %d files with records, %lld records decoded and checked\n",
	       iters, mode, with_records, records);
	if (with_records < iters / 2) {
		fprintf(stderr, "too few files with records: the test did not test much\n");
		return 1;
	}
	return 0;
}
