/*
 * The demo: format a few messages directly and through the binary round
 * trip (pack at "trace time", format at "read time"), as the tracer will.
 */
#include <bprint/format.h>

#include <stdio.h>

int main(void)
{
	uint32_t block[64];
	char text[256];
	size_t words;

	bp_snprintf(text, sizeof(text), "This is the timer interrupt: %llu", 4295892411ULL);
	printf("direct:     %s\n", text);

	words = bp_bin_printf(block, 64, "%s:%d %08x %-10s|%5.2f", "main.c", 42, 0xbeefu, "left", 3.14159);
	bp_bstr_printf(text, sizeof(text), "%s:%d %08x %-10s|%5.2f", block, words);
	printf("round trip: %s  (%zu bytes of arguments)\n", text, words * 4);
	return 0;
}
