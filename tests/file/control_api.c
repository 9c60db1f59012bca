/*
 * control_api: bprint/control.h on the program's own live file, whose
 * control thread answers as a traced process's does for `bprint enable`:
 * a site disabled by pattern is off in the states and records nothing
 * until enabled again; a bad pattern, a file without a control thread
 * (its process with one, not serving yet, or none) and a read-only file
 * are refused with their codes.
 *
 * The program traces into a live file of its own (it sets BPRINT_FILE to
 * a new directory's file and executes itself again) and reads it back.
 */
#include "trace/tracer_check.h"

#include <bprint/control.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static __attribute__((noinline)) void ctl_target(int i)
{
	trace_printk("target %d", i);
}

static int never_ended(void *arg)
{
	(void)arg;
	return 0;
}

/* The header's pid (at 24, docs/file-format.md) set to pid. */
static bool write_header_pid(int fd, uint64_t pid)
{
	return pwrite(fd, &pid, sizeof(pid), 24) == (ssize_t)sizeof(pid);
}

/* Records of the site named "target %d" in path. */
static int target_records(const char *path, uint32_t *site)
{
	struct bp_trace_event e = BP_TRACE_EVENT_INIT;
	char err[256];
	struct bp_trace *t = bp_trace_open(path, 0, err, sizeof(err), NULL);
	int n = 0;

	CHECK(t != NULL);
	while (bp_trace_next(t, &e, BP_TRACE_NEXT_NO_MESSAGE) == 1)
		if (e.site && e.site->format && !strcmp(e.site->format, "target %d")) {
			*site = e.site_id;
			n++;
		}
	bp_trace_close(t);
	return n;
}

int main(int argc, char **argv)
{
	const char *path = tc_own_file(argv, "bp-control-api");
	char other[128];
	struct bp_control *c;
	uint8_t *states;
	uint32_t n, site = 0;
	int fd, rc, gate = 0;

	CHECK(argc >= 1);
	ctl_target(1);
	trace_printk("main's own");
	CHECK_EQ(target_records(path, &site), 1);
	CHECK(site != 0);

	CHECK((fd = open(path, O_RDWR | O_CLOEXEC)) >= 0);
	/* the control thread starts with the file: it says so (its version)
	 * once it waits, a moment after the first record; not serving yet
	 * until then */
	for (int tries = 0; !(c = bp_control_open(fd, never_ended, NULL, &rc)) &&
			    rc == BP_CONTROL_E_NOT_YET && tries < 200; tries++)
		usleep(5000);
	if (!c)
		FAIL("bp_control_open: %d", rc);
	CHECK_EQ(rc, 0);

	CHECK_EQ(bp_control_switch(c, 0, "func:ctl_target"), 1);
	CHECK_EQ(bp_control_states(c, &states, &n, &gate), 0);
	CHECK(site < n);
	CHECK_EQ(states[site], 0);
	CHECK_EQ(gate, 1);
	free(states);
	ctl_target(2);	/* off: no record */
	CHECK_EQ(target_records(path, &site), 1);

	CHECK_EQ(bp_control_switch(c, 1, "func:ctl_target"), 1);
	CHECK_EQ(bp_control_states(c, &states, &n, &gate), 0);
	CHECK_EQ(states[site], 1);
	free(states);
	ctl_target(3);
	CHECK_EQ(target_records(path, &site), 2);

	CHECK_EQ(bp_control_switch(c, 0, "nope:x"), BP_CONTROL_E_PATTERN);
	CHECK_EQ(bp_control_switch(c, 0, ""), BP_CONTROL_E_PATTERN);
	CHECK_EQ(bp_control_switch(c, 0, "func:no_such_function_here"), 0);
	bp_control_close(c);
	close(fd);

	/* read-only: no control */
	CHECK((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0);
	CHECK(bp_control_open(fd, NULL, NULL, &rc) == NULL);
	CHECK_EQ(rc, BP_CONTROL_E_DENIED);
	close(fd);

	/* a header nobody serves (version 0) */
	snprintf(other, sizeof(other), "%s.zero", path);
	CHECK((fd = open(other, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) >= 0);
	CHECK_EQ(ftruncate(fd, 4096), 0);
	CHECK(bp_control_open(fd, NULL, NULL, &rc) == NULL);
	CHECK_EQ(rc, BP_CONTROL_E_NONE);
	/* the same, naming a process that has a control thread (this one,
	 * whose thread serves its own file, not this one): not serving yet */
	CHECK(write_header_pid(fd, (uint64_t)getpid()));
	CHECK(bp_control_open(fd, NULL, NULL, &rc) == NULL);
	CHECK_EQ(rc, BP_CONTROL_E_NOT_YET);
	/* naming one without a control thread (the parent, the test driver) */
	CHECK(write_header_pid(fd, (uint64_t)getppid()));
	CHECK(bp_control_open(fd, NULL, NULL, &rc) == NULL);
	CHECK_EQ(rc, BP_CONTROL_E_NONE);
	close(fd);
	unlink(other);

	tc_own_file_remove(path);
	return 0;
}
