/*
 * rt_fork N: a program that forks as servers do (issue 19, item 6): the
 * parent traces N records ("parent i=I"), forks a child that traces first
 * from a signal handler ("child handler"), then N records ("child i=I"),
 * and forks a grandchild that traces N / 2 ("grandchild i=I"); then the
 * parent forks a child that only execs (true) and traces N more ("parent
 * i=I", I from N).  Children leave with _exit(), as a fork child should.
 * Prints "child PID" and "grandchild PID" for runtime_fork.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include <bprint.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_usr1(int sig)
{
	(void)sig;
	trace_printk("child handler");
}

static void trace_n(const char *who, int from, int n)
{
	for (int i = from; i < from + n; i++)
		trace_printk("%s i=%d", who, i);
}

static pid_t spawn(int n, int *fds)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	raise(SIGUSR1);		/* the child's first trace: from a handler */
	trace_n("child", 0, n);
	pid = fork();
	if (pid == 0) {
		trace_n("grandchild", 0, n / 2);
		_exit(0);
	}
	if (write(fds[1], &pid, sizeof(pid)) != (ssize_t)sizeof(pid) || waitpid(pid, NULL, 0) != pid)
		_exit(1);
	_exit(0);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, fds[2], status;
	pid_t child, grandchild, execd;

	signal(SIGUSR1, on_usr1);
	if (pipe(fds) != 0)
		return 2;
	trace_n("parent", 0, n);
	child = spawn(n, fds);
	if (child < 0 || read(fds[0], &grandchild, sizeof(grandchild)) != (ssize_t)sizeof(grandchild) ||
	    waitpid(child, &status, 0) != child || status != 0)
		return 3;
	execd = fork();
	if (execd == 0) {
		execlp("true", "true", (char *)NULL);
		_exit(127);
	}
	if (execd < 0 || waitpid(execd, &status, 0) != execd || status != 0)
		return 4;
	trace_n("parent", n, n);
	printf("child %d\ngrandchild %d\n", (int)child, (int)grandchild);
	return 0;
}
