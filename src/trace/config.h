/*
 * The tracer's configuration, read once from the environment at start-up
 * (README.md documents every variable and its default).  A bad value is
 * reported once on stderr and the default kept: tracing must never stop a
 * program from starting.
 */
#ifndef BP_TRACE_CONFIG_H
#define BP_TRACE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

enum bp_dump_when {
	BP_DUMP_NEVER = 0,
	BP_DUMP_EXIT = 1,
	BP_DUMP_CRASH = 2,
	BP_DUMP_BOTH = 3,
};

struct bp_config {
	size_t buffer_bytes;	/* BPRINT_BUFFER_SIZE, per thread: 1 MiB */
	size_t retain_bytes;	/* BPRINT_RETAIN, exited threads' rings in all: 64 MiB */
	uint32_t page_size;	/* BPRINT_PAGE_SIZE: 4096 */
	uint32_t mode;		/* BPRINT_MODE: overwrite (enum bp_ring_mode) */
	uint64_t block_ns;	/* BPRINT_BLOCK_TIMEOUT, block mode's longest wait: 100 ms */
	uint32_t clock;		/* BPRINT_CLOCK: tsc where usable, else mono */
	uint32_t dump;		/* BPRINT_DUMP: never */
	int disabled;		/* BPRINT_DISABLE=1: start with tracing off */
	int prefault;		/* BPRINT_PREFAULT: 1, a helper thread faults in
				 * each new ring's pages ahead of its writer */
	const char *filter;	/* BPRINT_FILTER: none */
	const char *dump_path;	/* BPRINT_DUMP_FILE: stderr */
	const char *file_path;	/* BPRINT_FILE: none (rings in memory only) */
	uint64_t record_pid;	/* BPRINT_RECORD_PID: set by bprint record, whose
				 * drainer will consume the file's rings */
};

/*
 * What a traced program sends bprint record (sigqueue() to record_pid, the
 * value its pid) when it cannot make its live file: its records are in no
 * file, and record, which cannot see a file that was never made, must
 * know.  A signal needs no descriptor (the failure may be EMFILE), and
 * SIGURG is ignored by default, so that a process that took a dead
 * recorder's pid is not harmed by it.
 */
#define BP_RECORD_NO_FILE_SIGNAL SIGURG

extern struct bp_config bp_config;

/* Fill bp_config from the environment.  Called once, at start-up. */
void bp_config_load(void);

/* "100ms", "500us", "2s", "250000ns", "100" (ms): nanoseconds, or 0 if malformed. */
uint64_t bp_parse_duration(const char *s);

/* The largest ring BPRINT_BUFFER_SIZE (and bprint record -b) may ask for:
 * a fixed 4 GiB rather than a share of RAM, so that what a program gets
 * does not depend on the machine it runs on (and a file backing checks its
 * free space anyway, writer_rings.c). */
#define BP_RING_BYTES_MAX (SIZE_MAX > 0xffffffffu ? (size_t)4 << 30 : SIZE_MAX / 2)

/* "64K", "1M", "2G", "4096": bytes, or 0 if malformed or past SIZE_MAX. */
size_t bp_parse_size(const char *s);

#endif /* BP_TRACE_CONFIG_H */
