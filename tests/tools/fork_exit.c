/*
 * The traced program of fork_exit.sh: a child forked after a record, that
 * traces and ends with _exit() (as a server's background-save child does),
 * so that its FILE.PID is never closed; then, if asked ("wait"), one that
 * stays alive until its parent's stdin closes.
 *
 *   fork_exit [wait]
 */
#include <bprint.h>

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int status;
	pid_t child;

	trace_printk("parent before %d", 1);
	if ((child = fork()) == 0) {
		trace_printk("child %d", 2);
		_exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child)
		return 1;
	if (argc > 1 && !strcmp(argv[1], "wait") && (child = fork()) == 0) {
		char c;

		trace_printk("waiting child %d", 3);
		printf("%d\n", (int)getpid());
		fflush(stdout);
		while (read(0, &c, 1) > 0)
			;
		_exit(0);
	}
	trace_printk("parent after %d", 4);
	return 0;
}
