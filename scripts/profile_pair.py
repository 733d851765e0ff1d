#!/usr/bin/env python3
"""Two variants' `polymul-bench profile` lines side by side.

usage: profile_pair.py OUT.md TITLE BASE NEW FILE
FILE holds lines `TAG rR: uW N=2^L batch B <options> <reduction>: forward F µs,
inverse I µs, polymul P µs per call; D of T words differ from the CPU`, where
TAG is BASE or NEW (other tags are ignored) and R the repetition. One row per
(word, N, batch): each variant's polymul in every repetition, the ratio
BASE / NEW of their best polymul (above 1: NEW faster), and the same ratio for
the forward and the inverse. Every number is read from FILE; none is typed in.
"""
import re, sys

LINE = re.compile(r"^(?P<tag>\S+) r(?P<r>\d+): u(?P<w>\d+) N=2\^(?P<l>\d+) batch (?P<b>\d+) .*?forward (?P<f>[\d.]+) µs, "
                  r"inverse (?P<i>[\d.]+) µs, polymul (?P<p>[\d.]+) µs per call; (?P<d>\d+) of (?P<t>\d+) words differ")


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    _, out, title, base, new, path = sys.argv
    rows, differ = {}, 0
    for line in open(path, encoding="utf-8"):
        m = LINE.match(line)
        if not m or m["tag"] not in (base, new):
            continue
        differ += m["d"] != "0"
        key = (int(m["w"]), int(m["l"]), int(m["b"]))
        rows.setdefault(key, {base: [], new: []})[m["tag"]].append((float(m["f"]), float(m["i"]), float(m["p"])))
    lines = [f"# {title}", "",
             f"Written by `scripts/profile_pair.py` from the call's `profile` lines. µs per call, CUDA events, "
             f"median of the run's repetitions; polymul in every repetition of each variant; ratios {base} / {new} "
             f"of the best repetition (above 1: {new} faster). Runs whose words differ from the CPU: {differ}.", "",
             f"| word | N | batch | words | polymul {base} | polymul {new} | polymul ratio | forward ratio | inverse ratio |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (w, l, b), v in sorted(rows.items()):
        if not v[base] or not v[new]:
            continue
        best = lambda tag, k: min(x[k] for x in v[tag])
        ratio = lambda k: f"{best(base, k) / best(new, k):.2f}"
        cell = lambda tag: " / ".join(f"{x[2]:.2f}" for x in v[tag])
        words = b << l
        lw = words.bit_length() - 1
        wtxt = f"2^{lw}" if words == 1 << lw else f"{words / (1 << lw):.2g}·2^{lw}"
        lines.append(f"| u{w} | 2^{l} | {b} | {wtxt} | {cell(base)} | {cell(new)} | **{ratio(2)}** | {ratio(0)} | {ratio(1)} |")
    open(out, "w", encoding="utf-8").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
