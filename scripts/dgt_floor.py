#!/usr/bin/env python3
"""The batched DGT against the u32 NTT and both compute floors, one call.

usage: dgt_floor.py OUT.md TITLE DIR
DIR holds one call's files: `gauss_floor.txt` (`scripts/gauss_floor.cu`),
`goals.log` (`polymul-bench bench --only goals`, whose first lines give the
lazy-butterfly floor), `profiles.txt` (`profile-dgt 16 1 256` and `profile
32 16 256 auto shoup`, alternated) and `ncu-gauss.csv` (Nsight Compute of
the Gaussian floor kernel). Every number is read from the files.

A forward DGT of N = 2^16 runs M / 2 · log2 M = 245,760 Gaussian
butterflies (M = 2^15; the weights not counted, so its floor is a lower
bound); a forward NTT of 2^16 runs 2^15 · 16 = 524,288 lazy butterflies.
The goal (issue 34): the batched DGT within 1.5× of the u32 NTT per
polynomial at the same N.
"""
import csv, re, sys, statistics

GAUSS_BFLY, NTT_BFLY = 245_760, 524_288


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    out, title, d = sys.argv[1:]
    g = re.search(r"([\d.]+) G/s", open(f"{d}/gauss_floor.txt").read())
    gauss_rate = float(g.group(1)) * 1e9
    m = re.search(r"lazy butterflies (\d+) G/s \(u32\)", open(f"{d}/goals.log").read())
    ntt_rate = float(m.group(1)) * 1e9
    dgt, ntt = [], []
    for line in open(f"{d}/profiles.txt"):
        m = re.match(r"DGT N=2\^16 towers 1 batch (\d+) .*forward ([\d.]+) µs", line)
        if m:
            dgt.append(float(m.group(2)) / int(m.group(1)))
        m = re.match(r"u32 N=2\^16 batch (\d+) .*forward ([\d.]+) µs", line)
        if m:
            ntt.append(float(m.group(2)) / int(m.group(1)))
    lines = [l for l in open(f"{d}/ncu-gauss.csv") if l.startswith('"')]
    inst = ipc = grid = block = None
    for r in csv.DictReader(lines):
        if r["ID"] != "1":
            continue
        v = float(r["Metric Value"].replace(",", ""))
        if r["Metric Name"] == "smsp__inst_executed.sum":
            inst = v
        if r["Metric Name"] == "smsp__inst_executed.avg.per_cycle_active":
            ipc = 4 * v
        grid, block = r["Grid Size"], r["Block Size"]
    n_threads = 1
    for s in (grid, block):
        for x in re.findall(r"\d+", s):
            n_threads *= int(x)
    per_bfly = 32 * inst / (4 * n_threads * 20_000)
    dgt_floor = GAUSS_BFLY / gauss_rate * 1e6
    ntt_floor = NTT_BFLY / ntt_rate * 1e6
    dm, nm = statistics.median(dgt), statistics.median(ntt)
    rows = [
        ("compute floor, µs per forward (this call)", f"{dgt_floor:.3f} ({gauss_rate / 1e9:.1f} G Gaussian butterflies/s)",
         f"{ntt_floor:.3f} ({ntt_rate / 1e9:.0f} G lazy butterflies/s)", f"{dgt_floor / ntt_floor:.2f}×"),
        ("measured, µs per polynomial (batch 256, medians of "
         f"{len(dgt)} and {len(ntt)})", f"{dm:.3f}", f"{nm:.3f}", f"{dm / nm:.2f}×"),
        ("% of its floor", f"{100 * dgt_floor / dm:.0f}%", f"{100 * ntt_floor / nm:.0f}%", ""),
        ("goal: DGT ≤ 1.5 × NTT, µs", f"≤ {1.5 * nm:.3f}", "", ""),
        ("% of its floor the goal needs", f"{100 * dgt_floor / (1.5 * nm):.0f}%", "", ""),
    ]
    text = [f"# {title}", "", f"Written by `scripts/dgt_floor.py` from `{d}`.", "",
            f"The Gaussian floor kernel (Nsight Compute, second launch): {per_bfly:.2f} thread instructions per "
            f"Gaussian butterfly at {ipc:.2f} instructions per cycle per SM.", "",
            "| N = 2^16, forward | DGT (batched passes) | u32 NTT (default plan) | DGT / NTT |", "|---|---|---|---|"]
    text += ["| " + " | ".join(r) + " |" for r in rows]
    open(out, "w", encoding="utf-8").write("\n".join(text) + "\n")


main()
