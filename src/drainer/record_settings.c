/*
 * The facts about a traced program's settings that bprint/record.h gives
 * a recorder (its options are checked before the program starts, by the
 * rules the program will read them with), and its safe opening of the
 * files it writes: each a call into the runtime's own rule, so that the
 * two cannot drift apart.
 */
#include <bprint/record.h>

#include "file/layout.h"
#include "ring/ring.h"
#include "trace/clock.h"
#include "trace/config.h"
#include "trace/safe_open.h"

#include <string.h>

_Static_assert(BP_RECORD_OPEN_RDWR == BP_OPEN_RDWR && BP_RECORD_OPEN_REPLACE == BP_OPEN_REPLACE &&
		       BP_RECORD_OPEN_KEEP == BP_OPEN_KEEP &&
		       BP_RECORD_OPEN_PRIVATE == BP_OPEN_PRIVATE,
	       "bp_record_open_output() takes safe_open.h's flags as they are");
_Static_assert(sizeof(BP_FILE_MAGIC) == 8, "the magic is 8 bytes with its NUL");

size_t bp_record_parse_size(const char *s)
{
	return bp_parse_size(s);
}

uint64_t bp_record_parse_duration(const char *s)
{
	return bp_parse_duration(s);
}

size_t bp_record_buffer_max(void)
{
	return BP_RING_BYTES_MAX;
}

bool bp_record_mode_known(const char *name)
{
	enum bp_ring_mode mode;

	return bp_ring_mode_parse(name, &mode) == 0;
}

bool bp_record_clock_known(const char *name)
{
	enum bp_clock_id id;

	return bp_clock_parse(name, &id) == 0;
}

const char *bp_record_clock_default(void)
{
	return bp_clock_name(bp_clock_default());
}

int bp_record_open_output(const char *path, unsigned how, const char **why)
{
	return bp_open_output(path, how, why);
}

bool bp_record_is_trace(const void *buf, size_t n)
{
	return n >= sizeof(BP_FILE_MAGIC) && memcmp(buf, BP_FILE_MAGIC, sizeof(BP_FILE_MAGIC)) == 0;
}
