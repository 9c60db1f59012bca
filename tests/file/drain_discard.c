/*
 * drain_discard CHILD BUFFER PACE [spawn]
 *
 * Run writer_child (2 threads x N records, discard mode, BUFFER per thread)
 * under bp_drain_run(), as `bprint record` does, then decode the stream
 * file.  Per ring: the records in the output are exactly the child's
 * written count minus the reported loss (ring `discarded` + the drainer's
 * lost_records), their sequence numbers strictly increase, and with no
 * loss they are complete (0 .. N-1).  The child reports N per thread.
 * With "spawn" the child also starts a copy of itself that inherits
 * BPRINT_FILE: its stream must appear as OUT.<pid> and pass the same checks.
 */
#include "file_check.h"
#include "supervise.h"	/* tools/bprint: bp_drain_run() */

#include <dirent.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

struct ring_check {
	unsigned long long last_seq;
	uint64_t n, not_index;
	int t;
};

static int check_rec(void *arg, const struct fc_rec *r)
{
	struct ring_check *c = arg;
	unsigned long long seq;
	int t, end = 0;

	if (sscanf(r->msg, "t=%d seq=%llu%n", &t, &seq, &end) != 2 || r->msg[end]) {
		fprintf(stderr, "bad message \"%s\"\n", r->msg);
		return 1;
	}
	if (c->n && (t != c->t || seq <= c->last_seq)) {
		fprintf(stderr, "t=%d seq=%llu after t=%d seq=%llu\n", t, seq, c->t, c->last_seq);
		return 1;
	}
	if (seq < r->index) {
		fprintf(stderr, "seq %llu below its stored index %llu\n", seq,
			(unsigned long long)r->index);
		return 1;
	}
	c->not_index += seq != r->index;
	c->t = t;
	c->last_seq = seq;
	c->n++;
	return 0;
}

/* Check one stream file; returns records decoded or -1. */
static long long check_stream(const char *path, unsigned long long per_thread, int threads,
			      uint64_t *loss)
{
	struct fc_file f;
	long long total = 0;
	int level0 = 0;

	if (fc_load(path, &f) != 0) {
		fprintf(stderr, "%s: %s\n", path, f.err);
		return -1;
	}
	if ((f.hdr->flags & (BP_FILE_F_STREAM | BP_FILE_F_CLOSED)) !=
	    (BP_FILE_F_STREAM | BP_FILE_F_CLOSED) || !f.has_end || f.hdr->ring_mode != 1) {
		fprintf(stderr, "%s: flags %u, end chunk %d, mode %u\n", path, f.hdr->flags,
			f.has_end, f.hdr->ring_mode);
		goto bad;
	}
	for (size_t i = 0; i < f.nrings; i++) {
		struct fc_ring *r = &f.rings[i];
		struct ring_check c = { .t = -1 };
		uint64_t n, missed, lost;

		if (!r->has_end) {
			fprintf(stderr, "%s: ring %llu not in the end chunk\n", path,
				(unsigned long long)r->index);
			goto bad;
		}
		if (fc_read_ring(&f, r, check_rec, &c, &n, &missed) != 0) {
			fprintf(stderr, "%s: %s\n", path, f.err[0] ? f.err : "bad record");
			goto bad;
		}
		lost = r->end.discarded + r->end.lost_records;
		*loss += lost;
		printf("  %s ring %llu tid %u level %u (%s): written %llu discarded %llu "
		       "lost %llu decoded %llu\n", path, (unsigned long long)r->index, r->tid, r->level,
		       r->comm, (unsigned long long)r->end.written,
		       (unsigned long long)r->end.discarded,
		       (unsigned long long)r->end.lost_records, (unsigned long long)n);
		if (r->level == 0) {
			level0++;
			if (r->end.written != per_thread) {
				fprintf(stderr, "%s: ring %llu: written %llu, the child wrote %llu\n", path,
					(unsigned long long)r->index,
					(unsigned long long)r->end.written, per_thread);
				goto bad;
			}
		}
		if (n != r->end.written - lost || missed != r->end.lost_records) {
			fprintf(stderr, "%s: ring %llu: decoded %llu, expected %llu - %llu - %llu"
				" (gaps %llu)\n", path, (unsigned long long)r->index,
				(unsigned long long)n, (unsigned long long)r->end.written,
				(unsigned long long)r->end.discarded,
				(unsigned long long)r->end.lost_records, (unsigned long long)missed);
			goto bad;
		}
		if (lost == 0 && (c.not_index || (n && c.last_seq != n - 1))) {
			fprintf(stderr, "%s: ring %llu: no loss, yet the sequence is not complete\n",
				path, (unsigned long long)r->index);
			goto bad;
		}
		total += (long long)n;
	}
	if (level0 != threads) {
		fprintf(stderr, "%s: %d thread rings, expected %d\n", path, level0, threads);
		goto bad;
	}
	fc_free(&f);
	return total;
bad:
	fc_free(&f);
	return -1;
}

int main(int argc, char **argv)
{
	const char *child = argv[1], *size = argv[2], *pace = argv[3];
	int spawn = argc > 4 && !strcmp(argv[4], "spawn");
	const char *q = getenv("BPRINT_TEST_QUICK");
	unsigned long long n = (q && *q && *q != '0') ? 200000 : 2000000;
	const char *tmp = getenv("TMPDIR");
	char dir[3000], live[3100], out[3100], cout[3100], nbuf[32], other[3400];
	struct bp_drain_opts o;
	struct bp_drain_run_result run;
	const struct bp_record_counts *res = &run.c;
	struct timespec t0, t1;
	uint64_t loss = 0;
	long long got;
	double secs;
	int st, rc;
	pid_t pid;

	if (argc < 4)
		return 2;
	if (getenv("BP_DRAIN_N"))	/* for measuring: records per thread */
		n = strtoull(getenv("BP_DRAIN_N"), NULL, 10);
	else if (atoi(pace) > 0)
		n /= 4;	/* paced: a fixed number of sleeps */
	snprintf(dir, sizeof(dir), "%s/bp-drain-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(live, sizeof(live), "%s/live", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(cout, sizeof(cout), "%s/child.out", dir);
	snprintf(nbuf, sizeof(nbuf), "%llu", n);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		setenv("BPRINT_FILE", live, 1);
		setenv("BPRINT_MODE", "discard", 1);
		setenv("BPRINT_BUFFER_SIZE", size, 1);
		if (!freopen(cout, "w", stdout))
			_exit(126);
		execl(child, child, "2", nbuf, pace, spawn ? "spawn" : (char *)NULL, (char *)NULL);
		_exit(127);
	}
	memset(&o, 0, sizeof(o));
	o.live_path = live;
	o.out_path = out;
	o.child = pid;
	o.follow = 1;
	o.remove_live = 1;
	rc = bp_drain_run(&o, &run);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waitpid(pid, &st, 0);
	if (rc != 0) {
		fprintf(stderr, "bp_drain_run: %s\n", run.error);
		return 1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "child status %d\n", st);
		return 1;
	}
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	{
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		printf("drainer cpu: %.2f s user, %.2f s sys\n",
		       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
		       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
	}
	printf("drained %u file(s): %llu rings, %llu pages, %.1f MB in %.2f s; written %llu, "
	       "discarded %llu, lost %llu; %.2f M records/s written by the child\n",
	       res->files, (unsigned long long)res->rings, (unsigned long long)res->pages,
	       (double)res->bytes / 1e6, secs, (unsigned long long)res->written,
	       (unsigned long long)res->discarded, (unsigned long long)res->lost_records,
	       (double)res->written / secs / 1e6);
	got = check_stream(out, n, 2, &loss);
	if (got < 0)
		return 1;
	if (res->files != (spawn ? 2u : 1u)) {
		fprintf(stderr, "%u stream files, expected %d\n", res->files, spawn ? 2 : 1);
		return 1;
	}
	if (spawn) {
		/* The copy's stream: out.<pid>, the only other file in dir. */
		DIR *dp = opendir(dir);
		struct dirent *de;
		int found = 0;

		while (dp && (de = readdir(dp)))
			if (!strncmp(de->d_name, "out.", 4)) {
				snprintf(other, sizeof(other), "%s/%s", dir, de->d_name);
				if (check_stream(other, n, 2, &loss) < 0)
					return 1;
				unlink(other);
				found++;
			}
		if (dp)
			closedir(dp);
		if (found != 1) {
			fprintf(stderr, "%d descendant streams, expected 1\n", found);
			return 1;
		}
	}
	printf("decoded %lld records; total loss %llu (%s)\n", got, (unsigned long long)loss,
	       loss ? "exactly accounted" : "none: sequences complete");
	unlink(out);
	unlink(cout);
	if (rmdir(dir) != 0)
		fprintf(stderr, "note: %s not empty\n", dir);
	return 0;
}
