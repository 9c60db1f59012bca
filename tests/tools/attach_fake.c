/*
 * A process of the attach tests (attach.sh) that holds what a libbprint of
 * another layout would: shared memory of bprint's name whose header says
 * trace format 99.0.  It does not link libbprint.
 *
 *   attach_fake READY     READY is created once the memory is there;
 *                         runs until SIGTERM
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd = memfd_create("bprint-trace", MFD_CLOEXEC);
	unsigned char hdr[4096];
	uint16_t major = 99, minor = 0;
	uint64_t pid = (uint64_t)getpid();
	FILE *f;

	if (argc != 2 || fd < 0)
		return 2;
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, "BPTRACE", 8);
	memcpy(hdr + 8, &major, 2);
	memcpy(hdr + 10, &minor, 2);
	hdr[12] = 1;			/* byte order, word size: as 1.x has them */
	hdr[13] = 8;
	memcpy(hdr + 24, &pid, 8);	/* the pid, where 1.x has it */
	if (write(fd, hdr, sizeof(hdr)) != (ssize_t)sizeof(hdr) || !(f = fopen(argv[1], "w")) ||
	    fclose(f) != 0)
		return 2;
	for (;;)
		pause();	/* SIGTERM ends it */
}
