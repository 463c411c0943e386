#!/usr/bin/env python3
"""What a gnuplot SVG shows, one fact a line, for the plot tests to check:
'plot N' (the plotted items), 'item I COLOUR KEY' (each item's colour and its
key text), 'text T' (every other text: title, axis labels, tick labels)."""
import re
import signal
import sys

signal.signal(signal.SIGPIPE, signal.SIG_DFL)

svg = open(sys.argv[1], encoding="utf-8").read()
parts = re.split(r'<g id="gnuplot_plot_\d+[a-z]*" >', svg)
texts = re.findall(r"<text>([^<]*)</text>", parts[0])
items = []
for part in parts[1:]:
    # the item's own group ends where the next top-level group of the plot starts
    body = part.split('<g id="gnuplot_plot', 1)[0]
    key = re.findall(r"<text>([^<]*)</text>", body)
    colour = re.search(r"(?:stroke|fill|color) ?= ?'(rgb\([^)]*\))'", body)
    items.append((colour.group(1).replace(" ", "") if colour else "-", key[0] if key else "-"))
    texts += re.findall(r"<text>([^<]*)</text>", body)[1:]
print("plot", len(items))
for i, (colour, key) in enumerate(items):
    print("item", i + 1, colour, key)
for t in texts:
    print("text", t)
