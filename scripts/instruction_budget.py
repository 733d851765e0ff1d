#!/usr/bin/env python3
"""The instruction budget of NTT kernels against the butterfly floor kernel,
from Nsight Compute's CSV metrics.

usage: instruction_budget.py OUT.md TITLE FLOOR.csv SPEC...
FLOOR.csv is `ncu --csv --metrics ...` of `polymul-bench bench --only goals`
with `-k regex:butterfly_floor` (the register-only lazy butterflies,
`Gpu::lazy_butterfly_rate`: 4 butterflies per thread per round, ROUNDS
rounds, given below). Each SPEC is `FILE:LOG_N:BATCH` for the CSV of
`polymul-bench profile W LOG_N BATCH ...` (NTT kernels, named
`..._l<stages>_...` or `..._n<log N>_...`; `profile` runs the forward,
then the inverse, then the polymul, so a forward kernel after an inverse
one belongs to a polymul: its column pass covers both operands (2 ·
BATCH polynomials) and its product pass (`_mul_`) three row transforms
(both operands' forward and the inverse)) or `FILE:dgt:BATCH` for
`profile-dgt` (per polynomial, no butterfly count). Every number is read
from the files or derived from the spec; none is typed in.

Each kernel appears once per file and grid (the first launch; `profile`
repeats its calls); the floor table keeps every launch.

Columns: warp instructions executed; thread instructions per butterfly
(32 · instructions / butterflies); IPC per SM (4 sub-partitions ·
smsp__inst_executed per active cycle); the two factors of the time against
the floor kernel at the same clock — instructions per butterfly over the
floor's, and the floor's IPC over the kernel's — whose product is the
cycles per butterfly over the floor's; the busiest pipes and the three
largest stall reasons (warps stalled per issued instruction).
"""
import csv, re, sys

ROUNDS = 20_000
STALLS = "smsp__average_warps_issue_stalled_"


def kernels(path):
    """{id: {"name", "block", "grid", metric: value}} in file order."""
    out = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [l for l in f if l.startswith('"')]
    for row in csv.DictReader(lines):
        if "Metric Name" not in row or row.get("ID") is None:
            continue
        k = out.setdefault(row["ID"], {"name": row["Kernel Name"], "block": row["Block Size"], "grid": row["Grid Size"]})
        v = row["Metric Value"].replace(",", "")
        try:
            k[row["Metric Name"]] = float(v)
        except ValueError:
            k[row["Metric Name"]] = v
    return list(out.values())


def dims(s):
    n = 1
    for x in re.findall(r"\d+", s):
        n *= int(x)
    return n


def ipc(k):
    return 4 * k.get("smsp__inst_executed.avg.per_cycle_active", float("nan"))


def pipes(k):
    ps = []
    for p in ["alu", "fma", "fmaheavy", "shared"]:
        v = k.get(f"sm__pipe_{p}_cycles_active.avg.pct_of_peak_sustained_active")
        if isinstance(v, float):
            ps.append((v, p))
    v = k.get("sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active")
    if isinstance(v, float):
        ps.append((v, "lsu"))
    ps.sort(reverse=True)
    return ", ".join(f"{p} {v:.0f}%" for v, p in ps[:3])


def stalls(k):
    s = [(v, m[len(STALLS):].replace("_per_issue_active.ratio", "")) for m, v in k.items()
         if m.startswith(STALLS) and isinstance(v, float)]
    s.sort(reverse=True)
    return ", ".join(f"{n} {v:.1f}" for v, n in s[:3])


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    out, title, floor_csv, specs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    lines = [f"# {title}", "", "Written by `scripts/instruction_budget.py` from Nsight Compute's CSV metrics "
             "(the files named in each table).", ""]
    floors = {}
    lines += [f"## The floor kernels (`{floor_csv.split('/')[-1]}`, {ROUNDS} rounds of 4 butterflies per thread)", "",
              "| kernel | grid × block | µs | G butterflies/s | thread instructions per butterfly | IPC per SM | "
              "issue % | pipes | stalls per issue |", "|---|---|---|---|---|---|---|---|---|"]
    fk = kernels(floor_csv)
    for k in fk:
        if k["name"].rsplit("_", 1)[-1] in floors:
            continue
        bf = 4 * dims(k["grid"]) * dims(k["block"]) * ROUNDS
        same = [x["gpu__time_duration.sum"] / 1e3 for x in fk if x["name"] == k["name"]]
        us = k["gpu__time_duration.sum"] / 1e3
        ipb = 32 * k["smsp__inst_executed.sum"] / bf
        word = k["name"].rsplit("_", 1)[-1]
        floors.setdefault(word, (ipb, ipc(k)))
        lines.append(f"| {k['name']} ({len(same)} launches: {min(same):.1f}–{max(same):.1f} µs) | "
                     f"{dims(k['grid'])} × {dims(k['block'])} | {us:.1f} | {bf / us / 1e3:.0f} | "
                     f"{ipb:.2f} | {ipc(k):.2f} | {k.get('smsp__issue_active.avg.pct_of_peak_sustained_active', 0):.0f} | "
                     f"{pipes(k)} | {stalls(k)} |")
    lines += ["", "Each row is the first launch of its word (the floor's warm-up: same grid, same rounds); "
              "the factors below use it.", ""]
    for spec in specs:
        path, log_n, batch = spec.rsplit(":", 2)
        batch = int(batch)
        ks = kernels(path)
        lines += [f"## `{path.split('/')[-1]}` ({'DGT' if log_n == 'dgt' else f'N = 2^{log_n}'}, batch {batch})", ""]
        if log_n == "dgt":
            lines += ["| # | kernel | grid × block | µs | µs per polynomial | warp instructions per "
                      "polynomial | IPC per SM | issue % | occupancy % | pipes | stalls per issue |",
                      "|---|---|---|---|---|---|---|---|---|---|---|"]
        else:
            lines += ["| # | kernel | grid × block | µs | thread instructions per butterfly | "
                      "× floor's | IPC per SM | floor's IPC / IPC | product | issue % | occupancy % | pipes | "
                      "stalls per issue |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        in_polymul, seen = False, set()
        for i, k in enumerate(ks):
            in_polymul = in_polymul or "_inv_" in k["name"]
            if (k["name"], k["grid"], in_polymul and "_fwd_" in k["name"]) in seen:
                continue
            seen.add((k["name"], k["grid"], in_polymul and "_fwd_" in k["name"]))
            us = k["gpu__time_duration.sum"] / 1e3
            head = f"| {i} | {k['name']} | {dims(k['grid'])} × {dims(k['block'])} | {us:.2f} |"
            tail = (f" {k.get('smsp__issue_active.avg.pct_of_peak_sustained_active', 0):.0f} | "
                    f"{k.get('sm__warps_active.avg.pct_of_peak_sustained_active', 0):.0f} | {pipes(k)} | {stalls(k)} |")
            if log_n == "dgt":
                lines.append(f"{head} {us / batch:.3f} | {k['smsp__inst_executed.sum'] / batch:,.0f} | {ipc(k):.2f} |{tail}")
                continue
            m = re.search(r"_(?:l|n)(\d+)_", k["name"])
            word = k["name"].rsplit("_", 1)[-1]
            if not m or word not in floors:
                lines.append(f"{head} ? | ? | {ipc(k):.2f} | ? | ? |{tail}")
                continue
            polys = 3 * batch if "_mul_" in k["name"] else 2 * batch if in_polymul and "_fwd_" in k["name"] else batch
            bf = polys * (1 << int(log_n)) // 2 * int(m.group(1))
            ipb = 32 * k["smsp__inst_executed.sum"] / bf
            fi, fipc = floors[word]
            lines.append(f"{head} {ipb:.2f} | {ipb / fi:.2f} | {ipc(k):.2f} | {fipc / ipc(k):.2f} | "
                         f"{ipb / fi * fipc / ipc(k):.2f} |{tail}")
        lines.append("")
    open(out, "w", encoding="utf-8").write("\n".join(lines))


main()
