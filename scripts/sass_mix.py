#!/usr/bin/env python3
"""Static SASS instruction mix of kernels, by opcode class.

usage: sass_mix.py OUT.md TITLE SASS_FILE KERNEL...
SASS_FILE is `nvdisasm -c` of a cubin (for instance `ptxas -arch=sm_90 -O3
polymul_kernels_sm_90.ptx -o k.cubin && nvdisasm -c k.cubin`). For each
kernel: the instructions of its body (NOPs and the trailing `BRA` to itself
excluded) by class, and the branches, so that a kernel with no loop can be
read as one thread's dynamic count. Every number is counted from the file.
"""
import re, sys
from collections import Counter

CLASSES = [
    ("global memory", ("LDG", "STG", "LD", "ST", "LDGSTS")),
    ("shared memory", ("LDS", "STS", "LDSM")),
    ("local memory (spills)", ("LDL", "STL")),
    ("multiply (IMAD, IMUL)", ("IMAD", "IMUL")),
    ("add, compare, select", ("IADD3", "IADD", "VIADD", "ISETP", "SEL", "VIMNMX", "VIADDMNMX", "IMNMX", "FSEL")),
    ("shift, logic, address", ("SHF", "LOP3", "LEA", "PRMT", "BMSK")),
    ("moves and constants", ("MOV", "S2R", "S2UR", "LDC", "ULDC", "CS2R", "R2UR", "HFMA2", "UMOV")),
    ("uniform datapath", ("UIADD3", "USHF", "ULOP3", "UISETP", "ULEA", "UIMAD", "USEL")),
    ("control (barriers, branches)", ("BAR", "BRA", "BSSY", "BSYNC", "EXIT", "WARPSYNC", "MEMBAR", "ERRBAR", "CCTL")),
]


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    out, title, sass, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    text = open(sass, encoding="utf-8", errors="replace").read()
    funcs = {f.split(":")[0].strip(): f for f in re.split(r"\n\s*\.text\.", text)}
    lines = [f"# {title}", "", f"Written by `scripts/sass_mix.py` from `{sass.split('/')[-1]}`.", "",
             "| kernel | instructions | branches | " + " | ".join(c for c, _ in CLASSES) + " | other |",
             "|---" * (4 + len(CLASSES)) + "|"]
    for name in names:
        ops = Counter()
        for m in re.finditer(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", funcs.get(name, "")):
            ops[m.group(1)] += 1
        ops.pop("NOP", None)
        ops["BRA"] -= 1  # the trailing branch to itself
        total = sum(ops.values())
        cells, used = [], set()
        for _, members in CLASSES:
            cells.append(str(sum(ops[o] for o in members)))
            used.update(members)
        other = sum(v for o, v in ops.items() if o not in used)
        lines.append(f"| {name} | {total} | {ops['BRA']} | " + " | ".join(cells) + f" | {other} |")
    open(out, "w", encoding="utf-8").write("\n".join(lines) + "\n")


main()
