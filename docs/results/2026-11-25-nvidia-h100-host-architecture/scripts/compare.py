#!/usr/bin/env python3
"""Writes comparison.md from run 38's tables (bench --only goals / latency /
fused of the base and new binaries, same GPU, one call): each row's time in
base and new (mean of the two interleaved repetitions) and new / base.
Usage: compare.py RUN38_DIR > comparison.md"""
import re, sys, statistics
from pathlib import Path

d = Path(sys.argv[1])

def rows(md, header_start):
    lines = md.read_text().splitlines()
    out, on = [], False
    for l in lines:
        if l.startswith(header_start):
            on, head = True, [c.strip() for c in l.strip("|").split("|")]
            continue
        if on:
            if not l.startswith("|"):
                break
            if l.startswith("|---"):
                continue
            out.append(dict(zip(head, [c.strip() for c in l.strip("|").split("|")])))
    return out

def num(s):
    m = re.match(r"[≈≤≥ ]*([0-9.]+)", s)
    return float(m.group(1)) if m else None

def table(title, name, header, key, cols):
    print(f"## {title}\n")
    print("| row | " + " | ".join(f"{c}: base | new | new/base" for c in cols) + " |")
    print("|---|" + "---|---|---|" * len(cols))
    reps = {v: [rows(d / f"{name}-{v}-{r}" / "gpu.md", header) for r in (1, 2)] for v in ("base", "new")}
    worst = []
    for i, row in enumerate(reps["new"][0]):
        cells = []
        for c in cols:
            b = [num(reps["base"][r][i][c]) for r in (0, 1)]
            n = [num(reps["new"][r][i][c]) for r in (0, 1)]
            if None in b or None in n:
                cells.append("— | — | —")
                continue
            bm, nm = statistics.mean(b), statistics.mean(n)
            worst.append((nm / bm, key(row), c, b, n))
            cells.append(f"{bm:.4g} | {nm:.4g} | {nm / bm:.3f}")
        print(f"| {key(row)} | " + " | ".join(cells) + " |")
    worst.sort(reverse=True)
    print("\nLargest new/base (the two repetitions of each in brackets):\n")
    for r, k, c, b, n in worst[:5]:
        print(f"- {k}, {c}: {r:.3f} (base {b}, new {n})")
    print()

print("# Run 38: issue 17's host library (new) against aaf7b7a (base)\n")
print((d / "summary.txt").read_text().split("goals")[0].strip().replace("\n", "  \n"), "\n")
table("Throughput (bench --quick --only goals): µs per polynomial", "goals", "| row | goal", lambda r: r["row"],
      ["now (default plan)"])
table("Latency (bench --quick --only latency): µs per call", "latency", "| word | N | op",
      lambda r: f"{r['word']} {r['N']} {r['op']} ×{r['towers']}",
      ["plain µs (events)", "back to back µs/call (1000 queued, one wait)", "graph ×100 µs/replay"])
print("## Fused polymul (bench --quick --only fused, one run each)\n")
fb, fn = (rows(d / f"fused-{v}" / "gpu.md", "| word | N | batch") for v in ("base", "new"))
print("| word | N | batch | unfused base | new | fused base | new |\n|---|---|---|---|---|---|---|")
for b, n in zip(fb, fn):
    print(f"| {n['word']} | {n['N']} | {n['batch']} | {b['µs per product, unfused']} | {n['µs per product, unfused']} | "
          f"{b['µs per product, fused']} | {n['µs per product, fused']} |")
