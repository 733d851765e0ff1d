#!/usr/bin/env python3
"""Writes comparison.md from one device run's tables (bench --only goals and
--only latency of the base and new binaries, interleaved repetitions, same GPU,
one call): per row the median over repetitions of base and new, new / base,
and each side's spread (max/min over its repetitions), so a difference can be
read against the noise of the same binary.
Usage: compare.py RUN_DIR [BASE NEW] > comparison.md (default: base new)"""
import re, sys, statistics
from pathlib import Path

d = Path(sys.argv[1])
BASE, NEW = (sys.argv[2], sys.argv[3]) if len(sys.argv) > 3 else ("base", "new")
reps = sorted({int(p.name.rsplit("-", 1)[1]) for p in d.glob(f"goals-{BASE}-*") if p.is_dir()})


def rows(md, header_start):
    out, on = [], False
    for l in md.read_text().splitlines():
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
    print("| row | " + " | ".join(f"{c}: base | new | new/base | spread base, new" for c in cols) + " |")
    print("|---|" + "---|---|---|---|" * len(cols))
    t = {v: [rows(d / f"{name}-{w}-{r}" / "gpu.md", header) for r in reps] for v, w in (("base", BASE), ("new", NEW))}
    out = []
    for i, row in enumerate(t["new"][0]):
        cells = []
        for c in cols:
            b = [num(t["base"][r][i][c]) for r in range(len(reps))]
            n = [num(t["new"][r][i][c]) for r in range(len(reps))]
            if None in b or None in n:
                cells.append("— | — | — | —")
                continue
            bm, nm = statistics.median(b), statistics.median(n)
            sb, sn = max(b) / min(b), max(n) / min(n)
            out.append((nm / bm, key(row), c, b, n, max(sb, sn)))
            cells.append(f"{bm:.4g} | {nm:.4g} | {nm / bm:.3f} | {sb:.3f}, {sn:.3f}")
        print(f"| {key(row)} | " + " | ".join(cells) + " |")
    out.sort(reverse=True)
    print("\nLargest new/base (each repetition in brackets; 'beyond noise' when every new")
    print("repetition is slower than every base repetition):\n")
    for r, k, c, b, n, s in out[:8]:
        beyond = "beyond noise" if min(n) > max(b) else "within noise"
        print(f"- {k}, {c}: {r:.3f} (base {b}, new {n}; {beyond})")
    print()


print(f"# {d.name}: {NEW} (new) against {BASE} (base), {len(reps)} interleaved repetitions\n")
print((d / "summary.txt").read_text().split("goals")[0].strip().replace("\n", "  \n"), "\n")
table("Throughput (bench --quick --only goals): µs per polynomial", "goals", "| row | goal", lambda r: r["row"],
      ["now (default plan)"])
table("Latency (bench --quick --only latency): µs per call", "latency", "| word | N | op",
      lambda r: f"{r['word']} {r['N']} {r['op']} ×{r['towers']}",
      ["plain µs (events)", "back to back µs/call (1000 queued, one wait)", "graph ×100 µs/replay"])
