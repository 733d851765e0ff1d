#!/usr/bin/env python3
"""Run 40's DGT latency rows: base (aaf7b7a), prev (8404402: explicit global
loads in the DGT bodies), new (d1e4cf9: those reverted), mean of two
interleaved repetitions. Usage: r40_compare.py R40_DIR"""
import sys, statistics
from pathlib import Path
d = Path(sys.argv[1])
def rows(p):
    out = {}
    for l in p.read_text().splitlines():
        c = [x.strip() for x in l.strip().strip("|").split("|")]
        if len(c) > 9 and "DGT" in c[2]:
            out[f"{c[0]} {c[1]} {c[2]} ×{c[3]}"] = (float(c[4]), float(c[7]))
    return out
v = {k: [rows(d / f"latency-{k}-{r}.log") for r in (1, 2)] for k in ("base", "prev", "new")}
print("| row | plain µs: base | prev | new | back to back µs/call: base | prev | new | new/base (b2b) |")
print("|---|---|---|---|---|---|---|---|")
for key in v["new"][0]:
    m = {k: [statistics.mean(r[key][i] for r in v[k]) for i in (0, 1)] for k in v}
    print(f"| {key} | {m['base'][0]:.2f} | {m['prev'][0]:.2f} | {m['new'][0]:.2f} | {m['base'][1]:.2f} | "
          f"{m['prev'][1]:.2f} | {m['new'][1]:.2f} | {m['new'][1] / m['base'][1]:.3f} |")
