/*
 * writer_sites_dlopen MODULE [child]
 *
 * The child (BPRINT_FILE set) dlopen()s MODULE, which traces with its own
 * call sites, dlclose()s it and traces once more.  The file must hold the
 * module's sites (so its records decode after it is gone) and list the
 * module among its libraries.
 */
#include "file_check.h"

#include <dlfcn.h>
#include <sys/wait.h>

static int dl_seen, puts_seen, after_seen, bad;

static int check_rec(void *arg, const struct fc_rec *r)
{
	struct fc_file *f = arg;
	int n;

	if (sscanf(r->msg, "dl n=%d s=hello", &n) == 1 && n == dl_seen) {
		const struct fc_site *s = &f->sites[r->site];

		if (!strstr(s->file, "writer_dlmod.c") || strcmp(s->func, "writer_dlmod_trace"))
			bad++;
		dl_seen++;
	} else if (!strcmp(r->msg, "dl puts")) {
		puts_seen++;
	} else if (!strcmp(r->msg, "after dlclose 7")) {
		after_seen++;
	} else {
		fprintf(stderr, "unexpected record \"%s\"\n", r->msg);
		bad++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], path[4200];
	struct fc_file f;
	int st;
	pid_t pid;

	if (argc > 2 && !strcmp(argv[2], "child")) {
		void *h = dlopen(argv[1], RTLD_NOW);
		void (*fn)(int);

		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		*(void **)&fn = dlsym(h, "writer_dlmod_trace");
		if (!fn)
			return 1;
		fn(5);
		dlclose(h);
		trace_printk("after dlclose %d", 7);
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/bp-dl-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/trace", dir);
	pid = fork();
	if (pid == 0) {
		setenv("BPRINT_FILE", path, 1);
		execl("/proc/self/exe", argv[0], argv[1], "child", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "child status %d\n", st);
		return 1;
	}
	if (fc_load(path, &f) != 0) {
		fprintf(stderr, "%s: %s\n", path, f.err);
		return 1;
	}
	if (!(f.hdr->flags & BP_FILE_F_CLOSED)) {
		fprintf(stderr, "not closed cleanly\n");
		return 1;
	}
	for (size_t i = 0; i < f.nrings; i++) {
		uint64_t n, missed;

		if (fc_read_ring(&f, &f.rings[i], check_rec, &f, &n, &missed) != 0) {
			fprintf(stderr, "%s\n", f.err);
			return 1;
		}
	}
	printf("dl records %d, puts %d, after %d, bad %d; %zu libraries:\n%s", dl_seen, puts_seen,
	       after_seen, bad, f.nlibs, f.libpaths);
	if (dl_seen != 5 || puts_seen != 1 || after_seen != 1 || bad) {
		fprintf(stderr, "wrong records\n");
		return 1;
	}
	{
		const char *base = strrchr(argv[1], '/');

		if (!strstr(f.libpaths, base ? base + 1 : argv[1])) {
			fprintf(stderr, "the module is not among the libraries\n");
			return 1;
		}
	}
	fc_free(&f);
	unlink(path);
	rmdir(dir);
	return 0;
}
