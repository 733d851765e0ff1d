#!/usr/bin/env python3
"""Adds `.maxnreg N` to chosen kernels of a PTX module (an experiment knob).

    python3 ptx_regcap.py in.ptx out.ptx caps.json

caps.json maps entry names to register caps. With POLYMUL_KERNEL_IMAGE
pointing at the cubin `ptxas` makes of out.ptx, polymul-bench runs the
capped kernels, so code-generation choices can be measured on a GPU machine
without Rust (docs/ntt.md, "Register caps").
"""
import json
import re
import sys

src, dst, caps_file = sys.argv[1:4]
caps = json.load(open(caps_file))
lines = open(src).read().split("\n")
out, pending, done = [], None, set()
for line in lines:
    m = re.match(r"\.visible \.entry (\w+)\(", line)
    if m and m.group(1) in caps:
        pending = m.group(1)
    out.append(line)
    if pending and line.split("//")[0].strip() == ")":
        out.append(f".maxnreg {int(caps[pending])}")
        done.add(pending)
        pending = None
missing = set(caps) - done
if missing:
    sys.exit(f"entries not found: {sorted(missing)[:5]}")
open(dst, "w").write("\n".join(out))
print(f"{len(done)} entries capped")
