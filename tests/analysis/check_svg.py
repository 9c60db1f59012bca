#!/usr/bin/env python3
"""Parse the SVG plots svg_test wrote (argv[1]) with an XML parser and check
each against expect.txt: a standalone SVG root with width and height, the
title's text (escaped in the file, whole once parsed), axes, the number of
bars (rects with a title), of series (polylines) and of legend entries."""
import os
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
fail = 0
d = sys.argv[1]
for line in open(os.path.join(d, "expect.txt")):
    name, bars, series, legend = line.split()
    root = ET.parse(os.path.join(d, name + ".svg")).getroot()
    texts = ["".join(t.itertext()) for t in root.iter(NS + "text")]
    got_bars = sum(1 for r in root.iter(NS + "rect") if r.find(NS + "title") is not None)
    got_series = len(list(root.iter(NS + "polyline")))
    got = {
        "root": root.tag == NS + "svg" and root.get("width") and root.get("height"),
        "title": 'a <test> & "plot"' in texts,
        "axes": len(list(root.iter(NS + "line"))) >= 2,
        "bars": got_bars == int(bars),
        "series": (got_series if int(series) > 1 else 1) == int(series),
        "legend": sum(1 for t in texts if t in ("cmd=GET", "cmd=SET <x>", "cmd=DEL")) == int(legend),
    }
    for what, ok in got.items():
        if not ok:
            print(f"FAIL: {name}.svg: {what} (bars {got_bars}, series {got_series})")
            fail = 1
sys.exit(fail)
