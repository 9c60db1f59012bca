/*
 * analysis/svg.h - the plots of hist and latency as one standalone SVG 1.1
 * document that a browser shows, no script, no external resource.  One
 * panel under the other, each with axes, ticks and labels:
 *
 *   histogram    one series per group: filled bars for one, step outlines
 *                in distinct colours and widths for more (the largest group
 *                widest and underneath, so that none hides another), and a
 *                legend; the x axis a log2 scale when the buckets are powers
 *                of two, the y axis logarithmic when the counts span more
 *                than two decades (a tail of a few records stays visible)
 *   percentiles  value against percentile on a 1 / (1 - p) scale (the
 *                HdrHistogram plot: p50, p90, p99, p99.9 ... equally apart),
 *                a line per group, p50 p99 p99.9 p99.99 marked
 *   time         (--every) p50 and p99 of each group per window, solid and
 *                dashed, against the window's start
 *
 * and, apart (bp_svg_stacked), one horizontal bar a group whose parts are
 * stacked left to right: latency --sched's running, runnable and blocked.
 *
 * A value axis is logarithmic when its values are all positive and span
 * more than two decades.  The labels of an axis are written one way: all
 * with a k/M/G suffix, or none; durations each in its unit (950ns, 1.5us).
 */
#ifndef BP_ANALYSIS_SVG_H
#define BP_ANALYSIS_SVG_H

#include "analysis/dist.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define BP_SVG_MAX_SERIES 10	/* the largest groups are drawn, the rest named in a note */

/* A point of a line: x (a percentile's q, or seconds), y (a value). */
struct bp_svg_point {
	double x;
	long double y;
};

struct bp_svg_series {
	const char *name;		/* the group's key as text */
	const struct bp_bucket *b;	/* its buckets, lowest first */
	size_t n;
	const struct bp_svg_point *pct;	/* its percentile curve, q ascending (or NULL) */
	size_t npct;
	const struct bp_svg_point *p50, *p99;	/* --every: per window (or NULL) */
	size_t ntime;
};

struct bp_svg_plot {
	const char *title;
	const char *xlabel;		/* e.g. "latency (ns)" */
	const char *ylabel;		/* e.g. "records" */
	bool logx;			/* log2 buckets */
	bool time_ns;			/* values are nanoseconds: ticks as 1.5us, 2ms */
	size_t omitted;			/* groups not drawn, for the note */
	const char *time_origin;	/* --every: the first window's start, as text */
};

/* Write the document; false on a write error or out of memory. */
bool bp_svg_histogram(FILE *out, const struct bp_svg_plot *p, const struct bp_svg_series *s,
		      size_t ns);

#define BP_SVG_MAX_PARTS 4

/* A bar: its group's name and its parts' values, left to right. */
struct bp_svg_bar {
	const char *name;
	long double part[BP_SVG_MAX_PARTS];
};

/* Write a document of stacked bars, one a group (at most
 * BP_SVG_MAX_SERIES: the rest named in a note), each part in its own
 * colour and named in the legend; each part's rect carries its value in
 * a data-value attribute.  Values are durations when time_ns.  False on a
 * write error. */
bool bp_svg_stacked(FILE *out, const char *title, const char *xlabel, bool time_ns,
		    const char *const *part_names, size_t nparts, const struct bp_svg_bar *bars,
		    size_t nbars);

#endif /* BP_ANALYSIS_SVG_H */
