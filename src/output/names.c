/* The exporters' event names (names.h). */
#include "output/names.h"

#include <bprint.h>

const char *bp_out_site_name(const struct bprint_site *site, char *buf)
{
	size_t n = 0;

	if (!site)
		return "unknown site";
	if (site->func && site->func[0])
		return site->func;
	if (!site->format)
		return "trace_printk";
	while (n < BP_OUT_NAME_MAX - 1 && (unsigned char)site->format[n] >= 0x20 &&
	       site->format[n] != 0x7f)
		n++;
	if (n == 0)
		return "trace_printk";
	for (size_t i = 0; i < n; i++)
		buf[i] = site->format[i];
	buf[n] = '\0';
	return buf;
}
