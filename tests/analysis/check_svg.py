#!/usr/bin/env python3
"""Parse the SVG plots svg_test wrote (argv[1]) with an XML parser and check
each against expect.txt: a standalone SVG root with width and height, the
title's text (escaped in the file, whole once parsed), axes; in the
histogram panel the number of bars (rects with a title), of series
(polylines, each narrower than the one drawn before it, so that none hides
another) and of legend entries, and whether the y axis is logarithmic; in
the percentile panel a line a group and the marks p50, p99, p99.9 of the
first group drawn with the values expect.txt gives; on every axis, tick labels written one way (all
with a k/M/G suffix or none).  One line a file:
  NAME BARS SERIES LEGEND LOGY PCT_LINES [MARK=VALUE ...]"""
import os
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
fail = 0
d = sys.argv[1]


def panel(root, cls):
    return next((g for g in root.iter(NS + "g") if g.get("class") == cls), None)


def one_way(labels):
    """Tick labels of one axis: all with an SI suffix, or none."""
    nums = [t for t in labels if re.fullmatch(r"-?[\d.]+(e[+-]?\d+)?[kMGTPE]?", t)]
    suffixed = [t for t in nums if t[-1] in "kMGTPE"]
    return not suffixed or all(t in suffixed or float(t) < 1000 for t in nums)


for line in open(os.path.join(d, "expect.txt")):
    name, bars, series, legend, logy, pct, *marks = line.split()
    root = ET.parse(os.path.join(d, name + ".svg")).getroot()
    texts = ["".join(t.itertext()) for t in root.iter(NS + "text")]
    hist, pp = panel(root, "histogram-panel"), panel(root, "percentiles-panel")
    hist_texts = ["".join(t.itertext()) for t in hist.iter(NS + "text")] if hist is not None else []
    lines = list(hist.iter(NS + "polyline")) if hist is not None else []
    widths = [float(p.get("stroke-width")) for p in lines]
    got_bars = sum(1 for r in hist.iter(NS + "rect") if r.find(NS + "title") is not None) if hist is not None else -1
    got_marks = {}
    for c in (pp.iter(NS + "circle") if pp is not None else []):
        m = re.fullmatch(r".* (p[\d.]+) (\S+)", c.find(NS + "title").text)
        got_marks.setdefault(m.group(1), m.group(2))  # the first group drawn
    axes_ok = all(one_way(["".join(t.itertext()) for t in g.iter(NS + "text") if t.get("class") == cls])
                  for g in (hist, pp) if g is not None for cls in ("xtick", "ytick"))
    got = {
        "root": root.tag == NS + "svg" and root.get("width") and root.get("height"),
        "title": 'a <test> & "plot"' in texts,
        "axes": len(list(root.iter(NS + "line"))) >= 2,
        "bars": got_bars == int(bars),
        "series": (len(lines) if int(series) > 1 else 1) == int(series),
        "visible": all(a > b for a, b in zip(widths, widths[1:])),
        "legend": sum(1 for t in hist_texts if t in ("cmd=GET", "cmd=SET <x>", "cmd=DEL")) == int(legend),
        "logy": any("(log scale)" in t for t in hist_texts) == (logy == "1"),
        "percentiles": pp is not None and len(list(pp.iter(NS + "polyline"))) == int(pct),
        "marks": all(got_marks.get(k) == v for k, v in (m.split("=") for m in marks)),
        "one way": axes_ok,
    }
    for what, ok in got.items():
        if not ok:
            print(f"FAIL: {name}.svg: {what} (bars {got_bars}, series {len(lines)} widths {widths}, "
                  f"marks {got_marks})")
            fail = 1
sys.exit(fail)
