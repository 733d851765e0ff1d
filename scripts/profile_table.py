#!/usr/bin/env python3
"""A table of `polymul-bench profile` lines.

usage: profile_table.py OUT.md TITLE FILE
FILE holds lines `TAG: uW N=2^L batch B <options> <reduction>: forward F µs,
inverse I µs, polymul P µs per call; D of T words differ from the CPU`
(TAG: what the caller prefixed, e.g. the path it forced and the repetition).
One row per (word, N, batch, tag), every repetition's three times in it.
Every number is read from FILE; none is typed in.
"""
import re, sys

LINE = re.compile(r"^(?P<tag>[^:]+): u(?P<w>\d+) N=2\^(?P<l>\d+) batch (?P<b>\d+) .*?forward (?P<f>[\d.]+) µs, "
                  r"inverse (?P<i>[\d.]+) µs, polymul (?P<p>[\d.]+) µs per call; (?P<d>\d+) of (?P<t>\d+) words differ")

def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    rows = {}
    for line in open(sys.argv[3], encoding="utf-8"):
        m = LINE.match(line)
        if m:
            tag = re.sub(r" r\d+$", "", m["tag"].strip())
            key = (int(m["w"]), int(m["l"]), int(m["b"]), tag)
            rows.setdefault(key, []).append(f'{m["f"]} / {m["i"]} / {m["p"]}' + ("" if m["d"] == "0" else f' ({m["d"]} words differ)'))
    out = [f"# {sys.argv[2]}", "", "Written by `scripts/profile_table.py` from the `profile` lines of the call's `summary.txt`. "
           "µs per call, CUDA events, median: forward / inverse / polymul, one cell per repetition; every run's words equal the CPU's unless the cell says otherwise.", "",
           "| word | N | batch | path | runs |", "|---|---|---|---|---|"]
    for (w, l, b, tag), v in sorted(rows.items()):
        out.append(f"| u{w} | 2^{l} | {b} | {tag} | " + "; ".join(v) + " |")
    open(sys.argv[1], "w", encoding="utf-8").write("\n".join(out) + "\n")

main()
