#!/usr/bin/env python3
"""Markdown tables of `polymul-bench profile-dgt` timings from device-call summaries.

Each input line looks like

    NAME rR LOG_N TOWERS BATCH [CONFIG]: DGT N=2^.. towers .. batch .. ...: forward X µs, polymul Y µs per call; GPU == CPU: true

(NAME: the binary, rR: the round of the alternation). For every argument
list, the median forward and polymul µs of each binary over its rounds, and
each binary's ratio to the baseline (the first binary named in --order).
Lines whose GPU result differed from the CPU's are refused.

usage: profile_dgt_table.py --order base,new[,..] [--title T] SUMMARY.txt...
"""
import argparse
import re
import statistics
import sys

LINE = re.compile(
    r"^(?P<name>[\w-]+) r(?P<round>\d+) (?P<args>[\d ,]+): DGT .*?: forward (?P<fwd>[\d.]+) µs, "
    r"polymul (?P<pm>[\d.]+) µs per call; GPU == CPU: (?P<ok>\w+)"
)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--order", required=True, help="binaries, baseline first")
    ap.add_argument("--title", default="")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    order = a.order.split(",")
    data = {}
    args_seen = []
    for f in a.files:
        for line in open(f, encoding="utf-8"):
            m = LINE.match(line.strip())
            if not m or m["name"] not in order:
                continue
            if m["ok"] != "true":
                sys.exit(f"{f}: GPU != CPU: {line.strip()}")
            key = m["args"].strip()
            if key not in args_seen:
                args_seen.append(key)
            d = data.setdefault((key, m["name"]), {"fwd": [], "pm": []})
            d["fwd"].append(float(m["fwd"]))
            d["pm"].append(float(m["pm"]))
    if a.title:
        print(f"### {a.title}\n")
    head = ["`profile-dgt` arguments (LOG_N TOWERS BATCH [CONFIG])"]
    for op in ("forward", "polymul"):
        for n in order:
            head.append(f"{op} µs, {n}")
        for n in order[1:]:
            head.append(f"{op} {n} / {order[0]}")
    head.append("rounds")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for key in args_seen:
        row = [f"`{key}`"]
        rounds = []
        for op in ("fwd", "pm"):
            med = {}
            for n in order:
                v = data.get((key, n), {}).get(op, [])
                med[n] = statistics.median(v) if v else None
                rounds.append(len(v))
                row.append(f"{med[n]:.2f}" if v else "—")
            for n in order[1:]:
                b, x = med[order[0]], med[n]
                row.append(f"{x / b:.3f}" if b and x else "—")
        row.append(str(min(rounds)))
        print("| " + " | ".join(row) + " |")
    print()
    print(f"Medians over each binary's rounds (alternated in one call); written by scripts/profile_dgt_table.py "
          f"from {', '.join(a.files)}.")


if __name__ == "__main__":
    main()
