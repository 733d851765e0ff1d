#!/usr/bin/env python3
"""Where a kernel's warps stall, from Nsight Compute's source view.

usage: ncu_stalls.py OUT.md TITLE FILE...
Each FILE is `ncu -i REPORT --page source --csv --print-source sass` of a
report taken with `--section SourceCounters` (the warp-stall samples per
SASS instruction). Per kernel: the samples, the share of each stall reason
(2% or more), and the instructions with the most samples, each with the
instruction before it (a stall is charged to the instruction that waits:
the one after the load it waits on). Every number is read from the files;
none is typed in.
"""
import csv, sys


def kernels(path):
    """[(kernel name, header, rows)] in file order, each kernel once."""
    out, seen, cur = [], set(), None
    for row in csv.reader(open(path, encoding="utf-8", errors="replace")):
        if not row:
            continue
        if row[0] == "Kernel Name":
            cur = None if row[1] in seen else {"name": row[1], "rows": []}
            seen.add(row[1])
            if cur is not None:
                out.append(cur)
        elif cur is not None and row[0] == "Address":
            cur["hdr"] = row
        elif cur is not None and "hdr" in cur:
            cur["rows"].append(row)
    return out


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, title, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    lines = [f"# {title}", "", "Written by `scripts/ncu_stalls.py` from Nsight Compute's source view.", ""]
    for path in files:
        for k in kernels(path):
            h, rows = k["hdr"], k["rows"]
            si = h.index("Warp Stall Sampling (All Samples)")
            cols = [i for i, c in enumerate(h) if c.startswith("stall_") and "Not Issued" not in c]
            val = lambda r, i: int(r[i] or 0)
            tot = sum(val(r, si) for r in rows)
            agg = sorted(((sum(val(r, i) for r in rows), h[i][6:]) for i in cols), reverse=True)
            lines += [f"## `{k['name']}` ({path.split('/')[-1]})", "",
                      f"{len(rows)} SASS instructions, {tot} samples. Stall reasons: "
                      + ", ".join(f"{n} {100 * v / max(tot, 1):.0f}%" for v, n in agg if v * 50 >= tot) + ".", "",
                      "| # | samples | % | top reason | instruction | the one before |", "|---|---|---|---|---|---|"]
            top = sorted(range(len(rows)), key=lambda i: -val(rows[i], si))[:10]
            for i in sorted(top):
                r = rows[i]
                reason = max(cols, key=lambda c: val(r, c))
                prev = rows[i - 1][1].strip() if i else ""
                lines.append(f"| {i} | {val(r, si)} | {100 * val(r, si) / max(tot, 1):.0f} | {h[reason][6:]} "
                             f"| `{r[1].strip()}` | `{prev}` |")
            lines.append("")
    open(out, "w", encoding="utf-8").write("\n".join(lines))


if __name__ == "__main__":
    main()
