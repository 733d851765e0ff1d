#!/usr/bin/env python3
"""Issue 34's one-call goals against the floors measured in the same call.

usage: one_call_floors.py OUT.md TITLE LATENCY_GPU_MD CHAIN_U64 CHAIN_U32 CHAIN_U32_4X
LATENCY_GPU_MD is `polymul-bench bench --only latency`'s gpu.md; the CHAIN
files are `scripts/chain_floor.cu`'s output in the same call for one
polynomial of 2^16 words (u64, u32) and for four (u32, the four-tower DGT).

For each row of issue 34's second table: our time (the column the goal
names), the goal, the launches of the call (read from the table's kernel
column), and three floors, each from the chain files:
  - launches: a chain of as many empty kernels (graph ×100);
  - data: a chain of as many kernels that each read and write the data once
    (graph ×100), the dependence between passes through memory included;
  - + arithmetic (NTT rows): the data floor plus the dependent stages
    (log2 N for a transform, 2 · log2 N for a product: both operands'
    forwards run side by side, then the inverse) at the measured latency of
    one stage of lazy butterflies, plus the exchanges between steps of the
    radix-4 latency passes (a pass of l stages has l / 2 steps, so l / 2 − 1
    exchanges; the product pass runs the forward and inverse row steps,
    eight steps, seven exchanges) at the measured latency of one exchange.
The structure (stages, exchanges) is the latency passes' design
(docs/latency.md); every time is read from the files.
"""
import re, sys

# (word, log N, op, towers, goal column, goal µs, stages, exchanges)
ROWS = [
    ("u64", 16, "forward", 1, "graph ×100", 5.0, 16, 6),
    ("u32", 16, "forward", 1, "graph ×100", 4.6, 16, 6),
    ("u64", 16, "polymul", 1, "graph ×100", 9.0, 32, 13),
    ("u32", 10, "DGT forward", 1, "back to back", 3.5, None, None),
    ("u32", 16, "DGT forward", 1, "back to back", 8.0, None, None),
    ("u32", 16, "DGT forward", 4, "back to back", 12.0, None, None),
    ("u32", 16, "DGT polymul", 1, "back to back", 16.0, None, None),
]
COL = {"back to back": 7, "graph ×100": 9}


def chain(path):
    kinds, lat = {}, {}
    for line in open(path, encoding="utf-8"):
        m = re.match(r"(empty|copy) (\d) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+)", line)
        if m:
            kinds[(m.group(1), int(m.group(2)))] = float(m.group(4))  # graph ×100
        m = re.match(r"bfly-latency \S+ \| [\d.]+ cycles per stage \| ([\d.]+) ns", line)
        if m:
            lat["stage"] = float(m.group(1)) / 1e3
        m = re.match(r"exchange-latency \S+ \| ([\d.]+) cycles", line)
        if m:
            lat["exchange_cycles"] = float(m.group(1))
        m = re.match(r"# SM clock attribute: (\d+) MHz", line)
        if m:
            lat["mhz"] = float(m.group(1))
    if "exchange_cycles" in lat:
        lat["exchange"] = lat["exchange_cycles"] / lat["mhz"]
    return kinds, lat


def latency_rows(path):
    out = {}
    for line in open(path, encoding="utf-8"):
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) == 13 and c[0] in ("u32", "u64"):
            out[(c[0], c[1], c[2], c[3])] = c
    return out


def launches(kernel, op):
    m = re.search(r"forward in (\d+) launch", kernel)
    if m:
        k = int(m.group(1))
        return k + 1 if op == "polymul" else k  # the product: column, product, inverse column passes
    m = re.search(r"forward (\d+), polymul (\d+) launch", kernel)
    if m:
        return int(m.group(2)) if "polymul" in op else int(m.group(1))
    return None


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    out, title, lat_md, c64, c32, c32x4 = sys.argv[1:]
    chains = {"u64": chain(c64), "u32": chain(c32), "u32x4": chain(c32x4)}
    rows = latency_rows(lat_md)
    lines = [f"# {title}", "", "Written by `scripts/one_call_floors.py` from `" + lat_md + "` and the chain files "
             f"`{c64}`, `{c32}`, `{c32x4}`.", ""]
    for key in ("u64", "u32"):
        lat = chains[key][1]
        lines.append(f"- {key}: one stage of lazy butterflies (two independent per thread) {lat['stage'] * 1e3:.1f} ns; "
                     f"one exchange (store, barrier, load, barrier) {lat['exchange_cycles']:.1f} cycles = "
                     f"{lat['exchange'] * 1e3:.1f} ns at {lat['mhz']:.0f} MHz.")
    lines += ["", "| call | goal µs | ours µs | launches | floor: launches µs | floor: data µs | "
              "floor: data + arithmetic µs | goal − data floor µs | ours − data floor µs | goal vs floor |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for word, log_n, op, towers, col, goal, stages, exchanges in ROWS:
        r = rows.get((word, f"2^{log_n}", op, str(towers)))
        if r is None:
            lines.append(f"| {word} {op} 2^{log_n} × {towers} | {goal} | (row missing) | | | | | | | |")
            continue
        ours = float(r[COL[col]])
        k = launches(r[12], op)
        ck = "u32x4" if towers == 4 else word
        kinds, lat = chains[ck]
        empty = kinds.get(("empty", k))
        # A 2^10 DGT moves 4 KiB: its data floor is its launch floor.
        data = empty if log_n == 10 else kinds.get(("copy", k))
        full, verdict = "—", ""
        if stages is not None:
            f = data + stages * lat["stage"] + exchanges * lat["exchange"]
            full = f"{f:.2f} ({data:.2f} + {stages} × {lat['stage']:.3f} + {exchanges} × {lat['exchange']:.3f})"
            verdict = "below the floor" if goal < f else "above the floor"
        else:
            verdict = "below the data floor" if goal < data else "above the data floor"
        lines.append(f"| {word} {op} 2^{log_n} × {towers} ({col}) | {goal} | {ours:.2f} | {k} | {empty:.2f} | "
                     f"{data:.2f} | {full} | {goal - data:.2f} | {ours - data:.2f} | {verdict} |")
    lines.append("")
    open(out, "w", encoding="utf-8").write("\n".join(lines))


main()
