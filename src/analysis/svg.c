/*
 * Plots as SVG (analysis/svg.h).
 *
 * Log2 buckets are drawn one slot each, in the order of their bounds, over
 * the union of every series' buckets: on a log2 scale a power-of-two
 * bucket is one unit wide, so the slots are that scale (and negative
 * buckets need no special case).  Linear buckets are drawn at their values.
 * The other axes are a struct axis: linear, or log10 of the values.
 */
#include "analysis/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W	960.0
#define HEAD	44.0	/* the title, above the panels */
#define PANEL	480.0	/* a panel's height */
#define LEFT	84.0
#define GAP	16.0	/* above a panel's plot area */
#define BOTTOM	76.0
#define RIGHT_ONE	24.0
#define RIGHT_MANY	220.0

static const char *const palette[BP_SVG_MAX_SERIES] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22",
};

/* Text escaped for XML. */
static void xml_text(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c == '&')
			fputs("&amp;", out);
		else if (c == '"')
			fputs("&quot;", out);
		else if (c < 0x20)
			fputc(' ', out);	/* XML 1.0 allows no control characters */
		else
			fputc(c, out);
	}
}

/* ---- axes --------------------------------------------------------------- */

/* One axis: its pixels, its range in units (values, or their log10). */
struct axis {
	double p0, p1;			/* the pixels of lo and hi */
	long double lo, hi;
	bool log;
	long double first;		/* log: the first tick (10^first) */
	bool time_ns;			/* labels as durations */
	bool si;			/* labels with a k/M/G suffix, all of them */
};

/* A tick label, the axis's one way. */
static void tick_label(char *buf, size_t size, long double v, const struct axis *a)
{
	static const char *const si[] = { "", "k", "M", "G", "T", "P", "E" };
	static const char *const tu[] = { "ns", "us", "ms", "s" };
	size_t k = 0;

	if (a->time_ns) {
		while (k < 3 && fabsl(v) >= 1000)
			v /= 1000, k++;
		snprintf(buf, size, "%.3Lg%s", v, tu[k]);
	} else if (!a->si) {
		snprintf(buf, size, v == rintl(v) ? "%.0Lf" : "%.3Lg", v);
	} else {
		while (k < 6 && fabsl(v) >= 1000)
			v /= 1000, k++;
		snprintf(buf, size, "%.3Lg%s", v, si[k]);
	}
}

/* The axis over values [min, max]: log10 when they are positive and span
 * more than two decades (and may), else linear from 0 (or min if below). */
static void axis_fit(struct axis *a, long double min, long double max, bool may_log, bool time_ns)
{
	a->time_ns = time_ns;
	a->si = fabsl(max) >= 10000 || fabsl(min) >= 10000;
	a->log = may_log && min > 0 && max / min > 100;
	if (a->log) {	/* the least value a little above the start: 1 is not 0 */
		a->first = ceill(log10l(min) - 1e-9L);
		a->lo = log10l(min) - 0.3L;
		a->hi = ceill(log10l(max) - 1e-9L);
	} else {
		a->lo = min < 0 ? min : 0;
		a->hi = max + (max - a->lo) / 20;
	}
	if (!(a->hi > a->lo))
		a->hi = a->lo + 1;
}

/* The pixel of value v (log: values at or below 0 at the axis's start). */
static double px(const struct axis *a, long double v)
{
	long double u = a->log ? (v > 0 ? log10l(v) : a->lo) : v;

	return a->p0 + (double)((u - a->lo) / (a->hi - a->lo)) * (a->p1 - a->p0);
}

/* A round step for about n ticks over a range. */
static double nice_step(double range, int n)
{
	double raw = range / n, p = pow(10, floor(log10(raw))), m = raw / p;

	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/* Ticks of a value axis: powers of ten, or round steps; fn gets each. */
static void ticks(const struct axis *a, void (*fn)(void *arg, long double v), void *arg)
{
	if (a->log) {
		for (long double e = a->first; e <= a->hi; e++)
			fn(arg, powl(10, e));
		return;
	}
	long double step = nice_step((double)(a->hi - a->lo), 6);

	for (long double v = ceill(a->lo / step) * step; v <= a->hi + step / 1e6; v += step)
		fn(arg, fabsl(v) < step / 1e6 ? 0 : v);
}

/* A panel's plot area, its axes, and where it writes. */
struct panel {
	FILE *out;
	double x0, x1, y0, y1;
	struct axis x, y;		/* x unused by the histogram's log2 slots */
};

static void y_tick(void *arg, long double v)
{
	struct panel *p = arg;
	char label[32];
	double y = px(&p->y, v);

	tick_label(label, sizeof(label), v, &p->y);
	fprintf(p->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			"<text class=\"ytick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
		p->x0, y, p->x1, y, p->x0 - 6, y + 4, label);
}

static void x_tick(void *arg, long double v)
{
	struct panel *p = arg;
	char label[32];
	double x = px(&p->x, v);

	tick_label(label, sizeof(label), v, &p->x);
	fprintf(p->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
			"<text class=\"xtick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
		x, p->y0, x, p->y1, x, p->y1 + 18, label);
}

/* The frame, the y ticks, the axis titles; the caller's x ticks follow
 * in the labels' group, which the caller closes. */
static void frame(struct panel *p, const char *xlabel, const char *ylabel)
{
	fprintf(p->out, "<g stroke=\"#000\" stroke-width=\"1\">\n"
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n"
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n</g>\n",
		p->x0, p->y1, p->x1, p->y1, p->x0, p->y0, p->x0, p->y1);
	fputs("<g font-family=\"sans-serif\" font-size=\"12\" fill=\"#000\">\n", p->out);
	ticks(&p->y, y_tick, p);
	fprintf(p->out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (p->x0 + p->x1) / 2,
		p->y1 + BOTTOM - 12);
	xml_text(p->out, xlabel);
	fprintf(p->out, "</text>\n<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" "
			"transform=\"rotate(-90 16 %.1f)\">", (p->y0 + p->y1) / 2, (p->y0 + p->y1) / 2);
	xml_text(p->out, ylabel);
	fprintf(p->out, "%s</text>\n", p->y.log ? " (log scale)" : "");
}

static void legend(const struct panel *p, const struct bp_svg_series *s, size_t ns,
		   size_t omitted, const char *note)
{
	fputs("<g font-family=\"sans-serif\" font-size=\"12\">\n", p->out);
	for (size_t i = 0; i < ns; i++) {
		double y = p->y0 + 8 + 20.0 * (double)i;

		fprintf(p->out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"4\" fill=\"%s\"/>"
				"<text x=\"%.1f\" y=\"%.1f\">", p->x1 + 16, y, palette[i], p->x1 + 36, y + 5);
		xml_text(p->out, s[i].name);
		fputs("</text>\n", p->out);
	}
	if (omitted)
		fprintf(p->out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">and %zu more group%s</text>\n",
			p->x1 + 16, p->y0 + 8 + 20.0 * (double)ns + 5, omitted, omitted == 1 ? "" : "s");
	if (note)
		fprintf(p->out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">%s</text>\n", p->x1 + 16,
			p->y0 + 8 + 20.0 * (double)(ns + 1) + 5, note);
	fputs("</g>\n", p->out);
}

/* Series i of ns: its line's width, widest first (drawn underneath). */
static double width_of(size_t i, size_t ns)
{
	return ns > 1 ? 1.5 + 3.0 * (double)(ns - 1 - i) / (double)(ns - 1) : 2;
}

/* ---- the histogram ------------------------------------------------------ */

/* Every distinct lower bound of the series' buckets, sorted, and the
 * highest upper bound after them: the slot edges of a log2 plot. */
static long double *slot_edges(const struct bp_svg_series *s, size_t ns, size_t *nedges)
{
	size_t total = 1, n = 0;
	long double *e, top = 0;
	bool any = false;

	for (size_t i = 0; i < ns; i++)
		total += s[i].n;
	if (!(e = malloc(total * sizeof(*e))))
		return NULL;
	for (size_t i = 0; i < ns; i++)
		for (size_t k = 0; k < s[i].n; k++) {
			size_t j;

			for (j = 0; j < n && e[j] != s[i].b[k].lo; j++)
				;
			if (j == n)
				e[n++] = s[i].b[k].lo;
			if (!any || s[i].b[k].hi > top)
				top = s[i].b[k].hi, any = true;
		}
	for (size_t i = 1; i < n; i++)	/* few edges: insertion sort */
		for (size_t j = i; j && e[j - 1] > e[j]; j--) {
			long double x = e[j];

			e[j] = e[j - 1], e[j - 1] = x;
		}
	e[n++] = top;
	*nedges = n;
	return e;
}

struct hist {
	struct panel p;
	long double lo, hi;		/* x range: values, or slots */
	long double *edges;		/* log2: slot edges */
	size_t nedges;
	bool logx;
};

static double hx(const struct hist *h, long double v)
{
	if (h->logx) {	/* v is a bound: its slot */
		size_t j;

		for (j = 0; j + 1 < h->nedges && h->edges[j] < v; j++)
			;
		v = (long double)j;
	}
	return h->p.x0 + (double)((v - h->lo) / (h->hi - h->lo)) * (h->p.x1 - h->p.x0);
}

/* A count's pixel: on a log axis, 0 at the baseline. */
static double hy(const struct hist *h, uint64_t c)
{
	return c ? px(&h->p.y, (long double)c) : h->p.y1;
}

static void hist_x_ticks(const struct hist *h, const struct bp_svg_plot *p)
{
	struct axis lab = { .time_ns = p->time_ns, .si = fabsl(h->hi) >= 10000 || fabsl(h->lo) >= 10000 };
	FILE *out = h->p.out;
	char label[32];

	if (h->logx) {
		size_t every = h->nedges > 24 ? (h->nedges + 23) / 24 : 1;

		lab.si = fabsl(h->edges[h->nedges - 1]) >= 10000 || fabsl(h->edges[0]) >= 10000;
		for (size_t j = 0; j < h->nedges; j += every) {
			double x = h->p.x0 + (double)j / (double)(h->nedges - 1) * (h->p.x1 - h->p.x0);

			tick_label(label, sizeof(label), h->edges[j], &lab);
			fprintf(out, "<text class=\"xtick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
				     "transform=\"rotate(-45 %.1f %.1f)\">%s</text>\n",
				x, h->p.y1 + 16, x, h->p.y1 + 16, label);
		}
		return;
	}
	double xs = nice_step((double)(h->hi - h->lo), 8);

	for (double x = ceil((double)h->lo / xs) * xs; x <= (double)h->hi; x += xs) {
		tick_label(label, sizeof(label), x, &lab);
		fprintf(out, "<text class=\"xtick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			hx(h, x), h->p.y1 + 18, label);
	}
}

static void hist_series(const struct hist *h, const struct bp_svg_series *s, size_t i, size_t ns)
{
	const char *colour = palette[i % BP_SVG_MAX_SERIES];
	FILE *out = h->p.out;

	if (ns == 1) {
		fprintf(out, "<g fill=\"%s\" fill-opacity=\"0.8\">\n", colour);
		for (size_t k = 0; k < s->n; k++) {
			double xa = hx(h, s->b[k].lo), xb = hx(h, s->b[k].hi);
			double ya = hy(h, s->b[k].count);

			if (s->b[k].count)
				fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
					     "<title>[%Lg, %Lg): %llu</title></rect>\n",
					xa + 0.5, ya, xb - xa - 1 > 0.5 ? xb - xa - 1 : 0.5, h->p.y1 - ya,
					s->b[k].lo, s->b[k].hi, (unsigned long long)s->b[k].count);
		}
		fputs("</g>\n", out);
		return;
	}
	fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" "
		     "stroke-opacity=\"0.85\" points=\"", colour, width_of(i, ns));
	for (size_t k = 0; k < s->n; k++) {
		double xa = hx(h, s->b[k].lo), xb = hx(h, s->b[k].hi);
		double y = hy(h, s->b[k].count);

		if (k == 0)
			fprintf(out, "%.1f,%.1f ", xa, h->p.y1);
		fprintf(out, "%.1f,%.1f %.1f,%.1f ", xa, y, xb, y);
		if (k + 1 == s->n)
			fprintf(out, "%.1f,%.1f", xb, h->p.y1);
	}
	fputs("\"/>\n", out);
}

static bool histogram(struct hist *h, const struct bp_svg_plot *p, const struct bp_svg_series *s,
		      size_t ns)
{
	uint64_t ymin = 0, ymax = 1;
	bool any = false;
	char xlabel[160];

	for (size_t i = 0; i < ns; i++)
		for (size_t k = 0; k < s[i].n; k++) {
			uint64_t c = s[i].b[k].count;

			ymax = c > ymax ? c : ymax;
			ymin = c && (!ymin || c < ymin) ? c : ymin;
			if (!any || s[i].b[k].lo < h->lo)
				h->lo = s[i].b[k].lo;
			if (!any || s[i].b[k].hi > h->hi)
				h->hi = s[i].b[k].hi;
			any = true;
		}
	axis_fit(&h->p.y, ymin ? (long double)ymin : 1, (long double)ymax, true, false);
	if (h->logx) {
		if (!(h->edges = slot_edges(s, ns, &h->nedges)))
			return false;
		h->lo = 0, h->hi = (long double)(h->nedges > 1 ? h->nedges - 1 : 1);
	}
	if (!any || h->hi <= h->lo)
		h->hi = h->lo + 1;
	snprintf(xlabel, sizeof(xlabel), "%s%s", p->xlabel ? p->xlabel : "value",
		 p->logx ? " (log2 buckets)" : "");
	frame(&h->p, xlabel, p->ylabel);
	hist_x_ticks(h, p);
	fputs("</g>\n", h->p.out);
	for (size_t i = 0; i < ns; i++)
		hist_series(h, &s[i], i, ns);
	if (ns > 1)
		legend(&h->p, s, ns, p->omitted, NULL);
	free(h->edges);
	return true;
}

/* ---- lines: percentiles, and values over time --------------------------- */

/* x of a percentile q on the 1 / (1 - q) scale: log10 of it. */
static long double tail_x(double q)
{
	return q < 1 ? -log10l(1 - (long double)q) : 6;
}

static void line(const struct panel *p, const struct bp_svg_point *pt, size_t n, bool tail,
		 const char *colour, double width, bool dashed)
{
	fprintf(p->out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\"%s points=\"",
		colour, width, dashed ? " stroke-dasharray=\"6 4\"" : "");
	for (size_t k = 0; k < n; k++) {
		double x = tail ? px(&p->x, tail_x(pt[k].x)) : px(&p->x, pt[k].x);

		fprintf(p->out, "%s%.1f,%.1f", k ? " " : "", x, px(&p->y, pt[k].y));
	}
	fputs("\"/>\n", p->out);
}

/* The y range of every point of the lines chosen by get. */
static bool y_range(const struct bp_svg_series *s, size_t ns,
		    const struct bp_svg_point *(*get)(const struct bp_svg_series *, size_t, size_t *),
		    long double *min, long double *max, long double *minpos)
{
	bool any = false;

	*minpos = 0;
	for (size_t i = 0; i < ns; i++)
		for (size_t which = 0; which < 2; which++) {
			size_t n;
			const struct bp_svg_point *pt = get(&s[i], which, &n);

			for (size_t k = 0; pt && k < n; k++) {
				long double y = pt[k].y;

				*min = !any || y < *min ? y : *min;
				*max = !any || y > *max ? y : *max;
				*minpos = y > 0 && (*minpos == 0 || y < *minpos) ? y : *minpos;
				any = true;
			}
		}
	return any;
}

static const struct bp_svg_point *pct_of(const struct bp_svg_series *s, size_t which, size_t *n)
{
	*n = which ? 0 : s->npct;
	return which ? NULL : s->pct;
}

static const struct bp_svg_point *time_of(const struct bp_svg_series *s, size_t which, size_t *n)
{
	*n = s->ntime;
	return which ? s->p99 : s->p50;
}

/* The percentile ticks: 0%, 50%, 90%, 99% ... up to the axis's end. */
static void tail_ticks(const struct panel *p)
{
	static const struct {
		double q;
		const char *name;
	} at[] = { { 0, "0%" }, { 0.5, "50%" }, { 0.9, "90%" }, { 0.99, "99%" }, { 0.999, "99.9%" },
		   { 0.9999, "99.99%" }, { 0.99999, "99.999%" }, { 0.999999, "99.9999%" } };

	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]) && tail_x(at[i].q) <= p->x.hi + 1e-9L; i++) {
		double x = px(&p->x, tail_x(at[i].q));

		fprintf(p->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
				"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			x, p->y0, x, p->y1, x, p->y1 + 18, at[i].name);
	}
}

/* The marks p50, p99, p99.9, p99.99 of a curve, where it reaches them. */
static void marks(const struct panel *p, const struct bp_svg_series *s, const char *colour,
		  const struct bp_svg_plot *pl)
{
	static const struct {
		double q;
		const char *name;
	} at[] = { { 0.5, "p50" }, { 0.99, "p99" }, { 0.999, "p99.9" }, { 0.9999, "p99.99" } };

	for (size_t m = 0; m < sizeof(at) / sizeof(at[0]); m++)
		for (size_t k = 0; k < s->npct; k++) {
			long double y = s->pct[k].y;
			char v[48];

			if (fabs(s->pct[k].x - at[m].q) > 1e-12)
				continue;
			/* the value itself, not rounded as a tick label is */
			snprintf(v, sizeof(v), y == rintl(y) ? "%.0Lf%s" : "%.6Lg%s", y,
				 pl->time_ns ? "ns" : "");
			fprintf(p->out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>",
				px(&p->x, tail_x(at[m].q)), px(&p->y, s->pct[k].y), colour);
			xml_text(p->out, s->name);
			fprintf(p->out, " %s %s</title></circle>\n", at[m].name, v);
			break;	/* the first: the max, at the curve's end, may share its x */
		}
}

static void percentiles(struct panel *p, const struct bp_svg_plot *pl,
			const struct bp_svg_series *s, size_t ns)
{
	long double min = 0, max = 0, minpos, top = 2;
	char ylabel[160];

	if (!y_range(s, ns, pct_of, &min, &max, &minpos))
		return;
	for (size_t i = 0; i < ns; i++)
		if (s[i].npct && tail_x(s[i].pct[s[i].npct - 1].x) > top)
			top = ceill(tail_x(s[i].pct[s[i].npct - 1].x) - 1e-9L);
	axis_fit(&p->y, min > 0 ? min : minpos > 0 && min == 0 ? minpos : min, max, min >= 0,
		 pl->time_ns);
	p->x = (struct axis){ .p0 = p->x0, .p1 = p->x1, .lo = 0, .hi = top > 6 ? 6 : top };
	snprintf(ylabel, sizeof(ylabel), "%s", pl->xlabel ? pl->xlabel : "value");
	frame(p, "percentile (1 / (1 - p) scale)", ylabel);
	tail_ticks(p);
	fputs("</g>\n", p->out);
	for (size_t i = 0; i < ns; i++)
		if (s[i].npct)
			line(p, s[i].pct, s[i].npct, true, palette[i], width_of(i, ns), false);
	for (size_t i = 0; i < ns; i++)
		marks(p, &s[i], palette[i], pl);
	legend(p, s, ns, pl->omitted, "marked: p50 p99 p99.9 p99.99");
}

static void over_time(struct panel *p, const struct bp_svg_plot *pl, const struct bp_svg_series *s,
		      size_t ns)
{
	long double min = 0, max = 0, minpos, tmax = 0;
	char xlabel[160];

	if (!y_range(s, ns, time_of, &min, &max, &minpos))
		return;
	for (size_t i = 0; i < ns; i++)
		for (size_t k = 0; k < s[i].ntime; k++)
			tmax = s[i].p50[k].x > tmax ? s[i].p50[k].x : tmax;
	axis_fit(&p->y, min > 0 ? min : minpos > 0 && min == 0 ? minpos : min, max, min >= 0,
		 pl->time_ns);
	axis_fit(&p->x, 0, tmax > 0 ? tmax : 1, false, false);
	p->x.p0 = p->x0, p->x.p1 = p->x1, p->x.hi = tmax > 0 ? tmax : 1;
	snprintf(xlabel, sizeof(xlabel), "seconds since %s (window start)",
		 pl->time_origin ? pl->time_origin : "the first window");
	frame(p, xlabel, pl->xlabel ? pl->xlabel : "value");
	ticks(&p->x, x_tick, p);
	fputs("</g>\n", p->out);
	for (size_t i = 0; i < ns; i++) {
		line(p, s[i].p50, s[i].ntime, false, palette[i], width_of(i, ns), false);
		line(p, s[i].p99, s[i].ntime, false, palette[i], width_of(i, ns), true);
	}
	legend(p, s, ns, pl->omitted, "solid p50, dashed p99");
}

/* ---- the document ------------------------------------------------------- */

/* The document's start, h pixels high: its white page and its title. */
static void document_start(FILE *out, double h, const char *title)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		     "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		     "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n"
		     "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
		     "<text x=\"%.0f\" y=\"28\" font-family=\"sans-serif\" font-size=\"16\" "
		     "text-anchor=\"middle\">", W, h, W, h, W / 2);
	xml_text(out, title);
	fputs("</text>\n", out);
}

/* The panel whose band starts at top: its plot area, y growing upwards. */
static struct panel panel_below(FILE *out, double right, double top)
{
	struct panel p = { .out = out, .x0 = LEFT, .x1 = right, .y0 = top + GAP,
			   .y1 = top + PANEL - BOTTOM };

	p.y.p0 = p.y1, p.y.p1 = p.y0;
	return p;
}

bool bp_svg_histogram(FILE *out, const struct bp_svg_plot *p, const struct bp_svg_series *s,
		      size_t ns)
{
	bool many = ns > 1, pct = false, time = false;
	double right = W - (many ? RIGHT_MANY : RIGHT_ONE), top = HEAD, h;
	struct hist hg = { .logx = p->logx };

	if (ns > BP_SVG_MAX_SERIES)
		ns = BP_SVG_MAX_SERIES;
	for (size_t i = 0; i < ns; i++)
		pct |= s[i].npct > 0, time |= s[i].ntime > 0;
	h = HEAD + PANEL * (1 + pct + time);
	document_start(out, h, p->title);
	hg.p = panel_below(out, right, top);
	fputs("<g class=\"histogram-panel\">\n", out);
	if (!histogram(&hg, p, s, ns))
		return false;
	fputs("</g>\n", out);
	top += PANEL;
	if (pct) {
		struct panel pp = panel_below(out, right, top);

		fputs("<g class=\"percentiles-panel\">\n", out);
		percentiles(&pp, p, s, ns);
		fputs("</g>\n", out);
		top += PANEL;
	}
	if (time) {
		struct panel tp = panel_below(out, right, top);

		fputs("<g class=\"time-panel\">\n", out);
		over_time(&tp, p, s, ns);
		fputs("</g>\n", out);
	}
	fputs("</svg>\n", out);
	return !ferror(out);
}

/* ---- stacked bars ------------------------------------------------------- */

#define BAR	26.0	/* a bar's height */
#define BAR_GAP	12.0
#define NAMES	200.0	/* the groups' names, left of the bars */

bool bp_svg_stacked(FILE *out, const char *title, const char *xlabel, bool time_ns,
		    const char *const *part_names, size_t nparts, const struct bp_svg_bar *bars,
		    size_t nbars)
{
	size_t shown = nbars < BP_SVG_MAX_SERIES ? nbars : BP_SVG_MAX_SERIES;
	double h = HEAD + 40 + (double)shown * (BAR + BAR_GAP) + BOTTOM, right = W - RIGHT_MANY;
	double y0 = HEAD + 30, y1 = y0 + (double)shown * (BAR + BAR_GAP);
	long double max = 0;
	struct panel p = { .out = out, .x0 = NAMES, .x1 = right, .y0 = y0, .y1 = y1 };
	char label[32];

	if (nparts > BP_SVG_MAX_PARTS)
		nparts = BP_SVG_MAX_PARTS;
	for (size_t i = 0; i < shown; i++) {
		long double sum = 0;

		for (size_t k = 0; k < nparts; k++)
			sum += bars[i].part[k] > 0 ? bars[i].part[k] : 0;
		max = sum > max ? sum : max;
	}
	axis_fit(&p.x, 0, max > 0 ? max : 1, false, time_ns);
	p.x.p0 = p.x0, p.x.p1 = p.x1;
	document_start(out, h, title);
	fputs("<g class=\"stacked-panel\" font-family=\"sans-serif\" "
	      "font-size=\"12\">\n", out);
	ticks(&p.x, x_tick, &p);
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>\n"
		     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", p.x0, y1, p.x1, y1,
		(p.x0 + p.x1) / 2, y1 + 44);
	xml_text(out, xlabel);
	fputs("</text>\n", out);
	for (size_t i = 0; i < shown; i++) {
		double y = y0 + BAR_GAP / 2 + (double)i * (BAR + BAR_GAP), x = p.x0;

		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", NAMES - 8,
			y + BAR / 2 + 4);
		xml_text(out, bars[i].name);
		fputs("</text>\n", out);
		for (size_t k = 0; k < nparts; k++) {
			long double v = bars[i].part[k] > 0 ? bars[i].part[k] : 0;
			double w = px(&p.x, v) - p.x0;

			fprintf(out, "<rect class=\"part-%zu\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
				     "height=\"%.0f\" fill=\"%s\" data-value=\"%.17Lg\"/>\n",
				k, x, y, w, BAR, palette[k], v);
			x += w;
		}
	}
	for (size_t k = 0; k < nparts; k++) {
		double y = y0 + 10 + (double)k * 20;

		fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"14\" "
			     "fill=\"%s\"/>\n<text x=\"%.0f\" y=\"%.0f\">",
			right + 16, y, palette[k], right + 36, y + 12);
		xml_text(out, part_names[k]);
		fputs("</text>\n", out);
	}
	if (nbars > shown) {
		snprintf(label, sizeof(label), "%zu", nbars - shown);
		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">and %s groups more</text>\n", NAMES,
			y1 + BOTTOM - 8, label);
	}
	fputs("</g>\n</svg>\n", out);
	return !ferror(out);
}
