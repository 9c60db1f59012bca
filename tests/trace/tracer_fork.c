/*
 * tracer_fork: records made before fork() belong to the parent.  The child
 * starts with fresh buffers: it sees only its own records (none of the
 * parent's, nor of the parent's other threads), can read even though
 * another parent thread held the consumer lock at fork time, and its dump
 * shows its own records.  The parent afterwards still has exactly its own.
 */
#include "tracer_check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/wait.h>

#define PARENT_FMT "parent i=%d pid=%d"
#define OTHER_FMT "other thread i=%d"
#define CHILD_FMT "child i=%d pid=%d"
#define NPARENT 500
#define NOTHER 300
#define NCHILD 700

static _Atomic int stage;
static int parent_pid;

/* A parent thread with records of its own, holding the consumer lock across fork(). */
static void *other(void *arg)
{
	struct bprint_reader *r;

	(void)arg;
	for (int i = 0; i < NOTHER; i++)
		trace_printk(OTHER_FMT, i);
	r = bprint_read_begin();	/* consumes nothing: reads no record */
	CHECK(r != NULL);
	atomic_store(&stage, 1);
	while (atomic_load(&stage) != 2)
		tc_sleep_us(100);
	bprint_read_end(r);
	return NULL;
}

struct seen {
	int parent, other, child;
	int bad;
};

static void classify(const struct bprint_event *ev, void *ctx)
{
	struct seen *s = ctx;
	char expect[128];
	int i, pid, len = 0;

	if (sscanf(ev->message, "parent i=%d pid=%d%n", &i, &pid, &len) == 2 &&
	    (size_t)len == ev->message_len) {
		tc_expect(expect, sizeof(expect), PARENT_FMT, s->parent, parent_pid);
		if (strcmp(expect, ev->message) || ev->tid != parent_pid)
			s->bad++;
		s->parent++;
	} else if (sscanf(ev->message, "other thread i=%d%n", &i, &len) == 1 &&
		   (size_t)len == ev->message_len) {
		tc_expect(expect, sizeof(expect), OTHER_FMT, s->other);
		if (strcmp(expect, ev->message))
			s->bad++;
		s->other++;
	} else if (sscanf(ev->message, "child i=%d pid=%d%n", &i, &pid, &len) == 2 &&
		   (size_t)len == ev->message_len) {
		tc_expect(expect, sizeof(expect), CHILD_FMT, s->child, (int)getpid());
		if (strcmp(expect, ev->message) || ev->tid != getpid())
			s->bad++;
		s->child++;
	} else {
		fprintf(stderr, "unexpected record \"%s\"\n", ev->message);
		s->bad++;
	}
}

static int child(void)
{
	struct seen s = { 0, 0, 0, 0 };
	struct bprint_thread_stats st[8] = { BPRINT_THREAD_STATS_INIT };
	char *dump = NULL;
	size_t dump_len = 0;
	FILE *f;
	long n;

	alarm(20);	/* a lock inherited in its taken state would hang us */
	for (int i = 0; i < NCHILD; i++)
		trace_printk(CHILD_FMT, i, (int)getpid());

	/* The dump (snapshot) first: only the child's records. */
	f = open_memstream(&dump, &dump_len);
	CHECK(f != NULL);
	n = bprint_dump_fmt(f, BPRINT_OUTPUT_MSG);
	fclose(f);
	CHECK_EQ(n, NCHILD);
	CHECK(strstr(dump, "parent i=") == NULL);
	CHECK(strstr(dump, "other thread") == NULL);
	free(dump);

	n = tc_drain(classify, &s);
	CHECK_EQ(n, NCHILD);
	CHECK_EQ(s.bad, 0);
	CHECK_EQ(s.parent, 0);
	CHECK_EQ(s.other, 0);
	CHECK_EQ(s.child, NCHILD);
	CHECK_EQ(bprint_stats(st, 8), 1);
	CHECK_EQ(st[0].tid, getpid());
	CHECK_EQ(st[0].written, NCHILD);
	CHECK_EQ(st[0].read, NCHILD);
	return 0;
}

int main(void)
{
	struct seen s = { 0, 0, 0, 0 };
	pthread_t t;
	int status;
	pid_t pid;

	parent_pid = (int)getpid();
	for (int i = 0; i < NPARENT; i++)
		trace_printk(PARENT_FMT, i, parent_pid);
	CHECK_EQ(pthread_create(&t, NULL, other, NULL), 0);
	while (atomic_load(&stage) != 1)
		tc_sleep_us(100);

	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(child());

	atomic_store(&stage, 2);
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		FAIL("child failed: status 0x%x (%s %d)", status,
		     WIFSIGNALED(status) ? "signal" : "exit",
		     WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));

	/* The parent's records are all still there, and none of the child's. */
	CHECK_EQ(tc_drain(classify, &s), NPARENT + NOTHER);
	CHECK_EQ(s.bad, 0);
	CHECK_EQ(s.parent, NPARENT);
	CHECK_EQ(s.other, NOTHER);
	CHECK_EQ(s.child, 0);
	printf("parent %d, other %d records; child verified\n", s.parent, s.other);
	return 0;
}
