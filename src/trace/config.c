/*
 * Environment variables to struct bp_config.  See config.h.  Every variable
 * is read with secure_getenv(): in a setuid or setgid program (AT_SECURE)
 * the environment is the caller's, who must not pick the files it writes or
 * how it traces, so there bprint keeps its defaults.
 */
#include "trace/config.h"

#include "ring/ring.h"
#include "trace/clock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bp_config bp_config = {
	.buffer_bytes = 1u << 20,
	.retain_bytes = 64u << 20,
	.page_size = BP_RING_PAGE_DEFAULT,
	.mode = BP_RING_OVERWRITE,
	.block_ns = 100000000u,
	.clock = BP_CLOCK_MONO,
	.dump = BP_DUMP_NEVER,
	.prefault = 1,
};

size_t bp_parse_size(const char *s)
{
	char *end;
	unsigned long long n;
	unsigned shift = 0;

	/* digits first: strtoull() would take "-5" as 2^64 - 5, and " 5" too */
	if (!s || *s < '0' || *s > '9')
		return 0;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: break;
	}
	if (*end == 'i' && shift)	/* "1MiB" */
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || n == 0 || n > (SIZE_MAX >> shift))
		return 0;
	return (size_t)n << shift;
}

uint64_t bp_parse_duration(const char *s)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "", 1000000u }, { "ms", 1000000u }, { "us", 1000u }, { "ns", 1u },
		{ "s", 1000000000u },
	};
	char *end;
	unsigned long long n;

	if (!s || *s < '0' || *s > '9')
		return 0;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit))
			return n && n <= UINT64_MAX / units[i].ns ? n * units[i].ns : 0;
	return 0;
}

static void complain(const char *var, const char *value, const char *expected)
{
	fprintf(stderr, "bprint: ignoring %s=%s (expected %s)\n", var, value, expected);
}

/* A size variable: from min to max bytes, or the default is kept. */
static void load_bytes(const char *var, size_t min, size_t max, size_t *dst, const char *expected)
{
	const char *v = secure_getenv(var);
	size_t n;

	if (!v)
		return;
	n = bp_parse_size(v);
	if (n < min || n > max)
		complain(var, v, expected);
	else
		*dst = n;
}

static void load_size(void)
{
	load_bytes("BPRINT_BUFFER_SIZE", 4 * (size_t)bp_config.page_size, BP_RING_BYTES_MAX,
		   &bp_config.buffer_bytes, "a size from 4 pages to 4G, like 64K or 16M");
}

static void load_retain(void)
{
	load_bytes("BPRINT_RETAIN", 1, SIZE_MAX, &bp_config.retain_bytes, "a size, like 64M or 1G");
}

static void load_page_size(void)
{
	const char *v = secure_getenv("BPRINT_PAGE_SIZE");
	size_t n;

	if (!v)
		return;
	n = bp_parse_size(v);
	if (n < 1024 || n > (1u << 16) || (n & (n - 1)))
		complain("BPRINT_PAGE_SIZE", v, "a power of two from 1K to 64K");
	else
		bp_config.page_size = (uint32_t)n;
}

static void load_mode(void)
{
	const char *v = secure_getenv("BPRINT_MODE");
	enum bp_ring_mode mode;

	if (!v)
		return;
	if (bp_ring_mode_parse(v, &mode) == 0)
		bp_config.mode = mode;
	else
		complain("BPRINT_MODE", v, "overwrite, discard or block");
}

static void load_block_timeout(void)
{
	const char *v = secure_getenv("BPRINT_BLOCK_TIMEOUT");
	uint64_t ns;

	if (!v)
		return;
	ns = bp_parse_duration(v);
	if (!ns || ns > 60000000000ull)
		complain("BPRINT_BLOCK_TIMEOUT", v, "a duration up to 60s, like 100ms or 500us");
	else
		bp_config.block_ns = ns;
}

static void load_clock(void)
{
	const char *v = secure_getenv("BPRINT_CLOCK");
	enum bp_clock_id id;

	bp_config.clock = bp_clock_default();
	if (!v)
		return;
	if (bp_clock_parse(v, &id))
		complain("BPRINT_CLOCK", v, "tsc, mono, mono_raw, boot or counter");
	else
		bp_config.clock = id;
}

static void load_dump(void)
{
	const char *v = secure_getenv("BPRINT_DUMP");

	if (!v)
		return;
	if (!strcmp(v, "exit"))
		bp_config.dump = BP_DUMP_EXIT;
	else if (!strcmp(v, "crash"))
		bp_config.dump = BP_DUMP_CRASH;
	else if (!strcmp(v, "both"))
		bp_config.dump = BP_DUMP_BOTH;
	else if (!strcmp(v, "never") || !*v)
		bp_config.dump = BP_DUMP_NEVER;
	else
		complain("BPRINT_DUMP", v, "exit, crash, both or never");
}

/* Set by bprint record with BPRINT_FILE: its process id, digits only. */
static void load_record_pid(void)
{
	const char *v = secure_getenv("BPRINT_RECORD_PID");
	char *end = NULL;
	unsigned long long pid;

	if (!v || !*v)
		return;
	errno = 0;
	pid = *v >= '0' && *v <= '9' ? strtoull(v, &end, 10) : 0;
	if (!pid || *end || errno == ERANGE || pid > INT32_MAX)
		complain("BPRINT_RECORD_PID", v, "a process id, set by bprint record");
	else if (bp_config.file_path)
		bp_config.record_pid = pid;
}

void bp_config_load(void)
{
	const char *v;

	load_page_size();	/* before the size, which is checked against it */
	load_size();
	load_retain();
	load_mode();
	load_block_timeout();
	load_clock();
	load_dump();
	v = secure_getenv("BPRINT_DISABLE");
	if (v && !strcmp(v, "1"))
		bp_config.disabled = 1;
	else if (v && *v && strcmp(v, "0"))
		complain("BPRINT_DISABLE", v, "1 to start with tracing off, or 0");
	v = secure_getenv("BPRINT_PREFAULT");
	if (v && !strcmp(v, "0"))
		bp_config.prefault = 0;
	else if (v && *v && strcmp(v, "1"))
		complain("BPRINT_PREFAULT", v, "0 to leave a new ring's pages to its writer, or 1");
	bp_config.filter = secure_getenv("BPRINT_FILTER");
	bp_config.dump_path = secure_getenv("BPRINT_DUMP_FILE");
	v = secure_getenv("BPRINT_FILE");
	bp_config.file_path = v && *v ? v : NULL;
	load_record_pid();
}
