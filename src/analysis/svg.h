/*
 * analysis/svg.h - histograms as a standalone SVG 1.1 document that a
 * browser shows: axes with ticks and labels (the unit on the x axis, a
 * log2 scale when the buckets are powers of two), one series per group
 * (filled bars for one, step outlines in distinct colours and a legend for
 * more), the title on top.  No script, no external resource.
 */
#ifndef BP_ANALYSIS_SVG_H
#define BP_ANALYSIS_SVG_H

#include "analysis/dist.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define BP_SVG_MAX_SERIES 10	/* the largest groups are drawn, the rest named in a note */

struct bp_svg_series {
	const char *name;		/* the group's key as text */
	const struct bp_bucket *b;	/* its buckets, lowest first */
	size_t n;
};

struct bp_svg_plot {
	const char *title;
	const char *xlabel;		/* e.g. "latency (ns)" */
	const char *ylabel;		/* e.g. "records" */
	bool logx;			/* log2 buckets */
	bool time_ns;			/* values are nanoseconds: ticks as 1.5us, 2ms */
	size_t omitted;			/* groups not drawn, for the note */
};

/* Write the document; false on a write error. */
bool bp_svg_histogram(FILE *out, const struct bp_svg_plot *p, const struct bp_svg_series *s,
		      size_t ns);

#endif /* BP_ANALYSIS_SVG_H */
