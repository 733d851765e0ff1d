#!/usr/bin/env python3
"""One row per profiled kernel from Nsight Compute text reports.

usage: ncu_summary.py OUT.md TITLE FILE...
Each FILE is the text output of `ncu --section SpeedOfLight --section
MemoryWorkloadAnalysis --section Occupancy --section SchedulerStats
--section WarpStateStats --section LaunchStats ...` (the sections this
reads); the row gives the kernel, grid x block, duration and the
throughputs, occupancy, waves and scheduler figures Nsight Compute printed.
Every number is read from the files; none is typed in.
"""
import os, re, sys

COLS = [("Duration", "µs"), ("DRAM Throughput", "DRAM %"), ("L2 Cache Throughput", "L2 %"),
        ("Compute (SM) Throughput", "SM %"), ("Issue Slots Busy", "issue %"),
        ("Achieved Occupancy", "occupancy %"), ("Waves Per SM", "waves"),
        ("No Eligible", "no eligible %"), ("Registers Per Thread", "registers")]

def rows(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    for block in re.split(r"\n  (?=[A-Za-z_0-9]+ \()", text)[1:]:
        name = block.split(" (")[0]
        grid = re.search(r"\(([\d, ]+)\)x\(([\d, ]+)\)", block)
        vals = []
        for key, _ in COLS:
            m = re.search(re.escape(key) + r"\s+\S*\s+([\d.,]+)\s*$", block, re.M)
            vals.append(m.group(1) if m else "?")
        g = lambda s: s.replace(" ", "").replace(",1,1", "")
        yield [os.path.basename(path), name, f"{g(grid.group(1))} × {g(grid.group(2))}" if grid else "?"] + vals

def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out = [f"# {sys.argv[2]}", "", "Written by `scripts/ncu_summary.py` from the Nsight Compute reports named in the first column.", "",
           "| file | kernel | grid × block | " + " | ".join(c for _, c in COLS) + " |",
           "|---" * (3 + len(COLS)) + "|"]
    for f in sys.argv[3:]:
        out += ["| " + " | ".join(r) + " |" for r in rows(f)]
    open(sys.argv[1], "w", encoding="utf-8").write("\n".join(out) + "\n")

main()
