/*
 * bprint recover FILE: finish the streams of a bprint record that was
 * killed (docs/file-format.md, "A recorder killed").
 *
 * A recorder killed with SIGKILL takes its program with it, and leaves
 * FILE (a stream not closed, its accounts saying what it lacks) beside
 * FILE.live, the program's live file, whose rings still hold every record
 * the copier had not consumed; likewise FILE.PID beside FILE.live.PID for
 * a child.  recover reads what each stream holds (per ring: records
 * copied, the index after the last one), resumes the drainer on the live
 * file into the same stream from there (bprint/record.h,
 * bp_trace_recover()), writes the end chunk, closes the stream and removes
 * the live file.  A stream the recorder never made is drained whole from
 * its live file (as is one it made and was killed before it wrote its
 * header); a live file whose stream was closed cleanly is a leftover,
 * removed.
 */
#include "bprint_cmd.h"
#include "supervise.h"

#include <bprint/record.h>

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void recover_help(void)
{
	printf("Usage: %s recover [OPTION]... FILE\n"
	       "Finish the trace FILE of a 'bprint record -o FILE' that was killed: the records\n"
	       "it had not copied yet are in FILE.live (and a child's in FILE.live.PID); they\n"
	       "are added to FILE (FILE.PID), which is then closed, and the live files removed.\n"
	       "\n"
	       "  -q, --quiet   no summary on stderr\n"
	       "  -h, --help    show this help\n"
	       "\n"
	       "Exit status: 0 done (or nothing to recover), 1 bad command line, 2 a file is\n"
	       "not what it should be, 3 a read or write error, 4 a live file's process is\n"
	       "still running (its recorder may be alive: nothing is done to it).\n",
	       prog);
}

/* The stream of live file name, in dir: base for base.live, base.PID for
 * base.live.PID; NULL if name is neither. */
static char *stream_of(const char *base, const char *name)
{
	size_t n = strlen(base);
	const char *rest;
	char *out;

	if (strncmp(name, base, n) || strncmp(name + n, ".live", 5))
		return NULL;
	rest = name + n + 5;
	if (*rest) {
		if (*rest != '.' || !rest[1] || strspn(rest + 1, "0123456789") != strlen(rest + 1))
			return NULL;
	}
	if (!(out = malloc(n + strlen(rest) + 1)))
		return NULL;
	memcpy(out, base, n);
	strcpy(out + n, rest);
	return out;
}

/* Is path a stream of process pid started at start_ns, and closed? 1
 * closed, 0 not, -1 not such a stream (or no file). */
static int stream_state(const char *path, pid_t pid, uint64_t start_ns)
{
	char err[256];
	struct bp_trace *t = bp_trace_open(path, BP_TRACE_OPEN_NO_SYMBOLS, err, sizeof(err), NULL);
	const struct bp_trace_info *in;
	int rc = -1;

	if (!t)
		return -1;
	in = bp_trace_info(t);
	if ((in->flags & BP_TRACE_F_STREAM) && in->pid == (int64_t)pid &&
	    in->start_realtime_ns == start_ns)
		rc = (in->flags & BP_TRACE_F_CLOSED) ? 1 : 0;
	bp_trace_close(t);
	return rc;
}

static int recover_one(const char *live_path, const char *stream, bool quiet)
{
	struct bp_record_live live = BP_RECORD_LIVE_INIT;
	struct bp_record_counts res = BP_RECORD_COUNTS_INIT;
	char err[256];
	struct stat st;
	int rc, state;

	if ((rc = bp_trace_live_probe(live_path, &live)) <= 0) {
		if (rc < 0)
			return out_of_memory();
		errmsg(live_path, "not a live trace file: left alone");
		return EXIT_BADFILE;
	}
	if (alive(live.pid)) {
		errmsg(live_path, "process %d is still running (is its bprint record alive?): "
		       "left alone", (int)live.pid);
		return EXIT_INCOMPLETE;
	}
	state = stream_state(stream, live.pid, live.start_realtime_ns);
	if (state == 1) {
		unlink(live_path);
		if (!quiet)
			errmsg(live_path, "removed: %s was closed, every record is there", stream);
		return EXIT_OK;
	}
	/* made by the recorder, killed before it wrote the header: never made */
	if (state < 0 && lstat(stream, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    st.st_size < 4096 && unlink(stream) != 0) {
		errmsg(stream, "%s", strerror(errno));
		return EXIT_IO;
	}
	if (state < 0 && lstat(stream, &st) == 0) {
		errmsg(stream, "not the stream of %s: both left alone", live_path);
		return EXIT_BADFILE;
	}
	rc = bp_trace_recover(live_path, stream, state == 0 ? BP_RECORD_RESUME : 0, &res, err,
			      sizeof(err));
	if (rc == BP_TRACE_ENOMEM)
		return out_of_memory();
	if (rc == BP_TRACE_EFORMAT) {	/* the stream, unreadable */
		errmsg(stream, "%s", err);
		return EXIT_BADFILE;
	}
	if (rc == BP_RECORD_E_NOT_READY) {
		errmsg(live_path, "not a live trace file: left alone");
		return EXIT_BADFILE;
	}
	if (rc != 0) {
		errmsg(stream, "%s", err);
		return EXIT_IO;
	}
	if (!quiet)
		fprintf(stderr, "%s: %s: recovered from %s: %llu records in the file, "
			"%llu discarded, %llu lost\n", prog, stream, live_path,
			(unsigned long long)res.copied, (unsigned long long)res.discarded,
			(unsigned long long)(res.lost_records + res.not_copied));
	return EXIT_OK;
}

/* Is live the live file of process pid started at start_ns? */
static bool live_of(const char *live, int64_t pid, uint64_t start_ns)
{
	struct bp_record_live l = BP_RECORD_LIVE_INIT;

	return bp_trace_live_probe(live, &l) > 0 && l.pid == pid &&
	       l.start_realtime_ns == start_ns;
}

char *live_left(const char *path, char **main_out)
{
	char err[256], *live, *main_file;
	struct bp_trace *t = bp_trace_open(path, BP_TRACE_OPEN_NO_SYMBOLS, err, sizeof(err), NULL);
	const struct bp_trace_info *in;
	size_t n = strlen(path);
	char pid_suffix[32];
	int64_t pid;
	uint64_t start;
	bool found;

	if (!t)
		return NULL;
	in = bp_trace_info(t);
	pid = in->pid;
	start = in->start_realtime_ns;
	found = (in->flags & BP_TRACE_F_STREAM) && !(in->flags & BP_TRACE_F_CLOSED) &&
		!in->stop_reason;
	bp_trace_close(t);
	if (!found)
		return NULL;
	snprintf(pid_suffix, sizeof(pid_suffix), ".%lld", (long long)pid);
	if (!(live = malloc(n + sizeof(".live") + strlen(pid_suffix))) || !(main_file = strdup(path))) {
		free(live);
		return NULL;
	}
	/* FILE.live for FILE, FILE.live.PID for FILE.PID (a child's) */
	sprintf(live, "%s.live", path);
	found = live_of(live, pid, start);
	if (!found && n > strlen(pid_suffix) && !strcmp(path + n - strlen(pid_suffix), pid_suffix)) {
		main_file[n - strlen(pid_suffix)] = '\0';
		sprintf(live, "%s.live%s", main_file, pid_suffix);
		found = live_of(live, pid, start);
	}
	if (!found || !main_out) {
		free(main_file);
		main_file = NULL;
	}
	if (!found) {
		free(live);
		return NULL;
	}
	if (main_out)
		*main_out = main_file;
	return live;
}

void say_live_left(const char *path)
{
	char *main_file = NULL, *live = live_left(path, &main_file);

	if (live)
		errmsg(path, "the records bprint record did not copy are in %s: "
		       "'%s recover %s' adds them", live, prog, main_file);
	free(live);
	free(main_file);
}

void say_children_left(const char *file)
{
	const char *slash = strrchr(file, '/'), *base = slash ? slash + 1 : file;
	char *dir = slash ? strndup(file, (size_t)(slash - file) + 1) : strdup("."), *first = NULL;
	unsigned n = 0;
	struct dirent *de;
	DIR *d;

	if (!dir || !(d = opendir(dir))) {
		free(dir);
		return;
	}
	while ((de = readdir(d))) {
		char *stream = stream_of(base, de->d_name), *path;
		struct bp_record_live live = BP_RECORD_LIVE_INIT;

		/* FILE.live itself is the caller's; a child's: FILE.live.PID */
		if (!stream || !strcmp(stream, base) ||
		    !(path = malloc(strlen(dir) + strlen(de->d_name) + 1))) {
			free(stream);
			continue;
		}
		sprintf(path, "%s%s", slash ? dir : "", de->d_name);
		if (bp_trace_live_probe(path, &live) > 0 && !alive(live.pid) && n++ == 0)
			first = strdup(path);
		free(path);
		free(stream);
	}
	closedir(d);
	free(dir);
	if (n)
		errmsg(file, "%s%s left by a bprint record that was killed: "
		       "'%s recover %s' finishes %s", first ? first : "a live file",
		       n > 1 ? " and more" : "", prog, file, n > 1 ? "them" : "it");
	free(first);
}

int cmd_recover(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file, *slash, *base;
	char *dir;
	bool quiet = false;
	int c, rc = EXIT_OK, found = 0;
	DIR *d;
	struct dirent *de;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", opts, NULL)) != -1) {
		switch (c) {
		case 'q': quiet = true; break;
		case 'h': recover_help(); return finish_output();
		default: return usage_error("recover", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage_error("recover", optind >= argc ? "missing FILE" : "one FILE only");
	file = argv[optind];
	slash = strrchr(file, '/');
	base = slash ? slash + 1 : file;
	if (!*base)
		return usage_error("recover", "FILE: a file name, not a directory");
	if (!(dir = slash ? strndup(file, (size_t)(slash - file) + 1) : strdup(".")))
		return out_of_memory();
	if (!(d = opendir(dir))) {
		errmsg(dir, "%s", strerror(errno));
		free(dir);
		return EXIT_IO;
	}
	while ((de = readdir(d))) {
		char *stream = stream_of(base, de->d_name), *lp, *sp;
		int one;

		if (!stream)
			continue;
		lp = malloc(strlen(dir) + strlen(de->d_name) + 2);
		sp = malloc(strlen(dir) + strlen(stream) + 2);
		if (!lp || !sp) {
			free(lp);
			free(sp);
			free(stream);
			rc = out_of_memory();
			break;
		}
		sprintf(lp, "%s%s", slash ? dir : "", de->d_name);
		sprintf(sp, "%s%s", slash ? dir : "", stream);
		found++;
		one = recover_one(lp, sp, quiet);
		if (one != EXIT_OK && (rc == EXIT_OK || one < rc))
			rc = one;
		free(lp);
		free(sp);
		free(stream);
	}
	closedir(d);
	free(dir);
	if (!found && !quiet)
		errmsg(file, "no %s.live left by a killed bprint record: nothing to recover", base);
	return rc;
}
