/*
 * `bprint record --kernel` (record_kernel.h): a tracefs instance of our
 * own, its per-CPU raw pages copied into the stream as they fill.
 *
 * Pages are read without blocking from per_cpu/cpuN/trace_pipe_raw: a
 * read returns one page (partly filled when the CPU's writer is on it),
 * or EAGAIN when the CPU has nothing.  They go out in chunks of up to
 * BATCH_PAGES a CPU, a chunk at the latest FLUSH_NS after its first page,
 * so that a reader of the stream sees them soon.  Each page's header says
 * whether the kernel lost events before it (and often how many): summed
 * per CPU here, in each chunk's header, and read in place by the reader.
 */
#include "record_kernel.h"

#include "bprint_cmd.h"

#ifdef BP_HAVE_TRACEFS

#include "supervise.h"

#include <bprint/record.h>

#include <tracefs/tracefs.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#define BATCH_PAGES 31u			/* with the 128-byte header: 32 pages of 4K */
#define READ_EVERY_NS 10000000ull	/* a pass reads the CPUs every 10 ms */
#define FLUSH_NS 100000000ull		/* a chunk waits at most 100 ms */
#define DEFAULT_BUFFER "4M"
#define INSTANCE_PREFIX "bprint-"
#define TRACEFS_MOUNT "/sys/kernel/tracing"

/* One event (or every event of a system: event NULL) asked for. */
struct asked {
	char system[64];
	char event[96];			/* "" = the whole system */
};

struct kcpu {
	int fd;				/* its trace_pipe_raw, -1 if none */
	unsigned char *batch;		/* chunk header, then pages */
	uint32_t n;			/* pages in it */
	uint64_t seq;			/* pages of this CPU written before it */
	uint64_t batch_missed, batch_missed_pages;
	uint64_t first_ns;		/* when its first page came */
	uint64_t pages, missed, missed_pages;	/* totals */
	uint64_t overrun, dropped;	/* the kernel's per_cpu stats at the end */
};

struct kernel_rec {
	struct tracefs_instance *inst;
	char name[32];
	struct asked *asked;
	size_t nasked;
	const char *trace_clock;
	const char *clock;		/* bprint's name of it */
	pid_t root;
	uint32_t page_size, ncpus;
	struct kcpu *cpu;
	unsigned char *page;		/* one page, as read */
	uint64_t last_read;
	bool formats_written;
	bool failed;			/* a chunk could not be written: stop */
};

/* ---- the instance ------------------------------------------------------ */

/* Does the instance's trace_clock list name? */
static bool clock_offered(struct tracefs_instance *inst, const char *name)
{
	char *list = tracefs_instance_file_read(inst, "trace_clock", NULL);
	bool found = false;

	for (char *save = NULL, *w = list ? strtok_r(list, " []\n", &save) : NULL; w && !found;
	     w = strtok_r(NULL, " []\n", &save))
		found = !strcmp(w, name);
	free(list);
	return found;
}

/* Remove the instances of recorders that are gone (killed with SIGKILL). */
static void remove_stale(void)
{
	char dir[4096];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/instances", tracefs_tracing_dir());
	if (!(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		const char *name = de->d_name, *digits = name + strlen(INSTANCE_PREFIX);
		char *end, path[64], comm[32] = "";
		long pid;
		FILE *f;
		struct tracefs_instance *old;

		if (strncmp(name, INSTANCE_PREFIX, strlen(INSTANCE_PREFIX)) ||
		    (pid = strtol(digits, &end, 10)) <= 0 || end == digits || *end)
			continue;	/* not a name we give */
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		if ((f = fopen(path, "r"))) {
			if (!fgets(comm, sizeof(comm), f))
				comm[0] = '\0';
			fclose(f);
		}
		if (pid == (long)getpid() || !strncmp(comm, "bprint\n", 8))
			continue;	/* a recorder still running */
		if ((old = tracefs_instance_alloc(NULL, name))) {
			tracefs_instance_file_write(old, "tracing_on", "0");
			if (tracefs_instance_destroy(old) == 0)
				fprintf(stderr, "%s: removed tracefs instance %s of a recorder that is gone\n",
					prog, name);
			tracefs_instance_free(old);
		}
	}
	closedir(d);
}

/* ---- what to record ---------------------------------------------------- */

static const char *const sched_events[] = {
	"sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new",
	"sched_migrate_task", "sched_process_fork", "sched_process_exec", "sched_process_exit",
};

static int ask(struct kernel_rec *k, const char *system, const char *event)
{
	struct asked *a = realloc(k->asked, (k->nasked + 1) * sizeof(*a));

	if (!a)
		return out_of_memory();
	k->asked = a;
	a = &k->asked[k->nasked++];
	snprintf(a->system, sizeof(a->system), "%s", system);
	snprintf(a->event, sizeof(a->event), "%s", event ? event : "");
	return 0;
}

/* One word of LIST into k->asked: 0, or an exit code. */
static int ask_word(struct kernel_rec *k, char *w)
{
	char *colon = strchr(w, ':');

	if (!strcmp(w, "sched")) {
		for (size_t i = 0; i < sizeof(sched_events) / sizeof(sched_events[0]); i++)
			if (ask(k, "sched", sched_events[i]))
				return EXIT_IO;
		return 0;
	}
	if (!strcmp(w, "syscalls") || !strcmp(w, "irq"))
		return ask(k, w, NULL);
	if (!colon || colon == w || !colon[1] || strlen(w) >= 150 || strchr(colon + 1, ':'))
		return usage_error("record", "--kernel: '%s' is not sched, syscalls, irq or SYSTEM:EVENT",
				   w);
	*colon = '\0';
	return ask(k, w, colon + 1);
}

static int parse_list(struct kernel_rec *k, const char *list)
{
	char *copy = strdup(list && *list ? list : "sched"), *save = NULL;
	int rc = 0;

	if (!copy)
		return out_of_memory();
	for (char *w = strtok_r(copy, ",", &save); w && !rc; w = strtok_r(NULL, ",", &save))
		rc = ask_word(k, w);
	free(copy);
	return rc;
}

/* Is every asked event on this kernel?  0, or one line and EXIT_USAGE. */
static int events_exist(struct kernel_rec *k)
{
	for (size_t i = 0; i < k->nasked; i++) {
		const struct asked *a = &k->asked[i];
		char **all;

		if (a->event[0]) {
			if (tracefs_event_file_exists(k->inst, a->system, a->event, "format"))
				continue;
			errmsg("record", "--kernel: this kernel has no event %s:%s (see %s/events)",
			       a->system, a->event, tracefs_tracing_dir());
			return EXIT_USAGE;
		}
		if ((all = tracefs_system_events(NULL, a->system))) {
			tracefs_list_free(all);
			continue;
		}
		errmsg("record", "--kernel: this kernel has no %s events (see %s/events)", a->system,
		       tracefs_tracing_dir());
		return EXIT_USAGE;
	}
	return 0;
}

/* ---- start and stop ---------------------------------------------------- */

/* tracefs mounted (mounted here if it is not), and ours to change. */
static int tracefs_ready(void)
{
	const char *dir = NULL;
	char inst[4096];

	if (geteuid() != 0) {
		errmsg("record", "--kernel needs root (tracefs is root's): run bprint record as root, "
				 "or leave --kernel out");
		return EXIT_USAGE;
	}
	/* mounted where it is not (libtracefs' own mounting keeps a copy of the path) */
	if (access(TRACEFS_MOUNT "/instances", F_OK) != 0 &&
	    mount("nodev", TRACEFS_MOUNT, "tracefs", 0, NULL) != 0 && errno != EBUSY) {
		errmsg("record", "--kernel: no tracefs: mount -t tracefs nodev %s: %s (is "
				 "CONFIG_FTRACE off?)", TRACEFS_MOUNT, strerror(errno));
		return EXIT_USAGE;
	}
	if (!(dir = tracefs_tracing_dir())) {
		errmsg("record", "--kernel: no tracefs found (is CONFIG_FTRACE off?)");
		return EXIT_USAGE;
	}
	snprintf(inst, sizeof(inst), "%s/instances", dir);
	if (access(inst, W_OK) != 0) {
		errmsg("record", "--kernel: cannot make tracefs instances in %s: %s (run as root)",
		       inst, strerror(errno));
		return EXIT_USAGE;
	}
	return 0;
}

static int set_up(struct kernel_rec *k, const char *buffer)
{
	size_t bytes = bp_record_parse_size(buffer ? buffer : DEFAULT_BUFFER);

	if (!clock_offered(k->inst, k->trace_clock)) {
		errmsg("record", "--kernel: this kernel has no trace clock %s (for bprint's %s): "
				 "try --clock=mono", k->trace_clock, k->clock);
		return EXIT_USAGE;
	}
	if (events_exist(k))
		return EXIT_USAGE;
	if (tracefs_instance_file_write(k->inst, "trace_clock", k->trace_clock) < 0 ||
	    tracefs_instance_set_buffer_size(k->inst, bytes / 1024, -1) < 0) {
		errmsg("record", "--kernel: cannot set the instance's clock or buffer: %s",
		       strerror(errno));
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < k->nasked; i++)
		if (tracefs_event_enable(k->inst, k->asked[i].system,
					 k->asked[i].event[0] ? k->asked[i].event : NULL) < 0) {
			errmsg("record", "--kernel: cannot enable %s:%s: %s", k->asked[i].system,
			       k->asked[i].event[0] ? k->asked[i].event : "*", strerror(errno));
			return EXIT_USAGE;
		}
	return 0;
}

static int open_cpus(struct kernel_rec *k)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	k->page_size = (uint32_t)getpagesize();
	k->ncpus = n > 0 ? (uint32_t)n : 1;
	k->cpu = calloc(k->ncpus, sizeof(*k->cpu));
	k->page = malloc(k->page_size);
	if (!k->cpu || !k->page)
		return out_of_memory();
	for (uint32_t c = 0; c < k->ncpus; c++) {
		char file[64];
		char *path;

		snprintf(file, sizeof(file), "per_cpu/cpu%u/trace_pipe_raw", c);
		path = tracefs_instance_get_file(k->inst, file);
		k->cpu[c].fd = path ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
		tracefs_put_tracing_file(path);
		k->cpu[c].batch = calloc(1, bp_kpages_size(BATCH_PAGES, k->page_size));
		if (!k->cpu[c].batch)
			return out_of_memory();
	}
	return 0;
}

bool kernel_rec_buffer_ok(const char *s)
{
	size_t n = bp_record_parse_size(s);

	return n >= 4096 && n <= (1ull << 34);
}

int kernel_rec_start(struct kernel_rec **out, const char *list, const char *buffer,
		     const char *clock)
{
	struct kernel_rec *k = calloc(1, sizeof(*k));
	int rc;

	*out = NULL;
	if (!k)
		return out_of_memory();
	if ((rc = parse_list(k, list)) != 0 || (rc = tracefs_ready()) != 0)
		goto fail;
	k->clock = clock;
	if (!bp_record_clock_known(clock) || !(k->trace_clock = bp_record_kernel_clock(clock))) {
		rc = usage_error("record", "--kernel needs a clock the kernel has too: tsc, mono, "
					   "mono_raw or boot, not %s", clock);
		goto fail;
	}
	remove_stale();
	snprintf(k->name, sizeof(k->name), INSTANCE_PREFIX "%ld", (long)getpid());
	if (!(k->inst = tracefs_instance_create(k->name))) {
		errmsg("record", "--kernel: cannot make tracefs instance %s: %s", k->name,
		       strerror(errno));
		rc = EXIT_USAGE;
		goto fail;
	}
	if ((rc = set_up(k, buffer)) != 0 || (rc = open_cpus(k)) != 0)
		goto fail;
	*out = k;
	return 0;
fail:
	kernel_rec_stop(k);
	return rc;
}

void kernel_rec_set_root(struct kernel_rec *k, pid_t root)
{
	k->root = root;
}

void kernel_rec_stop(struct kernel_rec *k)
{
	if (!k)
		return;
	for (uint32_t c = 0; k->cpu && c < k->ncpus; c++) {
		if (k->cpu[c].fd >= 0)
			close(k->cpu[c].fd);
		free(k->cpu[c].batch);
	}
	if (k->inst) {
		tracefs_instance_file_write(k->inst, "tracing_on", "0");
		if (tracefs_instance_destroy(k->inst) != 0)
			errmsg("record", "--kernel: tracefs instance %s not removed: %s", k->name,
			       strerror(errno));
		tracefs_instance_free(k->inst);
	}
	free(k->cpu);
	free(k->page);
	free(k->asked);
	free(k);
}

/* ---- the formats chunk ------------------------------------------------- */

static int put_event(struct kernel_rec *k, struct bp_kformats *g, const char *system,
		     const char *event)
{
	char *text = tracefs_event_file_read(k->inst, system, event, "format", NULL);
	int rc = text ? bp_kformats_add(g, BP_KFORMATS_EVENT, system, text) : 0;

	free(text);
	return rc;
}

/* Every asked event's format after the page header's, into g. */
static int collect_formats(struct kernel_rec *k, struct bp_kformats *g)
{
	char *header = tracefs_instance_file_read(k->inst, "events/header_page", NULL);
	int rc = header ? bp_kformats_add(g, BP_KFORMATS_HEADER_PAGE, "header", header) : -1;

	free(header);
	for (size_t i = 0; i < k->nasked && !rc; i++) {
		char **all;

		if (k->asked[i].event[0]) {
			rc = put_event(k, g, k->asked[i].system, k->asked[i].event);
			continue;
		}
		all = tracefs_system_events(NULL, k->asked[i].system);
		for (size_t j = 0; all && all[j] && !rc; j++)
			rc = put_event(k, g, k->asked[i].system, all[j]);
		tracefs_list_free(all);
	}
	return rc;
}

static int write_formats(struct kernel_rec *k, struct bp_drain_file *f)
{
	struct bp_kformats *g = bp_kformats_new();
	int rc = -1;

	if (g && collect_formats(k, g) == 0)
		rc = bp_drain_put_kformats(f, g, k->ncpus, k->page_size, k->clock, (int32_t)k->root);
	bp_kformats_free(g);
	return rc;
}

/* ---- the pages --------------------------------------------------------- */

/* The page's lost events, from its header: into the CPU's counters. */
static void count_missed(struct kernel_rec *k, struct kcpu *c, const unsigned char *page)
{
	uint64_t count;

	switch (bp_kernel_page_missed(page, k->page_size, &count)) {
	case 1:
		c->batch_missed += count;
		break;
	case 2:
		c->batch_missed_pages++;
		break;
	}
}

static int flush_cpu(struct kernel_rec *k, struct bp_drain_file *f, uint32_t cpu)
{
	struct kcpu *c = &k->cpu[cpu];

	if (!c->n)
		return 0;
	if (bp_drain_put_kpages(f, c->batch, cpu, c->n, k->page_size, c->seq, c->batch_missed,
				c->batch_missed_pages) != 0)
		return -1;
	c->seq += c->n;
	c->pages += c->n;
	c->missed += c->batch_missed;
	c->missed_pages += c->batch_missed_pages;
	c->n = 0;
	c->batch_missed = c->batch_missed_pages = 0;
	return 0;
}

/* Read CPU cpu's pages until it has none: the pages read, or -1. */
static long read_cpu(struct kernel_rec *k, struct bp_drain_file *f, uint32_t cpu, uint64_t now)
{
	struct kcpu *c = &k->cpu[cpu];
	long got = 0;

	while (c->fd >= 0) {
		ssize_t n = read(c->fd, k->page, k->page_size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= (ssize_t)(8 + sizeof(long)))
			break;	/* EAGAIN: nothing more now */
		memset(k->page + n, 0, k->page_size - (size_t)n);
		if (!c->n)
			c->first_ns = now;
		count_missed(k, c, k->page);
		memcpy(bp_kpages_page(c->batch, c->n, k->page_size), k->page, k->page_size);
		c->n++;
		got++;
		if (c->n == BATCH_PAGES && flush_cpu(k, f, cpu) != 0)
			return -1;
	}
	if (c->n && now - c->first_ns >= FLUSH_NS && flush_cpu(k, f, cpu) != 0)
		return -1;
	return got;
}

/* The kernel's own count of a CPU's lost and read events (per_cpu/cpuN/stats). */
static void cpu_stats(struct kernel_rec *k, uint32_t cpu)
{
	char file[64], *text, *line, *save = NULL;
	struct kcpu *c = &k->cpu[cpu];

	snprintf(file, sizeof(file), "per_cpu/cpu%u/stats", cpu);
	if (!(text = tracefs_instance_file_read(k->inst, file, NULL)))
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long v;

		if (sscanf(line, "overrun: %llu", &v) == 1)
			c->overrun = v;
		else if (sscanf(line, "dropped events: %llu", &v) == 1)
			c->dropped = v;
	}
	free(text);
}

long kernel_rec_pass(void *arg, struct bp_drain_file *f, bool final)
{
	struct kernel_rec *k = arg;
	uint64_t now = clock_ns(CLOCK_MONOTONIC);
	long work = 0;

	if (k->failed || (!final && now - k->last_read < READ_EVERY_NS))
		return 0;
	k->last_read = now;
	if (!k->formats_written) {
		if (write_formats(k, f) != 0) {
			k->failed = true;
			errmsg("record", "--kernel: the kernel's event formats could not be written");
			return 0;
		}
		k->formats_written = true;
	}
	if (final)	/* no more events: what the buffers hold is the end */
		tracefs_instance_file_write(k->inst, "tracing_on", "0");
	for (uint32_t c = 0; c < k->ncpus; c++) {
		long n = read_cpu(k, f, c, final ? UINT64_MAX / 2 : now);

		if (n < 0 || (final && flush_cpu(k, f, c) != 0)) {
			k->failed = true;
			return work;
		}
		if (final)
			cpu_stats(k, c);
		work += n;
	}
	return work;
}

void kernel_rec_summary(const struct kernel_rec *k)
{
	uint64_t pages = 0, missed = 0, missed_pages = 0;

	for (uint32_t c = 0; c < k->ncpus; c++) {
		pages += k->cpu[c].pages;
		missed += k->cpu[c].missed;
		missed_pages += k->cpu[c].missed_pages;
	}
	fprintf(stderr, "%s: kernel: %llu pages from %u CPUs (clock %s), %llu events lost", prog,
		(unsigned long long)pages, k->ncpus, k->trace_clock, (unsigned long long)missed);
	if (missed_pages)
		fprintf(stderr, " and %llu pages with a loss not counted",
			(unsigned long long)missed_pages);
	for (uint32_t c = 0; c < k->ncpus && (missed || missed_pages); c++)
		fprintf(stderr, "%s cpu%u %llu", c ? "," : ";", c,
			(unsigned long long)(k->cpu[c].missed + k->cpu[c].missed_pages));
	for (uint32_t c = 0; c < k->ncpus; c++)
		if (k->cpu[c].overrun || k->cpu[c].dropped)
			fprintf(stderr, "; cpu%u: the kernel counts %llu overwritten, %llu dropped", c,
				(unsigned long long)k->cpu[c].overrun,
				(unsigned long long)k->cpu[c].dropped);
	if (k->failed)
		fprintf(stderr, "; the kernel stream stopped early (a write failed)");
	fputc('\n', stderr);
}

#else /* built without libtracefs */

#include <bprint/record.h>

#include <stdlib.h>

int kernel_rec_start(struct kernel_rec **out, const char *list, const char *buffer,
		     const char *clock)
{
	(void)list;
	(void)buffer;
	(void)clock;
	*out = NULL;
	errmsg("record", "--kernel: this bprint was built without libtracefs");
	return EXIT_USAGE;
}

void kernel_rec_set_root(struct kernel_rec *k, pid_t root)
{
	(void)k;
	(void)root;
}

long kernel_rec_pass(void *arg, struct bp_drain_file *first, bool final)
{
	(void)arg;
	(void)first;
	(void)final;
	return 0;
}

void kernel_rec_summary(const struct kernel_rec *k)
{
	(void)k;
}

void kernel_rec_stop(struct kernel_rec *k)
{
	(void)k;
}

bool kernel_rec_buffer_ok(const char *s)
{
	return bp_record_parse_size(s) >= 4096;
}

#endif
