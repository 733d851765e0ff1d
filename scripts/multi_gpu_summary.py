#!/usr/bin/env python3
"""Issue 35's floors on a multi-GPU host, from one call's files.

usage: multi_gpu_summary.py OUT.md TITLE DIR [DIR2]
DIR holds: `floor.txt` (`scripts/multi_gpu_floor.cu`), `topo.txt`
(`nvidia-smi topo -m`), `alone-W-LOGN-BATCH-R.txt` and
`both{0,1}-W-LOGN-BATCH-R.txt` (`polymul-bench profile W LOGN BATCH auto
shoup` on GPU 0 alone, then one process per GPU at once, repetition R),
and `split-alone.log`, `split-both{0,1}.log` (`bench --quick --only
split`, alone and one process per GPU at once); optionally `DIR2` (a
second call) with `whole-W-LOGN-BATCH-R.txt` and `half{0,1}-...` (the
whole batch on GPU 0 alone; half of it on each GPU at once, one process
per GPU). Every number is read from the files.
"""
import glob, os, re, statistics, sys


def profile(path):
    m = re.search(r"forward ([\d.]+) µs, inverse ([\d.]+) µs, polymul ([\d.]+) µs", open(path).read())
    return tuple(float(x) for x in m.groups())


def medians(d, kinds):
    """For each size `W-LOGN-BATCH` of `d`'s `KIND0-*` files: yields (size,
    call, {kind: median µs over the repetitions}) for forward, inverse and
    polymul, from the `KIND-SIZE-R.txt` files of each of `kinds`."""
    first = kinds[0]
    sizes = sorted({re.sub(r"-\d+\.txt$", "", os.path.basename(p))[len(first) + 1:]
                    for p in glob.glob(f"{d}/{first}-*.txt")})
    for size in sizes:
        runs = {k: [profile(p) for p in sorted(glob.glob(f"{d}/{k}-{size}-*.txt"))] for k in kinds}
        for i, call in enumerate(("forward", "inverse", "polymul")):
            yield size.replace("-", " "), call, {k: statistics.median(r[i] for r in v) for k, v in runs.items()}


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    out, title, d = sys.argv[1:4]
    lines = [f"# {title}", "", f"Written by `scripts/multi_gpu_summary.py` from `{d}`.", ""]
    floor = open(f"{d}/floor.txt").read()
    lines += ["## Copies (`multi_gpu_floor.cu`, 256 MiB each, best of 5)", "", "| copy | GB/s |", "|---|---|"]
    for m in re.finditer(r"^(h2d|d2h|peer)([^|]*)\| (.*)$", floor, re.M):
        lines.append(f"| {m.group(1)}{m.group(2).rstrip()} | {m.group(3)} |")
    link = re.search(r"^GPU0\s+X\s+(\S+)", open(f"{d}/topo.txt").read(), re.M)
    lines += ["", f"GPU 0 to GPU 1 (`nvidia-smi topo -m`): {link.group(1) if link else '?'}.", ""]
    lines += ["## Device-resident work, one process per GPU (`profile`, µs per call, medians of the repetitions)", "",
              "| W N batch | call | GPU 0 alone | GPU 0 with GPU 1 busy | GPU 1 with GPU 0 busy | two GPUs' work per time over one GPU's |",
              "|---|---|---|---|---|---|"]
    for size, call, med in medians(d, ("alone", "both0", "both1")):
        speed = med["alone"] / med["both0"] + med["alone"] / med["both1"]
        lines.append(f"| {size} | {call} | {med['alone']:.2f} | {med['both0']:.2f} | "
                     f"{med['both1']:.2f} | {speed:.2f}× |")
    lines += ["", "## Host → host (`bench --quick --only split`, the issue-34 row: u64 N = 2^16 × 1024 `polymul_into`)", "",
              "| run | polymul_into ms | × the pinned copies | host copies alone, every core (GB/s up / down) |",
              "|---|---|---|---|"]
    for name in ("split-alone", "split-both0", "split-both1"):
        t = open(f"{d}/{name}.log").read()
        m = re.search(r"split issue row: polymul_into \(output reused\): ([\d.]+) ms, ([\d.]+)×", t)
        h = re.search(r"host copies alone, every core: operands pageable → pinned \(([\d.]+) GB/s\), "
                      r"result pinned → pageable \(([\d.]+) GB/s\)", t)
        lines.append(f"| {name} | {m.group(1)} | {m.group(2)}× | {h.group(1)} / {h.group(2)} |")
    if len(sys.argv) == 5:
        d2 = sys.argv[4]
        lines += ["", f"## The batch split in halves, one process per GPU at once (`{d2}`, `profile`, µs per call, medians)", "",
                  "| W N batch | call | whole batch, GPU 0 alone | half on GPU 0 | half on GPU 1 | speedup (whole / slower half) |",
                  "|---|---|---|---|---|---|"]
        for size, call, med in medians(d2, ("whole", "half0", "half1")):
            lines.append(f"| {size} | {call} | {med['whole']:.2f} | {med['half0']:.2f} | "
                         f"{med['half1']:.2f} | {med['whole'] / max(med['half0'], med['half1']):.2f}× |")
    open(out, "w", encoding="utf-8").write("\n".join(lines) + "\n")


main()
