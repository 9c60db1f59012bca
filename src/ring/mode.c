/* The ring modes' names (ring.h): the one table that BPRINT_MODE, bprint
 * record --mode and bprint stats read. */
#include "ring/ring.h"

#include <string.h>

static const char *const mode_names[] = {
	[BP_RING_OVERWRITE] = "overwrite",
	[BP_RING_DISCARD] = "discard",
	[BP_RING_BLOCK] = "block",
};

const char *bp_ring_mode_name(uint32_t mode)
{
	return mode < sizeof(mode_names) / sizeof(mode_names[0]) ? mode_names[mode] : NULL;
}

int bp_ring_mode_parse(const char *name, enum bp_ring_mode *mode)
{
	for (uint32_t i = 0; name && i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (!strcmp(name, mode_names[i])) {
			*mode = (enum bp_ring_mode)i;
			return 0;
		}
	return -1;
}
