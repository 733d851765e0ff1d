#!/usr/bin/env python3
"""Several variants' `polymul-bench profile` lines against one base.

usage: profile_variants.py OUT.md TITLE BASE FILE
FILE holds lines `TAG rR: uW N=2^L batch B <options> <reduction>: forward F µs,
inverse I µs, polymul P µs per call; D of T words differ from the CPU`, where
TAG names the variant and R the repetition. One row per (word, N, batch): the
base's best polymul, forward and inverse (µs), then for every other tag the
ratios TAG / BASE of the best repetition (below 1: TAG faster), polymul,
forward and inverse, and the base's spread (max / min over its repetitions,
the largest of its three times), to read the ratios against. Every number is
read from FILE; none is typed in.
"""
import sys

from profile_pair import LINE  # the same `profile` lines, tagged `TAG rR:`


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    _, out, title, base, path = sys.argv
    rows, tags, differ = {}, [], 0
    for line in open(path, encoding="utf-8"):
        m = LINE.match(line)
        if not m:
            continue
        differ += m["d"] != "0"
        if m["tag"] not in tags:
            tags.append(m["tag"])
        key = (int(m["w"]), int(m["l"]), int(m["b"]))
        rows.setdefault(key, {}).setdefault(m["tag"], []).append((float(m["f"]), float(m["i"]), float(m["p"])))
    others = [t for t in tags if t != base]
    head = "| word | N | batch | " + f"{base} polymul / forward / inverse | " + \
        " | ".join(f"{t} / {base}: polymul, forward, inverse" for t in others) + f" | {base} spread |"
    lines = [f"# {title}", "",
             f"Written by `scripts/profile_variants.py` from the call's `profile` lines. µs per call, CUDA events, "
             f"median of the run's repetitions; each variant's best repetition; ratios variant / {base} "
             f"(below 1: the variant faster). Runs whose words differ from the CPU: {differ}.", "",
             head, "|" + "---|" * (5 + len(others))]
    for (w, l, b), v in sorted(rows.items()):
        if base not in v:
            continue
        best = lambda tag, k: min(x[k] for x in v[tag])
        spread = max(max(x[k] for x in v[base]) / best(base, k) for k in range(3))
        cells = []
        for t in others:
            if t not in v:
                cells.append("—")
                continue
            r = [best(t, k) / best(base, k) for k in (2, 0, 1)]
            cells.append(", ".join((f"**{x:.2f}**" if abs(x - 1) > 0.05 else f"{x:.2f}") for x in r))
        bb = " / ".join(f"{best(base, k):.2f}" for k in (2, 0, 1))
        lines.append(f"| u{w} | 2^{l} | {b} | {bb} | " + " | ".join(cells) + f" | {spread:.3f} |")
    lines += ["", "Bold: more than 5% from the base."]
    open(out, "w", encoding="utf-8").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
