#!/usr/bin/env python3
"""Summary table of a reliability run folder (issue 33): soak runs, sanitizer
runs over the soak, check-suite runs per kernel image, the ptxas reproducer.

usage: reliability_summary.py RUN_DIR OUT.md
RUN_DIR holds the device calls' own output files (c1/, c2/, ...), unchanged.
Every number in OUT.md is read from those files; none is typed in.
"""
import glob, os, re, sys

def read(p):
    with open(p, encoding="utf-8", errors="replace") as f:
        return f.read()

def field(text, name):
    m = re.search(r"^\s*" + re.escape(name) + r":\s*(.*)$", text, re.M)
    return m.group(1).strip() if m else ""

def soak_row(path):
    t = read(path)
    head = re.search(r"^soak: seed (\d+), (\d+) thread\(s\), ([\d.]+) minute\(s\), faults (\w+), hog process (\w+)", t, re.M)
    tool = re.search(r"^(memcheck|racecheck|synccheck)", os.path.basename(path).split("-", 1)[-1])
    san = re.search(r"=+ (?:ERROR SUMMARY|RACECHECK SUMMARY): (.*)", t)
    leak = re.search(r"=+ LEAK SUMMARY: (.*)", t)
    verdict = "PASS" if re.search(r"^soak: PASS", t, re.M) else ("FAIL" if re.search(r"^soak: FAIL", t, re.M) else "no summary (killed by its timeout)")
    last = re.findall(r"^soak:\s+([\d.]+) s, (\d+) calls, (\d+) coefficients, (\d+) mismatches, errors: (\d+) expected .*?, (\d+) unexpected", t, re.M)
    calls = field(t, "calls") or (last[-1][1] + " (last progress line)" if last else "")
    coeffs = field(t, "coefficients checked") or (last[-1][2] if last else "")
    mism = field(t, "mismatches") or (last[-1][3] if last else "")
    unexp = field(t, "errors, unexpected") or (last[-1][5] if last else "")
    exp = field(t, "errors, expected") or (last[-1][4] if last else "")
    stalls = re.findall(r"^soak: UNEXPECTED STALL: (.*)$", t, re.M)
    ended = re.findall(r"^soak: the stall ended after ([\d.]+ s)", t, re.M)
    replay = re.search(r"^soak: replaying (.*)$", t, re.M)
    result = re.search(r"^soak: replay: (\d+) mismatches, (\d+) unexpected errors, (\d+) coefficients", t, re.M)
    if replay:
        # One call, no faults (older binaries printed the default run's
        # header line above it, which does not apply).
        secs = re.findall(r"^rc=\d+ (\d+)s", t, re.M)
        ok = result and result.group(1) == "0" and result.group(2) == "0"
        return "| {} | soak --replay | one call, no faults: {} | {} | 1 | {} | {} | — | {} | — | {} |".format(
            os.path.relpath(path, sys.argv[1]), replay.group(1),
            (secs[-1] + " s (the process)") if secs else "?",
            result.group(3) if result else "?", result.group(1) if result else "?",
            result.group(2) if result else "?", "PASS" if ok else "FAIL")
    if stalls:
        verdict += "; stall watch: " + "; ".join(stalls) + (", ended after " + ", ".join(ended) if ended else ", never ended")
    return "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
        os.path.relpath(path, sys.argv[1]),
        ("compute-sanitizer " + tool.group(1)) if tool else "soak",
        "seed {}, {} threads, {} min, faults {}, hog process {}".format(*head.groups()) if head else "?",
        field(t, "duration") or (last[-1][0] + " s (last progress line)" if last else "?"),
        calls, coeffs, mism, exp, unexp,
        (san.group(1) + ("; leaks: " + leak.group(1) if leak else "")) if san else "—",
        verdict + ("; memory: " + field(t, "device free memory") if field(t, "device free memory") else ""))

def check_row(path):
    t = read(path)
    dev = re.search(r"^device: .*?kernels: (.*?), context \+ module load ([\d.]+ s)", t, re.M)
    counts = re.findall(r"^(\d+) passed, (\d+) failed", t, re.M)
    npass = len(re.findall(r"^PASS ", t, re.M))
    nfail = len(re.findall(r"^FAIL ", t, re.M))
    rc = re.findall(r"^rc=(\d+)", t, re.M)
    return "| {} | {} | {} | {} | {} | {} |".format(
        os.path.relpath(path, sys.argv[1]),
        os.path.basename(dev.group(1)) if dev else "?",
        dev.group(2) if dev else "?",
        "{} passed, {} failed".format(*counts[-1]) if counts else f"no total (PASS lines {npass}, FAIL lines {nfail})",
        rc[-1] if rc else "?",
        "complete" if counts else "cut by its timeout")

def san_check_row(path):
    """compute-sanitizer over a check-suite part: its tool, totals, summary."""
    t = read(path)
    tool = re.search(r"(memcheck|racecheck|synccheck)", os.path.basename(path))
    counts = re.findall(r"^(\d+) passed, (\d+) failed", t, re.M)
    san = re.findall(r"=+ (?:ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY): (.*)", t)
    rc = re.findall(r"^rc=(\d+)", t, re.M)
    return "| {} | {} | {} | {} | {} |".format(
        os.path.relpath(path, sys.argv[1]), tool.group(1) if tool else "?",
        "{} passed, {} failed".format(*counts[-1]) if counts else "no total",
        "; ".join(san) if san else "no summary", rc[-1] if rc else "?")

def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    d = sys.argv[1]
    files = sorted(glob.glob(os.path.join(d, "*", "*.txt")))
    out = ["# Reliability run: summary", "", "Written by `scripts/reliability_summary.py` from the files beside it.", ""]
    out += ["## Soak runs", "", "| file | tool | run | duration | calls | coefficients | mismatches | expected errors (OOM under a fault) | unexpected errors | sanitizer | verdict |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    soaks = [f for f in files if re.search(r"(soak|san|memcheck|racecheck|synccheck)", os.path.basename(f))]
    out += [soak_row(f) for f in soaks if re.search(r"^soak: ", read(f), re.M)]
    out += ["", "## Sanitizers over check-suite parts", "", "| file | tool | checks | sanitizer | exit |", "|---|---|---|---|---|"]
    out += [san_check_row(f) for f in soaks if not re.search(r"^soak: ", read(f), re.M)]
    prof = [f for f in files if os.path.basename(f).startswith("prof-")]
    if prof:
        out += ["", "## `polymul-bench profile` lines", "", "| file | line |", "|---|---|"]
        out += ["| {} | {} |".format(os.path.relpath(f, d), l.replace("|", "/"))
                for f in prof for l in read(f).splitlines() if " per call; " in l]
    out += ["", "## Check suite per kernel image", "", "| file | kernels | context + module load | checks | exit | |", "|---|---|---|---|---|---|"]
    out += [check_row(f) for f in files if os.path.basename(f).startswith("check-")]
    repro = [f for f in files if os.path.basename(f) == "repro.txt"]
    if repro:
        out += ["", "## ptxas reproducer (tools/ptxas-repro/run.sh; the second block: magic 0x100000001)", "", "```"]
        out += [l for l in read(repro[0]).splitlines() if re.match(r"^(repro|control)\.|^this machine", l)]
        out += ["```"]
    open(sys.argv[2], "w", encoding="utf-8").write("\n".join(out) + "\n")

main()
