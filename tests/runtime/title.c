/*
 * rt_title SECONDS: a program that rewrites its process title as servers
 * do (its environment and arguments overwritten in place, so that
 * /proc/PID/environ no longer holds BPRINT_FILE) and leaves its working
 * directory, then traces "title i=N" every millisecond for SECONDS, or
 * until SIGTERM.  runtime_tail.sh follows it with bprint tail PID.
 */
#define _POSIX_C_SOURCE 200809L
#include <bprint.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* The strings of argv and environ are one block: wipe it, keep a title. */
static void set_title(char **argv, const char *title)
{
	char *start = argv[0], *end = argv[0];

	for (char **a = argv; *a; a++)
		end = *a + strlen(*a) + 1;
	for (char **e = environ; *e; e++)
		if (*e + strlen(*e) + 1 > end)
			end = *e + strlen(*e) + 1;
	memset(start, 0, (size_t)(end - start));
	strncpy(start, title, (size_t)(end - start) - 1);
}

int main(int argc, char **argv)
{
	long ms = (argc > 1 ? atol(argv[1]) : 10) * 1000;
	struct timespec one = { 0, 1000000 };

	signal(SIGTERM, on_term);
	trace_printk("title start");
	set_title(argv, "rt_title: serving");
	if (chdir("/") != 0)
		return 2;
	for (long i = 0; i < ms && !stop; i++) {
		trace_printk("title i=%ld", i);
		nanosleep(&one, NULL);
	}
	return 0;
}
