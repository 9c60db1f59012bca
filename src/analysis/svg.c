/*
 * Histograms as SVG (analysis/svg.h).
 *
 * Log2 buckets are drawn one slot each, in the order of their bounds, over
 * the union of every series' buckets: on a log2 scale a power-of-two
 * bucket is one unit wide, so the slots are that scale (and negative
 * buckets need no special case).  Linear buckets are drawn at their values.
 */
#include "analysis/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W	960.0
#define H	520.0
#define LEFT	84.0
#define TOP	56.0
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

/* A tick label: a number with a k/M/G/T suffix, or a duration. */
static void tick_label(char *buf, size_t size, long double v, bool time_ns)
{
	static const char *const si[] = { "", "k", "M", "G", "T", "P", "E" };
	static const char *const tu[] = { "ns", "us", "ms", "s" };
	long double a = fabsl(v);
	size_t k = 0;

	if (time_ns) {
		while (k < 3 && a >= 1000)
			a /= 1000, v /= 1000, k++;
		snprintf(buf, size, "%.3Lg%s", v, tu[k]);
		return;
	}
	if (a < 100000 && v == rintl(v)) {	/* 1024, not 1.02k */
		snprintf(buf, size, "%.0Lf", v);
		return;
	}
	while (k < 6 && a >= 1000)
		a /= 1000, v /= 1000, k++;
	snprintf(buf, size, "%.3Lg%s", v, si[k]);
}

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

struct frame {
	double x0, x1, y0, y1;		/* the plot area in pixels */
	long double lo, hi;		/* x range: values, or slots */
	uint64_t ymax;
	long double *edges;		/* log2: slot edges */
	size_t nedges;
	bool logx;
};

static double px_x(const struct frame *f, long double v)
{
	if (f->logx) {	/* v is a bound: its slot */
		size_t j;

		for (j = 0; j + 1 < f->nedges && f->edges[j] < v; j++)
			;
		v = (long double)j;
	}
	return f->x0 + (double)((v - f->lo) / (f->hi - f->lo)) * (f->x1 - f->x0);
}

static double px_y(const struct frame *f, uint64_t c)
{
	return f->y1 - (double)c / (double)f->ymax * (f->y1 - f->y0);
}

/* A round step for about n ticks over [0, max]. */
static double nice_step(double max, int n)
{
	double raw = max / n, p = pow(10, floor(log10(raw))), m = raw / p;

	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void axes(FILE *out, const struct frame *f, const struct bp_svg_plot *p)
{
	char label[32];
	double step = nice_step((double)f->ymax, 6);

	fprintf(out, "<g stroke=\"#000\" stroke-width=\"1\">\n"
		     "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n"
		     "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n</g>\n",
		f->x0, f->y1, f->x1, f->y1, f->x0, f->y0, f->x0, f->y1);
	fprintf(out, "<g font-family=\"sans-serif\" font-size=\"12\" fill=\"#000\">\n");
	for (double y = 0; y <= (double)f->ymax; y += step) {
		double py = px_y(f, (uint64_t)y);

		tick_label(label, sizeof(label), y, false);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			f->x0, py, f->x1, py, f->x0 - 6, py + 4, label);
	}
	if (f->logx) {
		size_t every = f->nedges > 24 ? (f->nedges + 23) / 24 : 1;

		for (size_t j = 0; j < f->nedges; j += every) {
			double px = f->x0 + (double)j / (double)(f->nedges - 1) * (f->x1 - f->x0);

			tick_label(label, sizeof(label), f->edges[j], p->time_ns);
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
				     "transform=\"rotate(-45 %.1f %.1f)\">%s</text>\n",
				px, f->y1 + 16, px, f->y1 + 16, label);
		}
	} else {
		double xs = nice_step((double)(f->hi - f->lo), 8);

		for (double x = ceil((double)f->lo / xs) * xs; x <= (double)f->hi; x += xs) {
			tick_label(label, sizeof(label), x, p->time_ns);
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
				px_x(f, x), f->y1 + 18, label);
		}
	}
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
		(f->x0 + f->x1) / 2, H - 12);
	xml_text(out, p->xlabel);
	fprintf(out, "%s</text>\n", p->logx ? " (log2 buckets)" : "");
	fprintf(out, "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" "
		     "transform=\"rotate(-90 16 %.1f)\">", (f->y0 + f->y1) / 2, (f->y0 + f->y1) / 2);
	xml_text(out, p->ylabel);
	fputs("</text>\n</g>\n", out);
}

static void series(FILE *out, const struct frame *f, const struct bp_svg_series *s, size_t i,
		   bool filled)
{
	const char *colour = palette[i % BP_SVG_MAX_SERIES];

	if (filled) {
		fprintf(out, "<g fill=\"%s\" fill-opacity=\"0.8\">\n", colour);
		for (size_t k = 0; k < s->n; k++) {
			double xa = px_x(f, s->b[k].lo), xb = px_x(f, s->b[k].hi);
			double ya = px_y(f, s->b[k].count);

			if (s->b[k].count)
				fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
					     "<title>[%Lg, %Lg): %llu</title></rect>\n",
					xa + 0.5, ya, xb - xa - 1 > 0.5 ? xb - xa - 1 : 0.5, f->y1 - ya,
					s->b[k].lo, s->b[k].hi, (unsigned long long)s->b[k].count);
		}
		fputs("</g>\n", out);
		return;
	}
	fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colour);
	for (size_t k = 0; k < s->n; k++) {
		double xa = px_x(f, s->b[k].lo), xb = px_x(f, s->b[k].hi);
		double y = px_y(f, s->b[k].count);

		if (k == 0)
			fprintf(out, "%.1f,%.1f ", xa, f->y1);
		fprintf(out, "%.1f,%.1f %.1f,%.1f ", xa, y, xb, y);
		if (k + 1 == s->n)
			fprintf(out, "%.1f,%.1f", xb, f->y1);
	}
	fputs("\"/>\n", out);
}

static void legend(FILE *out, const struct frame *f, const struct bp_svg_series *s, size_t ns,
		   size_t omitted)
{
	fputs("<g font-family=\"sans-serif\" font-size=\"12\">\n", out);
	for (size_t i = 0; i < ns; i++) {
		double y = f->y0 + 8 + 20.0 * (double)i;

		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"4\" fill=\"%s\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\">", f->x1 + 16, y, palette[i], f->x1 + 36,
			y + 5);
		xml_text(out, s[i].name);
		fputs("</text>\n", out);
	}
	if (omitted)
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">and %zu more group%s</text>\n",
			f->x1 + 16, f->y0 + 8 + 20.0 * (double)ns + 5, omitted, omitted == 1 ? "" : "s");
	fputs("</g>\n", out);
}

static bool set_range(struct frame *f, const struct bp_svg_series *s, size_t ns)
{
	bool any = false;

	f->ymax = 1;
	for (size_t i = 0; i < ns; i++)
		for (size_t k = 0; k < s[i].n; k++) {
			if (s[i].b[k].count > f->ymax)
				f->ymax = s[i].b[k].count;
			if (!any || s[i].b[k].lo < f->lo)
				f->lo = s[i].b[k].lo;
			if (!any || s[i].b[k].hi > f->hi)
				f->hi = s[i].b[k].hi;
			any = true;
		}
	f->ymax += f->ymax / 20 + 1;
	if (f->logx) {
		if (!(f->edges = slot_edges(s, ns, &f->nedges)))
			return false;
		f->lo = 0, f->hi = (long double)(f->nedges > 1 ? f->nedges - 1 : 1);
	}
	if (!any || f->hi <= f->lo)
		f->hi = f->lo + 1;
	return true;
}

bool bp_svg_histogram(FILE *out, const struct bp_svg_plot *p, const struct bp_svg_series *s,
		      size_t ns)
{
	struct frame f = { .logx = p->logx };
	bool many = ns > 1;

	if (ns > BP_SVG_MAX_SERIES)
		ns = BP_SVG_MAX_SERIES;
	f.x0 = LEFT, f.x1 = W - (many ? RIGHT_MANY : RIGHT_ONE), f.y0 = TOP, f.y1 = H - BOTTOM;
	if (!set_range(&f, s, ns))
		return false;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		     "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		     "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n"
		     "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
		     "<text x=\"%.0f\" y=\"28\" font-family=\"sans-serif\" font-size=\"16\" "
		     "text-anchor=\"middle\">", W, H, W, H, W / 2);
	xml_text(out, p->title);
	fputs("</text>\n", out);
	axes(out, &f, p);
	for (size_t i = 0; i < ns; i++)
		series(out, &f, &s[i], i, !many);
	if (many)
		legend(out, &f, s, ns, p->omitted);
	fputs("</svg>\n", out);
	free(f.edges);
	return !ferror(out);
}
