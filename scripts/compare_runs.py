#!/usr/bin/env python3
"""Before/after tables from interleaved benchmark runs of two binaries.

usage: compare_runs.py RUN_DIR OUT.md [TITLE [BASE NEW]]
RUN_DIR holds SECTION-{BASE,NEW}-{i}/gpu.md for the sections goals, latency,
rns, crt and split (polymul-bench's own output; a section without files is
left out) and summary.txt (the run's header). BASE and NEW name the two
binaries compared (default: base and new). Writes one
markdown page: per row, each binary's median over the repetitions, the ratio
new/base, the spread of each (max/min over repetitions), and whether the
ratio lies beyond the noise (outside both spreads). No number is typed in.
"""
import glob, os, re, statistics, sys

def tables(path):
    """Every markdown table of a gpu.md: (heading, header cells, rows)."""
    out, heading, header, rows = [], "", None, []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("#"):
            heading = line.lstrip("# ")
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if header is None:
                header = cells
            elif not all(re.fullmatch(r":?-+:?", c) for c in cells):
                rows.append(cells)
        elif header is not None:
            out.append((heading, header, rows)); header, rows = None, []
    if header is not None:
        out.append((heading, header, rows))
    return out

def num(cell):
    m = re.match(r"^(\d+(?:\.\d+)?)", cell.replace("%", ""))
    return float(m.group(1)) if m else None

def collect(run, section, key_cols, value_cols, table_pred):
    """{(binary) -> {row key -> {column -> [values over repetitions]}}}."""
    data = {}
    for d in sorted(glob.glob(os.path.join(run, f"{section}-*-*"))):
        m = re.search(rf"{section}-(\w+)-(\d+)$", d)
        if not m or not os.path.isfile(os.path.join(d, "gpu.md")):
            continue
        binary = m.group(1)
        for heading, header, rows in tables(os.path.join(d, "gpu.md")):
            if not table_pred(heading, header):
                continue
            idx = {h: i for i, h in enumerate(header)}
            for r in rows:
                key = " · ".join(r[idx[k]] for k in key_cols if k in idx)
                for c in value_cols:
                    if c in idx and idx[c] < len(r):
                        v = num(r[idx[c]])
                        if v is not None:
                            data.setdefault(binary, {}).setdefault(key, {}).setdefault(c, []).append(v)
    return data

NAMES = ["base", "new"]

def page(run, section, title, key_cols, value_cols, table_pred, lower_is_better=True):
    data = collect(run, section, key_cols, value_cols, table_pred)
    base, new = data.get(NAMES[0], {}), data.get(NAMES[1], {})
    if not new:
        return []
    reps = max((len(v) for row in new.values() for v in row.values()), default=0)
    lines = [f"## {title}", "", f"Median of {reps} interleaved repetitions per binary; spread = max/min over the repetitions; "
             "'beyond noise' when new/base lies outside 1 ± the larger spread's excess.", ""]
    lines.append(f"| row | column | base ({NAMES[0]}) | new ({NAMES[1]}) | new/base | spread base, new | beyond noise |")
    lines.append("|---|---|---|---|---|---|---|")
    worse = 0
    for key in new:
        for c in value_cols:
            b, n = base.get(key, {}).get(c), new[key].get(c)
            if not n:
                continue
            if not b:
                # A row the base binary does not have (a new measurement).
                mn, sn = statistics.median(n), max(n) / min(n) if min(n) else 1
                lines.append(f"| {key} | {c} | — | {mn:.4g} | — | —, {sn:.3f} | new row |")
                continue
            mb, mn = statistics.median(b), statistics.median(n)
            if mb == 0:
                continue
            ratio = mn / mb
            sb, sn = max(b) / min(b) if min(b) else 1, max(n) / min(n) if min(n) else 1
            noise = max(sb, sn) - 1
            beyond = abs(ratio - 1) > noise
            flag = ""
            if beyond:
                slower = ratio > 1 if lower_is_better else ratio < 1
                flag = "worse" if slower else "better"
                worse += slower
            lines.append(f"| {key} | {c} | {mb:.4g} | {mn:.4g} | {ratio:.3f} | {sb:.3f}, {sn:.3f} | {flag} |")
    lines += ["", f"Rows worse beyond noise: {worse}.", ""]
    return lines

def main():
    run, out = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) > 3 else "the issue-31 library refactor"
    if len(sys.argv) > 5:
        NAMES[:] = sys.argv[4:6]
    head = [l.rstrip() + "  " for l in open(os.path.join(run, "summary.txt"), encoding="utf-8")
            if not re.match(r"^(goals|latency|rns|crt|split) \w+ \d+ rc", l)]
    md = [f"# Before and after: {title}", "", "Written by `scripts/compare_runs.py` from the run's own files.", ""]
    md += head + [""]
    md += page(run, "goals", "Throughput (`bench --quick --only goals`): µs per polynomial, the default plan",
               ["row"], ["now (default plan)"], lambda h, hd: "row" in hd and "now (default plan)" in hd)
    md += page(run, "latency", "Latency (`bench --quick --only latency`): µs per call",
               ["word", "N", "op", "towers"],
               ["plain µs (events)", "back to back µs/call (1000 queued, one wait)", "graph replay µs (events)", "graph ×100 µs/replay"],
               lambda h, hd: "word" in hd and "plain µs (events)" in hd)
    md += page(run, "rns", "RNS products (`bench --quick --only rns`): µs per RNS polymul, residues on the device",
               ["word", "tower bits", "towers", "pairs"],
               ["µs per RNS polymul, one launch per step", "µs, one launch, row twiddles from tables", "µs, one launch, row twiddles computed"],
               lambda h, hd: "towers" in hd and "µs per RNS polymul, one launch per step" in hd)
    md += page(run, "rns", "RNS conversions (`bench --quick --only rns`): device-resident µs, host → host ms",
               ["word", "tower bits", "towers", "Q bits"],
               ["decompose µs", "CRT µs", "limbs → limbs µs (device)", "host limbs → host limbs ms"],
               lambda h, hd: "CRT µs" in hd and "kernel" not in hd)
    md += page(run, "split", "Host → host (`bench --quick --only split`): wall-clock ms",
               ["word, N", "batch", "call"], ["ms (median)"],
               lambda h, hd: "call" in hd and "ms (median)" in hd)
    md += page(run, "split", "Host → host, issue 34's row (`bench --quick --only split`): ms and × the pinned copy time",
               ["what"], ["ms (median)", "× the pinned copy time"],
               lambda h, hd: "× the pinned copy time" in hd)
    md += page(run, "rns", "CRT kernels forced one by one (`bench --quick --only rns`): µs",
               ["word", "tower bits", "towers", "Q bits", "kernel"], ["CRT µs"],
               lambda h, hd: "CRT µs" in hd and "kernel" in hd)
    md += page(run, "crt", "CRT kernels forced one by one (`bench --quick --only crt`): µs",
               ["word", "tower bits", "towers", "Q bits", "kernel"], ["CRT µs"],
               lambda h, hd: "CRT µs" in hd and "kernel" in hd)
    open(out, "w", encoding="utf-8").write("\n".join(md))

if __name__ == "__main__":
    main()
